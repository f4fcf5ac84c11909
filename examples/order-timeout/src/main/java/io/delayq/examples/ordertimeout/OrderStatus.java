package io.delayq.examples.ordertimeout;

/** An order starts unpaid and ends either paid or cancelled, never both. */
public enum OrderStatus {
  UNPAID,
  PAID,
  CANCELLED
}
