package io.delayq.examples.ordertimeout;

/** The job's payload: which order to cancel if it is still unpaid. Stored as {@code {"orderId":"…"}}. */
public record OrderTimeout(String orderId) {}
