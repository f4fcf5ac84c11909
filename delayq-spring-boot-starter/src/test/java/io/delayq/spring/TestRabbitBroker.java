package io.delayq.spring;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;

/**
 * The RabbitMQ the starter's forwarding tests use: {@code DELAYQ_TEST_RABBITMQ}, else the
 * machine's at amqp://guest:guest@127.0.0.1:5672. Unreachable, a test is skipped with the reason,
 * or fails when {@code CI=true}.
 */
public final class TestRabbitBroker {
  private TestRabbitBroker() {}

  public static String url() {
    String configured = System.getenv("DELAYQ_TEST_RABBITMQ");
    return configured != null && !configured.isBlank() ? configured.trim() : "amqp://guest:guest@127.0.0.1:5672";
  }

  public static ConnectionFactory factory() {
    ConnectionFactory f = new ConnectionFactory();
    try {
      f.setUri(url());
    } catch (Exception e) {
      throw new IllegalStateException("DELAYQ_TEST_RABBITMQ is not an amqp:// URL: " + url(), e);
    }
    f.setConnectionTimeout(3000);
    return f;
  }

  /** The broker as spring.rabbitmq.* properties, the way an application names it. */
  public static String[] springProperties() {
    URI uri = URI.create(url());
    String[] user = uri.getUserInfo() == null ? new String[] {"guest", "guest"} : uri.getUserInfo().split(":", 2);
    return new String[] {
      "spring.rabbitmq.host=" + uri.getHost(),
      "spring.rabbitmq.port=" + (uri.getPort() < 0 ? 5672 : uri.getPort()),
      "spring.rabbitmq.username=" + user[0],
      "spring.rabbitmq.password=" + (user.length > 1 ? user[1] : "")
    };
  }

  /** Skips (or, under CI, fails) the test when the broker cannot be reached. */
  public static void assumeReachable() {
    try (Connection c = factory().newConnection("delayq-starter-test-probe")) {
      c.isOpen();
    } catch (Exception e) {
      String why = "RabbitMQ at " + url() + " is not reachable (" + e + "); set DELAYQ_TEST_RABBITMQ";
      if ("true".equals(System.getenv("CI"))) {
        throw new AssertionError(why, e);
      }
      Assumptions.abort(why);
    }
  }

  /**
   * A durable direct exchange and a durable queue bound to it by {@code routingKey}, with unique
   * names, and a consumer that records every message; all deleted on close.
   */
  public static final class Sink implements AutoCloseable {
    public final String exchange = "dq-starter-x-" + UUID.randomUUID().toString().substring(0, 8);
    public final String queue = "dq-starter-q-" + UUID.randomUUID().toString().substring(0, 8);
    public final String routingKey;
    private final Connection connection;
    private final Channel channel;
    private final Map<String, AtomicInteger> byMessageId = new ConcurrentHashMap<>();
    private final List<String> bodies = new CopyOnWriteArrayList<>();

    public Sink(String routingKey) throws Exception {
      this.routingKey = routingKey;
      connection = factory().newConnection("delayq-starter-test-sink");
      channel = connection.createChannel();
      channel.exchangeDeclare(exchange, "direct", true);
      channel.queueDeclare(queue, true, false, false, null);
      channel.queueBind(queue, exchange, routingKey);
      channel.basicConsume(queue, true, new DefaultConsumer(channel) {
        @Override
        public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
          String id = properties.getMessageId() == null ? "<none>" : properties.getMessageId();
          byMessageId.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
          bodies.add(new String(body, java.nio.charset.StandardCharsets.UTF_8));
        }
      });
    }

    /** How many messages arrived with each messageId. */
    public Map<String, Integer> counts() {
      Map<String, Integer> counts = new java.util.TreeMap<>();
      byMessageId.forEach((id, n) -> counts.put(id, n.get()));
      return counts;
    }

    public List<String> bodies() {
      return List.copyOf(bodies);
    }

    @Override
    public void close() throws Exception {
      try {
        channel.queueDelete(queue);
        channel.exchangeDelete(exchange);
      } finally {
        connection.close();
      }
    }
  }
}
