package io.delayq.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.JobInfo;
import io.delayq.LeasedJob;
import io.delayq.ForwarderStatus;
import io.delayq.QueueDefaults;
import io.delayq.QueueStats;
import io.delayq.ScheduledJob;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.Locale;

/** The JSON shapes of API.md's responses. Times are epoch milliseconds. */
final class Views {
  private Views() {}

  /** {@code {"id","runAt","outcome"}}; runAt is null when a kept job is not waiting. */
  static ObjectNode scheduled(ScheduledJob job) {
    ObjectNode view = Json.object().put("id", job.id());
    putTime(view, "runAt", job.runAt(), true);
    return view.put("outcome", job.outcome().name().toLowerCase(Locale.ROOT));
  }

  /** {@code {"id","runAt"}} after a reschedule. */
  static ObjectNode rescheduled(ScheduledJob job) {
    ObjectNode view = Json.object().put("id", job.id());
    putTime(view, "runAt", job.runAt(), true);
    return view;
  }

  /** The job view of API.md: state, the time that goes with it, attempts, payload, last error. */
  static ObjectNode job(JobInfo job) {
    ObjectNode view = Json.object().put("id", job.id()).put("state", job.state().name().toLowerCase(Locale.ROOT));
    putTime(view, "runAt", job.runAt(), false);
    putTime(view, "leaseUntil", job.leaseUntil(), false);
    putTime(view, "deadAt", job.deadAt(), false);
    view.put("attempts", job.attempts()).put("maxAttempts", job.maxAttempts());
    putTime(view, "createdAt", job.createdAt(), false);
    putPayload(view, job.payload(), job.payloadIsJson());
    if (job.lastError() != null) {
      view.put("lastError", job.lastError());
    }
    return view;
  }

  /**
   * A claimed job: {@code {"id","payload"|"payloadBase64","attempt","token","maxAttempts","runAt",
   * "leaseUntil"}}. The token is a string of digits: JavaScript reads JSON numbers as doubles, which
   * cannot hold every long, and a token off by one would be refused.
   */
  static ObjectNode leased(LeasedJob job) {
    ObjectNode view = Json.object().put("id", job.id());
    putPayload(view, job.payload(), job.payloadIsJson());
    view.put("attempt", job.attempt())
        .put("token", Long.toString(job.token()))
        .put("maxAttempts", job.maxAttempts());
    putTime(view, "runAt", job.runAt(), true);
    putTime(view, "leaseUntil", job.leaseUntil(), true);
    return view;
  }

  static ObjectNode stats(QueueStats stats) {
    return Json.object()
        .put("queue", stats.queue())
        .put("partitions", stats.partitions())
        .put("scheduled", stats.scheduled())
        .put("due", stats.due())
        .put("active", stats.active())
        .put("expired", stats.expired())
        .put("dead", stats.dead())
        .put("paused", stats.paused());
  }

  /** A forwarder's status as this server sees it. */
  static ObjectNode forwarderStatus(ForwarderStatus status) {
    ObjectNode node = Json.object()
        .put("state", status.state().name())
        .put("target", status.target())
        .put("forwarded", status.forwarded())
        .put("deadLettered", status.deadLettered())
        .put("retried", status.retried())
        .put("inFlight", status.inFlight());
    if (status.lastError() != null) {
      node.put("lastError", status.lastError());
      node.put("lastErrorAt", status.lastErrorAt() == null ? null : status.lastErrorAt().toString());
    }
    return node;
  }

  static ObjectNode settings(String queue, int partitions, QueueDefaults defaults) {
    return Json.object()
        .put("queue", queue)
        .put("partitions", partitions)
        .put("maxAttempts", defaults.maxAttempts())
        .put("leaseMs", defaults.lease().toMillis());
  }

  /**
   * About how many bytes a claimed job takes in a claim's answer: JSON escapes a control
   * character as six bytes, so a payload of 1 MiB of them is 6 MiB on the wire and in memory.
   */
  static long answerBytes(LeasedJob job) {
    return 256 + 6L * job.id().length() + payloadBytes(job.payload(), job.payloadIsJson());
  }

  private static long payloadBytes(byte[] payload, boolean json) {
    if (json) {
      return payload.length;
    }
    if (!isUtf8(payload)) {
      return (payload.length + 2) / 3 * 4L;
    }
    long bytes = 0;
    for (byte b : payload) {
      bytes += b >= 0 && b < 0x20 ? 6 : b == '"' || b == '\\' ? 2 : 1;
    }
    return bytes;
  }

  private static boolean isUtf8(byte[] bytes) {
    try {
      StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  /**
   * {@code payload} as the JSON value it was scheduled as; else {@code payload} as a string when
   * the bytes are UTF-8 text; else {@code payloadBase64}.
   */
  static void putPayload(ObjectNode view, byte[] payload, boolean json) {
    if (json) {
      JsonNode value = Json.parseStored(payload);
      if (value != null) {
        view.set("payload", value);
        return;
      }
    }
    try {
      String text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(payload))
              .toString();
      view.put("payload", text);
    } catch (CharacterCodingException e) {
      view.put("payloadBase64", Base64.getEncoder().encodeToString(payload));
    }
  }

  private static void putTime(ObjectNode view, String name, Instant time, boolean evenWhenNull) {
    if (time != null) {
      view.put(name, time.toEpochMilli());
    } else if (evenWhenNull) {
      view.putNull(name);
    }
  }
}
