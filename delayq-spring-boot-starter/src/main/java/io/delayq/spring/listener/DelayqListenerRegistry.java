package io.delayq.spring.listener;

import java.util.List;
import java.util.Optional;
import org.springframework.context.SmartLifecycle;

/**
 * Every {@link DelayqListener} of the application, by id, as a bean. It starts the listeners
 * whose {@code autoStartup} holds once the application context is refreshed, and stops them all
 * when the context closes, in the {@link #PHASE lifecycle phase} given here: before the delayq
 * client is closed, and before beans of lower phases (such as a web server's graceful shutdown)
 * stop.
 *
 * <pre>{@code
 * registry.container("orders-cancel").ifPresent(DelayqListenerContainer::stop);
 * }</pre>
 *
 * @since 0.3.0
 */
public interface DelayqListenerRegistry {
  /** The {@link SmartLifecycle} phase of the listeners: they start late and stop early. */
  int PHASE = SmartLifecycle.DEFAULT_PHASE - 100;

  /** Every listener container, sorted by id. */
  List<DelayqListenerContainer> containers();

  /** The container with this id, or empty when no listener has it. */
  Optional<DelayqListenerContainer> container(String id);
}
