package io.delayq.internal;

import io.delayq.InvalidRequestException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.time.Instant;
import java.util.regex.Pattern;

/** The limits on what callers pass in, checked in one place so every entry point agrees. */
public final class Rules {
  public static final int MAX_ID_BYTES = 256;
  public static final int MAX_QUEUE_NAME_LENGTH = 128;
  public static final int MAX_ATTEMPTS_LIMIT = 1000;
  public static final int MAX_PARTITIONS = 1024;
  /** Most bytes of a queue's stored forwarding spec (see QueueAdmin#forwardingSpec). */
  public static final int MAX_FORWARDING_SPEC_BYTES = 4096;
  /** 9999-12-31T23:59:59.999Z: far enough for any schedule, and exact as a double in Lua. */
  public static final long MAX_DUE_MILLIS = 253_402_300_799_999L;
  /** A delay longer than this is a unit mistake, not a plan. */
  public static final Duration MAX_DELAY = Duration.ofDays(365L * 1000);

  private static final Pattern QUEUE_NAME = Pattern.compile("[A-Za-z0-9._:\\-]{1,128}");

  private Rules() {}

  public static String checkQueueName(String name) {
    if (".".equals(name) || "..".equals(name)) {
      throw new InvalidRequestException(
          "queue", "name '" + name + "' is not allowed: it reads as a path step in URLs; use other characters too");
    }
    if (name == null || !QUEUE_NAME.matcher(name).matches()) {
      throw new InvalidRequestException(
          "queue",
          "name "
              + (name == null ? "is missing" : "'" + abbreviate(name) + "' is not allowed")
              + "; use 1 to 128 letters, digits, '.', '_', '-' or ':'");
    }
    return name;
  }

  public static String checkJobId(String id) {
    if (id == null || id.isEmpty()) {
      throw new InvalidRequestException(
          "id", "is empty; pass a non-empty id, or none to have one generated");
    }
    if (id.equals(".") || id.equals("..")) {
      // why: clients and proxies resolve "." and ".." in URL paths, so /jobs/.. would name another resource
      throw new InvalidRequestException(
          "id", "'" + id + "' is not allowed: it reads as a path step in URLs; use other characters too");
    }
    int bytes = id.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_ID_BYTES) {
      throw new InvalidRequestException(
          "id",
          "is "
              + bytes
              + " bytes in UTF-8; the limit is "
              + MAX_ID_BYTES
              + ". Use a shorter key (a hash of the long one, for example)");
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      boolean paired =
          Character.isHighSurrogate(c) ? i + 1 < id.length() && Character.isLowSurrogate(id.charAt(i + 1))
              : !Character.isLowSurrogate(c) || (i > 0 && Character.isHighSurrogate(id.charAt(i - 1)));
      if (!paired) {
        // why: UTF-8 cannot encode a lone surrogate; Java would write '?', merging this id with another
        throw new InvalidRequestException(
            "id",
            "'" + abbreviate(id) + "' contains a lone UTF-16 surrogate U+" + String.format("%04X", (int) c)
                + " at index " + i + ", which has no UTF-8 form; ids must be valid Unicode text");
      }
      if (isInvisibleFormatting(c)) {
        // why: a bidi override or line separator makes one id display as another in logs and terminals
        throw new InvalidRequestException(
            "id",
            "'" + abbreviate(id) + "' contains U+" + String.format("%04X", (int) c) + " at index " + i
                + ", an invisible or bidirectional-text control character that makes an id display as another;"
                + " ids must not contain them");
      }
      if (Character.isISOControl(c)) {
        throw new InvalidRequestException(
            "id",
            "'"
                + abbreviate(id)
                + "' contains control character U+"
                + String.format("%04X", (int) id.charAt(i))
                + " at index "
                + i
                + "; ids must be printable");
      }
    }
    return id;
  }

  /**
   * Bidirectional-text controls (embeddings, overrides, isolates, marks), line and paragraph
   * separators, the zero-width space, the byte-order mark and the noncharacters U+FFFE and U+FFFF.
   */
  static boolean isInvisibleFormatting(char c) {
    return (c >= '\u202A' && c <= '\u202E') || (c >= '\u2066' && c <= '\u2069') || c == '\u200E' || c == '\u200F'
        || c == '\u061C' || c == '\u2028' || c == '\u2029' || c == '\u200B' || c == '\uFEFF' || c == '\uFFFE'
        || c == '\uFFFF';
  }

  public static long delayMillis(Duration delay) {
    if (delay.isNegative()) {
      throw new InvalidRequestException(
          "delay", "is negative (" + delay + "); use Duration.ZERO for 'now'");
    }
    if (delay.compareTo(MAX_DELAY) > 0) {
      throw new InvalidRequestException(
          "delay",
          "of " + delay + " is longer than the limit of " + MAX_DELAY.toDays()
              + " days; check its unit, or schedule at an absolute time");
    }
    return delay.toMillis();
  }

  /** Epoch milliseconds of {@code runAt}; a time before 1970 counts as due now. */
  public static long runAtMillis(Instant runAt) {
    if (runAt.isAfter(Instant.ofEpochMilli(MAX_DUE_MILLIS))) {
      throw new InvalidRequestException(
          "runAt", "of " + runAt + " is after 9999-12-31T23:59:59.999Z, the latest due time");
    }
    // why: checked before toEpochMilli, which overflows for instants some 292 million years away
    return runAt.isBefore(Instant.EPOCH) ? 0L : runAt.toEpochMilli();
  }

  public static int checkPartitions(int partitions) {
    if (partitions < 1 || partitions > MAX_PARTITIONS) {
      throw new InvalidRequestException(
          "partitions", "must be between 1 and " + MAX_PARTITIONS + "; got " + partitions);
    }
    return partitions;
  }

  /** A lease between 100 ms and 1 day; returns it in milliseconds. */
  public static long checkLease(Duration lease) {
    Objects.requireNonNull(lease, "lease");
    if (lease.toMillis() < 100 || lease.compareTo(Duration.ofDays(1)) > 0) {
      throw new InvalidRequestException("lease", "must be between 100 ms and 1 day; got " + lease);
    }
    return lease.toMillis();
  }

  public static void checkMaxAttempts(int maxAttempts) {
    if (maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS_LIMIT) {
      throw new InvalidRequestException(
          "maxAttempts", "must be between 1 and " + MAX_ATTEMPTS_LIMIT + "; got " + maxAttempts);
    }
  }

  public static void checkPayloadSize(int size, int limit) {
    if (size > limit) {
      throw new InvalidRequestException(
          "payload",
          String.format(
              "is %,d bytes; the limit is %,d. Raise maxPayloadBytes, or store the body"
                  + " elsewhere and schedule its key",
              size, limit));
    }
  }

  static String abbreviate(String s) {
    return s.length() <= 64 ? s : s.substring(0, 61) + "...";
  }
}
