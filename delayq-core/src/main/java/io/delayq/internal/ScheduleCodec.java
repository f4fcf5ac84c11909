package io.delayq.internal;

import io.delayq.Misfire;
import io.delayq.Overlap;
import io.delayq.Schedule;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The stored form of a schedule's definition: {@code key=value} lines, values URL-encoded, the
 * payload in Base64. Readable with redis-cli, and free of a JSON library in the core; only Java
 * reads it (the scripts keep what they need in the schedule's state).
 */
final class ScheduleCodec {
  private static final String VERSION = "1";

  private ScheduleCodec() {}

  static String encode(Schedule s) {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("v", VERSION);
    if (s.cron() != null) {
      f.put("cron", s.cron());
    } else {
      f.put("every", Long.toString(s.every().toMillis()));
    }
    f.put("zone", s.zone().getId());
    f.put("payload", Base64.getEncoder().encodeToString(s.payload()));
    f.put("json", s.payloadIsJson() ? "1" : "0");
    if (s.startAt() != null) {
      f.put("start", Long.toString(s.startAt().toEpochMilli()));
    }
    if (s.endAt() != null) {
      f.put("end", Long.toString(s.endAt().toEpochMilli()));
    }
    f.put("misfire", s.misfire().policy().name());
    f.put("maxRuns", Integer.toString(s.misfire().maxRuns()));
    f.put("grace", Long.toString(s.misfire().grace().toMillis()));
    f.put("overlap", s.overlap().name());
    f.put("paused", s.paused() ? "1" : "0");
    f.put("maxAttempts", Integer.toString(s.maxAttempts()));
    StringBuilder out = new StringBuilder();
    f.forEach((k, v) -> out.append(k).append('=').append(URLEncoder.encode(v, StandardCharsets.UTF_8)).append('\n'));
    return out.toString();
  }

  static Schedule decode(String name, String stored) {
    Map<String, String> f = new LinkedHashMap<>();
    for (String line : stored.split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        f.put(line.substring(0, eq), URLDecoder.decode(line.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    if (!VERSION.equals(f.get("v"))) {
      throw new IllegalStateException(
          "schedule '" + name + "' is stored in an unknown format (v=" + f.get("v") + "); was it written by a newer delayq?");
    }
    Misfire.Policy policy = Misfire.Policy.valueOf(f.get("misfire"));
    Misfire misfire =
        new Misfire(policy, Integer.parseInt(f.get("maxRuns")), Duration.ofMillis(Long.parseLong(f.get("grace"))));
    return new Schedule(
        name,
        f.get("cron"),
        f.containsKey("every") ? Duration.ofMillis(Long.parseLong(f.get("every"))) : null,
        ZoneId.of(f.get("zone")),
        Base64.getDecoder().decode(f.get("payload")),
        "1".equals(f.get("json")),
        f.containsKey("start") ? Instant.ofEpochMilli(Long.parseLong(f.get("start"))) : null,
        f.containsKey("end") ? Instant.ofEpochMilli(Long.parseLong(f.get("end"))) : null,
        misfire,
        Overlap.valueOf(f.get("overlap")),
        "1".equals(f.get("paused")),
        Integer.parseInt(f.get("maxAttempts")));
  }
}
