/**
 * Forwarding due delayq jobs to RabbitMQ: {@link io.delayq.rabbitmq.RabbitForwarder} claims them
 * with a lease, publishes them with publisher confirms, and removes them from delayq only once the
 * broker confirmed them. See docs/RABBITMQ.md for setup, guarantees and a deduplicating consumer.
 *
 * @since 0.3.0
 */
package io.delayq.rabbitmq;
