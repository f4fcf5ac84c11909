package io.delayq.internal;

import java.nio.charset.StandardCharsets;

/**
 * Every Redis key and channel name delayq uses, built here and nowhere else. All keys of one
 * partition share the hash tag {@code {dq:<queue>:<partition>}}, so each script touches a single
 * cluster slot. Changing any name is a storage format change: record it in UPGRADING.md.
 */
public final class Keys {
  private static final String PREFIX = "dq";

  private Keys() {}

  /** The queue's settings hash (partition count, paused). */
  public static String settings(String queue) {
    return "{" + PREFIX + ":" + queue + "}:settings";
  }

  /** The set of all queue names, for listings. */
  public static String registry() {
    return PREFIX + ":queues";
  }

  /** The pub/sub channel on which sleeping workers of a queue are woken. */
  public static String wakeChannel(String queue) {
    return PREFIX + ":" + queue + ":wake";
  }

  public static Partition partition(String queue, int partition) {
    String tag = "{" + PREFIX + ":" + queue + ":" + partition + "}";
    return new Partition(
        partition,
        bytes(tag + ":scheduled"),
        bytes(tag + ":active"),
        bytes(tag + ":dead"),
        bytes(tag + ":jobs"),
        bytes(tag + ":attempts"),
        bytes(tag + ":errors"),
        bytes(tag + ":paused"));
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The keys of one partition.
   *
   * @param scheduled zset: job id by due time (epoch ms)
   * @param active zset: job id by lease deadline (epoch ms)
   * @param dead zset: job id by time of burial
   * @param jobs hash: job id to record (header and payload)
   * @param attempts hash: job id to attempts started; absent until the first claim
   * @param errors hash: job id to the last failure's message; absent until a failure
   * @param paused string: present while claiming is paused
   */
  public record Partition(
      int number,
      byte[] scheduled,
      byte[] active,
      byte[] dead,
      byte[] jobs,
      byte[] attempts,
      byte[] errors,
      byte[] paused) {}
}
