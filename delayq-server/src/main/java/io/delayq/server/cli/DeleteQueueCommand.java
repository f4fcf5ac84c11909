package io.delayq.server.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code delayq delete-queue <queue> [--force]}: a queue and all its jobs, gone. */
@Command(
    name = "delete-queue",
    mixinStandardHelpOptions = true,
    description = {
      "Deletes a queue with every job in it (scheduled, active and dead), for good.",
      "Refused while workers hold some of its jobs (exit code 4) unless --force; exit code 3 when there is no"
          + " such queue."
    },
    footer = {
      "",
      "Examples:",
      "  delayq delete-queue old-orders",
      "  delayq pause old-orders && delayq delete-queue old-orders --force"
    })
public final class DeleteQueueCommand extends BackendCommand {
  @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue.")
  String queue;

  @Option(names = "--force",
      description = "Delete it even while workers hold jobs of it.")
  boolean force;

  @Override
  int run(Backend backend) {
    long deleted = backend.deleteQueue(queue, force);
    out().println("deleted queue " + queue + " and its " + deleted + (deleted == 1 ? " job" : " jobs"));
    return ExitCodes.OK;
  }
}
