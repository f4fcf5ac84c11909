package io.delayq.server.cli;

import io.delayq.JobInfo;
import java.time.Instant;
import java.util.Base64;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code delayq get <queue> <id>}: one job, in whatever state. */
@Command(
    name = "get",
    mixinStandardHelpOptions = true,
    description = {
      "Shows a job: state, due time, attempts, payload.",
      "Exit code 3 when there is no such job or queue."
    },
    footer = {
      "",
      "Examples:",
      "  delayq get orders order-42",
      "  delayq get orders order-42 --json | jq -r .payload"
    })
public final class GetCommand extends BackendCommand {
  private static final String INDENT = " ".repeat(12);

  @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue.")
  String queue;

  @Parameters(index = "1", paramLabel = "ID", description = "The job's id.")
  String id;

  @Option(names = "--json", description = "Print the job as the HTTP API's JSON job view (times in epoch ms).")
  boolean json;

  @Override
  int run(Backend backend) {
    JobInfo job = backend.get(queue, id);
    if (json) {
      out().println(JobJson.job(job));
      return ExitCodes.OK;
    }
    Instant now = Instant.now();
    line("queue", queue);
    line("id", job.id());
    line("state", job.state().name().toLowerCase(Locale.ROOT));
    switch (job.state()) {
      case SCHEDULED -> line("due", Format.instant(job.runAt(), now));
      case ACTIVE -> line("lease until", Format.instant(job.leaseUntil(), now));
      case EXPIRED -> line("lease ended", Format.instant(job.leaseUntil(), now));
      case DEAD -> line("dead at", Format.instant(job.deadAt(), now));
    }
    line("attempts", job.attempts() + " of " + job.maxAttempts());
    line("created", Format.instant(job.createdAt(), now));
    if (job.lastError() != null) {
      line("last error", job.lastError());
    }
    String text = HttpBackend.utf8(job.payload());
    line("payload", text != null
        ? text
        : "(" + job.payload().length + " bytes, not UTF-8; base64) " + Base64.getEncoder().encodeToString(job.payload()));
    return ExitCodes.OK;
  }

  private void line(String label, String value) {
    String indented = value.replace("\n", "\n" + INDENT);
    out().println(label + " ".repeat(INDENT.length() - label.length()) + indented);
  }
}
