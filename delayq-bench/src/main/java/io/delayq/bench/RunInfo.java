package io.delayq.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.EnumSet;
import java.util.Properties;
import java.util.Set;

/**
 * What the report's header says about the run: when, where, on what.
 *
 * @param date when the run started
 * @param settings the scenario sizes
 * @param scenarios the scenarios run (all of them, unless {@code --only} named some)
 * @param machine the hardware and JVM
 * @param redisVersion {@code redis_version} of the server under test
 * @param redisBinary the redis-server executable
 * @param redisChoice why that executable
 * @param wallSeconds how long the run took, start of Redis to the end of the last scenario
 */
record RunInfo(Instant date, BenchSettings settings, Set<Scenario> scenarios, Machine machine, String redisVersion,
    Path redisBinary, String redisChoice, double wallSeconds) {

  /** The one command that builds and runs the full benchmark, from the repository root. */
  static final String COMMAND = "mvn -q -DskipTests package && java -jar delayq-bench/target/delayq-bench.jar";

  /** Whether every scenario ran, so that targets, ratios and plots can be computed. */
  boolean complete() {
    return scenarios.equals(EnumSet.allOf(Scenario.class));
  }

  static String redissonVersion() {
    return version("org.redisson", "redisson");
  }

  static String lettuceVersion() {
    return version("io.lettuce", "lettuce-core");
  }

  static String delayqVersion() {
    return version("io.delayq", "delayq-core");
  }

  /** The version Maven recorded in a dependency's jar; the shaded jar keeps these files. */
  private static String version(String group, String artifact) {
    String resource = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
    try (InputStream in = RunInfo.class.getResourceAsStream(resource)) {
      if (in == null) {
        return "unknown";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }
}
