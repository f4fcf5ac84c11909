package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.delayq.embedded.RedisServerProcess;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Durable schedules on a single Redis with one replica (the bundled Redis 6.2). */
class DurableScheduleIT {

  @Test
  void aDurableScheduleReturnsOnlyOnceTheReplicaHasItAndSaysSoWhenItCannot() {
    try (RedisServerProcess primary = RedisServerProcess.builder().start();
        RedisServerProcess replica =
            RedisServerProcess.builder().setting("replicaof", "127.0.0.1", Integer.toString(primary.port())).start();
        Delayq durable =
            Delayq.builder().redisUrl(primary.uri()).waitForReplicas(1, Duration.ofMillis(500)).build()) {
      RedisClient client = RedisClient.create(replica.uri());
      try (StatefulRedisConnection<String, String> onReplica = client.connect()) {
        await().atMost(Duration.ofSeconds(20))
            .until(() -> onReplica.sync().info("replication").contains("master_link_status:up"));
        String name = TestRedis.uniqueQueue("durable");
        JobQueue queue = durable.queue(name, 4);
        List<JobRequest> requests = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
          requests.add(JobRequest.of("d" + i).withId("d-" + i).withDelay(Duration.ofMinutes(5)));
        }
        queue.scheduleAll(requests);
        // WAIT returned, so the replica holds every job already, with no waiting here
        long onReplicaNow = 0;
        for (int p = 0; p < 4; p++) {
          onReplicaNow += onReplica.sync().zcard("{dq:" + name + ":" + p + "}:scheduled");
        }
        assertThat(onReplicaNow).isEqualTo(300);

        replica.kill();
        // the primary forgets its scripts too (as a restarted or promoted node has): the script is
        // then sent again, and the WAIT must still come after that write
        RedisClient primaryClient = RedisClient.create(primary.uri());
        try (StatefulRedisConnection<String, String> onPrimary = primaryClient.connect()) {
          onPrimary.sync().scriptFlush();
        } finally {
          primaryClient.shutdown();
        }
        assertThatThrownBy(() -> queue.schedule(JobRequest.of("x").withId("unconfirmed")))
            .isInstanceOfSatisfying(NotReplicatedException.class, e -> {
              assertThat(e.required()).isEqualTo(1);
              assertThat(e.confirmed()).isZero();
              assertThat(e.unconfirmedIds()).containsExactly("unconfirmed");
            })
            .hasMessageContaining("only 0 of 1 required replica(s) confirmed")
            .hasMessageContaining("Scheduling the same requests again with DuplicatePolicy.KEEP within PT5M");
        assertThat(queue.get("unconfirmed")).as("the master has it all the same").isPresent();
        assertThat(queue.admin().stats().scheduled()).isEqualTo(301);
      } finally {
        client.shutdown();
      }
    }
  }

  @Test
  void replicaCountIsChecked() {
    assertThatThrownBy(() -> Delayq.builder().waitForReplicas(-1, Duration.ofSeconds(1)))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("replicas: must be between 0 and 16; got -1");
    assertThatThrownBy(() -> Delayq.builder().waitForReplicas(1, Duration.ZERO))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("timeout: must be between 1 ms and 1 minute");
  }
}
