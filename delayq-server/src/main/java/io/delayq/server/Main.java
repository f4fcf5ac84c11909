package io.delayq.server;

import io.delayq.server.cli.AdoptCommand;
import io.delayq.server.cli.CancelCommand;
import io.delayq.server.cli.DeadCommand;
import io.delayq.server.cli.DeleteQueueCommand;
import io.delayq.server.cli.ForwardCommand;
import io.delayq.server.cli.EnqueueCommand;
import io.delayq.server.cli.ExitCodes;
import io.delayq.server.cli.GetCommand;
import io.delayq.server.cli.JobsCommand;
import io.delayq.server.cli.PauseCommand;
import io.delayq.server.cli.RescheduleCommand;
import io.delayq.server.cli.ResumeCommand;
import io.delayq.server.cli.ScheduleCommand;
import io.delayq.server.cli.StatsCommand;
import io.delayq.server.cli.TerminalText;
import io.delayq.server.demo.DemoCommand;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
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
      JobsCommand.class,
      StatsCommand.class,
      DeadCommand.class,
      PauseCommand.class,
      ResumeCommand.class,
      DeleteQueueCommand.class,
      ForwardCommand.class,
      ScheduleCommand.class,
      AdoptCommand.class,
      HelpCommand.class
    },
    footer = {
      "",
      "serve is the default command: `delayq` alone, or with serve's options first (`delayq --port 8080`),"
          + " runs the server.",
      "",
      "The job commands talk to Redis directly with --redis URL (or REDIS_URL), otherwise to a running"
          + " `delayq serve` at --server URL (or DELAYQ_SERVER, default http://127.0.0.1:7070), with --token"
          + " if it needs one. `delayq help COMMAND` or `delayq COMMAND --help` tells more.",
      "",
      "Exit codes: 0 done, 1 failed (server or Redis unreachable), 2 usage error, 3 not found, 4 conflict,"
          + " 5 unauthorized, 6 outcome unknown (no answer in time: the change may or may not have been made;"
          + " an enqueue made with --keep may be repeated as it was).",
      "",
      "Environment (an option on the command line wins):",
      "  REDIS_URL          the job commands' --redis, serve's --redis",
      "  DELAYQ_SERVER      the job commands' --server (default http://127.0.0.1:7070)",
      "  DELAYQ_TOKEN       --token: the server's bearer token (serve's and the client's)",
      "  DELAYQ_TOKEN_FILE  --token-file: a file holding that token",
      "  DELAYQ_PORT, DELAYQ_BIND, DELAYQ_DATA_DIR  serve's --port, --bind, --data-dir",
      "  DELAYQ_DEBUG       set to anything: print stack traces of unexpected errors",
      "  JAVA_OPTS          JVM options for the `delayq` launcher script, e.g. -Xmx512m",
      "",
      "Examples:",
      "  delayq --port 7070",
      "  delayq enqueue orders '{\"order\":42}' --id order-42 --delay 30m",
      "  delayq jobs ls orders --state due",
      "  delayq stats",
      "  DELAYQ_SERVER=http://10.0.0.5:7070 delayq dead list orders --token-file tok",
      "  delayq demo"
    })
public final class Main implements Runnable {
  private static final String DEFAULT_COMMAND = "serve";

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line and returns its exit code; {@code serve} is assumed when no command is given. */
  public static int run(String... args) {
    CommandLine cli = new CommandLine(new Main())
        .setCaseInsensitiveEnumValuesAllowed(true)
        // why: `enqueue q @body.json` reads the payload from a file; picocli must not expand it as an argument file
        .setExpandAtFiles(false)
        // why: colours are ESC sequences, and the writers below escape every ESC
        .setColorScheme(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF));
    cli.setOut(TerminalText.printWriter(cli.getOut()));
    cli.setErr(TerminalText.printWriter(cli.getErr()));
    String[] effective = withDefaultCommand(cli, args);
    cli.setParameterExceptionHandler((e, given) -> usageError(e, args, effective != args));
    try {
      return cli.execute(effective);
    } finally {
      cli.getOut().flush();
      cli.getErr().flush();
    }
  }

  /**
   * The arguments with {@code serve} put in front when no command is named: none at all, or a first
   * argument that is one of serve's options ({@code --port 8080}, {@code --port=8080}). The root's
   * own options (-h, -V) and anything unknown to both stay the root's.
   */
  static String[] withDefaultCommand(CommandLine cli, String[] args) {
    if (args.length == 0) {
      return new String[] {DEFAULT_COMMAND};
    }
    String first = args[0];
    if (!first.startsWith("-") || first.equals("-") || first.equals("--")) {
      return args;
    }
    String name = first.contains("=") ? first.substring(0, first.indexOf('=')) : first;
    boolean rootOption = cli.getCommandSpec().findOption(name) != null;
    boolean serveOption = cli.getSubcommands().get(DEFAULT_COMMAND).getCommandSpec().findOption(name) != null;
    if (rootOption || !serveOption) {
      return args;
    }
    return Stream.concat(Stream.of(DEFAULT_COMMAND), Arrays.stream(args)).toArray(String[]::new);
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /**
   * A usage error: one line that says what was wrong and where the help is, exit code 2.
   *
   * @param args the arguments as given
   * @param serveAssumed whether serve was put in front of them
   */
  private static int usageError(ParameterException e, String[] args, boolean serveAssumed) {
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
    if (e instanceof UnmatchedArgumentException unmatched) {
      String misplaced = serveAssumed ? misplacedCommand(command, unmatched.getUnmatched()) : null;
      if (misplaced != null) {
        List<String> given = Arrays.asList(args);
        int at = given.indexOf(misplaced);
        hint = "; put the options after the command: delayq "
            + String.join(" ", Stream.concat(given.subList(at, given.size()).stream(), given.subList(0, at).stream())
                .toList());
      } else if (!unmatched.getSuggestions().isEmpty()) {
        hint = "; did you mean "
            + String.join(" or ", unmatched.getSuggestions().stream().map(s -> "'" + s + "'").toList()) + "?";
      }
    }
    command.getErr().println(TerminalText.line(name + ": " + message + ". See '" + name + " --help'" + hint));
    command.getErr().flush();
    return ExitCodes.USAGE;
  }

  /** A command name among serve's unmatched arguments: `delayq --token x stats` meant `delayq stats --token x`. */
  private static String misplacedCommand(CommandLine serve, List<String> unmatched) {
    CommandLine root = serve.getParent();
    return root == null
        ? null
        : unmatched.stream().filter(arg -> root.getSubcommands().containsKey(arg)).findFirst().orElse(null);
  }

  /** The project's version, from the resource the build writes, else from the jar's manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = fromResource();
      if (version == null) {
        version = Main.class.getPackage().getImplementationVersion();
      }
      return new String[] {"delayq " + (version == null ? "development build" : version)};
    }

    private static String fromResource() {
      try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
        if (in == null) {
          return null;
        }
        Properties properties = new Properties();
        properties.load(in);
        String version = properties.getProperty("version");
        // why: an unfiltered copy (an IDE that skips the build's filtering) still holds the placeholder
        return version == null || version.isBlank() || version.startsWith("${") ? null : version.strip();
      } catch (IOException e) {
        return null;
      }
    }
  }
}
