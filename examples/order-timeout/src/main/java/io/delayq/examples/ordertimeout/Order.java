package io.delayq.examples.ordertimeout;

import java.time.Instant;

/** An order as the shop stores it. */
public record Order(String id, String item, long amountCents, OrderStatus status, Instant createdAt, Instant settledAt) {}
