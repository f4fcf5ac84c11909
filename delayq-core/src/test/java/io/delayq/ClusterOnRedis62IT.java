package io.delayq;

import io.delayq.embedded.RedisClusterProcesses;
import io.delayq.embedded.RedisServerProcess;
import org.junit.jupiter.api.BeforeAll;

/** The cluster tests again, on a cluster of the bundled Redis 6.2, the oldest version delayq supports. */
class ClusterOnRedis62IT extends ClusterIT {

  @BeforeAll
  static void startCluster() {
    start(RedisClusterProcesses.builder().binary(RedisServerProcess.bundledBinary()));
  }
}
