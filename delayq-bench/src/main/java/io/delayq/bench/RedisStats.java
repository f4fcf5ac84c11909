package io.delayq.bench;

import java.util.HashMap;
import java.util.Map;

/**
 * One {@code INFO all} snapshot of the Redis under test: the counters scenarios take deltas of.
 *
 * @param totalCommands {@code total_commands_processed}: commands clients sent, a script call counting once
 * @param commandstatsCalls the sum of {@code calls} over {@code INFO commandstats}, which (since
 *     Redis 7) also counts the commands scripts run inside
 * @param usedMemory {@code used_memory}, bytes
 * @param cpuSeconds {@code used_cpu_user + used_cpu_sys} of the server process
 * @param netInBytes {@code total_net_input_bytes}
 * @param netOutBytes {@code total_net_output_bytes}
 * @param evalshaCalls {@code calls} of {@code cmdstat_evalsha}
 * @param evalshaMicros {@code usec} of {@code cmdstat_evalsha}
 * @param replyBytes size of this INFO reply, so a delta can leave out the probe's own traffic
 */
record RedisStats(
    long totalCommands,
    long commandstatsCalls,
    long usedMemory,
    double cpuSeconds,
    long netInBytes,
    long netOutBytes,
    long evalshaCalls,
    long evalshaMicros,
    long replyBytes) {

  /** Bytes an {@code INFO all} request takes on the wire, as RESP. */
  private static final long PROBE_REQUEST_BYTES = "*2\r\n$4\r\nINFO\r\n$3\r\nall\r\n".length();

  static RedisStats parse(String info) {
    Map<String, String> fields = new HashMap<>();
    long calls = 0;
    long evalshaCalls = 0;
    long evalshaMicros = 0;
    for (String line : info.split("\r?\n")) {
      int colon = line.indexOf(':');
      if (line.startsWith("#") || colon < 0) {
        continue;
      }
      String name = line.substring(0, colon);
      String value = line.substring(colon + 1);
      if (name.startsWith("cmdstat_")) {
        Map<String, String> stat = subFields(value);
        long c = Long.parseLong(stat.getOrDefault("calls", "0"));
        calls += c;
        if (name.equals("cmdstat_evalsha")) {
          evalshaCalls = c;
          evalshaMicros = Long.parseLong(stat.getOrDefault("usec", "0"));
        }
      } else {
        fields.put(name, value.trim());
      }
    }
    return new RedisStats(
        number(fields, "total_commands_processed"),
        calls,
        number(fields, "used_memory"),
        Double.parseDouble(fields.getOrDefault("used_cpu_user", "0"))
            + Double.parseDouble(fields.getOrDefault("used_cpu_sys", "0")),
        number(fields, "total_net_input_bytes"),
        number(fields, "total_net_output_bytes"),
        evalshaCalls,
        evalshaMicros,
        // why: the reply is bulk text: its length, plus the "$<len>\r\n" header and trailing CRLF
        info.length() + 16);
  }

  private static long number(Map<String, String> fields, String name) {
    String value = fields.get(name);
    if (value == null) {
      throw new IllegalStateException("INFO has no " + name);
    }
    return Long.parseLong(value);
  }

  private static Map<String, String> subFields(String value) {
    Map<String, String> out = new HashMap<>();
    for (String part : value.split(",")) {
      int eq = part.indexOf('=');
      if (eq > 0) {
        out.put(part.substring(0, eq), part.substring(eq + 1));
      }
    }
    return out;
  }

  /**
   * What happened between {@code before} and this snapshot, leaving out the {@code before} probe
   * itself (one INFO command, its request and its reply).
   */
  Delta since(RedisStats before) {
    return new Delta(
        totalCommands - before.totalCommands - 1,
        commandstatsCalls - before.commandstatsCalls - 1,
        usedMemory - before.usedMemory,
        (cpuSeconds - before.cpuSeconds) * 1e6,
        netInBytes - before.netInBytes - PROBE_REQUEST_BYTES,
        netOutBytes - before.netOutBytes - before.replyBytes,
        evalshaCalls - before.evalshaCalls,
        evalshaMicros - before.evalshaMicros);
  }

  /**
   * The change between two snapshots.
   *
   * @param commands {@code total_commands_processed} delta
   * @param commandstatsCalls delta of the summed {@code calls} of {@code INFO commandstats}
   * @param usedMemory {@code used_memory} delta, bytes
   * @param cpuMicros Redis CPU (user + sys), microseconds
   * @param netInBytes bytes Redis received
   * @param netOutBytes bytes Redis sent
   * @param evalshaCalls EVALSHA calls
   * @param evalshaMicros time spent in EVALSHA, microseconds
   */
  record Delta(
      long commands,
      long commandstatsCalls,
      long usedMemory,
      double cpuMicros,
      long netInBytes,
      long netOutBytes,
      long evalshaCalls,
      long evalshaMicros) {

    /** Microseconds per EVALSHA call, or NaN when there was none. */
    double evalshaMicrosPerCall() {
      return evalshaCalls == 0 ? Double.NaN : (double) evalshaMicros / evalshaCalls;
    }
  }
}
