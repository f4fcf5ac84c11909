package io.delayq;

import io.delayq.internal.Keys;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/**
 * Where and how {@link JobQueue#forwardToList} hands due jobs to a plain Redis list, for consumers
 * that already read one ({@code BRPOP}, {@code BLMOVE}, any language). Immutable; made by {@link
 * #toList(String)}, for example {@code ListForwarding.toList("execute_queue").build()}.
 *
 * <p>When the list can be written by the partition's own script (a single Redis, or on a Redis
 * Cluster a list in the partition's hash slot), each due job is moved in one atomic script: it is
 * always in delayq or in the list, never in neither, never in both. Otherwise (a cluster, the list
 * in another slot, or {@link Builder#twoStep()}) a job is leased, pushed, then acked: at least
 * once, one duplicate possible if the forwarder dies between push and ack. See
 * docs/LIST-FORWARDING.md.
 *
 * @since 0.3.0
 */
public final class ListForwarding {
  /** Longest list name accepted, in UTF-8 bytes. */
  public static final int MAX_LIST_NAME_BYTES = 512;
  public static final Format DEFAULT_FORMAT = Format.RAW;
  public static final End DEFAULT_PUSH_END = End.LEFT;
  public static final int DEFAULT_BATCH = 100;
  public static final Duration DEFAULT_SWEEP_INTERVAL = WorkerOptions.DEFAULT_SWEEP_INTERVAL;
  public static final Duration DEFAULT_LEASE = WorkerOptions.DEFAULT_LEASE;

  /** What each list element holds. */
  public enum Format {
    /** The payload bytes exactly as scheduled: an existing consumer of the list keeps working. */
    RAW,
    /**
     * A JSON object {@code {"id","attempt","dueAt","payload"}}; {@code payload} is the JSON value for
     * a job scheduled as JSON, else a string, or {@code payloadBase64} instead when the payload is
     * not valid UTF-8.
     */
    ENVELOPE
  }

  /** The end of the list jobs are pushed at. */
  public enum End {
    /** {@code LPUSH}: consumers that pop from the right ({@code RPOP}, {@code BRPOP}) get the earliest due first. */
    LEFT,
    /** {@code RPUSH}: for consumers that pop from the left ({@code LPOP}, {@code BLPOP}). */
    RIGHT
  }

  private final String list;
  private final Format format;
  private final End pushEnd;
  private final int batch;
  private final Duration sweepInterval;
  private final Duration lease;
  private final boolean twoStep;

  private ListForwarding(Builder b) {
    this.list = b.list;
    this.format = b.format;
    this.pushEnd = b.pushEnd;
    this.batch = b.batch;
    this.sweepInterval = b.sweepInterval;
    this.lease = b.lease;
    this.twoStep = b.twoStep;
  }

  /**
   * Starts options for the list named {@code list} (the exact Redis key).
   *
   * @throws InvalidRequestException when the name is empty, longer than {@value
   *     #MAX_LIST_NAME_BYTES} bytes, holds control characters, or is one of delayq's own keys
   */
  public static Builder toList(String list) {
    return new Builder(checkList(list));
  }

  /** The Redis key of the list. */
  public String list() {
    return list;
  }

  public Format format() {
    return format;
  }

  public End pushEnd() {
    return pushEnd;
  }

  /** Most jobs moved from one partition per script call: bounds the work of each call on Redis. */
  public int batch() {
    return batch;
  }

  /** The longest the forwarder sleeps without looking, should a wake-up message be lost. */
  public Duration sweepInterval() {
    return sweepInterval;
  }

  /** In two-step mode, how long a job pushed but not yet acked stays leased before it is pushed again. */
  public Duration lease() {
    return lease;
  }

  /** Whether two-step mode is forced even where the atomic one is possible. */
  public boolean twoStep() {
    return twoStep;
  }

  @Override
  public String toString() {
    return "ListForwarding[list=" + list + ", format=" + format + ", push=" + pushEnd + ", batch=" + batch
        + (twoStep ? ", twoStep" : "") + "]";
  }

  private static String checkList(String list) {
    if (list == null || list.isEmpty()) {
      throw new InvalidRequestException("list", "is empty; name the Redis list to push due jobs to");
    }
    int bytes = list.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_LIST_NAME_BYTES) {
      throw new InvalidRequestException("list", "is " + bytes + " bytes in UTF-8; the limit is "
          + MAX_LIST_NAME_BYTES + ". Use a shorter key name");
    }
    for (int i = 0; i < list.length(); i++) {
      char c = list.charAt(i);
      if (Character.isISOControl(c) || Character.isSurrogate(c) && !validSurrogateAt(list, i)) {
        throw new InvalidRequestException("list", "contains U+" + String.format("%04X", (int) c) + " at index " + i
            + "; a list name must be printable text");
      }
    }
    if (Keys.isDelayqKey(list)) {
      // why: pushing creates a list there, which delayq then reads as its own key: a list at a
      // partition's paused key pauses the queue for good, one at its attempts key breaks nacks
      throw new InvalidRequestException("list", "'" + list + "' is one of delayq's own keys; name another list"
          + " (on a Redis Cluster, the partition's hash tag followed by a name of your own, such as {dq:<queue>:0}:ready)");
    }
    return list;
  }

  private static boolean validSurrogateAt(String s, int i) {
    char c = s.charAt(i);
    return Character.isHighSurrogate(c)
        ? i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))
        : i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
  }

  /** Builds {@link ListForwarding}; each setter checks its value. */
  public static final class Builder {
    private final String list;
    private Format format = DEFAULT_FORMAT;
    private End pushEnd = DEFAULT_PUSH_END;
    private int batch = DEFAULT_BATCH;
    private Duration sweepInterval = DEFAULT_SWEEP_INTERVAL;
    private Duration lease = DEFAULT_LEASE;
    private boolean twoStep;

    private Builder(String list) {
      this.list = list;
    }

    public Builder format(Format format) {
      this.format = Objects.requireNonNull(format, "format");
      return this;
    }

    public Builder pushAt(End end) {
      this.pushEnd = Objects.requireNonNull(end, "end");
      return this;
    }

    public Builder batch(int batch) {
      if (batch < 1 || batch > 1000) {
        throw new InvalidRequestException("batch", "must be between 1 and 1000; got " + batch);
      }
      this.batch = batch;
      return this;
    }

    public Builder sweepInterval(Duration sweepInterval) {
      // why: the same bounds as the workers', checked by the same rule
      WorkerOptions.builder().sweepInterval(sweepInterval);
      this.sweepInterval = sweepInterval;
      return this;
    }

    public Builder lease(Duration lease) {
      WorkerOptions.builder().lease(lease);
      this.lease = lease;
      return this;
    }

    /**
     * Always lease, push, then ack, even where one atomic script could move the job: the list is
     * then written by a plain {@code LPUSH} outside the script, as on a cluster with the list in
     * another slot (to try that behaviour on a single Redis, or for a proxy that routes scripts
     * and list commands differently). At least once instead of exactly once.
     */
    public Builder twoStep() {
      this.twoStep = true;
      return this;
    }

    public ListForwarding build() {
      return new ListForwarding(this);
    }
  }
}
