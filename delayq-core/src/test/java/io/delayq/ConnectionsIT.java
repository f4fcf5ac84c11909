package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.internal.Script;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Claims, acks, nacks and lease extensions go over the worker connection, never behind a
 * producer's pipelined schedule batches on the producer connection. Seen from Redis: MONITOR names
 * the client of every command, and CLIENT LIST the name delayq gave each of its connections.
 */
class ConnectionsIT {
  private static final Pattern MONITOR_LINE = Pattern.compile("\\[\\d+ ([^\\]]+)\\] \"(?i:evalsha)\" \"([0-9a-f]{40})\"(.*)");

  @Test
  void settlingCallsUseTheWorkerConnectionAndSchedulesTheProducerOne() throws Exception {
    RedisURI uri = RedisURI.create(TestRedis.url());
    String name = TestRedis.uniqueQueue("connections");
    List<String[]> seen = new CopyOnWriteArrayList<>();
    try (Socket monitor = new Socket(uri.getHost(), uri.getPort());
        Delayq delayq = Delayq.connect(TestRedis.url())) {
      OutputStream out = monitor.getOutputStream();
      BufferedReader in = new BufferedReader(new InputStreamReader(monitor.getInputStream(), StandardCharsets.UTF_8));
      out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      assertThat(in.readLine()).isEqualTo("+OK");
      Thread reader = new Thread(() -> {
        try {
          String line;
          while ((line = in.readLine()) != null) {
            Matcher m = MONITOR_LINE.matcher(line);
            if (m.find() && m.group(3).contains(name)) {
              seen.add(new String[] {m.group(2), m.group(1)});
            }
          }
        } catch (java.io.IOException closed) {
          // the test is over
        }
      });
      reader.setDaemon(true);
      reader.start();

      JobQueue queue = delayq.queue(name);
      queue.schedule(JobRequest.of("x").withId("a"));
      queue.schedule(JobRequest.of("x").withId("b"));
      List<LeasedJob> jobs = queue.pull().claim(2, Duration.ofSeconds(30));
      assertThat(jobs).hasSize(2);
      jobs.get(0).extendLease(Duration.ofSeconds(30));
      queue.pull().ack(jobs.get(0));
      queue.pull().nack(jobs.get(1), Duration.ofHours(1), "later");

      Map<String, String> byScript = new ConcurrentHashMap<>();
      await().atMost(Duration.ofSeconds(5)).until(() -> {
        for (String[] s : seen) {
          byScript.put(s[0], connectionName(uri, s[1]));
        }
        return byScript.keySet().containsAll(List.of(
            Script.SCHEDULE.sha(), Script.CLAIM.sha(), Script.EXTEND_LEASE.sha(), Script.ACK.sha(), Script.NACK.sha()));
      });
      assertThat(byScript.get(Script.SCHEDULE.sha())).isEqualTo("delayq-producer");
      assertThat(byScript.get(Script.CLAIM.sha())).isEqualTo("delayq-worker");
      assertThat(byScript.get(Script.EXTEND_LEASE.sha())).isEqualTo("delayq-worker");
      assertThat(byScript.get(Script.ACK.sha())).isEqualTo("delayq-worker");
      assertThat(byScript.get(Script.NACK.sha())).isEqualTo("delayq-worker");
    }
  }

  private static String connectionName(RedisURI uri, String addr) {
    RedisClient raw = RedisClient.create(uri);
    try (StatefulRedisConnection<String, String> c = raw.connect()) {
      for (String client : c.sync().clientList().split("\n")) {
        if (client.contains("addr=" + addr + " ")) {
          Matcher m = Pattern.compile("name=(\\S*)").matcher(client);
          return m.find() ? m.group(1) : "";
        }
      }
      return "(gone)";
    } finally {
      raw.shutdown();
    }
  }
}
