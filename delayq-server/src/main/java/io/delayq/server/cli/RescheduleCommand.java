package io.delayq.server.cli;

import io.delayq.ScheduledJob;
import java.time.Instant;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code delayq reschedule <queue> <id> (--delay | --at)}: moves a scheduled job. */
@Command(
    name = "reschedule",
    mixinStandardHelpOptions = true,
    description = {
      "Moves a scheduled job to a new time, keeping its payload and attempts.",
      "Exit code 3 when no scheduled job has that id, 4 when a worker holds it now."
    },
    footer = {
      "",
      "Examples:",
      "  delayq reschedule orders order-42 --delay 1h",
      "  delayq reschedule orders order-42 --at 2026-12-01T09:00:00Z"
    })
public final class RescheduleCommand extends BackendCommand {
  @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue.")
  String queue;

  @Parameters(index = "1", paramLabel = "ID", description = "The job's id.")
  String id;

  @ArgGroup(exclusive = true, multiplicity = "1")
  When when;

  @Override
  int run(Backend backend) {
    ScheduledJob job = backend.reschedule(queue, id, when.delay, when.at);
    out().println(job.id() + " due " + Format.instant(job.runAt(), Instant.now()));
    return ExitCodes.OK;
  }
}
