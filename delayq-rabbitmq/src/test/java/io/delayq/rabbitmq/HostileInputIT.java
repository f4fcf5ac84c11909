package io.delayq.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.ForwarderStatus.State;
import io.delayq.InvalidRequestException;
import io.delayq.JobInfo;
import io.delayq.JobRequest;
import io.delayq.JobState;
import io.delayq.testing.TestRedis;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Jobs and settings that AMQP cannot carry as they are: refused or buried, never retried forever. */
class HostileInputIT extends ForwarderFixture {
  @Override
  String queuePrefix() {
    return "rabbit-hostile";
  }

  @Test
  void aJobWhoseIdCannotBeAMessageIdIsDeadAndTheOthersAreForwarded() throws Exception {
    TestRabbit.Sink sink = closeLater(new TestRabbit.Sink("k"));
    // delayq takes ids of up to 256 bytes; an AMQP messageId (a short string) holds 255
    String longId = "x".repeat(256);
    queue.schedule(JobRequest.of("too long").withId(longId));
    for (int i = 0; i < 20; i++) {
      queue.schedule(JobRequest.of("fine").withId("ok" + i));
    }
    RabbitForwarder f = closeLater(RabbitForwarder.builder(queue, TestRabbit.factory())
        .exchange(sink.exchange).routingKey(sink.key)
        .retryBackoff(Duration.ofMillis(50), Duration.ofMillis(200))
        .start());

    await().atMost(Duration.ofSeconds(15)).until(() -> sink.distinct() == 20);
    await().atMost(Duration.ofSeconds(15))
        .until(() -> queue.get(longId).map(JobInfo::state).orElse(null) == JobState.DEAD);
    assertThat(queue.get(longId).orElseThrow().lastError()).contains("messageId").contains("255");
    assertThat(f.status().deadLettered()).isEqualTo(1);
    assertThat(f.status().retried()).as("the good jobs were not handed back because of the bad one").isZero();
    assertThat(sink.duplicates()).isZero();
    assertThat(f.status().state()).isEqualTo(State.RUNNING);
  }

  @Test
  void aRoutingKeyOfMoreThan255Utf8BytesIsRefusedByBuild() {
    String key = "é".repeat(200); // 200 characters, 400 bytes
    assertThatThrownBy(() -> RabbitForwarder.builder(queue, TestRabbit.factory()).exchange("x").routingKey(key).build())
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageStartingWith("routingKey:")
        .hasMessageContaining("400 bytes");
    assertThatThrownBy(() -> new RabbitRoute("ü".repeat(128), "k"))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageStartingWith("exchange:");
  }

  @Test
  void aPayloadOverTheBrokersMaxMessageSizeIsDeadAndTheOthersAreForwarded() throws Exception {
    TestRabbit.Sink sink = closeLater(new TestRabbit.Sink("k"));
    // RabbitMQ's max_message_size is 128 MiB by default (3.x; 16 MiB from 4.0): one byte more
    int tooBig = 128 * 1024 * 1024 + 1;
    try (Delayq big = Delayq.builder().redisUrl(TestRedis.url()).maxPayloadBytes(tooBig).build()) {
      big.queue(queue.name()).schedule(JobRequest.of(new byte[tooBig]).withId("huge"));
    }
    for (int i = 0; i < 20; i++) {
      queue.schedule(JobRequest.of("fine").withId("ok" + i).withDelay(Duration.ofMillis(i * 100L)));
    }
    RabbitForwarder f = closeLater(RabbitForwarder.builder(queue, TestRabbit.factory())
        .exchange(sink.exchange).routingKey(sink.key)
        .retryBackoff(Duration.ofMillis(50), Duration.ofMillis(200))
        .start());

    await().atMost(Duration.ofSeconds(60))
        .until(() -> queue.get("huge").map(JobInfo::state).orElse(null) == JobState.DEAD);
    assertThat(queue.get("huge").orElseThrow().lastError()).contains("134217729 bytes").contains("max_message_size");
    await().atMost(Duration.ofSeconds(30)).until(() -> sink.distinct() == 20);
    assertThat(sink.counts).doesNotContainKey("huge");
    await().atMost(Duration.ofSeconds(10)).until(() -> f.status().state() == State.RUNNING);
  }

  @Test
  void anEmptyPayloadAndAnIdOfExactly255Utf8BytesArriveAsTheyAre() throws Exception {
    TestRabbit.Sink sink = closeLater(new TestRabbit.Sink("k"));
    String longest = "€".repeat(85); // 3 bytes each: 255
    queue.schedule(JobRequest.of(new byte[0]).withId("empty"));
    queue.schedule(JobRequest.of("x").withId(longest));
    queue.schedule(JobRequest.of("y").withId("id with space and 😀"));
    closeLater(RabbitForwarder.builder(queue, TestRabbit.factory()).exchange(sink.exchange).routingKey(sink.key).start());
    await().atMost(Duration.ofSeconds(15)).until(() -> sink.distinct() == 3);
    assertThat(sink.bodies.get("empty")).isEmpty();
    assertThat(sink.counts).containsKeys(longest, "id with space and 😀");
    assertThat(queue.admin().stats().dead()).isZero();
  }

  @Test
  void aJobRoutedToAMissingExchangeWaitsWithoutStoppingTheOthers() throws Exception {
    TestRabbit.Sink sink = closeLater(new TestRabbit.Sink("k"));
    TestRabbit.Sink later = closeLater(new TestRabbit.Sink("k", false));
    queue.schedule(JobRequest.of("elsewhere").withId("bad").withMaxAttempts(1));
    for (int i = 0; i < 20; i++) {
      queue.schedule(JobRequest.of("ok").withId("ok" + i).withDelay(Duration.ofMillis(300 + i * 50L)));
    }
    RabbitForwarder f = closeLater(RabbitForwarder.builder(queue, TestRabbit.factory())
        .exchange(sink.exchange).routingKey(sink.key)
        .route(job -> job.id().equals("bad") ? new RabbitRoute(later.exchange, "k") : null)
        .retryBackoff(Duration.ofMillis(100), Duration.ofSeconds(1))
        .start());

    await().atMost(Duration.ofSeconds(20)).until(() -> sink.distinct() == 20);
    await().atMost(Duration.ofSeconds(10)).until(() -> f.status().state() == State.RUNNING);
    JobInfo bad = queue.get("bad").orElseThrow();
    assertThat(bad.state()).as("waits, not buried").isIn(JobState.SCHEDULED, JobState.ACTIVE);
    assertThat(bad.attempts()).as("no attempt used").isLessThanOrEqualTo(1);

    later.declareExchange();
    await().atMost(Duration.ofSeconds(20)).until(() -> later.distinct() == 1);
    assertThat(later.counts).containsOnlyKeys("bad");
    assertThat(queue.admin().stats().dead()).isZero();
  }
}
