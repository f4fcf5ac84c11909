package io.delayq.internal;

import io.lettuce.core.ScriptOutputType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Lua scripts, one per state transition, kept as resources under {@code lua/}. Each is read
 * and hashed once; callers run them by SHA and load them only after a NOSCRIPT.
 */
public enum Script {
  SCHEDULE("schedule.lua", ScriptOutputType.MULTI),
  CLAIM("claim.lua", ScriptOutputType.MULTI),
  ACK("ack.lua", ScriptOutputType.MULTI),
  NACK("nack.lua", ScriptOutputType.MULTI),
  EXTEND_LEASE("extend-lease.lua", ScriptOutputType.INTEGER),
  RELEASE("release.lua", ScriptOutputType.MULTI),
  CANCEL("cancel.lua", ScriptOutputType.INTEGER),
  RESCHEDULE("reschedule.lua", ScriptOutputType.INTEGER),
  REQUEUE_DEAD("requeue-dead.lua", ScriptOutputType.INTEGER),
  DELETE_DEAD("delete-dead.lua", ScriptOutputType.INTEGER),
  INSPECT("inspect.lua", ScriptOutputType.MULTI),
  STATS("stats.lua", ScriptOutputType.MULTI),
  LIST_DEAD("list-dead.lua", ScriptOutputType.MULTI),
  LIST_JOBS("list-jobs.lua", ScriptOutputType.MULTI),
  HOLD_FOR_DELETE("hold-for-delete.lua", ScriptOutputType.MULTI),
  QUEUE_SETTINGS_FLAG("queue-settings-flag.lua", ScriptOutputType.INTEGER),
  PURGE("purge.lua", ScriptOutputType.MULTI),
  FORWARD_LIST("forward-list.lua", ScriptOutputType.MULTI),
  ADOPT("adopt.lua", ScriptOutputType.MULTI),
  SCHEDULE_READ("schedule-read.lua", ScriptOutputType.MULTI),
  SCHEDULE_SET("schedule-set.lua", ScriptOutputType.MULTI),
  SCHEDULE_TEND("schedule-tend.lua", ScriptOutputType.INTEGER),
  SCHEDULE_REMOVE("schedule-remove.lua", ScriptOutputType.INTEGER),
  HEARTBEAT("heartbeat.lua", ScriptOutputType.INTEGER),
  WORKERS("workers.lua", ScriptOutputType.MULTI),
  HISTORY_ADD("history-add.lua", ScriptOutputType.MULTI);

  private final String fileName;
  private final ScriptOutputType outputType;
  private final String body;
  private final String sha;
  private final byte[] bodyBytes;
  private final boolean readsClock;

  Script(String fileName, ScriptOutputType outputType) {
    this.fileName = fileName;
    this.outputType = outputType;
    this.body = expandIncludes(read(fileName));
    this.sha = sha1Hex(body);
    this.bodyBytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    this.readsClock = body.contains("redis_now_us()");
  }

  /** Whether the script asks for the server's time (and so needs it passed in where TIME is refused). */
  boolean readsClock() {
    return readsClock;
  }

  public String fileName() {
    return fileName;
  }

  public ScriptOutputType outputType() {
    return outputType;
  }

  /** The script as sent to Redis, with its includes expanded. */
  public String body() {
    return body;
  }

  byte[] bodyBytes() {
    return bodyBytes.clone();
  }

  public String sha() {
    return sha;
  }

  private static String expandIncludes(String source) {
    // why: a local, since enum constants are built before the enum's static fields
    Matcher m = Pattern.compile("(?m)^-- @include (\\w+)$").matcher(source);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(out, Matcher.quoteReplacement(read("_" + m.group(1) + ".lua")));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static String read(String name) {
    String path = "lua/" + name;
    try (InputStream in = Script.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("missing script resource " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read script resource " + path, e);
    }
  }

  private static String sha1Hex(String text) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required by the Java platform", e);
    }
  }
}
