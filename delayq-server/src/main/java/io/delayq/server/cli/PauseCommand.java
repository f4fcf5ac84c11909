package io.delayq.server.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code delayq pause <queue>}: stops claiming everywhere. */
@Command(
    name = "pause",
    mixinStandardHelpOptions = true,
    description = {
      "Stops every worker of a queue, everywhere, from claiming jobs.",
      "Scheduling goes on and due jobs wait; `delayq resume` undoes it. Exit code 3 when there is no such queue."
    },
    footer = {"", "Examples:", "  delayq pause orders", "  delayq stats orders"})
public final class PauseCommand extends BackendCommand {
  @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue.")
  String queue;

  @Override
  int run(Backend backend) {
    backend.pause(queue);
    out().println("paused queue " + queue + ": no worker claims its jobs until `delayq resume " + queue + "`");
    return ExitCodes.OK;
  }
}
