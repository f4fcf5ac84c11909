package io.delayq.examples.ordertimeout;

import io.delayq.spring.listener.DelayqListener;
import org.springframework.stereotype.Component;

/** Runs each order's timeout when it is due, on any instance of the shop, exactly one at a time per job. */
@Component
public class OrderTimeoutListener {
  private final OrderService orders;

  public OrderTimeoutListener(OrderService orders) {
    this.orders = orders;
  }

  @DelayqListener(queue = "${orders.cancel-queue}", concurrency = "${orders.consumers}")
  void onTimeout(OrderTimeout timeout) {
    orders.cancelIfUnpaid(timeout.orderId());
  }
}
