package io.delayq.server;

import io.delayq.server.cli.CancelCommand;
import io.delayq.server.cli.DeadCommand;
import io.delayq.server.cli.EnqueueCommand;
import io.delayq.server.cli.ExitCodes;
import io.delayq.server.cli.GetCommand;
import io.delayq.server.cli.PauseCommand;
import io.delayq.server.cli.RescheduleCommand;
import io.delayq.server.cli.ResumeCommand;
import io.delayq.server.cli.StatsCommand;
import io.delayq.server.demo.DemoCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The {@code delayq} command: {@code serve} (the default) runs the HTTP server, {@code demo} the
 * self-cancelling-orders demo, and the other subcommands manage queues and jobs, talking to Redis
 * directly or to a running server. Exit codes: 0 done, 1 failed, 2 usage error, 3 not found, 4
 * conflict, 5 unauthorized, 6 outcome unknown.
 */
@Command(
    name = "delayq",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Delayed jobs on Redis: run the server, or manage queues and jobs.",
    subcommands = {
      ServeCommand.class,
      DemoCommand.class,
      EnqueueCommand.class,
      GetCommand.class,
      CancelCommand.class,
      RescheduleCommand.class,
      StatsCommand.class,
      DeadCommand.class,
      PauseCommand.class,
      ResumeCommand.class
    },
    footer = {
      "",
      "The job commands talk to Redis directly with --redis URL (or REDIS_URL), otherwise to a running"
          + " `delayq serve` at --server URL (or DELAYQ_SERVER, default http://127.0.0.1:7070), with --token"
          + " if it needs one. `delayq COMMAND --help` tells more.",
      "",
      "Exit codes: 0 done, 1 failed (server or Redis unreachable), 2 usage error, 3 not found, 4 conflict,"
          + " 5 unauthorized, 6 outcome unknown (no answer in time: the change may or may not have been made;"
          + " an enqueue made with --keep may be repeated as it was).",
      "",
      "Examples:",
      "  java -jar delayq-server.jar serve --port 7070",
      "  delayq enqueue orders '{\"order\":42}' --id order-42 --delay 30m",
      "  delayq stats",
      "  delayq demo"
    })
public final class Main implements Runnable {

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line and returns its exit code; {@code serve} is assumed when no command is given. */
  public static int run(String... args) {
    String[] effective = args.length == 0 ? new String[] {"serve"} : args;
    return new CommandLine(new Main())
        .setCaseInsensitiveEnumValuesAllowed(true)
        // why: `enqueue q @body.json` reads the payload from a file; picocli must not expand it as an argument file
        .setExpandAtFiles(false)
        .setParameterExceptionHandler(Main::usageError)
        .execute(effective);
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /** A usage error: one line that says what was wrong and where the help is, exit code 2. */
  private static int usageError(ParameterException e, String[] args) {
    CommandLine command = e.getCommandLine();
    String name = command.getCommandSpec().qualifiedName();
    String message = e.getMessage().strip().replaceAll("\\s*\\R\\s*", " ");
    if (message.startsWith("Error: ")) {
      message = message.substring("Error: ".length());
    }
    if (message.endsWith(".")) {
      message = message.substring(0, message.length() - 1);
    }
    String hint = "";
    if (e instanceof UnmatchedArgumentException unmatched && !unmatched.getSuggestions().isEmpty()) {
      hint = "; did you mean "
          + String.join(" or ", unmatched.getSuggestions().stream().map(s -> "'" + s + "'").toList()) + "?";
    }
    command.getErr().println(name + ": " + message + ". See '" + name + " --help'" + hint);
    command.getErr().flush();
    return ExitCodes.USAGE;
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = Main.class.getPackage().getImplementationVersion();
      return new String[] {"delayq " + (version == null ? "development build" : version)};
    }
  }
}
