package io.delayq.server;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.util.Locale;
import java.util.Set;
import org.slf4j.LoggerFactory;

/** The level of delayq's own log (the access log included), from {@code --log-level}. */
final class LogLevel {
  private static final Set<String> LEVELS = Set.of("error", "warn", "info", "debug", "trace");

  private LogLevel() {}

  static void apply(String level) {
    String name = level == null ? "info" : level.trim().toLowerCase(Locale.ROOT);
    if (!LEVELS.contains(name)) {
      throw new ServeCommand.UsageException("--log-level (DELAYQ_LOG_LEVEL) must be one of error, warn, info, debug,"
          + " trace; got '" + level + "'");
    }
    if (LoggerFactory.getLogger("io.delayq") instanceof Logger logback) {
      logback.setLevel(Level.toLevel(name));
    }
  }
}
