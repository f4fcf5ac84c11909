package io.delayq.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import io.delayq.Delayq;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.rabbitmq.RabbitForwarder;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * RabbitMQ forwarding: delayq-rabbitmq's {@link RabbitForwarder} against its ceiling, a bare
 * amqp-client publisher with asynchronous confirms and the same window, in the same run on the same
 * broker. Both publish the same number of persistent {@value Job#PAYLOAD_BYTES}-byte messages, with
 * {@code mandatory}, a messageId and the forwarder's four headers, to a fresh durable queue through
 * the default exchange. The bare publisher's clock runs from its first publish to its last confirm;
 * the forwarder's from its start, with every job already due in delayq, to the moment delayq has
 * recorded the last one as done. Each runs once untimed first. The queue is then drained and counted
 * by messageId, and deleted.
 *
 * <p>Alone: {@code java -jar delayq-bench/target/delayq-bench.jar --only=rabbitmq
 * [--rabbitmq=amqp://user:pass@host:5672] [--quick]}.
 */
final class RabbitScenario {
  static final String DEFAULT_URL = "amqp://guest:guest@127.0.0.1:5672";
  static final String COMMAND =
      "mvn -q -DskipTests package && java -jar delayq-bench/target/delayq-bench.jar --only=rabbitmq"
          + " [--rabbitmq=amqp://user:pass@host:5672]";
  static final String FORWARDER = "delayq RabbitForwarder";
  static final String BARE = "bare amqp-client publisher (ceiling)";
  /** Unconfirmed messages at most, for both publishers: the forwarder's default. */
  static final int WINDOW = RabbitForwarder.DEFAULT_MAX_IN_FLIGHT;
  private static final Duration TIMEOUT = Duration.ofMinutes(3);

  private RabbitScenario() {}

  static int messages(BenchSettings s) {
    return s.quick() ? 10_000 : 100_000;
  }

  private static int warmup(BenchSettings s) {
    return s.quick() ? 2_000 : 10_000;
  }

  /** The URL without its password, for the log. */
  static String redacted(String url) {
    return url.replaceFirst("://([^:@/]*):[^@/]*@", "://$1:***@");
  }

  static void run(Bench bench) throws InterruptedException {
    int n = messages(bench.settings);
    bench.results.rabbitmqUrl = bench.rabbitmqUrl;
    ConnectionFactory factory = new ConnectionFactory();
    try {
      factory.setUri(bench.rabbitmqUrl);
      factory.setConnectionTimeout(5_000);
      try (Connection probe = factory.newConnection("delayq-bench-probe")) {
        bench.results.rabbitmqVersion = String.valueOf(probe.getServerProperties().get("version"));
      }
    } catch (Exception e) {
      String why = "not run: RabbitMQ at " + redacted(bench.rabbitmqUrl) + " is not reachable (" + Benchmark.brief(e)
          + "); pass --rabbitmq=URL";
      bench.log("  %s", why);
      bench.results.rabbitmq.add(new Results.RabbitResult(BARE, n, WINDOW, Double.NaN, null, why));
      bench.results.rabbitmq.add(new Results.RabbitResult(FORWARDER, n, WINDOW, Double.NaN, null, why));
      return;
    }
    attempt(bench, BARE, n, () -> bare(bench, factory, warmup(bench.settings)), () -> bare(bench, factory, n));
    attempt(bench, FORWARDER, n, () -> forwarder(bench, factory, warmup(bench.settings)),
        () -> forwarder(bench, factory, n));
    bench.reset();
  }

  private interface Step {
    Results.RabbitResult run() throws Exception;
  }

  private static void attempt(Bench bench, String publisher, int n, Step warm, Step measured)
      throws InterruptedException {
    Results.RabbitResult result;
    try {
      warm.run();
      result = measured.run();
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      result = new Results.RabbitResult(publisher, n, WINDOW, Double.NaN, null, "failed: " + Benchmark.brief(e));
    }
    bench.results.rabbitmq.add(result);
    bench.log("  %s", Summary.of(result));
  }

  private static AMQP.BasicProperties properties(String id, long dueAt) {
    Map<String, Object> headers = new HashMap<>();
    headers.put(RabbitForwarder.HEADER_QUEUE, "bench");
    headers.put(RabbitForwarder.HEADER_ATTEMPT, 1);
    headers.put(RabbitForwarder.HEADER_DUE_AT, dueAt);
    headers.put(RabbitForwarder.HEADER_CLAIMED_AT, dueAt);
    return new AMQP.BasicProperties.Builder().messageId(id).deliveryMode(2).headers(headers).build();
  }

  private static Results.RabbitResult bare(Bench bench, ConnectionFactory factory, int n) throws Exception {
    String queue = freshQueue("bare");
    try (Connection connection = factory.newConnection("delayq-bench-bare")) {
      Channel channel = connection.createChannel();
      channel.queueDeclare(queue, true, false, false, null);
      channel.confirmSelect();
      Semaphore window = new Semaphore(WINDOW);
      ConcurrentSkipListSet<Long> outstanding = new ConcurrentSkipListSet<>();
      CountDownLatch done = new CountDownLatch(n);
      AtomicLong nacked = new AtomicLong();
      channel.addConfirmListener(new ConfirmListener() {
        @Override
        public void handleAck(long seq, boolean multiple) {
          settle(seq, multiple);
        }

        @Override
        public void handleNack(long seq, boolean multiple) {
          nacked.addAndGet(settle(seq, multiple));
        }

        private int settle(long seq, boolean multiple) {
          int count = 0;
          if (multiple) {
            var head = outstanding.headSet(seq, true);
            for (Long k : new ArrayList<>(head)) {
              if (outstanding.remove(k)) {
                count++;
              }
            }
          } else if (outstanding.remove(seq)) {
            count = 1;
          }
          window.release(count);
          for (int i = 0; i < count; i++) {
            done.countDown();
          }
          return count;
        }
      });
      long start = System.nanoTime();
      long now = System.currentTimeMillis();
      for (int i = 0; i < n; i++) {
        window.acquire();
        outstanding.add(channel.getNextPublishSeqNo());
        channel.basicPublish("", queue, true, properties("m" + i, now), Job.PAYLOAD);
      }
      boolean all = done.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      double seconds = (System.nanoTime() - start) / 1e9;
      Integrity integrity = drain(connection, queue, n);
      channel.queueDelete(queue);
      String note = (all ? "" : "not every confirm arrived within " + TIMEOUT.toMinutes() + " min; ")
          + (nacked.get() > 0 ? nacked.get() + " nacked" : "");
      return new Results.RabbitResult(BARE, n, WINDOW, n / seconds, integrity, note.replaceAll("; $", ""));
    }
  }

  private static Results.RabbitResult forwarder(Bench bench, ConnectionFactory factory, int n) throws Exception {
    String queue = freshQueue("forwarder");
    try (Connection connection = factory.newConnection("delayq-bench-sink");
        Delayq delayq = Delayq.connect(bench.redis.uri())) {
      Channel channel = connection.createChannel();
      channel.queueDeclare(queue, true, false, false, null);
      JobQueue jobs = delayq.queue(bench.freshQueue("rabbitmq"));
      List<JobRequest> batch = new ArrayList<>(bench.settings.bulkChunk());
      for (int i = 0; i < n; i++) {
        batch.add(JobRequest.of(Job.PAYLOAD).withId("m" + i));
        if (batch.size() == bench.settings.bulkChunk() || i == n - 1) {
          jobs.scheduleAll(batch);
          batch.clear();
        }
      }
      long start = System.nanoTime();
      long deadline = start + TIMEOUT.toNanos();
      long forwarded;
      try (RabbitForwarder forwarder = RabbitForwarder.builder(jobs, factory)
          .exchange("")
          .routingKey(queue)
          .maxInFlight(WINDOW)
          .start()) {
        while ((forwarded = forwarder.status().forwarded()) < n && System.nanoTime() < deadline) {
          Thread.sleep(1);
        }
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      Integrity integrity = drain(connection, queue, n);
      channel.queueDelete(queue);
      String note = forwarded < n ? "only " + forwarded + " recorded within " + TIMEOUT.toMinutes() + " min" : "";
      return new Results.RabbitResult(FORWARDER, n, WINDOW, forwarded / seconds, integrity, note);
    }
  }

  /** Consumes what the queue holds and counts it by messageId against {@code m0 .. m(n-1)}. */
  private static Integrity drain(Connection connection, String queue, int n) throws Exception {
    Channel channel = connection.createChannel();
    long held = channel.queueDeclarePassive(queue).getMessageCount();
    Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
    AtomicLong received = new AtomicLong();
    CountDownLatch all = new CountDownLatch(1);
    channel.basicQos(2_000);
    String tag = channel.basicConsume(queue, false, new DefaultConsumer(channel) {
      @Override
      public void handleDelivery(String consumerTag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
          throws IOException {
        seen.computeIfAbsent(String.valueOf(props.getMessageId()), k -> new AtomicInteger()).incrementAndGet();
        getChannel().basicAck(envelope.getDeliveryTag(), true);
        if (received.incrementAndGet() >= held) {
          all.countDown();
        }
      }
    });
    if (held > 0) {
      all.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }
    channel.basicCancel(tag);
    long distinct = 0;
    long unexpected = 0;
    for (String id : seen.keySet()) {
      boolean known = id.startsWith("m") && id.substring(1).chars().allMatch(Character::isDigit)
          && id.length() > 1 && Long.parseLong(id.substring(1)) < n;
      if (known) {
        distinct++;
      } else {
        unexpected += seen.get(id).get();
      }
    }
    long total = received.get() - unexpected;
    channel.close();
    return new Integrity(n, n - distinct, total - distinct, unexpected);
  }

  private static String freshQueue(String who) {
    return "delayq-bench-" + who + "-" + UUID.randomUUID().toString().substring(0, 8);
  }
}
