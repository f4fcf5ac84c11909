package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.delayq.embedded.RedisClusterProcesses;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.embedded.TcpProxy;
import io.delayq.testing.TestRedis;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * {@link LinkWatchdog} on plain Lettuce, configured as delayq configures it (auto-reconnect,
 * commands rejected while disconnected, no Lettuce command timeouts, TCP keepalive), against a
 * real Redis behind a {@link TcpProxy} that can silently stop forwarding.
 */
class LinkWatchdogIT {
  private static final Logger log = LoggerFactory.getLogger(LinkWatchdogIT.class);
  private static final byte[] VALUE = bytes("v");

  private RedisURI target;
  private TcpProxy proxy;
  private ClientResources resources;
  private RedisClient client;
  private LinkWatchdog watchdog;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final ListAppender<ILoggingEvent> watchdogLog = new ListAppender<>();

  @BeforeAll
  static void reportTimings() {
    // why: the suite's logback config keeps io.delayq at WARN; the measured times are the point here
    ((ch.qos.logback.classic.Logger) log).setLevel(Level.INFO);
  }

  @BeforeEach
  void setUp() {
    target = RedisURI.create(TestRedis.url());
    proxy = new TcpProxy(target.getHost(), target.getPort()).start();
    resources = DefaultClientResources.builder()
        .ioThreadPoolSize(2)
        .computationThreadPoolSize(2)
        .reconnectDelay(LinkWatchdog.reconnectDelay())
        .build();
    client = RedisClient.create(resources, RedisURI.builder(target).withHost("127.0.0.1").withPort(proxy.port()).build());
    client.setOptions(delayqOptions());
    watchdogLog.start();
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(LinkWatchdog.class)).addAppender(watchdogLog);
  }

  @AfterEach
  void tearDown() throws Exception {
    ((ch.qos.logback.classic.Logger) LoggerFactory.getLogger(LinkWatchdog.class)).detachAppender(watchdogLog);
    if (watchdog != null) {
      watchdog.close();
    }
    for (AutoCloseable closeable : closeables) {
      closeable.close();
    }
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    resources.shutdown(0, 2, TimeUnit.SECONDS).get(5, TimeUnit.SECONDS);
    proxy.close();
  }

  /** As DelayqClient sets them. */
  private static ClientOptions delayqOptions() {
    return ClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
        .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofSeconds(5)).keepAlive(true).build())
        .build();
  }

  @Test
  void withoutTheWatchdogACommandOnABlackHoledLinkIsNeverAnswered() {
    StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
    byte[] key = key("control");
    assertThat(answers(connection, key)).isTrue();

    proxy.blackHoleExisting();
    long t0 = System.nanoTime();
    RedisFuture<String> set = connection.async().set(key, VALUE);

    assertThatThrownBy(() -> set.get(8, TimeUnit.SECONDS)).isInstanceOf(TimeoutException.class);
    assertThat(connection.isOpen()).as("Lettuce still takes the link for alive").isTrue();
    log.info("(a) no watchdog: SET on the black-holed link still unanswered after {} ms", millisSince(t0));
  }

  @Test
  void withTheWatchdogABlackHoledLinkIsDroppedAndReconnectedWithinSeconds() throws Exception {
    watchdog = new LinkWatchdog(resources, LinkWatchdog.DEFAULT_INTERVAL, LinkWatchdog.DEFAULT_PROBE_TIMEOUT);
    StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
    watchdog.watch("producer", connection);
    byte[] key = key("producer");
    assertThat(answers(connection, key)).isTrue();

    proxy.blackHoleExisting();
    long t0 = System.nanoTime();
    RedisFuture<String> lost = connection.async().set(key, VALUE);

    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50)).until(() -> answers(connection, key));
    long recovered = millisSince(t0);

    assertThat(lost.toCompletableFuture())
        .as("the SET sent into the black hole fails once the link is dropped, instead of never")
        .failsWithin(Duration.ofSeconds(1));
    assertThat(connection.async().ping().get(2, TimeUnit.SECONDS)).isEqualTo("PONG");
    assertThat(warnings()).containsExactly(
        "no answer from Redis at 127.0.0.1:" + proxy.port() + " on producer connection within 2 s; reconnecting");
    log.info("(b) watchdog: SET answered again {} ms after the black hole", recovered);
  }

  @Test
  void afterRedisIsBackTheReconnectComesWithinTheOneSecondBackoffCap() {
    StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
    byte[] key = key("reconnect");
    assertThat(answers(connection, key)).isTrue();
    AtomicInteger lastFailedAttempt = new AtomicInteger();
    Disposable events = resources.eventBus().get().subscribe(e -> {
      if (e instanceof ReconnectFailedEvent failed) {
        lastFailedAttempt.set(failed.getAttempt());
      }
    });
    closeables.add(events::dispose);

    long down = System.nanoTime();
    proxy.refuseNew();
    proxy.closeAll();
    // 50 + 100 + 200 + 400 + 800 ms of refused attempts: from the 6th on, Lettuce waits the 1 s cap.
    await().atMost(Duration.ofSeconds(10)).until(() -> lastFailedAttempt.get() >= 6);
    // Come back just after a failed attempt: the worst case, a whole capped delay until the next.
    int failed = lastFailedAttempt.get();
    await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(5)).until(() -> lastFailedAttempt.get() > failed);
    proxy.forwardAll();
    long t0 = System.nanoTime();

    await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(10)).until(() -> answers(connection, key));
    long reconnected = millisSince(t0);

    assertThat(reconnected).isLessThan(1_500);
    log.info("(c) reconnect: SET answered {} ms after the proxy forwarded again (refused for {} ms, {} failed attempts)",
        reconnected, (t0 - down) / 1_000_000, lastFailedAttempt.get());
  }

  @Test
  void aWatchedPubSubConnectionIsResubscribedAndHearsWhatIsPublishedAfterTheBlackHole() throws Exception {
    watchdog = new LinkWatchdog(resources, LinkWatchdog.DEFAULT_INTERVAL, LinkWatchdog.DEFAULT_PROBE_TIMEOUT);
    byte[] channel = key("wake");
    List<String> heard = new CopyOnWriteArrayList<>();
    StatefulRedisPubSubConnection<byte[], byte[]> subscriber = client.connectPubSub(ByteArrayCodec.INSTANCE);
    subscriber.addListener(new RedisPubSubAdapter<>() {
      @Override
      public void message(byte[] from, byte[] message) {
        heard.add(new String(message, StandardCharsets.UTF_8));
      }
    });
    subscriber.async().subscribe(channel).get(2, TimeUnit.SECONDS);
    watchdog.watch("pub/sub", subscriber);
    RedisClient direct = RedisClient.create(resources, target);
    closeables.add(() -> direct.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    StatefulRedisConnection<byte[], byte[]> publisher = direct.connect(ByteArrayCodec.INSTANCE);
    publisher.sync().publish(channel, bytes("before"));
    await().atMost(Duration.ofSeconds(2)).until(() -> heard.contains("before"));

    proxy.blackHoleExisting();
    long t0 = System.nanoTime();
    AtomicInteger published = new AtomicInteger();

    // Messages published before the resubscription are lost, as pub/sub loses them: publish anew
    // at each poll until one arrives.
    await().atMost(Duration.ofSeconds(6)).pollInterval(Duration.ofMillis(100)).until(() -> {
      publisher.sync().publish(channel, bytes("after-" + published.incrementAndGet()));
      return heard.stream().anyMatch(m -> m.startsWith("after-"));
    });
    long resubscribed = millisSince(t0);

    // RESP3 answers PONG; RESP2 answers a subscribed PING with an empty "pong" array entry
    assertThat(subscriber.async().ping().get(2, TimeUnit.SECONDS)).isNotNull();
    assertThat(warnings()).containsExactly(
        "no answer from Redis at 127.0.0.1:" + proxy.port() + " on pub/sub connection within 2 s; reconnecting");
    log.info("(pub/sub) watchdog: first message heard {} ms after the black hole ({} published meanwhile)",
        resubscribed, published.get());
  }

  @Test
  void aHealthyLinkIsProbedButLeftAlone() {
    watchdog = new LinkWatchdog(resources, Duration.ofMillis(200), Duration.ofMillis(500));
    StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
    watchdog.watch("producer", connection);
    RedisClient direct = RedisClient.create(resources, target);
    closeables.add(() -> direct.shutdown(Duration.ZERO, Duration.ofSeconds(2)));
    StatefulRedisConnection<String, String> admin = direct.connect();
    long pingsBefore = pings(admin);

    await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
        .until(() -> connection.isOpen() && warnings().isEmpty());

    assertThat(pings(admin) - pingsBefore).as("PINGs Redis saw").isGreaterThanOrEqualTo(5);
    watchdog.unwatch(connection);
    watchdog.close();
    watchdog.close();
    assertThat(connection.isOpen()).as("closing the watchdog leaves the connections open").isTrue();
    assertThatThrownBy(() -> watchdog.watch("producer", connection)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aClusterConnectionHasItsDefaultLinkAndEveryMastersLinkWatched() throws Exception {
    try (RedisClusterProcesses cluster = RedisClusterProcesses.builder().replicasPerMaster(0).start()) {
      watchdog = new LinkWatchdog(resources, LinkWatchdog.DEFAULT_INTERVAL, LinkWatchdog.DEFAULT_PROBE_TIMEOUT);
      RedisClusterClient clusterClient = RedisClusterClient.create(resources, cluster.seedUrl());
      clusterClient.setOptions(ClusterClientOptions.builder(delayqOptions()).build());
      try {
        StatefulRedisClusterConnection<byte[], byte[]> connection = clusterClient.connect(ByteArrayCodec.INSTANCE);
        for (RedisClusterNode node : connection.getPartitions()) {
          connection.getConnection(node.getUri().getHost(), node.getUri().getPort());
        }
        watchdog.watch("worker", connection);
        Set<String> masters = cluster.masters().stream()
            .map(m -> "127.0.0.1:" + m.port()).collect(Collectors.toSet());
        assertThat(connection.async().time().get(2, TimeUnit.SECONDS)).hasSize(2);

        // Every master stops answering for a while: the default link and each master's link stall.
        long t0 = System.nanoTime();
        for (RedisServerProcess master : cluster.masters()) {
          RedisClient admin = RedisClient.create(resources, master.uri());
          try (StatefulRedisConnection<String, String> c = admin.connect()) {
            c.sync().clientPause(4_000); // all commands, new connections' handshakes too
          } finally {
            admin.shutdown(Duration.ZERO, Duration.ofSeconds(2));
          }
        }

        await().atMost(Duration.ofSeconds(5)).until(() -> warnings().size() >= 1 + masters.size());
        await().atMost(Duration.ofSeconds(8)).pollInterval(Duration.ofMillis(50)).until(() -> {
          try {
            connection.async().time().get(250, TimeUnit.MILLISECONDS);
            return "OK".equals(connection.async().set(key("cluster"), VALUE).get(250, TimeUnit.MILLISECONDS));
          } catch (Exception e) {
            return false;
          }
        });
        long recovered = millisSince(t0);

        List<String> warnings = warnings();
        assertThat(warnings).hasSize(1 + masters.size()).allMatch(w -> w.endsWith(" on worker connection within 2 s; reconnecting"));
        assertThat(warnings.stream().map(w -> w.substring("no answer from Redis at ".length(), w.indexOf(" on ")))
            .collect(Collectors.toSet())).isEqualTo(masters);
        log.info("(cluster) watchdog: default link and {} master links dropped; TIME and SET answered {} ms after"
            + " a 4 s CLIENT PAUSE began", masters.size(), recovered);
      } finally {
        clusterClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      }
    }
  }

  private static boolean answers(StatefulRedisConnection<byte[], byte[]> connection, byte[] key) {
    try {
      return "OK".equals(connection.async().set(key, VALUE).get(250, TimeUnit.MILLISECONDS));
    } catch (Exception e) {
      return false;
    }
  }

  private static long pings(StatefulRedisConnection<String, String> admin) {
    String stats = admin.sync().info("commandstats");
    for (String line : stats.split("\r?\n")) {
      if (line.startsWith("cmdstat_ping:")) {
        return Long.parseLong(line.replaceAll("^cmdstat_ping:calls=(\\d+).*", "$1"));
      }
    }
    return 0;
  }

  private List<String> warnings() {
    synchronized (watchdogLog) {
      return watchdogLog.list.stream()
          .filter(e -> e.getLevel() == Level.WARN)
          .map(ILoggingEvent::getFormattedMessage)
          .collect(Collectors.toList());
    }
  }

  private static byte[] key(String purpose) {
    return bytes("test-linkwatchdog-" + purpose + "-" + UUID.randomUUID().toString().substring(0, 8));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static long millisSince(long t0) {
    return (System.nanoTime() - t0) / 1_000_000;
  }
}
