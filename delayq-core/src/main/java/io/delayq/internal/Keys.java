package io.delayq.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Every Redis key and channel name delayq uses, built here and nowhere else. All keys of one
 * partition share the hash tag {@code {dq:<queue>:<partition>}}, and a queue's settings and history
 * the tag {@code {dq:<queue>}}, so each script touches a single cluster slot. Changing any name is a storage format change: record it in UPGRADING.md.
 */
public final class Keys {
  private static final String PREFIX = "dq";

  private Keys() {}

  /** The queue's settings hash (partition count, paused, stored defaults). */
  public static String settings(String queue) {
    return queueTag(queue) + ":settings";
  }

  /** The set of all queue names, for listings. */
  public static String registry() {
    return PREFIX + ":queues";
  }

  /** A short-lived key the client writes once at connect, to learn whether scripts may read TIME. */
  public static String timeProbe() {
    return PREFIX + ":time-probe";
  }

  /** The pub/sub channel on which sleeping workers of a queue are woken. */
  public static String wakeChannel(String queue) {
    return PREFIX + ":" + queue + ":wake";
  }

  /** A client's own channel, on which it checks that its wake-up connection still delivers. */
  public static String wakeProbeChannel(String clientId) {
    return PREFIX + ":probe:" + clientId;
  }

  /** The hash tag of the worker heartbeats: one slot for all of them, so a listing is one node's work. */
  private static final String WORKERS_TAG = "{" + PREFIX + ":workers}";

  /**
   * The sorted set of live worker processes: member the process id, score when its heartbeat
   * expires (epoch ms, Redis clock). Every heartbeat prunes the members whose score has passed.
   */
  public static String workersSeen() {
    return WORKERS_TAG + ":seen";
  }

  /** One worker process's heartbeat: a hash with a TTL of three heartbeat intervals. */
  public static String workerProcess(String processId) {
    return WORKERS_TAG + ":w:" + processId;
  }

  /**
   * The hash tag of a queue's own keys outside its partitions (settings and history), braces
   * included: {@code {dq:<queue>}}. The history shares it so that the script adding to a queue's
   * buckets can check atomically that the queue still exists.
   */
  static String queueTag(String queue) {
    return "{" + PREFIX + ":" + queue + "}";
  }

  /**
   * Present for a while after a queue was deleted (a string with a TTL): history-add writes nothing
   * for the queue while it exists, so another client's late flush cannot bring the history back.
   * Making the queue again removes it.
   */
  public static String historyDeleted(String queue) {
    return queueTag(queue) + ":deleted";
  }

  /** The tag of the history of all queues together. */
  private static final String ALL_HISTORY_TAG = "{" + PREFIX + ":h}";

  private static final String HISTORY_MINUTE = ":history:m:";
  private static final String HISTORY_HOUR = ":history:h:";

  /**
   * One queue's counters of one minute (a hash, see {@code lua/history-add.lua}), in the slot of
   * the queue's settings.
   */
  public static String historyMinute(String queue, long epochMinute) {
    return queueTag(queue) + HISTORY_MINUTE + epochMinute;
  }

  /** One queue's counters of one hour, in the slot of the queue's settings. */
  public static String historyHour(String queue, long epochHour) {
    return queueTag(queue) + HISTORY_HOUR + epochHour;
  }

  /** The counters of all queues together of one minute. */
  public static String allHistoryMinute(long epochMinute) {
    return ALL_HISTORY_TAG + ":m:" + epochMinute;
  }

  /** The counters of all queues together of one hour. */
  public static String allHistoryHour(long epochHour) {
    return ALL_HISTORY_TAG + ":h:" + epochHour;
  }

  /**
   * The keys of partition {@code partition}, built anew on each call: a queue with many partitions
   * costs no memory per partition while it is not used, and building them costs far less than the
   * round trip of the script they are for.
   */
  public static Partition partition(String queue, int partition) {
    byte[] tag = bytes("{" + PREFIX + ":" + queue + ":" + partition + "}");
    byte[][] keys = new byte[PARTITION_KEY_SUFFIXES.length][];
    for (int i = 0; i < keys.length; i++) {
      byte[] suffix = PARTITION_KEY_SUFFIXES[i];
      byte[] key = Arrays.copyOf(tag, tag.length + suffix.length);
      System.arraycopy(suffix, 0, key, tag.length, suffix.length);
      keys[i] = key;
    }
    return new Partition(partition, keys);
  }

