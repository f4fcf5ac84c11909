package io.delayq.server.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import io.delayq.JobInfo;
import io.delayq.server.cli.Backend.JobPage;
import io.delayq.server.cli.Backend.ListedState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code delayq jobs ls}: a queue's jobs in one state, page by page. */
@Command(
    name = "jobs",
    mixinStandardHelpOptions = true,
    description = {"Lists a queue's jobs by state."},
    subcommands = {JobsCommand.ListJobs.class},
    footer = {
      "",
      "Examples:",
      "  delayq jobs ls orders",
      "  delayq jobs ls orders --state dead --all --json | jq -r '.jobs[].id'"
    })
public final class JobsCommand {
  /** Longest payload shown in the table; {@code delayq get} shows it whole. */
  static final int PAYLOAD_WIDTH = 40;
  static final int MAX_LIMIT = 1000;

  /** {@code delayq jobs ls <queue>}. */
  @Command(
      name = "ls",
      aliases = "list",
      mixinStandardHelpOptions = true,
      description = {
        "Lists a queue's jobs in one state, one page of --limit jobs, or every page with --all.",
        "Columns: id, due time, attempts made of the most allowed, lease end (active jobs), payload"
            + " (abbreviated; `delayq get` shows it whole). Exit code 3 when there is no such queue."
      },
      footer = {
        "",
        "Examples:",
        "  delayq jobs ls orders",
        "  delayq jobs ls orders --state due --limit 20",
        "  delayq jobs ls orders --state active --all --json | jq -r '.jobs[].leaseUntil'"
      })
  public static final class ListJobs extends BackendCommand {
    @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue.")
    String queue;

    @Option(names = "--state", paramLabel = "STATE", defaultValue = "scheduled",
        description = "scheduled (the default: waiting, due or not), due (waiting for a worker), active (held by"
            + " a worker) or dead.")
    ListedState state;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
        description = "Jobs per page, 1 to " + MAX_LIMIT + " (default ${DEFAULT-VALUE}); without --all only the"
            + " first page is shown.")
    int limit;

    @Option(names = "--all", description = "Follow the pages to the last one.")
    boolean all;

    @Option(names = "--json",
        description = "Print {\"jobs\":[…],\"nextCursor\"} with the HTTP API's JSON job views; with --all, every job"
            + " and a null nextCursor.")
    boolean json;

    @Override
    void prepare() {
      if (limit < 1 || limit > MAX_LIMIT) {
        throw CliException.usage("--limit must be from 1 to " + MAX_LIMIT + "; got " + limit);
      }
    }

    @Override
    int run(Backend backend) {
      Function<String, JobPage> source = cursor -> backend.listJobs(queue, state, cursor, limit);
      if (json) {
        printJson(source);
      } else {
        printTable(source);
      }
      return ExitCodes.OK;
    }

    private void printJson(Function<String, JobPage> source) {
      try (JsonGenerator json = JobJson.generator(out())) {
        json.writeStartObject();
        json.writeArrayFieldStart("jobs");
        String next = pages(source, all, page -> {
          for (JobInfo job : page.jobs()) {
            JobJson.write(json, job);
          }
        });
        json.writeEndArray();
        json.writeStringField("nextCursor", next);
        json.writeEndObject();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      out().println();
    }

    private void printTable(Function<String, JobPage> source) {
      boolean leases = state == ListedState.ACTIVE;
      List<String> header = new ArrayList<>(List.of("ID", "DUE", "ATTEMPTS"));
      if (leases) {
        header.add("LEASE UNTIL");
      }
      header.add("PAYLOAD");
      int[][] widths = {null};
      Instant now = Instant.now();
      String next = pages(source, all, page -> {
        List<List<String>> rows = new ArrayList<>();
        for (JobInfo job : page.jobs()) {
          rows.add(row(job, leases, now));
        }
        if (widths[0] == null && !rows.isEmpty()) {
          // why: the first page sets the columns; a longer cell later pushes only its own row
          List<List<String>> measured = new ArrayList<>(rows);
          measured.add(0, header);
          widths[0] = Format.widths(measured);
          out().print(Format.row(header, widths[0], 2));
        }
        rows.forEach(row -> out().print(Format.row(row, widths[0], 2)));
      });
      if (widths[0] == null) {
        out().println("no " + state.label() + " jobs in queue " + queue);
      }
      if (next != null) {
        out().println("more jobs follow: add --all to list them all");
      }
    }

    private static List<String> row(JobInfo job, boolean leases, Instant now) {
      List<String> row = new ArrayList<>(List.of(
          job.id(), Format.instant(job.runAt(), now), job.attempts() + "/" + job.maxAttempts()));
      if (leases) {
        row.add(Format.instant(job.leaseUntil(), now));
      }
      String text = HttpBackend.utf8(job.payload());
      row.add(text != null ? Format.abbreviate(text, PAYLOAD_WIDTH) : "(" + job.payload().length + " bytes, not UTF-8)");
      return row;
    }
  }

  /**
   * Hands {@code sink} the first page from {@code source}, and with {@code all} each following one
   * until the last.
   *
   * @param source the page that starts at a cursor (null: the first)
   * @return the cursor after the last page handed over: null when that was the last page
   */
  static String pages(Function<String, JobPage> source, boolean all, Consumer<JobPage> sink) {
    String cursor = null;
    do {
      JobPage page = source.apply(cursor);
      sink.accept(page);
      if (page.nextCursor() != null && Objects.equals(page.nextCursor(), cursor)) {
        // why: a server that hands back the cursor it was given would keep this loop going forever
        throw new CliException(ExitCodes.FAILED, "the listing returned the same cursor '" + cursor + "' twice;"
            + " stopped rather than list the same page forever. Please report it");
      }
      cursor = page.nextCursor();
    } while (all && cursor != null);
    return cursor;
  }
}
