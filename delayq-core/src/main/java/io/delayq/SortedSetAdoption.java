package io.delayq;

import io.delayq.internal.Keys;
import io.delayq.internal.Rules;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * How to take over a hand-rolled sorted-set delay queue — producers running {@code ZADD key <due>
 * <payload>}, consumers running {@code ZRANGEBYSCORE} then {@code ZREM} — without changing its
 * producers: {@link JobQueue#adopt} keeps moving its members into delayq, {@link
 * JobQueue#importSortedSet} moves them once. Each member becomes one job whose payload is the member's
 * bytes, unchanged; it is removed from the source by the same script that writes the job, and only
 * if it was still there, so an old consumer still running takes a member or delayq does, never both.
 *
 * <pre>{@code
 * SortedSetAdoption adoption = SortedSetAdoption.from("delayed:orders")
 *     .scoreUnit(ScoreUnit.SECONDS)
 *     .jobIdFromJsonField("orderId")
 *     .build();
 * try (SortedSetBridge bridge = delayq.queue("orders").adopt(adoption)) { ... }
 * }</pre>
 *
 * <p>See docs/ADOPTING.md for the migration steps and the consequences of each choice.
 *
 * @since 0.3.0
 */
public final class SortedSetAdoption {
  /** Members read and moved per script call, unless set. */
  public static final int DEFAULT_BATCH = 500;
  /** The largest batch: one script call must not hold Redis for long. */
  public static final int MAX_BATCH = 10_000;
  /** How often {@link JobQueue#adopt} looks at the source, unless set. */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(1);
  /** The prefix of an id derived from the member's bytes: {@code sha256:} and 64 hex digits. */
  public static final String HASH_ID_PREFIX = "sha256:";

  /** What the source's scores count. */
  public enum ScoreUnit {
    /** Epoch seconds, as Python's {@code int(time.time()) + delay} writes; fractions are kept. */
    SECONDS,
    /** Epoch milliseconds, as Java's {@code System.currentTimeMillis() + delay} writes. */
    MILLISECONDS,
    /**
     * Decided from the scores present: from 10^9 to 10^11 (2001 to 5138 as seconds) is seconds, from
     * 10^12 (2001 as milliseconds) on is milliseconds. Scores below 10^9 or after 9999-12-31 mean the same
     * in both units and decide nothing. A source holding both kinds, or any score from 10^11 to 10^12
     * (which would be 1973 to 2001 in milliseconds but after 5138 in seconds), is refused rather than
     * guessed. Every batch is checked again before it is moved.
     */
    DETECT;

    /**
     * The unit named by {@code text}, as a command line or a property gives it: {@code seconds},
     * {@code s}, {@code milliseconds}, {@code millis}, {@code ms} or {@code detect}, in any case.
     */
    public static ScoreUnit of(String text) {
      String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
      return switch (t) {
        case "seconds", "second", "s", "sec" -> SECONDS;
        case "milliseconds", "millis", "ms" -> MILLISECONDS;
        case "detect", "auto" -> DETECT;
        default -> throw new InvalidRequestException(
            "scoreUnit", "'" + text + "' is not a unit; use seconds, milliseconds or detect");
      };
    }
  }

  /** Which members are moved. */
  public enum Mode {
    /**
     * Only members that are due, or become due within the poll interval (by the Redis clock): the
     * source keeps holding the future, so stopping the bridge leaves the old system as it was.
     * Members moved a little before their time still run at their time.
     */
    DUE,
    /** Every member, future ones included; each job still runs at its own due time. */
    ALL;

    /** The mode named by {@code text} ({@code due} or {@code all}, in any case). */
    public static Mode of(String text) {
      String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
      return switch (t) {
        case "due" -> DUE;
        case "all" -> ALL;
        default -> throw new InvalidRequestException("mode", "'" + text + "' is not a mode; use due or all");
      };
    }
  }

  private final String source;
  private final ScoreUnit scoreUnit;
  private final String idField;
  private final Mode mode;
  private final int batch;
  private final Duration pollInterval;
  private final int maxAttempts;

  private SortedSetAdoption(Builder b) {
    this.source = b.source;
    this.scoreUnit = b.scoreUnit;
    this.idField = b.idField;
    this.mode = b.mode;
    this.batch = b.batch;
    this.pollInterval = b.pollInterval;
    this.maxAttempts = b.maxAttempts;
  }

  /**
   * Options for the sorted set at {@code sourceKey}: by default its unit is detected, every member's
   * id is the hash of its bytes, only due members are moved, 500 at a time, every second.
   */
  public static Builder from(String sourceKey) {
    return new Builder(sourceKey);
  }

  /** The sorted set's key. */
  public String source() {
    return source;
  }

  public ScoreUnit scoreUnit() {
    return scoreUnit;
  }

  /**
   * The top-level JSON field whose value is the job id, or empty when ids are hashes of the members.
   */
  public Optional<String> idField() {
    return Optional.ofNullable(idField);
  }

  public Mode mode() {
    return mode;
  }

  public int batch() {
    return batch;
  }

  public Duration pollInterval() {
    return pollInterval;
  }

  public int maxAttempts() {
    return maxAttempts;
  }

  @Override
  public String toString() {
    return "SortedSetAdoption[source=" + source + ", unit=" + scoreUnit + ", id="
        + (idField == null ? "member hash" : "JSON field " + idField) + ", mode=" + mode + ", batch=" + batch
        + ", pollInterval=" + pollInterval + ", maxAttempts=" + maxAttempts + "]";
  }

  /** Builds {@link SortedSetAdoption}; every setter checks its value. */
  public static final class Builder {
    private final String source;
    private ScoreUnit scoreUnit = ScoreUnit.DETECT;
    private String idField;
    private Mode mode = Mode.DUE;
    private int batch = DEFAULT_BATCH;
    private Duration pollInterval = DEFAULT_POLL_INTERVAL;
    private int maxAttempts = JobRequest.DEFAULT_MAX_ATTEMPTS;

    private Builder(String source) {
      if (source == null || source.isEmpty()) {
        throw new InvalidRequestException("source", "is empty; name the sorted set the producers write to");
      }
      if (Keys.isDelayqKey(source)) {
        throw new InvalidRequestException(
            "source", "'" + source + "' is one of delayq's own keys; name the sorted set the old producers write to");
      }
      this.source = source;
    }

    /** What the scores count; {@link ScoreUnit#DETECT} unless set. */
    public Builder scoreUnit(ScoreUnit unit) {
      this.scoreUnit = Objects.requireNonNull(unit, "unit");
      return this;
    }

    /**
     * Takes each job's id from this top-level field of the member, a JSON object: a string value as
     * it is, a number as its literal text. Members with the same value become one job (the first one
     * scheduled stays; a later member for that id is dropped from the source and counted as merged).
     * A member that is not a JSON object, lacks the field, or whose value is not a string or number
     * or not a valid id gets the {@linkplain #jobIdFromMemberHash() hash id}, counted in {@link
     * AdoptionReport#hashedIds()}.
     */
    public Builder jobIdFromJsonField(String field) {
      if (field == null || field.isEmpty()) {
        throw new InvalidRequestException("idField", "is empty; name a top-level field of the JSON members");
      }
      this.idField = field;
      return this;
    }

    /**
     * Makes each job's id {@code sha256:} followed by the SHA-256 of the member's bytes in lowercase hex:
     * identical members stay one job, as they were one member of the sorted set. The default.
     */
    public Builder jobIdFromMemberHash() {
      this.idField = null;
      return this;
    }

    /** Which members to move; {@link Mode#DUE} unless set. */
    public Builder moving(Mode mode) {
      this.mode = Objects.requireNonNull(mode, "mode");
      return this;
    }

    /** Members read and moved per script call, 1 to {@value #MAX_BATCH}. */
    public Builder batch(int batch) {
      if (batch < 1 || batch > MAX_BATCH) {
        throw new InvalidRequestException("batch", "must be between 1 and " + MAX_BATCH + "; got " + batch);
      }
      this.batch = batch;
      return this;
    }

    /** How often a bridge looks at the source, 10 ms to 1 hour. */
    public Builder pollInterval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.toMillis() < 10 || interval.compareTo(Duration.ofHours(1)) > 0) {
        throw new InvalidRequestException("pollInterval", "must be between 10 ms and 1 hour; got " + interval);
      }
      this.pollInterval = interval;
      return this;
    }

    /** Attempts each adopted job gets; {@link JobRequest#DEFAULT_MAX_ATTEMPTS} unless set. */
    public Builder maxAttempts(int maxAttempts) {
      Rules.checkMaxAttempts(maxAttempts);
      this.maxAttempts = maxAttempts;
      return this;
    }

    public SortedSetAdoption build() {
      return new SortedSetAdoption(this);
    }
  }
}
