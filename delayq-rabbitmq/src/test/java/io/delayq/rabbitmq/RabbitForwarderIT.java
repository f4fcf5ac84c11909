package io.delayq.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import io.delayq.ForwarderStatus.State;
import io.delayq.InvalidRequestException;
import io.delayq.JobInfo;
import io.delayq.JobRequest;
import io.delayq.JobState;
import io.delayq.QueueStats;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/** Due jobs reach a RabbitMQ queue once each, with their headers, and leave delayq only then. */
class RabbitForwarderIT extends ForwarderFixture {
  @Override
  String queuePrefix() {
    return "rabbit";
  }

  private RabbitForwarder.Builder forwarder(TestRabbit.Sink sink) {
    return RabbitForwarder.builder(queue, TestRabbit.factory())
        .exchange(sink.exchange)
        .routingKey(sink.key)
        .retryBackoff(Duration.ofMillis(100), Duration.ofSeconds(1));
  }

  private static boolean empty(QueueStats s) {
    return s.scheduled() == 0 && s.active() == 0 && s.dead() == 0;
  }

  @Test
  void everyJobArrivesOnceWithItsHeadersAndTheQueueEndsEmpty() throws Exception {
    TestRabbit.Sink sink = closeLater(new TestRabbit.Sink("jobs"));
    int n = 5_000;
    List<JobRequest> requests = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long delay = ThreadLocalRandom.current().nextLong(0, 3_000);
      requests.add(i % 2 == 0
          ? JobRequest.ofJson("{\"n\":" + i + "}").withId("j" + i).withDelay(Duration.ofMillis(delay))
          : JobRequest.of("plain " + i).withId("j" + i).withDelay(Duration.ofMillis(delay)));
    }
    Instant before = Instant.now();
    for (int from = 0; from < n; from += 1000) {
      queue.scheduleAll(requests.subList(from, from + 1000));
    }
    RabbitForwarder f = closeLater(forwarder(sink).start());

    await().atMost(Duration.ofSeconds(60)).until(() -> sink.distinct() == n);
    await().atMost(Duration.ofSeconds(10)).until(() -> empty(queue.admin().stats()));
    assertThat(sink.duplicates()).as("no duplicate without a failure").isZero();
    assertThat(f.status().state()).isEqualTo(State.RUNNING);
    assertThat(f.status().forwarded()).isEqualTo(n);
    assertThat(f.status().deadLettered()).isZero();

    AMQP.BasicProperties json = sink.properties.get("j0");
    assertThat(json.getContentType()).isEqualTo("application/json");
    assertThat(json.getDeliveryMode()).isEqualTo(2);
    assertThat(json.getMessageId()).isEqualTo("j0");
    assertThat(json.getHeaders().get("x-delayq-queue").toString()).isEqualTo(queue.name());
    assertThat(json.getHeaders().get("x-delayq-attempt")).isEqualTo(1);
    long dueAt = (Long) json.getHeaders().get("x-delayq-due-at");
    long claimedAt = (Long) json.getHeaders().get("x-delayq-claimed-at");
    assertThat(dueAt).isBetween(before.toEpochMilli() - 1000, before.toEpochMilli() + 5_000);
    assertThat(claimedAt).as("claimed once due").isGreaterThanOrEqualTo(dueAt);
    assertThat(new String(sink.bodies.get("j0"), StandardCharsets.UTF_8)).isEqualTo("{\"n\":0}");

