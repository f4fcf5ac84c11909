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
import java.util.Set;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.env.Environment;

/**
 * Finds the {@code @DelayqScheduled} methods of the application's singletons once they all exist,
 * checks each (signature, every attribute, the payload against the method's parameter) and
 * declares its schedule in the {@link ScheduleRegistry}. Anything wrong fails the context's
 * refresh naming the bean, the method and the attribute; nothing is stored in Redis by then.
 */
public final class ScheduledMethodProcessor implements SmartInitializingSingleton, BeanFactoryAware {
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
    AnnotatedBeans.forEach(beanFactory, DelayqScheduled.class, ScheduledMethodProcessor::subject,
        "a scheduled method", found -> found.methods().forEach((method, annotation) ->
            declare(found, method, annotation)));
  }

  private static String subject(String method) {
    return "@DelayqScheduled " + method;
  }

  private void declare(AnnotatedBeans.Found<DelayqScheduled> found, Method method, DelayqScheduled annotation) {
    String subject = subject(found.describe(method));
    ListenerSignature signature = ListenerSignature.of(method, found.beanType(), subject);
    Type payloadType = signature.payloadType();
    AnnotatedBeans.checkReadable(converter, payloadType, subject);

    ListenerAttributes attributes = new ListenerAttributes(environment, beanFactory, subject);
    String named = attributes.text("queue", annotation.queue(), null);
    if (named == null && !annotation.queue().isEmpty()) {
      // why: as for @DelayqListener; a variable set but empty must not move the schedule elsewhere
      throw attributes.problem("queue", annotation.queue(), "resolves to nothing; give a queue, or leave the"
          + " attribute out for delayq.schedules.default-queue ('" + defaultQueue + "')");
    }
    String queue = named == null ? defaultQueue : named;
    attributes.check("queue", annotation.queue(), queue, Rules::checkQueueName);
    String name = attributes.text("name", annotation.name(), found.beanName() + "." + method.getName());
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

    Method invocable = AnnotatedBeans.invocable(method, found.bean(), subject);
    ListenerHandler handler = new ListenerHandler(found.bean(), invocable, signature, converter, 0,
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
