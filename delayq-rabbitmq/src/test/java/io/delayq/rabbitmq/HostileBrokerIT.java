package io.delayq.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.ForwarderStatus.State;
import io.delayq.JobRequest;
import io.delayq.QueueStats;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The broker taking the forwarder's connection away mid-burst, and the exchange deleted under a
 * running forwarder: no job is lost, none acked without its confirm. Only this test's own
 * connection is closed; the broker is shared.
 */
class HostileBrokerIT extends ForwarderFixture {
  @Override
  String queuePrefix() {
    return "rabbit-broker";
  }

  /** Closes, from the broker's side, the connections named {@code name}; how many it closed. */
  private static int closeConnectionsNamed(String name) throws Exception {
    Process list = new ProcessBuilder("rabbitmqctl", "-q", "list_connections", "pid", "client_properties")
        .redirectErrorStream(true).start();
    String out = new String(list.getInputStream().readAllBytes());
    assertThat(list.waitFor(60, TimeUnit.SECONDS)).isTrue();
    int closed = 0;
    for (String line : out.split("\n")) {
      if (line.contains("{\"connection_name\",\"" + name + "\"}")) {
        TestRabbit.rabbitmqctl("close_connection", line.substring(0, line.indexOf('\t')), "closed by a test");
        closed++;
      }
    }
    return closed;
  }

