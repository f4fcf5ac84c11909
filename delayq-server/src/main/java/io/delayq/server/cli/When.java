package io.delayq.server.cli;

import java.time.Duration;
import java.time.Instant;
import picocli.CommandLine.Option;

/** {@code --delay} or {@code --at}, never both: when a job is due. */
final class When {
  @Option(names = "--delay", paramLabel = "DURATION", converter = Converters.DelayConverter.class,
      description = "Due this long from now (by the Redis clock): 500ms, 30s, 5m, 1h, 2d, 1h30m or ISO-8601 PT30S.")
  Duration delay;

  @Option(names = "--at", paramLabel = "INSTANT", converter = Converters.InstantConverter.class,
      description = "Due at this ISO-8601 instant, e.g. 2026-12-01T09:00:00Z; one in the past means now.")
  Instant at;
}
