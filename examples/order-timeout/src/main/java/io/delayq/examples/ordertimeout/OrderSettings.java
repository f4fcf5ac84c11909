package io.delayq.examples.ordertimeout;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The shop's settings, under {@code orders.*}.
 *
 * @param paymentTimeout how long an order may stay unpaid before it cancels itself
 * @param cancelQueue the delayq queue of the timeouts
 * @param consumers how many timeouts are handled at once (on every instance)
 */
@ConfigurationProperties("orders")
public record OrderSettings(Duration paymentTimeout, String cancelQueue, int consumers) {}
