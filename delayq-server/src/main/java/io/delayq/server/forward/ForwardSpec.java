package io.delayq.server.forward;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.InvalidRequestException;
import io.delayq.ListForwarding;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Where the server forwards a queue's due jobs: the {@code forward} object of {@code PUT
 * /v1/queues/{queue}}, stored with the queue as the same JSON (see {@code
 * QueueAdmin#forwardingSpec}) so that every server instance runs the same forwarding.
 *
 * <ul>
 *   <li>{@code {"type":"rabbitmq","exchange":"orders","routingKey":"order.cancel"}}: published to
 *       that exchange with that routing key, over the server's {@code --rabbitmq} connection;
 *   <li>{@code {"type":"list","list":"execute_queue","format":"raw"|"envelope"}}: pushed onto that
 *       Redis list, on the queue's own Redis.
 * </ul>
 */
public sealed interface ForwardSpec {
  ObjectMapper JSON = new ObjectMapper();
  /** Longest exchange name and routing key AMQP 0-9-1 allows (a short string). */
  int MAX_AMQP_NAME_BYTES = 255;

  /** The JSON object, as the API shows it and the queue stores it. */
  ObjectNode toJson();

  /** The text stored with the queue. */
  default String stored() {
    return toJson().toString();
  }

  /** Forward to a RabbitMQ exchange. */
  record Rabbit(String exchange, String routingKey) implements ForwardSpec {
    @Override
    public ObjectNode toJson() {
      return JSON.createObjectNode().put("type", "rabbitmq").put("exchange", exchange).put("routingKey", routingKey);
    }
  }

  /** Forward to a Redis list. */
  record RedisList(String list, ListForwarding.Format format) implements ForwardSpec {
    @Override
    public ObjectNode toJson() {
      return JSON.createObjectNode().put("type", "list").put("list", list)
          .put("format", format.name().toLowerCase(Locale.ROOT));
    }
  }

  /**
   * Reads the {@code forward} object of a request, checking every field.
   *
   * @param field how to name it in errors ({@code forward})
   */
  static ForwardSpec fromJson(JsonNode json, String field) {
    if (!(json instanceof ObjectNode object)) {
      throw new InvalidRequestException(field, "must be a JSON object such as {\"type\":\"rabbitmq\",\"exchange\":"
          + "\"orders\",\"routingKey\":\"order.cancel\"} or {\"type\":\"list\",\"list\":\"execute_queue\"}, or null to"
          + " stop forwarding");
    }
    String type = text(object, field, "type", true);
    switch (type) {
      case "rabbitmq" -> {
        only(object, field, Set.of("type", "exchange", "routingKey"));
        String exchange = text(object, field, "exchange", true);
        String routingKey = text(object, field, "routingKey", false);
        checkAmqpName(field + ".exchange", exchange);
        checkAmqpName(field + ".routingKey", routingKey == null ? "" : routingKey);
        if (exchange.isEmpty()) {
          throw new InvalidRequestException(field + ".exchange", "must name an exchange; the default exchange (\"\")"
              + " routes by queue name: name the queue as routingKey and use \"amq.direct\" or your own exchange");
        }
        return new Rabbit(exchange, routingKey == null ? "" : routingKey);
      }
      case "list" -> {
        only(object, field, Set.of("type", "list", "format"));
        String list = text(object, field, "list", true);
        checkWholeCharacters(field + ".list", list);
        String format = text(object, field, "format", false);
        ListForwarding.Format parsed = ListForwarding.DEFAULT_FORMAT;
        if (format != null) {
          try {
            parsed = ListForwarding.Format.valueOf(format.toUpperCase(Locale.ROOT));
          } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(field + ".format", "must be \"raw\" (the payload as scheduled) or"
                + " \"envelope\" (a JSON object with id, attempt, dueAt and payload); got \"" + abbreviate(format) + "\"");
          }
        }
        // why: the library checks the list name; building the options now refuses a bad one here,
        // named as the caller wrote it (forward.list), not as the library calls it (list)
        try {
          ListForwarding.toList(list).format(parsed).build();
        } catch (InvalidRequestException e) {
          String reason = e.getMessage().startsWith(e.field() + ": ")
              ? e.getMessage().substring(e.field().length() + 2) : e.getMessage();
          throw new InvalidRequestException(field + "." + e.field(), reason);
        }
        return new RedisList(list, parsed);
      }
      default -> throw new InvalidRequestException(field + ".type",
          "must be \"rabbitmq\" or \"list\"; got \"" + abbreviate(type) + "\"");
    }
  }

  /** The spec a queue stores, or an error saying the stored text is not one this server reads. */
  public static ForwardSpec fromStored(String stored) {
    try {
      return fromJson(JSON.readTree(stored), "forward");
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("the queue's stored forwarding is not one this server reads ("
          + e.getMessage() + "); set it again with PUT /v1/queues/{queue} {\"forward\": ...}", e);
    }
  }

  private static String text(ObjectNode object, String field, String name, boolean required) {
    JsonNode value = object.get(name);
    if (value == null || value.isNull()) {
      if (required) {
        throw new InvalidRequestException(field + "." + name, "is required");
      }
      return null;
    }
    if (!value.isTextual()) {
      throw new InvalidRequestException(field + "." + name, "must be a string; got " + value.getNodeType().name().toLowerCase(Locale.ROOT));
    }
    return value.asText();
  }

  private static void only(ObjectNode object, String field, Set<String> allowed) {
    List<String> unknown = new ArrayList<>();
    for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!allowed.contains(name)) {
        unknown.add(name);
      }
    }
    if (!unknown.isEmpty()) {
      throw new InvalidRequestException(field + "." + unknown.get(0),
          "is not a field of this forwarding; allowed: " + String.join(", ", allowed.stream().sorted().toList()));
    }
  }

  private static void checkAmqpName(String field, String value) {
    int bytes = value.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    if (bytes > MAX_AMQP_NAME_BYTES) {
      throw new InvalidRequestException(field, "takes " + bytes + " bytes; AMQP allows at most " + MAX_AMQP_NAME_BYTES);
    }
    if (value.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
      throw new InvalidRequestException(field, "holds a control character; use printable text");
    }
    checkWholeCharacters(field, value);
  }

  /**
   * Refuses half of a surrogate pair (JSON's {@code "\ud800"}): UTF-8 cannot encode it, so the
   * name would be stored, and used, as {@code ?}.
   */
  private static void checkWholeCharacters(String field, String value) {
    if (value.codePoints().anyMatch(cp -> cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE)) {
      throw new InvalidRequestException(field, "holds half of a UTF-16 surrogate pair, which UTF-8 cannot encode; send"
          + " the whole character");
    }
  }

  private static String abbreviate(String text) {
    return text.length() <= 40 ? text : text.substring(0, 40) + "…";
  }
}
