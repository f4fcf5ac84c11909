package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import io.delayq.server.forward.ForwardSupervisor;
import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ApiClient.Reply;
import io.delayq.server.testing.ServerProcess;
import io.delayq.server.testing.SharedServer;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A queue's {@code forward} setting over the API: stored with the queue, run by the server, shown
 * in stats with the forwarder's status, removable, and checked field by field. Against the real
 * RabbitMQ and Redis.
 */
class ForwardingIT {
  /** A server without --rabbitmq. */
  @RegisterExtension static final SharedServer shared = new SharedServer();

  private static ServerProcess server;
  private static ApiClient api;
  private static RedisClient redis;
  private static StatefulRedisConnection<String, String> redisConnection;
  private static String rabbitUrl;

  @BeforeAll
  static void start() throws Exception {
    rabbitUrl = System.getenv().getOrDefault("DELAYQ_TEST_RABBITMQ", "amqp://guest:guest@127.0.0.1:5672");
    try (Connection probe = rabbit().newConnection("delayq-forwarding-it-probe")) {
      assertThat(probe.isOpen()).isTrue();
    } catch (java.io.IOException | java.util.concurrent.TimeoutException e) {
      if ("true".equals(System.getenv("CI"))) {
        throw new AssertionError("RabbitMQ is not reachable at " + rabbitUrl + " (DELAYQ_TEST_RABBITMQ), which CI needs", e);
      }
      Assumptions.abort("RabbitMQ is not reachable at " + rabbitUrl + " (set DELAYQ_TEST_RABBITMQ): " + e);
    }
    server = ServerProcess.start("--rabbitmq", rabbitUrl);
    api = new ApiClient(server.baseUrl());
    redis = RedisClient.create(server.redisUrl().split(",")[0]);
    redisConnection = redis.connect();
  }

  @AfterAll
  static void stop() throws Exception {
    if (redisConnection != null) {
      redisConnection.close();
      redis.shutdown();
    }
    if (server != null) {
      server.close();
    }
  }

  private static ConnectionFactory rabbit() throws Exception {
    ConnectionFactory factory = new ConnectionFactory();
    factory.setUri(rabbitUrl);
    return factory;
  }

  /** Queues made here, by the API that made them: deleted after each test, since every server on this Redis would forward them. */
  private final List<Map.Entry<ApiClient, String>> made = new ArrayList<>();

  @AfterEach
  void deleteQueues() {
    for (Map.Entry<ApiClient, String> queue : made) {
      Reply deleted = queue.getKey().delete("/v1/queues/" + queue.getValue() + "?force=true");
      assertThat(deleted.status()).as(deleted.toString()).isIn(200, 404);
    }
  }

  private String unique(String prefix) {
    return unique(api, prefix);
  }

  private String unique(ApiClient on, String prefix) {
    String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    made.add(Map.entry(on, name));
    return name;
  }

  private static void scheduleAll(ApiClient api, String queue, int count) {
    scheduleAll(api, queue, count, 0);
  }

  private static void scheduleAll(ApiClient api, String queue, int count, long afterMs) {
    for (int i = 0; i < count; i++) {
      Reply created = api.post("/v1/queues/" + queue + "/jobs",
          Map.of("id", "job-" + i, "payload", "payload-" + i, "delayMs", afterMs + i % 5 * 100));
      assertThat(created.status()).as(created.toString()).isEqualTo(201);
    }
  }

  /**
   * Jobs scheduled this long after a forwarding is removed come due once every server on the Redis
   * has applied it: the one that took the PUT at once, the others (here the shared server) within
   * their refresh interval.
   */
  private static final long AFTER_EVERY_REFRESH_MS = ForwardSupervisor.DEFAULT_REFRESH.toMillis() + 1_500;

  /** What every server on this Redis says it forwarded of {@code queue}: they share the work. */
  private static long forwardedByAllServers(String queue) {
    long total = 0;
    for (ApiClient server : List.of(api, shared.api())) {
      total += server.get("/v1/queues/" + queue).json().path("forward").path("status").path("forwarded").asLong();
    }
    return total;
  }

