package io.delayq.server.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code delayq cancel <queue> <id>}: removes a scheduled job. */
@Command(
    name = "cancel",
    mixinStandardHelpOptions = true,
    description = {
      "Removes a scheduled job before it runs.",
      "Exit code 3 when no scheduled job has that id, 4 when a worker holds it now."
    },
    footer = {
      "",
      "Examples:",
      "  delayq cancel orders order-42",
      "  delayq cancel orders order-42 --server http://10.0.0.5:7070 --token-file tok"
    })
public final class CancelCommand extends BackendCommand {
  @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue.")
  String queue;

  @Parameters(index = "1", paramLabel = "ID", description = "The job's id.")
  String id;

  @Override
  int run(Backend backend) {
    backend.cancel(queue, id);
    out().println("cancelled " + id + " in queue " + queue);
    return ExitCodes.OK;
  }
}
