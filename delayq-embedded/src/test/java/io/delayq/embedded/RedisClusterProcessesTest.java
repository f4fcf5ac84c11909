package io.delayq.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class RedisClusterProcessesTest {

    private static final Logger LOG = LoggerFactory.getLogger(RedisClusterProcessesTest.class);

    @Test
    void slotIsCrc16XmodemMod16384WithHashTags() {
        assertThat(RedisClusterProcesses.slot("123456789")).isEqualTo(0x31C3); // the XMODEM check value, 12739
        assertThat(RedisClusterProcesses.slot("foo")).isEqualTo(12182);
        assertThat(RedisClusterProcesses.slot("")).isZero();
        assertThat(RedisClusterProcesses.slot("{user1000}.following"))
                .isEqualTo(RedisClusterProcesses.slot("{user1000}.followers"))
                .isEqualTo(RedisClusterProcesses.slot("user1000"));
        assertThat(RedisClusterProcesses.slot("foo{}{bar}")).as("empty first tag: whole key")
                .isNotEqualTo(RedisClusterProcesses.slot("bar"));
        assertThat(RedisClusterProcesses.slot("foo{{bar}}zap")).isEqualTo(RedisClusterProcesses.slot("{bar"));
        assertThat(RedisClusterProcesses.slot("foo{bar}{zap}")).isEqualTo(RedisClusterProcesses.slot("bar"));
    }

    @Test
    void theMachinesRedisServerIsTheDefaultAndFormsAClusterThatFailsOver() {
        Optional<Path> machine = RedisServerProcess.machineBinary();
        assumeThat(machine).as("redis-server on PATH").isPresent();

        try (RedisClusterProcesses cluster = timed("build", () -> RedisClusterProcesses.builder().start())) {
            assertThat(cluster.nodes().get(0).version()).isEqualTo(RedisServerProcess.version(machine.get()));
            checkTopologyWritesAndFailover(cluster);
        }
    }

    @Test
    void theBundledRedis62FormsAClusterThatFailsOver() {
        Path bundled = RedisServerProcess.bundledBinary();
        try (RedisClusterProcesses cluster = timed("build",
                () -> RedisClusterProcesses.builder().binary(bundled).start())) {
            assertThat(cluster.nodes().get(0).version()).startsWith("Redis server v=6.2");
            checkTopologyWritesAndFailover(cluster);
        }
    }

    @Test
    void requirepassIsUsedToFormTheClusterAndAsMasterauth() {
        try (RedisClusterProcesses cluster = RedisClusterProcesses.builder()
                .masters(1)
                .setting("requirepass", "s3cret")
                .start()) {
            RedisServerProcess master = cluster.nodes().get(0);
            assertThat((String) RawRedis.call(master.port(), "GET", "k")).startsWith("-NOAUTH");
            try (RawRedis redis = new RawRedis(master.port())) {
                assertThat(redis.send("AUTH", "s3cret")).isEqualTo("+OK");
                assertThat(redis.send("SET", "k", "v")).isEqualTo("+OK");
                assertThat(redis.send("WAIT", "1", "1000")).isEqualTo(1L);
            }
            assertThat(cluster.masters()).containsExactly(master);
            assertThat(cluster.replicas()).containsExactly(cluster.nodes().get(1));
        }
    }

    @Test
    void closeStopsEveryNodeAndIsIdempotent() {
        RedisClusterProcesses cluster = RedisClusterProcesses.builder().masters(1).replicasPerMaster(0).start();
        RedisServerProcess node = cluster.nodes().get(0);
        long pid = node.pid();

        cluster.close();
        cluster.close();

        assertThat(ProcessHandle.of(pid)).isEmpty();
        assertThat(node.dataDir()).doesNotExist();
        assertThat(cluster.masters()).isEmpty();
    }

    @Test
    void invalidSettingsAreRejected() {
        RedisClusterProcesses.Builder builder = RedisClusterProcesses.builder();
        assertThatThrownBy(() -> builder.masters(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.replicasPerMaster(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.nodeTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.setting("cluster-node-timeout", "100"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nodeTimeout");
        assertThatThrownBy(() -> builder.setting("port", "1")).isInstanceOf(IllegalArgumentException.class);
    }

    private static void checkTopologyWritesAndFailover(RedisClusterProcesses cluster) {
        assertThat(cluster.nodes()).hasSize(6);
        assertThat(cluster.masters()).hasSize(3);
        assertThat(cluster.replicas()).hasSize(3).doesNotContainAnyElementsOf(cluster.masters());
        assertThat(cluster.seedUrl()).isEqualTo("redis://127.0.0.1:" + cluster.nodes().get(0).port());
        assertThat(cluster.seedUrls().split(","))
                .containsExactlyElementsOf(cluster.nodes().stream().map(RedisServerProcess::uri).toList());
        for (RedisServerProcess node : cluster.nodes()) {
            assertThat(slotsCoveredByMasterAndOneReplica(node)).as("slots covered as seen from %s", node.uri())
                    .isEqualTo(RedisClusterProcesses.SLOTS);
        }
        for (String key : List.of("foo", "123456789", "{dq:emails:0}:due", "héllo")) {
            assertThat(RawRedis.call(cluster.nodes().get(0).port(), "CLUSTER", "KEYSLOT", key))
                    .isEqualTo((long) RedisClusterProcesses.slot(key));
        }

        String key = "{dq:emails:0}:job";
        int slot = RedisClusterProcesses.slot(key);
        RedisServerProcess master = cluster.masterOfSlot(slot);
        RedisServerProcess otherMaster = cluster.masters().stream().filter(m -> m != master).findFirst().orElseThrow();
        assertThat(RawRedis.call(otherMaster.port(), "SET", key, "v"))
                .isEqualTo("-MOVED " + slot + " 127.0.0.1:" + master.port());
        try (RawRedis redis = new RawRedis(master.port())) {
            assertThat(redis.send("SET", key, "v")).isEqualTo("+OK");
            assertThat(redis.send("WAIT", "1", "1000")).as("replicas that acknowledged the write").isEqualTo(1L);
        }
        List<RedisServerProcess> replicasBefore = cluster.replicas();

        assertThat(cluster.killMaster(slot)).isSameAs(master);
        assertThat(master.isAlive()).isFalse();
        assertThatThrownBy(() -> cluster.killMaster(slot)).as("the dead master still holds the slot")
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("awaitFailover");
        RedisServerProcess promoted = timed("failover", () -> cluster.awaitFailover(slot, Duration.ofSeconds(15)));

        assertThat(promoted).isNotSameAs(master).isIn(replicasBefore);
        assertThat(cluster.masterOfSlot(slot)).isSameAs(promoted);
        assertThat(cluster.masters()).hasSize(3).contains(promoted).doesNotContain(master);
        assertThat(cluster.replicas()).hasSize(2);
        assertThat(RawRedis.call(promoted.port(), "GET", key)).isEqualTo("v");
        assertThat(RawRedis.call(promoted.port(), "SET", key, "w")).isEqualTo("+OK");
    }

    /** Sums the ranges of {@code CLUSTER SLOTS} that list a master and exactly one replica. */
    @SuppressWarnings("unchecked")
    private static int slotsCoveredByMasterAndOneReplica(RedisServerProcess node) {
        int covered = 0;
        for (Object range : (List<Object>) RawRedis.call(node.port(), "CLUSTER", "SLOTS")) {
            List<Object> r = (List<Object>) range;
            if (r.size() == 4) {
                covered += (int) ((long) r.get(1) - (long) r.get(0) + 1);
            }
        }
        return covered;
    }

    private static <T> T timed(String what, Supplier<T> action) {
        long start = System.nanoTime();
        T result = action.get();
        LOG.info("{} took {} ms", what, (System.nanoTime() - start) / 1_000_000);
        return result;
    }
}
