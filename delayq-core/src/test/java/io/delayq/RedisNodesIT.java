package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.embedded.RedisServerProcess;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@link Delayq#redisNodes()} reads from a real Redis, and what it leaves unknown when the user may not read it. */
class RedisNodesIT {
  @Test
  void aStandaloneRedisTellsItsVersionMemoryPolicyAndPersistence() {
    try (Delayq delayq = Delayq.connect(TestRedis.url())) {
      List<RedisNode> nodes = delayq.redisNodes();
      assertThat(nodes).hasSize(1);
      RedisNode node = nodes.get(0);
      assertThat(node.mode()).isEqualTo("standalone");
      assertThat(node.role()).isEqualTo("master");
      assertThat(node.version()).matches("\\d+\\.\\d+\\.\\d+.*");
      assertThat(node.usedMemory()).isPositive();
      assertThat(node.maxMemory()).isGreaterThanOrEqualTo(0);
      assertThat(node.maxmemoryPolicy()).isNotBlank();
      assertThat(node.mayEvict()).isEqualTo(!node.maxmemoryPolicy().equals("noeviction"));
      assertThat(node.rdbSaveConfig()).isNotNull();
      assertThat(node.connectedClients()).isPositive();
      assertThat(node.uptime()).isNotNull();
      assertThat(node.slotRanges()).isEmpty();
      assertThat(node.roundTrip()).isPositive().isLessThan(Duration.ofSeconds(5));
    }
  }

  @Test
  void onRedis62WithAofAndAUserWithoutInfoOrConfigTheCallStillAnswers() {
    try (RedisServerProcess server = RedisServerProcess.builder().appendOnly(true).start()) {
      try (Delayq delayq = Delayq.connect(server.uri())) {
        RedisNode node = delayq.redisNodes().get(0);
        assertThat(node.version()).startsWith("6.2");
        assertThat(node.aofEnabled()).isTrue();
        assertThat(node.maxmemoryPolicy()).isEqualTo("noeviction");
        assertThat(node.mayEvict()).isFalse();
        assertThat(node.lastSave()).isBefore(Instant.now().plusSeconds(5));
        assertThat(node.address()).isEqualTo("127.0.0.1:" + server.port());
      }
      RedisClient raw = RedisClient.create(server.uri());
      try (var connection = raw.connect()) {
        connection.sync().aclSetuser("limited", io.lettuce.core.AclSetuserArgs.Builder.on().addPassword("secret")
            .allKeys().allChannels().allCommands().removeCommand(io.lettuce.core.protocol.CommandType.INFO)
            .removeCommand(io.lettuce.core.protocol.CommandType.CONFIG));
      } finally {
        raw.shutdown();
      }
      try (Delayq limited = Delayq.connect("redis://limited:secret@127.0.0.1:" + server.port())) {
        RedisNode node = limited.redisNodes().get(0);
        assertThat(node.version()).isNull();
        assertThat(node.usedMemory()).isEqualTo(-1);
        assertThat(node.maxmemoryPolicy()).isNull();
        assertThat(node.rdbSaveConfig()).isNull();
        assertThat(node.uptime()).isNull();
        assertThat(node.role()).isEqualTo("master");
        assertThat(node.roundTrip()).isPositive();
      }
    }
  }
}
