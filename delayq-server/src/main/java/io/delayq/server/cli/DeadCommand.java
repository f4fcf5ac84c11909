package io.delayq.server.cli;

import io.delayq.JobInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code delayq dead list|requeue|delete}: the dead-letter set of a queue. */
@Command(
    name = "dead",
    mixinStandardHelpOptions = true,
    description = {
      "Lists, requeues or deletes dead jobs.",
      "The dead-letter set holds the jobs that used all their attempts."
    },
    subcommands = {DeadCommand.ListDead.class, DeadCommand.Requeue.class, DeadCommand.Delete.class},
    footer = {
      "",
      "Examples:",
      "  delayq dead list orders",
      "  delayq dead requeue orders order-42",
      "  delayq dead delete orders order-42"
    })
public final class DeadCommand {
  /** Longest last error shown in the table; {@code delayq get} shows it whole. */
  static final int ERROR_WIDTH = 60;

  /** {@code delayq dead list <queue>}. */
  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = {
        "Lists a queue's dead jobs, newest first.",
        "Columns: id, attempts, when it died, its last error (abbreviated; `delayq get` shows it whole)."
      },
      footer = {
        "",
        "Examples:",
        "  delayq dead list orders",
        "  delayq dead list orders --limit 1000 --json | jq -r '.[].id'"
      })
  public static final class ListDead extends BackendCommand {
    @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue.")
    String queue;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
        description = "Most jobs to show, 1 to 1000 (default ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--json", description = "Print the HTTP API's JSON job views instead of a table.")
    boolean json;

    @Override
    void prepare() {
      if (limit < 1 || limit > 1000) {
        throw CliException.usage("--limit must be from 1 to 1000; got " + limit);
      }
    }

    @Override
    int run(Backend backend) {
      List<JobInfo> jobs = backend.deadJobs(queue, limit);
      if (json) {
        out().println(JobJson.jobs(jobs));
      } else if (jobs.isEmpty()) {
        out().println("no dead jobs in queue " + queue);
      } else {
        out().print(table(jobs, Instant.now()));
      }
      return ExitCodes.OK;
    }

    static String table(List<JobInfo> jobs, Instant now) {
      List<List<String>> rows = new ArrayList<>();
      for (JobInfo job : jobs) {
        rows.add(List.of(job.id(), job.attempts() + "/" + job.maxAttempts(), Format.instant(job.deadAt()),
            Format.abbreviate(job.lastError(), ERROR_WIDTH)));
      }
      return Format.table(List.of("ID", "ATTEMPTS", "DEAD AT", "LAST ERROR"), rows, 1);
    }
  }

  /** {@code delayq dead requeue <queue> <id>}. */
  @Command(
      name = "requeue",
      mixinStandardHelpOptions = true,
      description = {
        "Gives a dead job a fresh set of attempts, due now.",
        "Exit code 3 when no dead job has that id."
      },
      footer = {"", "Examples:", "  delayq dead requeue orders order-42"})
  public static final class Requeue extends BackendCommand {
    @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue.")
    String queue;

    @Parameters(index = "1", paramLabel = "ID", description = "The dead job's id.")
    String id;

    @Override
    int run(Backend backend) {
      backend.requeueDead(queue, id);
      out().println("requeued " + id + " in queue " + queue + ": due now, with a fresh set of attempts");
      return ExitCodes.OK;
    }
  }

  /** {@code delayq dead delete <queue> <id>}. */
  @Command(
      name = "delete",
      mixinStandardHelpOptions = true,
      description = {"Deletes a dead job for good.", "Exit code 3 when no dead job has that id."},
      footer = {"", "Examples:", "  delayq dead delete orders order-42"})
  public static final class Delete extends BackendCommand {
    @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue.")
    String queue;

    @Parameters(index = "1", paramLabel = "ID", description = "The dead job's id.")
    String id;

    @Override
    int run(Backend backend) {
      backend.deleteDead(queue, id);
      out().println("deleted dead job " + id + " from queue " + queue);
      return ExitCodes.OK;
    }
  }
}
