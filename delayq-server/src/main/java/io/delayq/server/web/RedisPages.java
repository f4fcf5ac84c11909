package io.delayq.server.web;

import io.delayq.Delayq;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** The Redis page ({@code /redis}): each node's version, memory, eviction policy, persistence and slots. */
final class RedisPages {
  private final Delayq delayq;
  private final Clock clock;

  RedisPages(Delayq delayq, Clock clock) {
    this.delayq = delayq;
    this.clock = clock;
  }

  /** {@code GET /redis}. */
  WebResponse nodes(WebRequest request, PageContext page) {
    Instant now = clock.instant();
    List<RedisNodeView> nodes = delayq.redisNodes().stream().map(node -> RedisNodeView.of(node, now)).toList();
    return page.page("redis.jte", Map.of("nodes", nodes));
  }
}
