package io.delayq.server.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that works on queues and jobs: it opens the {@link Backend} the connection options name,
 * runs, and turns a {@link CliException} into its exit code and one line on stderr, prefixed with
 * the command's name ({@code delayq get: …}).
 */
abstract class BackendCommand implements Callable<Integer> {
  @Mixin ConnectionOptions connection;

  @Spec CommandSpec spec;

  /** Checks and reads the arguments before anything is connected; throws {@link CliException}. */
  void prepare() {}

  /** Does the command's work; returns the exit code. */
  abstract int run(Backend backend);

  @Override
  public final Integer call() {
    try {
      prepare();
      try (Backend backend = connection.open()) {
        return run(backend);
      }
    } catch (CliException e) {
      err().println(TerminalText.line(spec.qualifiedName() + ": " + e.getMessage()));
      return e.exitCode();
    } catch (RuntimeException e) {
      err().println(TerminalText.line(spec.qualifiedName() + ": unexpected error: " + e
          + ". Please report it with the command you ran"));
      if (System.getenv("DELAYQ_DEBUG") != null) {
        e.printStackTrace(err());
      }
      return ExitCodes.FAILED;
    } finally {
      out().flush();
      err().flush();
    }
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  PrintWriter err() {
    return spec.commandLine().getErr();
  }
}
