package io.delayq.examples.ordertimeout;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.stereotype.Repository;

/** Orders in the shop's database. */
@Repository
public class OrderRepository {
  private static final RowMapper<Order> ROW =
      (rs, n) -> new Order(
          rs.getString("id"),
          rs.getString("item"),
          rs.getLong("amount_cents"),
          OrderStatus.valueOf(rs.getString("status")),
          rs.getTimestamp("created_at").toInstant(),
          rs.getTimestamp("settled_at") == null ? null : rs.getTimestamp("settled_at").toInstant());

  private final JdbcTemplate jdbc;

  public OrderRepository(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  public void insert(Order order) {
    jdbc.update(
        "INSERT INTO orders (id, item, amount_cents, status, created_at) VALUES (?, ?, ?, ?, ?)",
        order.id(), order.item(), order.amountCents(), order.status().name(), Timestamp.from(order.createdAt()));
  }

  /**
   * Moves an unpaid order to {@code to}. The {@code status = 'UNPAID'} condition is what makes a
   * payment and a timeout that race each other end with exactly one outcome: the database lets only
   * one of the two updates match.
   *
   * @return whether this call settled the order
   */
  public boolean settleUnpaid(String id, OrderStatus to, Instant at) {
    return jdbc.update(
            "UPDATE orders SET status = ?, settled_at = ? WHERE id = ? AND status = 'UNPAID'",
            to.name(), Timestamp.from(at), id)
        == 1;
  }

  public Optional<Order> find(String id) {
    return jdbc.query("SELECT * FROM orders WHERE id = ?", ROW, id).stream().findFirst();
  }

  public List<Order> findAll() {
    return jdbc.query("SELECT * FROM orders ORDER BY created_at, id", ROW);
  }
}
