package io.delayq.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * What the benchmark ran on, for the report's header.
 *
 * @param cores processors available to the JVM (what {@code nproc} prints)
 * @param cpuModel the first {@code model name} in {@code /proc/cpuinfo}
 * @param ramGib total memory from {@code /proc/meminfo}, GiB
 * @param java Java version and VM
 * @param os operating system and kernel
 */
record Machine(int cores, String cpuModel, double ramGib, String java, String os) {
  static Machine describe() {
    return new Machine(
        Runtime.getRuntime().availableProcessors(),
        readCpuModel(),
        readRamGib(),
        System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ", "
            + System.getProperty("java.vm.vendor") + ")",
        System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
  }

  String ram() {
    return Double.isNaN(ramGib) ? "unknown" : String.format(Locale.ROOT, "%.1f GiB", ramGib);
  }

  private static String readCpuModel() {
    for (String line : lines(Path.of("/proc/cpuinfo"))) {
      if (line.startsWith("model name")) {
        return line.substring(line.indexOf(':') + 1).trim();
      }
    }
    return "unknown";
  }

  private static double readRamGib() {
    for (String line : lines(Path.of("/proc/meminfo"))) {
      if (line.startsWith("MemTotal:")) {
        String kib = line.replaceAll("[^0-9]", "");
        return Long.parseLong(kib) / (1024.0 * 1024.0);
      }
    }
    return Double.NaN;
  }

  private static List<String> lines(Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
  }
}
