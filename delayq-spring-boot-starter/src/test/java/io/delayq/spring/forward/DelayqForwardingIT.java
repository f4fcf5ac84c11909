package io.delayq.spring.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.Forwarder;
import io.delayq.ForwarderStatus;
import io.delayq.JobInfo;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.QueueStats;
import io.delayq.spring.TestRabbitBroker;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.autoconfigure.DelayqAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqForwardingAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqHealthAutoConfiguration;
import io.delayq.spring.health.DelayqHealthIndicator;
import io.delayq.spring.internal.forward.ForwardingLifecycle;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Forwarding and adoption configured by properties alone, against the real Redis and the real
 * RabbitMQ: scheduled jobs arrive once each in a RabbitMQ queue with the job id as messageId, over
 * the application's own spring.rabbitmq.* connection; jobs arrive in a Redis list; a sorted set
 * written the classic way (ZADD with epoch seconds) is adopted and its due member forwarded; and the
 * health indicator shows each forwarder and bridge, DOWN for a missing exchange.
 */
class DelayqForwardingIT {
  private static RedisClient redisClient;
  private static StatefulRedisConnection<String, String> redisConnection;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(DelayqAutoConfiguration.class, DelayqForwardingAutoConfiguration.class,
          DelayqHealthAutoConfiguration.class, RabbitAutoConfiguration.class))
      .withPropertyValues("delayq.redis.url=" + TestRedisUrl.get());

  @BeforeAll
  static void connect() {
    redisClient = RedisClient.create(TestRedisUrl.get());
    redisConnection = redisClient.connect();
  }

  @AfterAll
  static void disconnect() {
    redisConnection.close();
    redisClient.shutdown();
  }

  private static RedisCommands<String, String> redis() {
    return redisConnection.sync();
  }

  private static String unique(String purpose) {
    return "fwd-" + purpose + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private static Health health(AssertableApplicationContext context) {
    return context.getBean(DelayqHealthIndicator.class).health();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> detail(Health health, String... path) {
    Map<String, Object> node = health.getDetails();
    for (String key : path) {
      assertThat(node).as("health details at %s", key).containsKey(key);
      node = (Map<String, Object>) node.get(key);
    }
    return node;
  }

  @Test
  void scheduledJobsArriveOnceEachInARabbitMqQueueWithTheJobIdAsMessageId() throws Exception {
    TestRabbitBroker.assumeReachable();
    String queue = unique("rabbit");
    try (TestRabbitBroker.Sink sink = new TestRabbitBroker.Sink("order.cancel")) {
      List<Forwarder> seen = new ArrayList<>();
      runner
          .withPropertyValues(TestRabbitBroker.springProperties())
          .withPropertyValues(
              "delayq.forward.rabbitmq." + queue + ".exchange=" + sink.exchange,
              "delayq.forward.rabbitmq." + queue + ".routing-key=order.cancel",
              "delayq.forward.rabbitmq." + queue + ".max-in-flight=4",
              "delayq.forward.rabbitmq." + queue + ".confirm-timeout=5s",
              "delayq.forward.rabbitmq." + queue + ".lease=30s")
          .run(context -> {
            assertThat(context).hasNotFailed();
            JobQueue jobs = context.getBean(Delayq.class).queue(queue);
            List<String> ids = IntStream.range(0, 10).mapToObj(i -> "order-" + i).toList();
            for (String id : ids) {
              jobs.schedule(JobRequest.ofJson("{\"order\":\"" + id + "\"}").withId(id).withDelay(Duration.ofMillis(200)));
            }

            await().atMost(Duration.ofSeconds(20)).until(() -> sink.counts().keySet().containsAll(ids));
            // every job acked in delayq: nothing left that could be published again
            await().atMost(Duration.ofSeconds(10)).until(() -> {
              QueueStats stats = jobs.admin().stats();
              return stats.scheduled() == 0 && stats.active() == 0;
            });
            assertThat(sink.counts()).hasSize(10).allSatisfy((id, n) -> assertThat(n).as("copies of %s", id).isEqualTo(1));
            assertThat(sink.bodies()).contains("{\"order\":\"order-3\"}");

            Health health = health(context);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(detail(health, "forwarders", queue))
                .containsEntry("state", "RUNNING")
                .containsEntry("target", "rabbitmq:" + sink.exchange + "/order.cancel")
                .containsEntry("forwarded", 10L)
                .containsEntry("deadLettered", 0L);
            assertThat(detail(health, "queues", queue)).containsEntry("stuck", false);
            seen.addAll(context.getBean(ForwardingLifecycle.class).forwarders());
          });
      assertThat(seen).singleElement()
          .satisfies(f -> assertThat(f.status().state()).as("closed with the context").isEqualTo(ForwarderStatus.State.CLOSED));
    }
  }

  @Test
  void aMissingExchangeMakesTheForwarderMisconfiguredAndHealthDown() {
    TestRabbitBroker.assumeReachable();
    String queue = unique("noexchange");
    String exchange = "dq-starter-missing-" + UUID.randomUUID().toString().substring(0, 8);
    runner
        .withPropertyValues(TestRabbitBroker.springProperties())
        .withPropertyValues(
            "delayq.forward.rabbitmq." + queue + ".exchange=" + exchange,
            "delayq.forward.rabbitmq." + queue + ".routing-key=k")
        .run(context -> {
          assertThat(context).hasNotFailed();
          JobQueue jobs = context.getBean(Delayq.class).queue(queue);
          jobs.schedule(JobRequest.of("kept").withId("kept-1").withDelay(Duration.ZERO));

          await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            Health health = health(context);
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(detail(health, "forwarders", queue)).containsEntry("state", "MISCONFIGURED");
            assertThat((String) detail(health, "forwarders", queue).get("lastError")).contains(exchange);
            assertThat((List<?>) health.getDetails().get("problems")).anySatisfy(p ->
                assertThat((String) p).contains("forwarder of queue '" + queue + "'").contains("misconfigured"));
          });
          assertThat(jobs.get("kept-1")).as("the job waits in delayq").isPresent();
        });
  }

  @Test
  void dueJobsArriveInARedisListInTheEnvelopeFormat() {
    String queue = unique("list");
    String list = unique("execute_queue");
    try {
      runner
          .withPropertyValues(
              "delayq.forward.list." + queue + ".list=" + list,
              "delayq.forward.list." + queue + ".format=envelope")
          .run(context -> {
            assertThat(context).hasNotFailed();
            JobQueue jobs = context.getBean(Delayq.class).queue(queue);
            jobs.schedule(JobRequest.ofJson("{\"n\":1}").withId("env-1").withDelay(Duration.ofMillis(100)));

            await().atMost(Duration.ofSeconds(10)).until(() -> redis().llen(list) == 1);
            String element = redis().rpop(list);
            assertThat(element).contains("\"id\":\"env-1\"").contains("\"payload\":{\"n\":1}").contains("\"attempt\":");
            assertThat(jobs.get("env-1")).as("moved out of delayq").isEmpty();

            Health health = health(context);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(detail(health, "forwarders", queue))
                .containsEntry("state", "RUNNING")
                .containsEntry("forwarded", 1L);
            assertThat((String) detail(health, "forwarders", queue).get("target")).contains(list);
          });
    } finally {
      redis().del(list);
    }
  }

  @Test
  void aSortedSetWrittenTheClassicWayIsAdoptedAndItsDueMemberForwarded() {
    String queue = unique("adopt");
    String source = unique("delayed:orders");
    String list = unique("orders_due");
    long nowSeconds = Instant.now().getEpochSecond();
    String due = "{\"orderId\":\"o-due\",\"amount\":12}";
    String later = "{\"orderId\":\"o-later\",\"amount\":7}";
    // the classic producer: ZADD key <epoch seconds> <payload>
    redis().zadd(source, nowSeconds - 5, due);
    redis().zadd(source, nowSeconds + 3600, later);
    try {
      runner
          .withPropertyValues(
              "delayq.adopt." + queue + ".source=" + source,
              "delayq.adopt." + queue + ".score-unit=seconds",
              "delayq.adopt." + queue + ".id-field=orderId",
              "delayq.adopt." + queue + ".mode=all",
              "delayq.adopt." + queue + ".poll-interval=100ms",
              "delayq.forward.list." + queue + ".list=" + list)
          .run(context -> {
            assertThat(context).hasNotFailed();
            JobQueue jobs = context.getBean(Delayq.class).queue(queue);

            await().atMost(Duration.ofSeconds(10)).until(() -> redis().llen(list) == 1);
            assertThat(redis().rpop(list)).as("raw: the member's bytes unchanged").isEqualTo(due);
            assertThat(redis().zcard(source)).as("both members left the sorted set").isZero();
            JobInfo future = jobs.get("o-later").orElseThrow();
            assertThat(future.runAt()).isEqualTo(Instant.ofEpochSecond(nowSeconds + 3600));
            assertThat(new String(future.payload(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(later);

            Health health = health(context);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(detail(health, "adoption", queue))
                .containsEntry("source", source)
                .containsEntry("state", "RUNNING")
                .containsEntry("scoreUnit", "SECONDS")
                .containsEntry("moved", 2L);
          });
    } finally {
      redis().del(source, list);
    }
  }

  @Test
  void anAdoptionWhoseSourceIsNotASortedSetFailsStartupNamingTheProperties() {
    String queue = unique("badsource");
    String source = unique("not-a-zset");
    redis().set(source, "plain string");
    try {
      runner
          .withPropertyValues(
              "delayq.adopt." + queue + ".source=" + source,
              "delayq.adopt." + queue + ".id-from-member-hash=true")
          .run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(source);
            Throwable t = context.getStartupFailure();
            while (t.getCause() != null && !t.getClass().getSimpleName().equals("DelayqStartupException")) {
              t = t.getCause();
            }
            assertThat(t.getMessage()).contains("delayq.adopt." + queue + ".*");
          });
    } finally {
      redis().del(source);
    }
  }
}
