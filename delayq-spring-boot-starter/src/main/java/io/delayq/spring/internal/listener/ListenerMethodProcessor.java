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
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.thread.Threading;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the {@code @DelayqListener} methods of the application's singletons once they all exist,
 * checks each (signature, payload type against the converter, every attribute), and registers a
 * container for it. Anything wrong fails the context's refresh with the bean, the method and what
 * to change; nothing has started by then.
 */
public final class ListenerMethodProcessor implements SmartInitializingSingleton, BeanFactoryAware {
  private static final Logger log = LoggerFactory.getLogger(ListenerMethodProcessor.class);

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
    for (String beanName : beanFactory.getBeanNamesForType(Object.class, true, false)) {
      if (ScopedProxyUtils.isScopedTarget(beanName)) {
        continue;
      }
      Class<?> type;
      try {
        type = AutoProxyUtils.determineTargetClass(beanFactory, beanName);
      } catch (RuntimeException e) {
        log.debug("could not tell the type of bean '{}'; not looking for @DelayqListener methods on it", beanName, e);
        continue;
      }
      if (type != null && AnnotationUtils.isCandidateClass(type, DelayqListener.class)) {
        process(beanName, type, defaults, virtualThreads);
      }
    }
  }

  private void process(String beanName, Class<?> targetType, WorkerOptions defaults, boolean virtualThreads) {
    Map<Method, DelayqListener> methods = MethodIntrospector.selectMethods(targetType,
        (MethodIntrospector.MetadataLookup<DelayqListener>) m -> AnnotatedElementUtils.findMergedAnnotation(m, DelayqListener.class));
    if (methods.isEmpty()) {
      return;
    }
    // why: a scoped proxy is a singleton, but each call looks its target up in a scope (a request,
    // a session) that no worker thread ever has, so every job would fail on every attempt
    String scopedTarget = ScopedProxyUtils.getTargetBeanName(beanName);
    boolean scopedProxy = beanFactory.containsBeanDefinition(scopedTarget) && !beanFactory.isSingleton(scopedTarget);
    if (!beanFactory.isSingleton(beanName) || scopedProxy) {
      Method first = methods.keySet().iterator().next();
      throw new ListenerDefinitionException(describe(targetType, first, beanName), "the bean is not a singleton"
          + (scopedProxy ? " (it is a scoped proxy of a bean of scope '"
              + beanFactory.getMergedBeanDefinition(scopedTarget).getScope() + "')" : "")
          + "; a listener runs on one instance for the application's life, so declare the bean as a singleton");
    }
    Object bean = beanFactory.getBean(beanName);
    ResolvableType beanType = declaredType(beanName, targetType);
    methods.entrySet().stream()
        .sorted(Comparator.comparing((Map.Entry<Method, DelayqListener> e) -> e.getKey().toGenericString()))
        .forEach(e -> registry.register(
            container(beanName, bean, targetType, beanType, e.getKey(), e.getValue(), defaults, virtualThreads)));
  }

  private ListenerContainer container(String beanName, Object bean, Class<?> targetType, ResolvableType beanType,
      Method method, DelayqListener annotation, WorkerOptions defaults, boolean virtualThreads) {
    String listener = describe(targetType, method, beanName);
    ListenerSignature signature = ListenerSignature.of(method, beanType, listener);
    Type payloadType = signature.payloadType();
    if (payloadType != null && !converter.canRead(payloadType)) {
      throw ListenerDefinitionException.signature(listener, "the application's PayloadConverter ("
          + converter.getClass().getName() + ") cannot read a payload as " + payloadType.getTypeName()
          + " (without a JSON mapper only String and byte[] can be read); add tools.jackson.core:jackson-databind to"
          + " the application, declare a PayloadConverter bean that reads it, or take String or byte[]");
    }

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
    int attemptCap = attributes.integer("maxAttempts", annotation.maxAttempts(), 0, 1, 1000);
    options.backoff(backoff(attributes, annotation.backoff(), defaults.backoff()));
    boolean autoStartup = attributes.flag("autoStartup", annotation.autoStartup(), properties.isAutoStartup());

    Set<Class<? extends Throwable>> nonRetryable = new LinkedHashSet<>(Arrays.asList(annotation.nonRetryable()));
    nonRetryable.add(PayloadConversionException.class);
    @SuppressWarnings("unchecked")
    Class<? extends Throwable>[] types = nonRetryable.toArray(new Class[0]);
    options.nonRetryable(types);

    Method invocable;
    try {
      invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
    } catch (IllegalStateException e) {
      throw ListenerDefinitionException.signature(listener, e.getMessage());
    }
    ReflectionUtils.makeAccessible(invocable);
    ListenerHandler handler = new ListenerHandler(bean, invocable, signature, converter, attemptCap, Set.copyOf(nonRetryable));
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
          .backoff(new Backoff(b.getInitial(), b.getMax(), b.getMultiplier(), b.getJitter()))
          .build();
    } catch (InvalidRequestException | NullPointerException e) {
      throw new IllegalStateException("delayq.listener.* holds a value delayq refuses: " + e.getMessage(), e);
    }
  }

  /**
   * The bean's type as declared, so that a generic bean made by {@code @Bean Listener<Order>
   * orders()} resolves its type variables; its class when the declaration says less.
   */
  private ResolvableType declaredType(String beanName, Class<?> targetType) {
    try {
      ResolvableType declared = beanFactory.getMergedBeanDefinition(beanName).getResolvableType();
      if (declared.hasGenerics() && declared.resolve() == targetType) {
        return declared;
      }
    } catch (RuntimeException e) {
      log.debug("no declared type for bean '{}'", beanName, e);
    }
    return ResolvableType.forClass(targetType);
  }

  static String describe(Class<?> type, Method method, String beanName) {
    String parameters = Arrays.stream(method.getGenericParameterTypes())
        .map(t -> ListenerSignature.shorten(t.getTypeName()))
        .collect(Collectors.joining(", "));
    return type.getSimpleName() + "." + method.getName() + "(" + parameters + ") of bean '" + beanName + "'";
  }
}
