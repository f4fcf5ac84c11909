package io.delayq.server.cli;

import io.delayq.QueueStats;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code delayq stats [queue…]}: a table of counts, one row per queue. */
@Command(
    name = "stats",
    mixinStandardHelpOptions = true,
    description = {
      "Shows every queue's counts as a table.",
      "Columns: partitions; jobs scheduled (waiting, due or not), due (waiting for a worker), active (held"
          + " by a worker), expired (their lease ended without an ack: the worker died or was too slow; the next"
          + " claim schedules them again), dead; whether claiming is paused. Name queues to show only those: the"
          + " ones that exist are shown, each missing one is named on stderr, and the exit code is then 3."
    },
    footer = {
      "",
      "Examples:",
      "  delayq stats",
      "  delayq stats orders reminders",
      "  delayq stats --json --redis redis://127.0.0.1:6379"
    })
public final class StatsCommand extends BackendCommand {
  @Parameters(paramLabel = "QUEUE", arity = "0..*", description = "Queues to show; all when none is named.")
  List<String> queues = new ArrayList<>();

  @Option(names = "--json", description = "Print the HTTP API's JSON stats array instead of a table.")
  boolean json;

  @Override
  int run(Backend backend) {
    List<QueueStats> stats = new ArrayList<>();
    List<String> missing = new ArrayList<>();
    if (queues.isEmpty()) {
      stats = backend.stats();
    } else {
      for (String queue : queues) {
        try {
          stats.add(backend.stats(queue));
        } catch (CliException e) {
          // why: one mistyped name must not hide the counts of the others
          if (e.exitCode() != ExitCodes.NOT_FOUND) {
            throw e;
          }
          missing.add(e.getMessage());
        }
      }
    }
    if (json) {
      out().println(JobJson.stats(stats));
    } else if (!stats.isEmpty()) {
      out().print(table(stats));
    } else if (missing.isEmpty()) {
      out().println("no queues yet on " + backend.target() + "; `delayq enqueue` creates one");
    }
    for (String message : missing) {
      err().println(TerminalText.line(spec.qualifiedName() + ": " + message));
    }
    return missing.isEmpty() ? ExitCodes.OK : ExitCodes.NOT_FOUND;
  }

  static String table(List<QueueStats> stats) {
    List<List<String>> rows = new ArrayList<>();
    for (QueueStats s : stats) {
      rows.add(List.of(s.queue(), Long.toString(s.partitions()), Long.toString(s.scheduled()), Long.toString(s.due()),
          Long.toString(s.active()), Long.toString(s.expired()), Long.toString(s.dead()), s.paused() ? "yes" : "no"));
    }
    return Format.table(List.of("QUEUE", "PARTITIONS", "SCHEDULED", "DUE", "ACTIVE", "EXPIRED", "DEAD", "PAUSED"),
        rows, 1, 2, 3, 4, 5, 6);
  }
}
