package io.delayq.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisSentinelProcessesTest {

    @Test
    void startsAPrimaryAReplicaAndThreeSentinelsThatFailOverOnRequest() throws Exception {
        try (RedisSentinelProcesses redis = RedisSentinelProcesses.builder().password("pw").start()) {
            assertThat(redis.dataNodes()).hasSize(2);
            assertThat(redis.sentinels()).hasSize(3);
            assertThat(redis.url()).matches("redis-sentinel://127\\.0\\.0\\.1:\\d+,127\\.0\\.0\\.1:\\d+,127\\.0\\.0\\.1:\\d+#mymaster");
            RedisServerProcess primary = redis.master();
            assertThat(primary).isSameAs(redis.dataNodes().get(0));
            assertThat(Resp.call(primary.port(), "pw", "SET", "k", "v")).isEqualTo("+OK");
            assertThat(Resp.call(redis.sentinels().get(0).port(), null, "PING")).isEqualTo("+PONG");

            redis.failover();
            RedisServerProcess promoted = redis.awaitNewMaster(primary, Duration.ofSeconds(30));
            assertThat(promoted).isSameAs(redis.dataNodes().get(1));
            assertThat(Resp.call(promoted.port(), "pw", "GET", "k")).isEqualTo("v");
            // the Sentinels turn the old primary into a replica of the new one
            redis.awaitReplicaInSync(primary, Duration.ofSeconds(60));
            assertThat(redis.master()).isSameAs(promoted);
        }
    }

    @Test
    void closeStopsEveryProcess() {
        RedisSentinelProcesses redis = RedisSentinelProcesses.builder().replicas(0).sentinels(1, 1).start();
        redis.close();
        assertThat(redis.dataNodes()).noneMatch(RedisServerProcess::isAlive);
        assertThat(redis.sentinels()).noneMatch(RedisServerProcess::isAlive);
        redis.close(); // idempotent
    }

    @Test
    void badSettingsAreRefused() {
        assertThatThrownBy(() -> RedisSentinelProcesses.builder().sentinels(3, 4))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("quorum");
        assertThatThrownBy(() -> RedisSentinelProcesses.builder().masterName("my master"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSentinelProcesses.builder().replicas(-1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisSentinelProcesses.builder().downAfter(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisServerProcess.builder().clusterMode(true).sentinelMode(true).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not both");
    }
}
