package io.delayq.spring.internal.listener;

import io.delayq.InvalidRequestException;
import io.delayq.JobRequest;
import io.delayq.Misfire;
import io.delayq.Schedule;
import io.delayq.internal.Rules;
import io.delayq.spring.PayloadConversionException;
import io.delayq.spring.PayloadConverter;
import io.delayq.spring.schedule.DelayqScheduled;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Comparator;
import java.util.Map;
import java.util.Set;
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
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.Environment;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the {@code @DelayqScheduled} methods of the application's singletons once they all exist,
 * checks each (signature, every attribute, the payload against the method's parameter) and
 * declares its schedule in the {@link ScheduleRegistry}. Anything wrong fails the context's
 * refresh naming the bean, the method and the attribute; nothing is stored in Redis by then.
 */
public final class ScheduledMethodProcessor implements SmartInitializingSingleton, BeanFactoryAware {
  private static final Logger log = LoggerFactory.getLogger(ScheduledMethodProcessor.class);

  private final ScheduleRegistry registry;
  private final PayloadConverter converter;
  private final Environment environment;
  private final String defaultQueue;
  private ConfigurableListableBeanFactory beanFactory;

  public ScheduledMethodProcessor(ScheduleRegistry registry, PayloadConverter converter, Environment environment,
      String defaultQueue) {
    this.registry = registry;
    this.converter = converter;
    this.environment = environment;
    this.defaultQueue = defaultQueue;
  }

  @Override
  public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
    this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
  }

  @Override
  public void afterSingletonsInstantiated() {
    for (String beanName : beanFactory.getBeanNamesForType(Object.class, true, false)) {
      if (ScopedProxyUtils.isScopedTarget(beanName)) {
        continue;
      }
      Class<?> type;
      try {
        type = AutoProxyUtils.determineTargetClass(beanFactory, beanName);
      } catch (RuntimeException e) {
        log.debug("could not tell the type of bean '{}'; not looking for @DelayqScheduled methods on it", beanName, e);
        continue;
      }
      if (type != null && AnnotationUtils.isCandidateClass(type, DelayqScheduled.class)) {
        process(beanName, type);
      }
    }
  }

  private void process(String beanName, Class<?> targetType) {
    Map<Method, DelayqScheduled> methods = MethodIntrospector.selectMethods(targetType,
        (MethodIntrospector.MetadataLookup<DelayqScheduled>) m -> AnnotatedElementUtils.findMergedAnnotation(m,
            DelayqScheduled.class));
    if (methods.isEmpty()) {
      return;
    }
    String scopedTarget = ScopedProxyUtils.getTargetBeanName(beanName);
    boolean scopedProxy = beanFactory.containsBeanDefinition(scopedTarget) && !beanFactory.isSingleton(scopedTarget);
    if (!beanFactory.isSingleton(beanName) || scopedProxy) {
      Method first = methods.keySet().iterator().next();
      throw new ListenerDefinitionException(subject(targetType, first, beanName), "the bean is not a singleton; a"
          + " scheduled method runs on one instance for the application's life, so declare the bean as a singleton");
    }
    Object bean = beanFactory.getBean(beanName);
    methods.entrySet().stream()
        .sorted(Comparator.comparing((Map.Entry<Method, DelayqScheduled> e) -> e.getKey().toGenericString()))
        .forEach(e -> declare(beanName, bean, targetType, e.getKey(), e.getValue()));
  }

  private static String subject(Class<?> type, Method method, String beanName) {
    return "@DelayqScheduled " + ListenerMethodProcessor.describe(type, method, beanName);
  }

  private void declare(String beanName, Object bean, Class<?> targetType, Method method, DelayqScheduled annotation) {
    String subject = subject(targetType, method, beanName);
    ListenerSignature signature = ListenerSignature.of(method, ResolvableType.forClass(targetType), subject);
    Type payloadType = signature.payloadType();
    if (payloadType != null && !converter.canRead(payloadType)) {
      throw ListenerDefinitionException.signature(subject, "the application's PayloadConverter ("
          + converter.getClass().getName() + ") cannot read a payload as " + payloadType.getTypeName()
          + "; add a JSON mapper, declare a PayloadConverter bean that reads it, or take String or byte[]");
    }

    ListenerAttributes attributes = new ListenerAttributes(environment, beanFactory, subject);
    String queue = attributes.text("queue", annotation.queue(), defaultQueue);
    attributes.check("queue", annotation.queue(), queue, Rules::checkQueueName);
    String name = attributes.text("name", annotation.name(), beanName + "." + method.getName());
    attributes.check("name", annotation.name().isEmpty() ? name : annotation.name(), name, Schedule::checkName);

    String cron = attributes.text("cron", annotation.cron(), null);
    Duration every = attributes.duration("every", annotation.every(), null);
    if ((cron == null) == (every == null)) {
      throw attributes.problem("cron/every", "cron=" + annotation.cron() + ", every=" + annotation.every(),
          cron == null ? "neither is set; give a cron expression (cron = \"0 9 * * *\") or an interval (every = \"5m\")"
              : "both are set; give one of them");
    }
    Schedule schedule = cron != null
        ? attributes.check("cron", annotation.cron(), cron, c -> Schedule.cron(name, c))
        : attributes.check("every", annotation.every(), every, e -> Schedule.every(name, e));

    String zone = attributes.text("zone", annotation.zone(), null);
    if (zone != null) {
      ZoneId id = attributes.check("zone", annotation.zone(), zone, ScheduleValues::zone);
      schedule = schedule.inZone(id);
    }
    Duration grace = attributes.duration("grace", annotation.grace(), null);
    String misfire = attributes.text("misfire", annotation.misfire(), null);
    Misfire policy;
    try {
      policy = ScheduleValues.misfire(misfire, grace);
    } catch (InvalidRequestException e) {
      boolean ofGrace = "misfire.grace".equals(e.field());
      throw attributes.problem(ofGrace ? "grace" : "misfire", ofGrace ? annotation.grace() : annotation.misfire(),
          e.getMessage());
    }
    schedule = schedule.withMisfire(policy);
    String overlap = attributes.text("overlap", annotation.overlap(), null);
    schedule = schedule.withOverlap(attributes.check("overlap", annotation.overlap(), overlap, ScheduleValues::overlap));
    int maxAttempts = attributes.integer("maxAttempts", annotation.maxAttempts(), JobRequest.DEFAULT_MAX_ATTEMPTS, 1,
        Rules.MAX_ATTEMPTS_LIMIT);
    schedule = schedule.withMaxAttempts(maxAttempts);

    String text = attributes.text("payload", annotation.payload(), null);
    String json = attributes.text("jsonPayload", annotation.jsonPayload(), null);
    if (text != null && json != null) {
      throw attributes.problem("payload/jsonPayload", "payload=" + annotation.payload() + ", jsonPayload="
          + annotation.jsonPayload(), "both are set; give the payload as text or as JSON, not both");
    }
    if (text != null) {
      schedule = schedule.withPayload(text);
    } else if (json != null) {
      schedule = schedule.withJsonPayload(json);
    }
    if (payloadType != null) {
      checkPayload(attributes, annotation, schedule, payloadType);
    }

    Method invocable;
    try {
      invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
    } catch (IllegalStateException e) {
      throw ListenerDefinitionException.signature(subject, e.getMessage());
    }
    ReflectionUtils.makeAccessible(invocable);
    ListenerHandler handler = new ListenerHandler(bean, invocable, signature, converter, 0,
        Set.of(PayloadConversionException.class));
    registry.declare(queue, schedule, subject, handler);
  }

  /** The payload every occurrence will carry is read as the method's parameter once, now, rather than failing every run. */
  private void checkPayload(ListenerAttributes attributes, DelayqScheduled annotation, Schedule schedule, Type type) {
    String attribute = schedule.payloadIsJson() ? "jsonPayload" : "payload";
    String raw = schedule.payloadIsJson() ? annotation.jsonPayload() : annotation.payload();
    if (schedule.payload().length == 0 && type != String.class && type != byte[].class) {
      throw attributes.problem(attribute, raw, "the method takes a payload (" + ListenerSignature.shorten(
          type.getTypeName()) + "), and the schedule gives none; set jsonPayload, or drop the parameter");
    }
    Object value;
    try {
      value = converter.read(schedule.payload(), schedule.payloadIsJson(), type);
    } catch (PayloadConversionException e) {
      throw attributes.problem(attribute, raw, "the method's payload parameter (" + ListenerSignature.shorten(
          type.getTypeName()) + ") cannot be read from it: " + e.getMessage());
    }
    if (value == null) {
      throw attributes.problem(attribute, raw, "it reads as null (JSON null); a method is never handed null:"
          + " give a value, or drop the parameter");
    }
  }
}