    AMQP.BasicProperties plain = sink.properties.get("j1");
    assertThat(plain.getContentType()).as("no content type unless configured").isNull();
    assertThat(new String(sink.bodies.get("j1"), StandardCharsets.UTF_8)).isEqualTo("plain 1");
  }

  @Test
  void anUnroutableJobIsDeadWithAReasonNamingExchangeAndKeyAndNotAckedSilently() throws Exception {
    TestRabbit.Sink sink = closeLater(new TestRabbit.Sink("bound"));
    queue.schedule(JobRequest.of("lost").withId("nowhere").withMaxAttempts(5));
    RabbitForwarder f = closeLater(forwarder(sink).routingKey("no-such-key").start());

    await().atMost(Duration.ofSeconds(15)).until(() -> queue.get("nowhere").map(JobInfo::state).orElse(null) == JobState.DEAD);
    JobInfo dead = queue.get("nowhere").orElseThrow();
    assertThat(dead.lastError())
        .contains("unroutable")
        .contains("exchange '" + sink.exchange + "'")
        .contains("routing key 'no-such-key'");
    assertThat(f.status().deadLettered()).isEqualTo(1);
    assertThat(f.status().forwarded()).isZero();
    assertThat(sink.distinct()).isZero();
  }

  @Test
  void aMissingExchangeIsMisconfiguredJobsWaitAndAreDeliveredOnceItIsDeclared() throws Exception {
    TestRabbit.Sink sink = closeLater(new TestRabbit.Sink("later", false));
    for (int i = 0; i < 20; i++) {
      queue.schedule(JobRequest.of("x").withId("m" + i));
    }
    RabbitForwarder f = closeLater(forwarder(sink).start());

    await().atMost(Duration.ofSeconds(15)).until(() -> f.status().state() == State.MISCONFIGURED);
    assertThat(f.status().lastError())
        .contains("exchange '" + sink.exchange + "' does not exist")
        .contains("declare it");
    QueueStats stats = queue.admin().stats();
    assertThat(stats.dead()).as("nothing buried").isZero();
    assertThat(stats.scheduled() + stats.active()).as("nothing lost").isEqualTo(20);
    assertThat(queue.get("m0").orElseThrow().attempts()).as("no attempt used").isZero();

    sink.declareExchange();
    await().atMost(Duration.ofSeconds(20)).until(() -> sink.distinct() == 20);
    await().atMost(Duration.ofSeconds(10)).until(() -> empty(queue.admin().stats()));
    assertThat(f.status().state()).isEqualTo(State.RUNNING);
  }

  @Test
  void jobsTheBrokerNacksAreHandedBackUncountedAndDeliveredOnceItTakesThem() throws Exception {
    TestRabbit.Sink sink = closeLater(new TestRabbit.Sink("nacked"));
    String refusing = sink.bindRefusingQueue();
    for (int i = 0; i < 10; i++) {
      queue.schedule(JobRequest.of("x").withId("n" + i).withMaxAttempts(1));
    }
    RabbitForwarder f = closeLater(forwarder(sink).start());

    await().atMost(Duration.ofSeconds(15)).until(() -> f.status().retried() >= 10);
    assertThat(f.status().lastError()).contains("basic.nack");
    assertThat(f.status().state()).isEqualTo(State.RETRYING);
    assertThat(f.status().forwarded()).as("nothing acked in delayq for a nacked message").isZero();
    QueueStats stats = queue.admin().stats();
    assertThat(stats.dead()).as("a nack does not use up the job's only attempt").isZero();
    assertThat(stats.scheduled() + stats.active()).isEqualTo(10);

    sink.unbind(refusing);
    await().atMost(Duration.ofSeconds(20)).until(() -> sink.distinct() == 10);
    await().atMost(Duration.ofSeconds(10)).until(() -> empty(queue.admin().stats()));
    assertThat(sink.properties.get("n0").getHeaders().get("x-delayq-attempt")).as("still the first attempt").isEqualTo(1);
    assertThat(f.status().state()).isEqualTo(State.RUNNING);
  }

  @Test
  void aPerJobRouteOverridesTheDefaultAndNullKeepsIt() throws Exception {
    TestRabbit.Sink sink = closeLater(new TestRabbit.Sink("default"));
    sink.bind("vip");
    queue.schedule(JobRequest.of("a").withId("vip-1"));
    queue.schedule(JobRequest.of("b").withId("plain-1"));
    closeLater(forwarder(sink)
        .route(job -> job.id().startsWith("vip") ? new RabbitRoute(sink.exchange, "vip") : null)
        .start());
    TestRabbit.Sink other = closeLater(new TestRabbit.Sink("x"));

    await().atMost(Duration.ofSeconds(15)).until(() -> sink.distinct() == 2);
    assertThat(other.distinct()).isZero();
    assertThat(sink.counts).containsOnlyKeys("vip-1", "plain-1");
  }

  @Test
  void aRouteToAnotherExchangeGoesThere() throws Exception {
    TestRabbit.Sink sink = closeLater(new TestRabbit.Sink("k"));
    TestRabbit.Sink other = closeLater(new TestRabbit.Sink("k"));
    queue.schedule(JobRequest.of("a").withId("elsewhere"));
    queue.schedule(JobRequest.of("b").withId("here"));
    closeLater(forwarder(sink)
        .route(job -> job.id().equals("elsewhere") ? new RabbitRoute(other.exchange, "k") : null)
        .start());
    await().atMost(Duration.ofSeconds(15)).until(() -> sink.distinct() == 1 && other.distinct() == 1);
    assertThat(other.counts).containsOnlyKeys("elsewhere");
    assertThat(sink.counts).containsOnlyKeys("here");
  }

  @Test
  void closingMidStreamLeavesEveryJobEitherDeliveredOrWaitingInDelayq() throws Exception {
    TestRabbit.Sink sink = closeLater(new TestRabbit.Sink("c"));
    int n = 3_000;
    List<JobRequest> requests = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      requests.add(JobRequest.of("x").withId("c" + i));
    }
    for (int from = 0; from < n; from += 1000) {
      queue.scheduleAll(requests.subList(from, from + 1000));
    }
    RabbitForwarder f = forwarder(sink).start();
    await().atMost(Duration.ofSeconds(20)).until(() -> f.status().forwarded() > 0);
    f.close();
    f.close();
    assertThat(f.status().state()).isEqualTo(State.CLOSED);
    assertThatThrownBy(f::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");

    QueueStats stats = queue.admin().stats();
    assertThat(stats.active()).as("no job left leased by the closed forwarder").isZero();
    assertThat(stats.dead()).isZero();
    long forwarded = f.status().forwarded();
    assertThat(stats.scheduled()).as("what was not recorded as forwarded waits in delayq").isEqualTo(n - forwarded);
    await().atMost(Duration.ofSeconds(10)).until(() -> sink.distinct() >= forwarded);
    for (int i = 0; i < n; i++) {
      String id = "c" + i;
      assertThat(sink.counts.containsKey(id) || queue.get(id).isPresent()).as(id + " delivered or waiting").isTrue();
    }
  }

  @Test
  void badSettingsAreRefusedNamingTheSetting() {
    var factory = TestRabbit.factory();
    assertThatThrownBy(() -> RabbitForwarder.builder(queue, factory).routingKey("k").build())
        .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("exchange: is not set");
    assertThatThrownBy(() -> RabbitForwarder.builder(queue, factory).exchange(null).routingKey("k").build())
        .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("exchange:");
    assertThatThrownBy(() -> RabbitForwarder.builder(queue, factory).exchange("x").build())
        .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("routingKey: is not set");
    assertThatThrownBy(() -> RabbitForwarder.builder(queue, factory).exchange("x").routingKey("k")
        .confirmTimeout(Duration.ofSeconds(30)).lease(Duration.ofSeconds(30)).build())
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageStartingWith("lease: (PT30S) must be longer than confirmTimeout (PT30S)");
    assertThatThrownBy(() -> RabbitForwarder.builder(queue, factory).exchange("x").routingKey("k").maxInFlight(0).build())
        .isInstanceOf(InvalidRequestException.class).hasMessage("maxInFlight: must be at least 1; got 0");
    assertThatThrownBy(() -> RabbitForwarder.builder(queue, factory).exchange("x").routingKey("k")
        .confirmTimeout(Duration.ZERO).build())
        .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("confirmTimeout: must be a positive");
    assertThatThrownBy(() -> RabbitForwarder.builder(queue, factory).exchange("x").routingKey("k")
        .retryBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)).build())
        .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("retryBackoff:");
    assertThatThrownBy(() -> RabbitForwarder.builder(null, factory))
        .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("queue: is null");
    assertThatThrownBy(() -> new RabbitRoute(null, "k"))
        .isInstanceOf(InvalidRequestException.class).hasMessageStartingWith("exchange: is null");
  }
}