  /**
   * The hash of the recurring schedules that live on partition {@code partition}: field {@code
   * d:<name>} the definition, {@code s:<name>} where its sequence stands, {@code o:<job id>} the
   * schedule whose pending occurrence that job is (see {@code lua/_schedules.lua}). Passed to the
   * scripts that need it after the partition's keys, so the other scripts keep their eleven.
   */
  public static byte[] schedules(String queue, int partition) {
    return bytes("{" + PREFIX + ":" + queue + ":" + partition + "}:schedules");
  }

  /** After the partition's hash tag, in the order of {@link Partition}'s keys. */
  private static final byte[][] PARTITION_KEY_SUFFIXES = {
    bytes(":scheduled"),
    bytes(":active"),
    bytes(":jobs"),
    bytes(":attempts"),
    bytes(":errors"),
    bytes(":dead"),
    bytes(":paused"),
    bytes(":leases"),
    bytes(":done:a"),
    bytes(":done:b"),
    bytes(":done:starts")
  };

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The keys of one partition, in the order every script takes them as {@code KEYS} (see
   * {@code lua/_keys.lua}):
   *
   * <ol>
   *   <li>scheduled: zset, job id by due time (epoch ms)
   *   <li>active: zset, job id by lease ({@code deadlineMs * 1024 + attempt})
   *   <li>jobs: hash, job id to record (header and payload)
   *   <li>attempts: hash, job id to attempts used while it is not held; absent until the first failure
   *   <li>errors: hash, job id to the last failure's message
   *   <li>dead: zset, job id by time of burial
   *   <li>paused: string, present while claiming is paused
   *   <li>leases: hash, job id to the number of the claim holding it (with a {@code k} appended
   *       for a job scheduled with {@code KEEP}); the empty field holds the last claim number
   *       issued on this partition
   *   <li>done:a, done:b: sets, ids of {@code KEEP} jobs finished within the idempotency window,
   *       in two generations
   *   <li>done:starts: hash, when each generation began (fields {@code a}, {@code b}, epoch ms)
   * </ol>
   */
  public record Partition(int number, byte[][] keys) {
    public byte[] scheduled() {
      return keys[0];
    }

    public byte[] active() {
      return keys[1];
    }

    public byte[] jobs() {
      return keys[2];
    }

    public byte[] dead() {
      return keys[5];
    }

    public byte[] paused() {
      return keys[6];
    }

    public byte[] leases() {
      return keys[7];
    }

    /** Every key of the partition; a script deletes nothing outside these. */
    public byte[][] all() {
      return keys.clone();
    }
  }

  /**
   * A Redis list a forwarder pushes due jobs to: the user's own key, exactly as named. It is not
   * delayq's and carries no prefix; on a Redis Cluster a name with the partition's hash tag (see
   * {@link #partitionTag}) puts it in that partition's slot.
   */
  public static byte[] forwardList(String name) {
    return bytes(name);
  }

  /** The hash tag all keys of a partition share, braces included: {@code {dq:<queue>:<partition>}}. */
  public static String partitionTag(String queue, int partition) {
    return "{" + PREFIX + ":" + queue + ":" + partition + "}";
  }

  /**
   * Whether {@code key} is, or is shaped like, a key delayq writes itself: a queue's settings, a
   * partition key of any queue, the queue registry, the time probe, a heartbeat or a history bucket. Another program's key may
   * still share a queue's hash tag (that is how it lands in the queue's cluster slot).
   */
  public static boolean isDelayqKey(String key) {
    if (key.equals(registry()) || key.equals(timeProbe())) {
      return true;
    }
    if (key.startsWith(WORKERS_TAG + ":") || key.startsWith(ALL_HISTORY_TAG + ":")) {
      return true;
    }
    int close = key.indexOf('}');
    if (!key.startsWith("{" + PREFIX + ":") || close < 0) {
      return false;
    }
    String rest = key.substring(close + 1);
    if (rest.equals(":settings") || rest.equals(":schedules") || rest.equals(":deleted")
        || rest.startsWith(HISTORY_MINUTE) || rest.startsWith(HISTORY_HOUR)) {
      return true;
    }
    for (byte[] suffix : PARTITION_KEY_SUFFIXES) {
      if (rest.equals(new String(suffix, StandardCharsets.UTF_8))) {
        return true;
      }
    }
    return false;
  }
}
