package io.delayq.server.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.JobInfo;
import io.delayq.QueueStats;
import java.io.IOException;
import java.io.Writer;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * The JSON the commands print with {@code --json}: the HTTP API's own shapes (API.md's job view
 * and stats), so scripts read the same fields from the CLI, in either mode, as from the server.
 */
final class JobJson {
  static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private JobJson() {}

  static String job(JobInfo job) {
    return write(jobNode(job));
  }

  static String jobs(List<JobInfo> jobs) {
    ArrayNode array = JSON.createArrayNode();
    jobs.forEach(job -> array.add(jobNode(job)));
    return write(array);
  }

  /** A pretty-printing generator on {@code out} that leaves {@code out} open when closed. */
  static JsonGenerator generator(Writer out) throws IOException {
    return JSON.createGenerator(out).disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
  }

  /** One job view, as {@link #job} prints it, into an array being written. */
  static void write(JsonGenerator json, JobInfo job) {
    try {
      json.writeTree(jobNode(job));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Any JSON tree, pretty-printed as the other commands print theirs. */
  static String pretty(JsonNode node) {
    return write(node);
  }

  static String stats(List<QueueStats> stats) {
    ArrayNode array = JSON.createArrayNode();
    for (QueueStats s : stats) {
      array.addObject()
          .put("queue", s.queue())
          .put("partitions", s.partitions())
          .put("scheduled", s.scheduled())
          .put("due", s.due())
          .put("active", s.active())
          .put("expired", s.expired())
          .put("dead", s.dead())
          .put("paused", s.paused());
    }
    return write(array);
  }

  private static JsonNode parsedOrNull(String json) {
    try {
      return JSON.readTree(json);
    } catch (java.io.IOException | RuntimeException e) {
      return null;
    }
  }

  private static ObjectNode jobNode(JobInfo job) {
    ObjectNode node = JSON.createObjectNode();
    node.put("id", job.id());
    node.put("state", job.state().name().toLowerCase(Locale.ROOT));
    putTime(node, "runAt", job.runAt());
    putTime(node, "leaseUntil", job.leaseUntil());
    putTime(node, "deadAt", job.deadAt());
    node.put("attempts", job.attempts());
    node.put("maxAttempts", job.maxAttempts());
    putTime(node, "createdAt", job.createdAt());
    String text = HttpBackend.utf8(job.payload());
    JsonNode value = job.payloadIsJson() && text != null ? parsedOrNull(text) : null;
    if (value != null) {
      node.set("payload", value);
    } else if (text != null) {
      node.put("payload", text);
    } else {
      node.put("payloadBase64", Base64.getEncoder().encodeToString(job.payload()));
    }
    if (job.lastError() != null) {
      node.put("lastError", job.lastError());
    }
    return node;
  }

  private static void putTime(ObjectNode node, String field, Instant instant) {
    if (instant != null) {
      node.put(field, instant.toEpochMilli());
    }
  }

  private static String write(Object node) {
    try {
      return JSON.writeValueAsString(node);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON", e);
    }
  }
}