  @Test
  void aQueueForwardedToAListHasItsDueJobsPushedThereRawAndItsStatsSaySo() {
    String queue = unique("fwd-list");
    String list = unique("ready");
    Reply put = api.put("/v1/queues/" + queue, Map.of("forward", Map.of("type", "list", "list", list)));
    assertThat(put.status()).as(put.toString()).isEqualTo(200);
    assertThat(put.json().path("forward").path("type").asText()).isEqualTo("list");
    assertThat(put.json().path("forward").path("format").asText()).isEqualTo("raw");

    scheduleAll(api, queue, 40);
    List<String> popped = new ArrayList<>();
    await().atMost(Duration.ofSeconds(20)).until(() -> {
      KeyValue<String, String> item;
      while ((item = redisConnection.sync().brpop(0.1, list)) != null) {
        popped.add(item.getValue());
      }
      return popped.size() >= 40;
    });
    assertThat(popped).hasSize(40).doesNotHaveDuplicates().allMatch(p -> p.startsWith("payload-"));

    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      JsonNode stats = api.get("/v1/queues/" + queue).json();
      assertThat(stats.path("scheduled").asLong() + stats.path("active").asLong()).isZero();
      assertThat(stats.path("forward").path("list").asText()).isEqualTo(list);
      assertThat(stats.path("forward").path("status").path("state").asText()).isEqualTo("RUNNING");
      assertThat(forwardedByAllServers(queue)).isEqualTo(40);
    });
  }

  @Test
  void aQueueForwardedToRabbitMqHasEveryJobPublishedOnceWithItsIdAsMessageId() throws Exception {
    String queue = unique("fwd-rabbit");
    String exchange = unique("delayq-it-x");
    String rabbitQueue = unique("delayq-it-q");
    Set<String> messageIds = ConcurrentHashMap.newKeySet();
    List<String> bodies = java.util.Collections.synchronizedList(new ArrayList<>());
    try (Connection connection = rabbit().newConnection("delayq-forwarding-it")) {
      Channel channel = connection.createChannel();
      channel.exchangeDeclare(exchange, "direct", false, true, null);
      channel.queueDeclare(rabbitQueue, false, false, true, null);
      channel.queueBind(rabbitQueue, exchange, "order.cancel");
      channel.basicConsume(rabbitQueue, true, new DefaultConsumer(channel) {
        @Override
        public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
          messageIds.add(properties.getMessageId());
          bodies.add(new String(body, StandardCharsets.UTF_8));
        }
      });
      Reply put = api.put("/v1/queues/" + queue,
          Map.of("forward", Map.of("type", "rabbitmq", "exchange", exchange, "routingKey", "order.cancel")));
      assertThat(put.status()).as(put.toString()).isEqualTo(200);

      scheduleAll(api, queue, 30);
      await().atMost(Duration.ofSeconds(20)).until(() -> bodies.size() >= 30);
      List<String> expectedIds = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        expectedIds.add("job-" + i);
      }
      assertThat(messageIds).containsExactlyInAnyOrderElementsOf(expectedIds);
      assertThat(bodies).hasSize(30).doesNotHaveDuplicates();
      await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
        JsonNode forward = api.get("/v1/queues/" + queue).json().path("forward");
        assertThat(forward.path("exchange").asText()).isEqualTo(exchange);
        assertThat(forward.path("status").path("state").asText()).isEqualTo("RUNNING");
        assertThat(forwardedByAllServers(queue)).isEqualTo(30);
      });
    }
  }

  @Test
  void aForwardedQueueRefusesClaimsSayingHowToStopTheForwarding() {
    String queue = unique("fwd-claim");
    String list = unique("ready");
    assertThat(api.put("/v1/queues/" + queue, Map.of("forward", Map.of("type", "list", "list", list))).status())
        .isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() ->
        api.get("/v1/queues/" + queue).json().path("forward").has("status"));
    Reply claim = api.post("/v1/queues/" + queue + "/claim?max=5");
    assertThat(claim.status()).as(claim.toString()).isEqualTo(409);
    assertThat(claim.json().path("detail").asText()).contains("is forwarded").contains("\"forward\":null")
        .contains("delayq forward " + queue + " --off");

    java.util.HashMap<String, Object> off = new java.util.HashMap<>();
    off.put("forward", null);
    assertThat(api.put("/v1/queues/" + queue, off).status()).isEqualTo(200);
    scheduleAll(api, queue, 1, AFTER_EVERY_REFRESH_MS);
    await().atMost(Duration.ofSeconds(20)).until(() -> {
      Reply again = api.post("/v1/queues/" + queue + "/claim?max=5");
      return again.status() == 200 && again.json().size() == 1;
    });
  }

  @Test
  void forwardingRemovedStopsItAndJobsStayForWorkers() {
    String queue = unique("fwd-off");
    String list = unique("ready");
    assertThat(api.put("/v1/queues/" + queue, Map.of("forward", Map.of("type", "list", "list", list))).status())
        .isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).until(() ->
        api.get("/v1/queues/" + queue).json().path("forward").path("status").path("state").asText().equals("RUNNING"));
    java.util.HashMap<String, Object> off = new java.util.HashMap<>();
    off.put("forward", null);
    Reply removed = api.put("/v1/queues/" + queue, off);
    assertThat(removed.status()).as(removed.toString()).isEqualTo(200);
    assertThat(removed.json().has("forward")).isFalse();
    // left out, the forwarding stays as it is: here, off
    assertThat(api.put("/v1/queues/" + queue, Map.of("maxAttempts", 3)).json().has("forward")).isFalse();

    scheduleAll(api, queue, 5, AFTER_EVERY_REFRESH_MS);
    await().atMost(Duration.ofSeconds(20)).until(() -> api.get("/v1/queues/" + queue).json().path("due").asLong() == 5);
    assertThat(redisConnection.sync().llen(list)).isZero();
    assertThat(api.get("/v1/queues/" + queue).json().has("forward")).isFalse();
  }

  @Test
  void aBadForwardIsRefusedFieldByFieldAndChangesNothing() {
    String queue = unique("fwd-bad");
    assertRefused(api.put("/v1/queues/" + queue, Map.of("forward", Map.of("type", "kafka"))),
        "forward.type", "must be \"rabbitmq\" or \"list\"");
    assertRefused(api.put("/v1/queues/" + queue, Map.of("forward", Map.of("type", "rabbitmq", "exchange", ""))),
        "forward.exchange", "must name an exchange");
    assertRefused(api.put("/v1/queues/" + queue, Map.of("forward", Map.of("type", "rabbitmq"))),
        "forward.exchange", "is required");
    assertRefused(api.put("/v1/queues/" + queue, Map.of("forward", Map.of("type", "list", "list", "l", "format", "xml"))),
        "forward.format", "\"raw\"");
    assertRefused(api.put("/v1/queues/" + queue, Map.of("forward", Map.of("type", "list", "list", "l", "ttl", 5))),
        "forward.ttl", "is not a field");
    assertRefused(api.put("/v1/queues/" + queue, Map.of("forward", "execute_queue")), "forward", "must be a JSON object");
    assertRefused(api.put("/v1/queues/" + queue,
            Map.of("forward", Map.of("type", "rabbitmq", "exchange", "x".repeat(300)))),
        "forward.exchange", "at most 255");
    assertRefused(api.put("/v1/queues/" + queue,
            Map.of("maxAttempts", 7, "forward", Map.of("type", "list"))),
        "forward.list", "is required");
    // nothing of the refused calls was written
    Reply stats = api.get("/v1/queues/" + queue);
    assertThat(stats.status() == 404 || !stats.json().has("forward")).as(stats.toString()).isTrue();
  }

  @Test
  void aServerWithoutRabbitMqSaysSoInTheQueuesStatus() {
    ApiClient plain = shared.api();
    String queue = unique(plain, "fwd-norabbit");
    assertThat(plain.put("/v1/queues/" + queue,
        Map.of("forward", Map.of("type", "rabbitmq", "exchange", "no-such-exchange-" + queue, "routingKey", "k")))
        .status()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      JsonNode status = plain.get("/v1/queues/" + queue).json().path("forward").path("status");
      assertThat(status.path("state").asText()).isEqualTo("MISCONFIGURED");
      assertThat(status.path("lastError").asText()).contains("--rabbitmq").contains("DELAYQ_RABBITMQ_URL");
    });
    // health names it, and stays up: the API serves, and the jobs wait in delayq
    Reply health = plain.get("/health");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.json().path("forwardersNotRunning").path(queue).path("state").asText()).isEqualTo("MISCONFIGURED");
    scheduleAll(plain, queue, 3);
    await().atMost(Duration.ofSeconds(5)).until(() -> plain.get("/v1/queues/" + queue).json().path("due").asLong() == 3);
  }

  @Test
  void aChangedForwardIsNeverShownWithThePreviousForwardersStatus() {
    String queue = unique("fwd-change");
    for (int i = 0; i < 5; i++) {
      String missing = unique("no-such-exchange");
      assertThat(api.put("/v1/queues/" + queue,
          Map.of("forward", Map.of("type", "rabbitmq", "exchange", missing, "routingKey", "k"))).status()).isEqualTo(200);
      await().atMost(Duration.ofSeconds(10)).until(() -> api.get("/v1/queues/" + queue).json().path("forward")
          .path("status").path("target").asText().equals("rabbitmq:" + missing + "/k"));
      String list = unique("ready");
      Reply changed = api.put("/v1/queues/" + queue, Map.of("forward", Map.of("type", "list", "list", list)));
      assertThat(changed.status()).as(changed.toString()).isEqualTo(200);
      JsonNode forward = changed.json().path("forward");
      assertThat(forward.path("list").asText()).isEqualTo(list);
      if (forward.has("status")) {
        assertThat(forward.path("status").path("target").asText()).as(changed.toString()).startsWith("redis-list:" + list);
      }
    }
  }

  private static void assertRefused(Reply reply, String field, String text) {
    assertThat(reply.status()).as(reply.toString()).isEqualTo(400);
    assertThat(reply.json().path("detail").asText()).as(reply.toString()).startsWith(field + ":").contains(text);
  }
}
