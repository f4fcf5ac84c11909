/**
 * {@link io.delayq.spring.listener.DelayqListener} methods, and the {@link
 * io.delayq.spring.listener.DelayqListenerRegistry} that starts and stops them.
 */
package io.delayq.spring.listener;
