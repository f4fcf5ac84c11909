package io.delayq.server.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code delayq resume <queue>}: lets workers claim again. */
@Command(
    name = "resume",
    mixinStandardHelpOptions = true,
    description = {
      "Lets the workers of a paused queue claim again.",
      "They are woken at once. Exit code 3 when there is no such queue."
    },
    footer = {"", "Examples:", "  delayq resume orders"})
public final class ResumeCommand extends BackendCommand {
  @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue.")
  String queue;

  @Override
  int run(Backend backend) {
    backend.resume(queue);
    out().println("resumed queue " + queue + ": workers claim its jobs again");
    return ExitCodes.OK;
  }
}
