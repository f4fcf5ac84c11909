package io.delayq.rabbitmq;

import io.delayq.Delayq;
import io.delayq.JobQueue;
import io.delayq.testing.TestRedis;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What each forwarder test starts from: the broker checked (skipped with the reason, or failed in
 * CI), a client on the test Redis, a fresh queue, and what the test opens closed after it in
 * reverse order.
 */
abstract class ForwarderFixture {
  Delayq delayq;
  JobQueue queue;
  private final List<AutoCloseable> closing = new ArrayList<>();

  /** The prefix of the test's queue name. */
  abstract String queuePrefix();

  @BeforeEach
  void open() {
    TestRabbit.assumeReachable();
    delayq = Delayq.connect(TestRedis.url());
    queue = delayq.queue(TestRedis.uniqueQueue(queuePrefix()));
  }

  @AfterEach
  void close() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    if (delayq != null) {
      delayq.close();
    }
  }

  <T extends AutoCloseable> T closeLater(T c) {
    closing.add(c);
    return c;
  }
}
