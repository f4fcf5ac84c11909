package io.delayq.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;

/**
 * The RabbitMQ the suite runs against: {@code DELAYQ_TEST_RABBITMQ}, else the machine's at
 * amqp://guest:guest@127.0.0.1:5672. Unreachable, the tests are skipped with the reason, or fail
 * when {@code CI=true}.
 */
final class TestRabbit {
  private TestRabbit() {}

  static String url() {
    String configured = System.getenv("DELAYQ_TEST_RABBITMQ");
    return configured != null && !configured.isBlank() ? configured.trim() : "amqp://guest:guest@127.0.0.1:5672";
  }

  static ConnectionFactory factory() {
    ConnectionFactory f = new ConnectionFactory();
    try {
      f.setUri(url());
    } catch (Exception e) {
      throw new IllegalStateException("DELAYQ_TEST_RABBITMQ is not an amqp:// URL: " + url(), e);
    }
    f.setConnectionTimeout(3000);
    return f;
  }

  /** Skips (or, under CI, fails) the test when the broker cannot be reached. */
  static void assumeReachable() {
    try (Connection c = factory().newConnection("delayq-test-probe")) {
      c.isOpen();
    } catch (Exception e) {
      String why = "RabbitMQ at " + url() + " is not reachable (" + e + "); set DELAYQ_TEST_RABBITMQ";
      if ("true".equals(System.getenv("CI"))) {
        throw new AssertionError(why, e);
      }
      Assumptions.abort(why);
    }
  }

  /** Runs {@code rabbitmqctl} with the arguments and fails when it does. */
  static void rabbitmqctl(String... args) {
    List<String> command = new java.util.ArrayList<>(List.of("rabbitmqctl"));
    command.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run rabbitmqctl", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running rabbitmqctl", e);
    }
  }

  /**
   * A durable direct exchange with one durable queue bound by {@code key}, both with unique names,
   * and a consumer that counts the messages per messageId. Deleted on close.
   */
  static final class Sink implements AutoCloseable {
    final String exchange = "dq-test-x-" + UUID.randomUUID().toString().substring(0, 8);
    final String queue = "dq-test-q-" + UUID.randomUUID().toString().substring(0, 8);
    final String key;
    final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
    /**
     * Deliveries per messageId that the broker did not flag as redelivered: one per publish. A
     * consumer's ack lost with its connection makes the broker deliver a message again, flagged;
     * that is the broker's own at-least-once, not a second publish.
     */
    final Map<String, AtomicInteger> firstDeliveries = new ConcurrentHashMap<>();
    final Map<String, AMQP.BasicProperties> properties = new ConcurrentHashMap<>();
    final Map<String, byte[]> bodies = new ConcurrentHashMap<>();
    final List<String> arrivals = new CopyOnWriteArrayList<>();
    private final List<String> extraQueues = new CopyOnWriteArrayList<>();
    private final Connection connection;
    private final Channel channel;

    Sink(String key) throws Exception {
      this(key, true);
    }

    Sink(String key, boolean declareExchange) throws Exception {
      this.key = key;
      ConnectionFactory f = factory();
      // the sink's own connection may recover by itself: it is the test's consumer, not the forwarder
      f.setAutomaticRecoveryEnabled(true);
      f.setNetworkRecoveryInterval(500);
      connection = f.newConnection("delayq-test-sink");
      channel = connection.createChannel();
      channel.queueDeclare(queue, true, false, false, null);
      if (declareExchange) {
        declareExchange();
      }
      channel.basicQos(500);
      channel.basicConsume(queue, false, new DefaultConsumer(channel) {
        @Override
        public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
            throws IOException {
          String id = props.getMessageId();
          counts.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
          if (!envelope.isRedeliver()) {
            firstDeliveries.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
          }
          properties.put(id, props);
          bodies.put(id, body);
          arrivals.add(id);
          getChannel().basicAck(envelope.getDeliveryTag(), false);
        }
      });
    }

    void declareExchange() throws IOException {
      channel.exchangeDeclare(exchange, "direct", true);
      channel.queueBind(queue, exchange, key);
    }

    void bind(String routingKey) throws IOException {
      channel.queueBind(queue, exchange, routingKey);
    }

    /**
     * Binds, beside the sink's queue, a queue that refuses every message ({@code x-max-length} 0,
     * {@code x-overflow reject-publish}): the broker then answers each publish with basic.nack.
     */
    String bindRefusingQueue() throws IOException {
      String refusing = queue + "-refuse";
      channel.queueDeclare(refusing, true, false, false, Map.of("x-max-length", 0, "x-overflow", "reject-publish"));
      channel.queueBind(refusing, exchange, key);
      extraQueues.add(refusing);
      return refusing;
    }

    void unbind(String other) throws IOException {
      channel.queueUnbind(other, exchange, key);
    }

    int distinct() {
      return counts.size();
    }

    long duplicates() {
      return counts.values().stream().mapToLong(c -> c.get() - 1).sum();
    }

    /** Publishes beyond the first of a message id, as far as the first deliveries show. */
    long republished() {
      return firstDeliveries.values().stream().mapToLong(c -> Math.max(0, c.get() - 1)).sum();
    }

    @Override
    public void close() throws Exception {
      try {
        channel.queueDelete(queue);
        for (String other : extraQueues) {
          channel.queueDelete(other);
        }
        channel.exchangeDelete(exchange);
      } finally {
        connection.close();
      }
    }
  }
}
