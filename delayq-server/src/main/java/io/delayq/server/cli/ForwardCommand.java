package io.delayq.server.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.server.forward.ForwardSpec;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code delayq forward <queue> [--rabbitmq-exchange X [--routing-key K] | --list L [--format F] | --off]}. */
@Command(
    name = "forward",
    mixinStandardHelpOptions = true,
    description = {
      "Shows or sets where a queue's due jobs are forwarded, instead of being claimed by workers.",
      "Every running `delayq serve` of that Redis forwards them: to a RabbitMQ exchange (a job leaves delayq only"
          + " once the broker confirmed it; the servers need --rabbitmq), or onto a Redis list (moved in one step"
          + " where the list shares the job's Redis node). Without an option it shows the queue's forwarding."
    },
    footer = {"", "Examples:",
      "  delayq forward orders --rabbitmq-exchange orders --routing-key order.cancel",
      "  delayq forward reminders --list execute_queue --format raw",
      "  delayq forward orders --off",
      "  delayq forward orders"})
public final class ForwardCommand extends BackendCommand {
  @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue.")
  String queue;

  @ArgGroup(exclusive = true, multiplicity = "0..1")
  Target target;

  static final class Target {
    @ArgGroup(exclusive = false)
    Rabbit rabbit;

    @ArgGroup(exclusive = false)
    RedisList list;

    @Option(names = "--off", required = true, description = "Stop forwarding: workers claim the queue's jobs again.")
    boolean off;
  }

  static final class Rabbit {
    @Option(names = "--rabbitmq-exchange", required = true, paramLabel = "EXCHANGE",
        description = "Publish due jobs to this RabbitMQ exchange (it must exist).")
    String exchange;

    @Option(names = "--routing-key", paramLabel = "KEY", defaultValue = "",
        description = "With this routing key (default: empty).")
    String routingKey;
  }

  static final class RedisList {
    @Option(names = "--list", required = true, paramLabel = "LIST",
        description = "Push due jobs onto this Redis list, for RPOP/BRPOP/BLMOVE consumers.")
    String list;

    @Option(names = "--format", paramLabel = "raw|envelope", defaultValue = "raw",
        description = "raw: the payload as scheduled (default); envelope: a JSON object with id, attempt, dueAt and"
            + " payload.")
    String format;
  }

  @Override
  int run(Backend backend) {
    if (target == null) {
      JsonNode forwarding = backend.forwarding(queue);
      if (forwarding == null) {
        out().println("queue " + queue + " is not forwarded: its workers claim its jobs");
      } else {
        out().println(forwarding.toPrettyString());
      }
      return ExitCodes.OK;
    }
    if (target.off) {
      backend.setForwarding(queue, null);
      out().println("queue " + queue + " is no longer forwarded");
      return ExitCodes.OK;
    }
    ForwardSpec spec;
    try {
      spec = ForwardSpec.fromJson(target.rabbit != null
          ? ForwardSpec.JSON.createObjectNode().put("type", "rabbitmq").put("exchange", target.rabbit.exchange)
              .put("routingKey", target.rabbit.routingKey)
          : ForwardSpec.JSON.createObjectNode().put("type", "list").put("list", target.list.list)
              .put("format", target.list.format), "forward");
    } catch (io.delayq.InvalidRequestException e) {
      throw new CliException(ExitCodes.USAGE, optionName(e.field()) + " " + e.getMessage()
          .substring(e.field().length() + 2));
    }
    backend.setForwarding(queue, spec);
    out().println("queue " + queue + " is forwarded: " + spec.stored());
    return ExitCodes.OK;
  }

  private static String optionName(String field) {
    return switch (field) {
      case "forward.exchange" -> "--rabbitmq-exchange";
      case "forward.routingKey" -> "--routing-key";
      case "forward.list" -> "--list";
      case "forward.format" -> "--format";
      default -> field;
    };
  }
}
