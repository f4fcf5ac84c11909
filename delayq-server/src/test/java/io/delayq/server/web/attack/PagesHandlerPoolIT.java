package io.delayq.server.web.attack;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.Delayq;
import io.delayq.JobRequest;
import io.delayq.Page;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Dashboard pages run on the same 64 handler threads, behind the same FIFO queue, as the HTTP API
 * that producers and workers use. A page that walks hundreds of queues (Schedules looks into up to
 * 500 per page) takes a fraction of a second alone; a hundred of them at once (an operator's
 * script, a few auto-refreshing tabs, a hostile client) queue every API request behind them, so a
 * one-round-trip job lookup waits for seconds. Measured on a shared Redis of ~1,400 queues: 200
 * parallel loads of /schedules made GET /v1/queues/{queue}/jobs/{id} take 45 s.
 */
class PagesHandlerPoolIT {
  private static final int QUEUES_WALKED = 500;
  /** A few more page loads than handler threads: enough to put an API request in the queue. */
  private static final int PAGE_LOADS = 72;
  private static final List<String> created = new ArrayList<>();
  private static AttackServer server;

  @BeforeAll
  static void start() {
    server = PagesAttack.open();
    Delayq delayq = AttackServer.delayq();
    int have = 0;
    String cursor = null;
    do {
      Page<String> names = delayq.queueNames(cursor, 1000);
      have += names.items().size();
      cursor = names.nextCursor().orElse(null);
    } while (cursor != null && have < QUEUES_WALKED);
    String prefix = "atk-pool-" + UUID.randomUUID().toString().substring(0, 6) + "-";
    for (int i = have; i < QUEUES_WALKED; i++) {
      delayq.queue(prefix + i).schedule(JobRequest.of("x").withId("seed").withDelay(Duration.ofHours(1)));
      created.add(prefix + i);
    }
  }

  @AfterAll
  static void stop() {
    for (String name : created) {
      AttackServer.delayq().queue(name).admin().delete(true);
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void theApiAnswersPromptlyWhileManySchedulePagesLoad() throws Exception {
    String queue = AttackServer.newQueue("atk-pool");
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    List<CompletableFuture<HttpResponse<Void>>> pages = new ArrayList<>();
    for (int i = 0; i < PAGE_LOADS; i++) {
      pages.add(http.sendAsync(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/schedules"))
          .timeout(Duration.ofSeconds(120)).build(), HttpResponse.BodyHandlers.discarding()));
    }
    try {
      // let the page loads arrive first, as they would from an operator's burst
      TimeUnit.MILLISECONDS.sleep(300);
      long start = System.nanoTime();
      HttpResponse<String> job = http.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/queues/" + queue
          + "/jobs/seed")).timeout(Duration.ofSeconds(120)).build(), HttpResponse.BodyHandlers.ofString());
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertThat(job.statusCode()).isEqualTo(200);
      assertThat(took).as("one API job lookup while %s Schedules pages load", PAGE_LOADS)
          .isLessThan(Duration.ofSeconds(2));
    } finally {
      CompletableFuture.allOf(pages.toArray(CompletableFuture[]::new)).handle((r, e) -> null).get(180, TimeUnit.SECONDS);
    }
  }
}