  private void schedule(String prefix, int n) {
    List<JobRequest> requests = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      requests.add(JobRequest.of("x" + i).withId(prefix + i));
    }
    for (int from = 0; from < n; from += 1000) {
      queue.scheduleAll(requests.subList(from, Math.min(n, from + 1000)));
    }
  }

  @Test
  void connectionsClosedByTheBrokerMidBurstLoseNothingAndRepublishAtMostAWindowEach() throws Exception {
    TestRabbit.Sink sink = closeLater(new TestRabbit.Sink("burst"));
    int n = 4_000;
    int window = 100;
    schedule("b", n);
    RabbitForwarder f = closeLater(RabbitForwarder.builder(queue, TestRabbit.factory())
        .exchange(sink.exchange).routingKey(sink.key)
        .maxInFlight(window)
        .retryBackoff(Duration.ofMillis(50), Duration.ofMillis(300))
        .start());
    int cuts = 0;
    for (int round = 1; round <= 3; round++) {
      long target = (long) n * round / 4;
      await().atMost(Duration.ofSeconds(30)).until(() -> f.status().forwarded() >= target);
      await().atMost(Duration.ofSeconds(10)).until(() -> f.status().state() == State.RUNNING);
      cuts += closeConnectionsNamed("delayq-forwarder-" + queue.name());
    }
    assertThat(cuts).as("the forwarder's connection was found and closed each time").isEqualTo(3);

    await().atMost(Duration.ofSeconds(60)).until(() -> sink.distinct() == n);
    await().atMost(Duration.ofSeconds(15)).until(() -> {
      QueueStats s = queue.admin().stats();
      return s.scheduled() == 0 && s.active() == 0;
    });
    assertThat(queue.admin().stats().dead()).isZero();
    assertThat(f.status().forwarded()).isEqualTo(n);
    assertThat(sink.republished()).as("published again only when in flight at a cut").isLessThanOrEqualTo(3L * window);
    await().atMost(Duration.ofSeconds(10)).until(() -> f.status().state() == State.RUNNING);
  }

  @Test
  void anExchangeDeletedUnderARunningForwarderLeavesTheJobsWaitingUntilItIsBack() throws Exception {
    TestRabbit.Sink sink = closeLater(new TestRabbit.Sink("gone"));
    RabbitForwarder f = closeLater(RabbitForwarder.builder(queue, TestRabbit.factory())
        .exchange(sink.exchange).routingKey(sink.key)
        .retryBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
        .start());
    schedule("before", 50);
    await().atMost(Duration.ofSeconds(15)).until(() -> sink.distinct() == 50);

    deleteExchange(sink.exchange);
    schedule("during", 50);
    await().atMost(Duration.ofSeconds(15)).until(() -> f.status().state() == State.MISCONFIGURED);
    assertThat(f.status().lastError()).contains("exchange '" + sink.exchange + "' does not exist");
    QueueStats waiting = queue.admin().stats();
    assertThat(waiting.dead()).as("nothing buried while the exchange is gone").isZero();
    assertThat(waiting.scheduled() + waiting.active()).as("nothing lost").isEqualTo(50);

    sink.declareExchange();
    await().atMost(Duration.ofSeconds(30)).until(() -> sink.distinct() == 100);
    await().atMost(Duration.ofSeconds(10)).until(() -> f.status().state() == State.RUNNING);
    assertThat(queue.admin().stats().dead()).isZero();
    assertThat(f.status().forwarded()).isEqualTo(100);
  }

  private static void deleteExchange(String name) throws IOException, java.util.concurrent.TimeoutException {
    try (var c = TestRabbit.factory().newConnection("delayq-test-admin"); var ch = c.createChannel()) {
      ch.exchangeDelete(name);
    }
  }

  @Test
  void twoForwardersOnOneQueueShareItWithoutPublishingAJobTwice() throws Exception {
    TestRabbit.Sink sink = closeLater(new TestRabbit.Sink("two"));
    int n = 3_000;
    schedule("t", n);
    RabbitForwarder a = closeLater(RabbitForwarder.builder(queue, TestRabbit.factory())
        .exchange(sink.exchange).routingKey(sink.key).maxInFlight(50).start());
    RabbitForwarder b = closeLater(RabbitForwarder.builder(queue, TestRabbit.factory())
        .exchange(sink.exchange).routingKey(sink.key).maxInFlight(50).start());
    await().atMost(Duration.ofSeconds(60)).until(() -> sink.distinct() == n);
    await().atMost(Duration.ofSeconds(10)).until(() -> a.status().forwarded() + b.status().forwarded() == n);
    assertThat(sink.republished()).as("claims are exclusive: no job published by both").isZero();
    assertThat(a.status().forwarded()).as("both took part").isPositive();
    assertThat(b.status().forwarded()).isPositive();
  }

  @Test
  void closingDuringABrokerOutageIsQuickAndLeavesEveryJobInDelayq() throws Exception {
    TestRabbit.Sink sink = closeLater(new TestRabbit.Sink("outage"));
    int n = 2_000;
    schedule("o", n);
    RabbitForwarder f = RabbitForwarder.builder(queue, TestRabbit.factory())
        .exchange(sink.exchange).routingKey(sink.key)
        .maxInFlight(200)
        .confirmTimeout(Duration.ofSeconds(3)).lease(Duration.ofSeconds(30))
        .retryBackoff(Duration.ofMillis(100), Duration.ofSeconds(1))
        .start();
    await().atMost(Duration.ofSeconds(20)).until(() -> f.status().forwarded() > 0);
    long closeMillis;
    try {
      TestRabbit.rabbitmqctl("stop_app");
      await().atMost(Duration.ofSeconds(10)).until(() -> f.status().state() == State.RETRYING);
      long started = System.nanoTime();
      f.close();
      closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    } finally {
      TestRabbit.rabbitmqctl("start_app");
    }
    assertThat(closeMillis).as("close does not wait for a broker that is away").isLessThan(5_000);
    assertThat(f.status().state()).isEqualTo(State.CLOSED);
    QueueStats s = queue.admin().stats();
    assertThat(s.active()).as("no lease left behind").isZero();
    assertThat(s.dead()).isZero();
    assertThat(s.scheduled()).as("what was not recorded as forwarded waits in delayq").isEqualTo(n - f.status().forwarded());

    // and a forwarder started once the broker is back delivers the rest (the sink reconnects by itself)
    closeLater(RabbitForwarder.builder(queue, TestRabbit.factory())
        .exchange(sink.exchange).routingKey(sink.key)
        .retryBackoff(Duration.ofMillis(100), Duration.ofSeconds(1))
        .start());
    await().atMost(Duration.ofSeconds(60)).until(() -> sink.distinct() == n);
    await().atMost(Duration.ofSeconds(10)).until(() -> queue.admin().stats().scheduled() == 0);
  }
}
