package io.delayq.server.web;

import io.delayq.RedisNode;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * One node on the Redis page, as people read it. A figure Redis did not give (or this user may not
 * read) shows as {@code —}.
 *
 * @param address {@code host:port}
 * @param role {@code master} or {@code replica}
 * @param version the Redis version
 * @param mode {@code standalone}, {@code cluster} or {@code sentinel}
 * @param memory {@code 1.5 MiB of 1.0 GiB (0.1%)}, {@code 1.5 MiB (no limit)}
 * @param memoryRatio used over max, 0 to 1 (capped), or -1 with no limit or unknown figures
 * @param policy the {@code maxmemory-policy}, or {@code —}
 * @param evicting whether that policy lets Redis delete keys, and so jobs
 * @param persistence {@code AOF on}, {@code AOF off}
 * @param rdb the RDB {@code save} setting, {@code off} when empty
 * @param lastSave when the last RDB snapshot was saved, in UTC
 * @param lastSaveAgo the same, as {@code 5 min ago}
 * @param clients connected clients
 * @param uptime {@code 3 d 4 h}
 * @param roundTrip the PING round trip, e.g. {@code 0.4 ms}
 * @param slotRanges on a cluster, the slot ranges the node serves; empty otherwise
 */
public record RedisNodeView(
    String address, String role, String version, String mode, String memory, double memoryRatio, String policy,
    boolean evicting, String persistence, String rdb, String lastSave, String lastSaveAgo, String clients,
    String uptime, String roundTrip, List<String> slotRanges) {

  /** Why an evicting policy is shown as a danger. */
  public static final String EVICTION_WARNING =
      "Redis may evict keys at its memory limit, and so delete jobs; set maxmemory-policy to noeviction";

  public RedisNodeView {
    slotRanges = List.copyOf(slotRanges);
  }

  /** The view of {@code node}, its last save told relative to {@code now}. */
  public static RedisNodeView of(RedisNode node, Instant now) {
    return new RedisNodeView(
        node.address(),
        orDash(node.role()),
        orDash(node.version()),
        orDash(node.mode()),
        memory(node.usedMemory(), node.maxMemory()),
        ratio(node.usedMemory(), node.maxMemory()),
        orDash(node.maxmemoryPolicy()),
        node.mayEvict(),
        node.aofEnabled() ? "AOF on" : "AOF off",
        node.rdbSaveConfig() == null ? "—" : node.rdbSaveConfig().isBlank() ? "off" : node.rdbSaveConfig(),
        Display.utc(node.lastSave()),
        Display.ago(node.lastSave(), now),
        node.connectedClients() < 0 ? "—" : Long.toString(node.connectedClients()),
        Display.span(node.uptime()),
        node.roundTrip() == null ? "—"
            : String.format(Locale.ROOT, "%.1f ms", node.roundTrip().toNanos() / 1_000_000.0),
        node.slotRanges());
  }

  /** Used over max, capped at 1; -1 when there is no limit or a figure is unknown. */
  static double ratio(long used, long max) {
    return max > 0 && used >= 0 ? Math.min(1.0, (double) used / max) : -1;
  }

  static String memory(long used, long max) {
    if (used < 0) {
      return "—";
    }
    if (max == 0) {
      return Display.bytes(used) + " (no limit)";
    }
    if (max < 0) {
      return Display.bytes(used) + " (limit unknown)";
    }
    return Display.bytes(used) + " of " + Display.bytes(max)
        + String.format(Locale.ROOT, " (%.1f%%)", 100.0 * used / max);
  }

  /** Whether the memory bar is drawn: there is a limit and both figures are known. */
  public boolean hasMemoryLimit() {
    return memoryRatio >= 0;
  }

  /** Whether memory use is at or above 90% of the limit. */
  public boolean memoryHigh() {
    return memoryRatio >= 0.9;
  }

  /** Whether the node serves cluster slots. */
  public boolean hasSlots() {
    return !slotRanges.isEmpty();
  }

  private static String orDash(String text) {
    return text == null || text.isEmpty() ? "—" : text;
  }
}
