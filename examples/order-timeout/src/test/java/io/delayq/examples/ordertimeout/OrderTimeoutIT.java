package io.delayq.examples.ordertimeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.QueueStats;
import io.delayq.spring.DelayqTemplate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

/** The shop end to end: real HTTP, a real database file, real Redis, the real listener. */
class OrderTimeoutIT {
  @TempDir Path dir;

  private Shop.Data data(Duration paymentTimeout) {
    return new Shop.Data(dir, "order-timeouts-" + UUID.randomUUID().toString().substring(0, 8), paymentTimeout);
  }

  private static void awaitNoTimeoutsLeft(Shop shop, Shop.Data data) {
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
      QueueStats stats = shop.timeouts(data);
      assertThat(stats.scheduled() + stats.active() + stats.dead()).isZero();
    });
  }

  @Test
  void tenOrdersWithFiveConsumersThePaidOnesStayPaidAndTheOthersCancelThemselves() {
    Shop.Data data = data(Duration.ofSeconds(2));
    try (Shop shop = Shop.start(data)) {
      List<String> paid = new ArrayList<>();
      List<String> unpaid = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        (i % 2 == 0 ? paid : unpaid).add(shop.order("book " + i, 1_000 + i));
      }
      for (String id : paid) {
        assertThat(shop.pay(id)).isEqualTo(200);
      }
      await().atMost(Duration.ofSeconds(30))
          .until(() -> unpaid.stream().allMatch(id -> shop.status(id) == OrderStatus.CANCELLED));
      assertThat(paid).allSatisfy(id -> assertThat(shop.status(id)).isEqualTo(OrderStatus.PAID));
      awaitNoTimeoutsLeft(shop, data);
      // a paid order's timeout was cancelled, never run: it left nothing behind, not even a dead job
      assertThat(shop.timeouts(data).dead()).isZero();
    }
  }

  @Test
  void aPaymentRacingItsTimeoutEndsExactlyOneWayAndTheAnswerSaysWhich() throws Exception {
    Shop.Data data = data(Duration.ofMillis(300));
    Map<String, Integer> answers = new ConcurrentHashMap<>();
    ScheduledExecutorService payers = Executors.newScheduledThreadPool(4);
    try (Shop shop = Shop.start(data)) {
      for (int i = 0; i < 30; i++) {
        String id = shop.order("race " + i, 500);
        // pay around the moment the timeout falls due: some well before, some well after
        long at = ThreadLocalRandom.current().nextLong(100, 1500);
        payers.schedule(() -> answers.put(id, shop.pay(id)), at, TimeUnit.MILLISECONDS);
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> answers.size() == 30);
      awaitNoTimeoutsLeft(shop, data);
      answers.forEach((id, answer) -> {
        assertThat(answer).as("payment of %s", id).isIn(200, 409);
        assertThat(shop.status(id)).as("order %s", id)
            .isEqualTo(answer == 200 ? OrderStatus.PAID : OrderStatus.CANCELLED);
      });
      // the race had both outcomes, or it tested nothing
      assertThat(answers.values()).contains(200);
      assertThat(answers.values()).contains(409);
    } finally {
      payers.shutdownNow();
    }
  }

  @Test
  void anAppRestartMidWayLosesNoTimeout() {
    Shop.Data data = data(Duration.ofSeconds(2));
    List<String> before = new ArrayList<>();
    List<String> pending = new ArrayList<>();
    try (Shop first = Shop.start(data)) {
      for (int i = 0; i < 5; i++) {
        before.add(first.order("before " + i, 700));
      }
      await().atMost(Duration.ofSeconds(30))
          .until(() -> before.stream().allMatch(id -> first.status(id) == OrderStatus.CANCELLED));
      for (int i = 0; i < 5; i++) {
        pending.add(first.order("pending " + i, 700));
      }
      // stopped with five timeouts still to come
      assertThat(pending).allSatisfy(id -> assertThat(first.status(id)).isEqualTo(OrderStatus.UNPAID));
    }
    try (Shop second = Shop.start(data)) {
      await().atMost(Duration.ofSeconds(30))
          .until(() -> pending.stream().allMatch(id -> second.status(id) == OrderStatus.CANCELLED));
      assertThat(before).allSatisfy(id -> assertThat(second.status(id)).isEqualTo(OrderStatus.CANCELLED));
      awaitNoTimeoutsLeft(second, data);
    }
  }

  @Test
  void anOrderWhoseTransactionRollsBackNeverTimesOut() {
    Shop.Data data = data(Duration.ofMillis(200));
    try (Shop shop = Shop.start(data)) {
      OrderService orders = shop.context().getBean(OrderService.class);
      TransactionTemplate transaction = shop.context().getBean(TransactionTemplate.class);
      String id = transaction.execute(status -> {
        Order order = orders.create("rolled back", 100);
        status.setRollbackOnly();
        return order.id();
      });
      String committed = shop.order("committed", 100);

      // the committed order's timeout ran, so the rolled-back one's would have too, relay included
      await().atMost(Duration.ofSeconds(30)).until(() -> shop.status(committed) == OrderStatus.CANCELLED);
      awaitNoTimeoutsLeft(shop, data);
      assertThat(shop.status(id)).isNull();
      DelayqTemplate delayq = shop.context().getBean(DelayqTemplate.class);
      assertThat(delayq.get(data.queue(), OrderService.timeoutJobId(id))).isEmpty();
      assertThat(shop.context().getBean(JdbcTemplate.class)
          .queryForObject("SELECT COUNT(*) FROM delayq_outbox", Integer.class)).isZero();
    }
  }
}
