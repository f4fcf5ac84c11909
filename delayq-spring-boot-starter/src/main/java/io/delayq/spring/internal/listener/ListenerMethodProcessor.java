package io.delayq.spring.internal.listener;

import io.delayq.Backoff;
import io.delayq.Delayq;
import io.delayq.InvalidRequestException;
import io.delayq.WorkerOptions;
import io.delayq.internal.Rules;
import io.delayq.spring.PayloadConversionException;
import io.delayq.spring.PayloadConverter;
import io.delayq.spring.autoconfigure.DelayqListenerProperties;
import io.delayq.spring.listener.DelayqListener;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.thread.Threading;
import org.springframework.core.env.Environment;

/**
 * Finds the {@code @DelayqListener} methods of the application's singletons once they all exist,
 * checks each (signature, payload type against the converter, every attribute), and registers a
 * container for it. Anything wrong fails the context's refresh with the bean, the method and what
 * to change; nothing has started by then.
 */
public final class ListenerMethodProcessor implements SmartInitializingSingleton, BeanFactoryAware {
  private final ListenerRegistry registry;
  private final Delayq delayq;
  private final PayloadConverter converter;
  private final DelayqListenerProperties properties;
  private final Environment environment;
  private ConfigurableListableBeanFactory beanFactory;

  public ListenerMethodProcessor(ListenerRegistry registry, Delayq delayq, PayloadConverter converter,
      DelayqListenerProperties properties, Environment environment) {
    this.registry = registry;
    this.delayq = delayq;
    this.converter = converter;
    this.properties = properties;
    this.environment = environment;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
    this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
  }

  @Override
  public void afterSingletonsInstantiated() {
    WorkerOptions defaults = defaults();
    boolean virtualThreads = Threading.VIRTUAL.isActive(environment);
    AnnotatedBeans.forEach(beanFactory, DelayqListener.class, UnaryOperator.identity(), "a listener",
        found -> found.methods().forEach((method, annotation) ->
            registry.register(container(found, method, annotation, defaults, virtualThreads))));
  }

  private ListenerContainer container(AnnotatedBeans.Found<DelayqListener> found, Method method,
      DelayqListener annotation, WorkerOptions defaults, boolean virtualThreads) {
    String listener = found.describe(method);
    ListenerSignature signature = ListenerSignature.of(method, found.beanType(), listener);
    AnnotatedBeans.checkReadable(converter, signature.payloadType(), listener);

    ListenerAttributes attributes = new ListenerAttributes(environment, beanFactory, listener);
    String queue = attributes.text("queue", annotation.queue(), null);
    if (queue == null) {
      throw attributes.problem("queue", annotation.queue(), "names no queue");
    }
    attributes.check("queue", annotation.queue(), queue, Rules::checkQueueName);
    String id = attributes.text("id", annotation.id(), queue);

    WorkerOptions.Builder options = defaults.toBuilder();
    int concurrency = attributes.integer("concurrency", annotation.concurrency(), defaults.concurrency(), 1, 10_000);
    options.concurrency(concurrency);
    Duration lease = attributes.duration("lease", annotation.lease(), defaults.lease());
    attributes.check("lease", annotation.lease(), lease, options::lease);
    options.keepLeaseWhileRunning(attributes.flag("keepLeaseWhileRunning", annotation.keepLeaseWhileRunning(),
        defaults.keepLeaseWhileRunning()));
    int attemptCap = attributes.integer("maxAttempts", annotation.maxAttempts(), 0, 1, 1000);
    options.backoff(backoff(attributes, annotation.backoff(), defaults.backoff()));
    boolean autoStartup = attributes.flag("autoStartup", annotation.autoStartup(), properties.isAutoStartup());

    Set<Class<? extends Throwable>> nonRetryable = new LinkedHashSet<>(Arrays.asList(annotation.nonRetryable()));
    nonRetryable.add(PayloadConversionException.class);
    @SuppressWarnings("unchecked")
    Class<? extends Throwable>[] types = nonRetryable.toArray(new Class[0]);
    options.nonRetryable(types);

    Method invocable = AnnotatedBeans.invocable(method, found.bean(), listener);
    ListenerHandler handler = new ListenerHandler(found.bean(), invocable, signature, converter, attemptCap,
        Set.copyOf(nonRetryable));
    return new ListenerContainer(id, queue, listener, delayq, handler, options.build(), autoStartup, virtualThreads);
  }

  private static Backoff backoff(ListenerAttributes attributes, DelayqListener.Backoff annotation, Backoff defaults) {
    Duration initial = attributes.duration("backoff.initial", annotation.initial(), defaults.initial());
    Duration max = attributes.duration("backoff.max", annotation.max(), defaults.max());
    double multiplier = attributes.decimal("backoff.multiplier", annotation.multiplier(), defaults.multiplier());
    double jitter = attributes.decimal("backoff.jitter", annotation.jitter(), defaults.jitter());
    String raw = "initial=" + annotation.initial() + ", max=" + annotation.max() + ", multiplier="
        + annotation.multiplier() + ", jitter=" + annotation.jitter();
    return attributes.check("backoff", raw, null, ignored -> new Backoff(initial, max, multiplier, jitter));
  }

  /** The listener defaults from {@code delayq.listener.*}, each checked by the rule delayq applies. */
  private WorkerOptions defaults() {
    return defaults(properties);
  }

  static WorkerOptions defaults(DelayqListenerProperties properties) {
    DelayqListenerProperties.Backoff b = properties.getBackoff();
    try {
      return WorkerOptions.builder()
          .concurrency(properties.getConcurrency())
          .lease(properties.getLease())
          .shutdownTimeout(properties.getShutdownTimeout())
          .keepLeaseWhileRunning(properties.isKeepLeaseWhileRunning())
          .backoff(new Backoff(b.getInitial(), b.getMax(), b.getMultiplier(), b.getJitter()))
          .build();
    } catch (InvalidRequestException | NullPointerException e) {
      throw new IllegalStateException("delayq.listener.* holds a value delayq refuses: " + e.getMessage(), e);
    }
  }
}
