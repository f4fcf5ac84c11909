package io.delayq.examples.ordertimeout;

import io.delayq.DuplicatePolicy;
import io.delayq.JobActiveException;
import io.delayq.spring.DelayqTemplate;
import io.delayq.spring.JobOptions;
import java.time.Clock;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Orders and their timeouts. The timeout is scheduled in the order's own transaction, so an order
 * that is never committed never times out, and a committed one always does (delayq's outbox keeps
 * it if the process stops right after the commit). Paying and timing out race; the database
 * decides which wins, so every order ends exactly one way.
 */
@Service
public class OrderService {
  private static final Logger log = LoggerFactory.getLogger(OrderService.class);

  private final OrderRepository orders;
  private final DelayqTemplate delayq;
  private final OrderSettings settings;
  private final Clock clock = Clock.systemUTC();

  public OrderService(OrderRepository orders, DelayqTemplate delayq, OrderSettings settings) {
    this.orders = orders;
    this.delayq = delayq;
    this.settings = settings;
  }

  /** A new unpaid order, and its timeout: both or neither. */
  @Transactional
  public Order create(String item, long amountCents) {
    Order order = new Order(UUID.randomUUID().toString(), item, amountCents, OrderStatus.UNPAID, clock.instant(), null);
    orders.insert(order);
    delayq.schedule(settings.cancelQueue(), new OrderTimeout(order.id()), settings.paymentTimeout(),
        JobOptions.ofId(timeoutJobId(order.id())).withOnDuplicate(DuplicatePolicy.KEEP));
    return order;
  }

  /**
   * Pays an unpaid order and cancels its timeout.
   *
   * @return the order as it now is: {@code PAID} when this payment won, {@code CANCELLED} when the
   *     timeout did; empty when there is no such order
   */
  @Transactional
  public Optional<Order> pay(String id) {
    if (orders.settleUnpaid(id, OrderStatus.PAID, clock.instant())) {
      cancelTimeout(id);
    }
    return orders.find(id);
  }

  /** What the timeout does: cancels the order unless it was paid first. */
  @Transactional
  public boolean cancelIfUnpaid(String id) {
    boolean cancelled = orders.settleUnpaid(id, OrderStatus.CANCELLED, clock.instant());
    log.info("order {} {}", id, cancelled ? "cancelled: not paid in time" : "was paid in time; nothing to do");
    return cancelled;
  }

  public Optional<Order> find(String id) {
    return orders.find(id);
  }

  private void cancelTimeout(String id) {
    try {
      delayq.cancel(settings.cancelQueue(), timeoutJobId(id));
    } catch (JobActiveException running) {
      // why: the timeout is running right now; it will find the order paid and do nothing, so the
      // payment stands and the job ends by itself
      log.debug("timeout of order {} is running; it will find the order paid", id);
    }
  }

  /** The timeout's job id is the order's, so a payment can cancel it without having stored it. */
  static String timeoutJobId(String orderId) {
    return "order-" + orderId;
  }
}
