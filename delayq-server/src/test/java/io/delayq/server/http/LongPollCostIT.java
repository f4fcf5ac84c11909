package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisServerProcess;
import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ApiClient.Reply;
import io.delayq.server.testing.ServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Long polls cost Redis what one waiting claim costs, however many clients wait: every claim
 * waiting on one queue (with one lease) is served by one claim loop, and the job that finally
 * arrives still reaches one of them at once.
 */
class LongPollCostIT {
  @TempDir Path dir;

  @Test
  void thirtyTwoWaitingClaimsOnOneQueueCostAboutWhatOneCosts() throws Exception {
    try (RedisServerProcess redis = RedisServerProcess.builder()
            .binary(RedisServerProcess.machineBinary().orElseGet(RedisServerProcess::bundledBinary))
            .dataDir(dir.resolve("redis")).logFile(dir.resolve("redis.log")).start();
        ServerProcess server = ServerProcess.startEmbedded(dir.resolve("server"), "--redis", redis.uri())) {
      ApiClient api = new ApiClient(server.baseUrl());
      String queue = "it-poll-cost";
      assertThat(api.put("/v1/queues/" + queue, Map.of("partitions", 16)).status()).isEqualTo(200);

      double one = commandsPerSecondWhile(redis, api, queue, 1);
      double many = commandsPerSecondWhile(redis, api, queue, 32);
      // one sweep per second per partition for the queue, shared; allow for wake-bus probes and jitter
      assertThat(many).as("Redis commands/s with 32 waiting claims, against %.1f with one", one)
          .isLessThan(one * 1.5 + 10);
    }
  }

  private static double commandsPerSecondWhile(RedisServerProcess redis, ApiClient api, String queue, int claims)
      throws Exception {
    List<CompletableFuture<Reply>> waiting = new ArrayList<>();
    for (int i = 0; i < claims; i++) {
      waiting.add(CompletableFuture.supplyAsync(() -> api.post("/v1/queues/" + queue + "/claim?waitMs=15000")));
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> waitingClaims(api) == claims);
    long before = totalCommands(redis);
    long start = System.nanoTime();
    Thread.sleep(4_000); // the quantity measured is a rate over time: nothing to await
    long after = totalCommands(redis);
    double seconds = (System.nanoTime() - start) / 1e9;
    // a job arriving now goes to one of the waiting claims at once; the others still get their empty answer
    assertThat(api.post("/v1/queues/" + queue + "/jobs", Map.of("id", "wake-" + claims, "payload", "x")).status())
        .isEqualTo(201);
    int delivered = 0;
    for (CompletableFuture<Reply> claim : waiting) {
      delivered += claim.get().json().size();
    }
    assertThat(delivered).as("jobs delivered to %d waiting claims", claims).isEqualTo(1);
    return (after - before) / seconds;
  }

  private static long totalCommands(RedisServerProcess redis) {
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<String, String> connection = client.connect()) {
      Matcher m = Pattern.compile("total_commands_processed:(\\d+)").matcher(connection.sync().info("stats"));
      assertThat(m.find()).isTrue();
      // the INFO and HELLO/CLIENT commands of this connection count too; a handful per reading
      return Long.parseLong(m.group(1));
    } finally {
      client.shutdown();
    }
  }

  private static double waitingClaims(ApiClient api) {
    Matcher m = Pattern.compile("(?m)^delayq_http_waiting_claims\\S* (\\S+)$").matcher(api.get("/metrics").body());
    return m.find() ? Double.parseDouble(m.group(1)) : -1;
  }
}
