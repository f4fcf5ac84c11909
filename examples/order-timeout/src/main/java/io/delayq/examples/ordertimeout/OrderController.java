package io.delayq.examples.ordertimeout;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /orders}, {@code POST /orders/{id}/pay}, {@code GET /orders/{id}}. */
@RestController
@RequestMapping("/orders")
public class OrderController {
  private final OrderService orders;

  public OrderController(OrderService orders) {
    this.orders = orders;
  }

  /** What a client sends to place an order. */
  public record NewOrder(String item, long amountCents) {}

  @PostMapping
  public ResponseEntity<Order> create(@RequestBody NewOrder order) {
    if (order.item() == null || order.item().isBlank() || order.amountCents() <= 0) {
      return ResponseEntity.badRequest().build();
    }
    return ResponseEntity.status(HttpStatus.CREATED).body(orders.create(order.item(), order.amountCents()));
  }

  /** 200 with the paid order; 409 with the order when its timeout cancelled it first; 404. */
  @PostMapping("/{id}/pay")
  public ResponseEntity<Order> pay(@PathVariable String id) {
    return orders.pay(id)
        .map(order -> order.status() == OrderStatus.PAID
            ? ResponseEntity.ok(order)
            : ResponseEntity.status(HttpStatus.CONFLICT).body(order))
        .orElseGet(() -> ResponseEntity.notFound().build());
  }

  @GetMapping("/{id}")
  public ResponseEntity<Order> get(@PathVariable String id) {
    return ResponseEntity.of(orders.find(id));
  }
}
