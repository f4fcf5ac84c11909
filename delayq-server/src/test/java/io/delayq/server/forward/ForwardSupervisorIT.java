package io.delayq.server.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.Forwarder;
import io.delayq.ForwarderStatus;
import io.delayq.embedded.RedisServerProcess;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The supervisor follows every queue's stored spec on one thread; a forwarder that takes long to
 * close (a RabbitMQ forwarder waits for owed confirms, longer while the broker blocks publishes)
 * must not hold up the other queues' changes.
 */
class ForwardSupervisorIT {

  @Test
  void aForwarderSlowToCloseHoldsUpNoOtherQueuesChange() throws Exception {
    CountDownLatch letClose = new CountDownLatch(1);
    Map<String, AtomicInteger> started = new ConcurrentHashMap<>();
    ForwardSupervisor.Starter starter = (queue, spec) -> {
      started.computeIfAbsent(queue.name(), q -> new AtomicInteger()).incrementAndGet();
      return new Forwarder() {
        @Override
        public String queue() {
          return queue.name();
        }

        @Override
        public String target() {
          return "test:" + queue.name();
        }

        @Override
        public ForwarderStatus status() {
          return new ForwarderStatus(ForwarderStatus.State.RUNNING, target(), 0, 0, 0, 0, null, null);
        }

        @Override
        public void close() {
          if (queue.name().equals("slow")) {
            try {
              letClose.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        }
      };
    };
    String spec = new ForwardSpec.RedisList("ready", io.delayq.ListForwarding.Format.RAW).stored();
    try (RedisServerProcess redis = RedisServerProcess.builder().start();
        Delayq delayq = Delayq.connect(redis.uri())) {
      ForwardSupervisor supervisor = new ForwardSupervisor(delayq, null, "test", Duration.ofMinutes(10), starter).start();
      try {
        delayq.queue("slow").admin().setForwardingSpec(spec);
        supervisor.refreshSoon("slow");
        await().atMost(Duration.ofSeconds(5)).until(() -> started.containsKey("slow"));

        delayq.queue("slow").admin().setForwardingSpec(null);
        supervisor.refreshSoon("slow");
        await().atMost(Duration.ofSeconds(5)).until(() -> supervisor.view("slow").isEmpty());

        delayq.queue("other").admin().setForwardingSpec(spec);
        supervisor.refreshSoon("other");
        // why: a change waits for the forwarder it stops for at most CLOSE_INLINE_WAIT (1 s), then goes on
        await().atMost(Duration.ofSeconds(4)).until(() -> started.containsKey("other"));
        assertThat(supervisor.view("other")).isPresent();
        assertThat(supervisor.closing()).isEqualTo(1);
      } finally {
        letClose.countDown();
        supervisor.close();
      }
      assertThat(supervisor.closing()).isZero();
    }
  }
}
