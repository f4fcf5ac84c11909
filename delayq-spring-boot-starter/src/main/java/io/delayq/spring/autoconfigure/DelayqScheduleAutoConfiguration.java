package io.delayq.spring.autoconfigure;

import io.delayq.Delayq;
import io.delayq.InvalidRequestException;
import io.delayq.Schedule;
import io.delayq.internal.Rules;
import io.delayq.spring.PayloadConverter;
import io.delayq.spring.internal.listener.ListenerRegistry;
import io.delayq.spring.internal.listener.ScheduleRegistry;
import io.delayq.spring.internal.listener.ScheduleValues;
import io.delayq.spring.internal.listener.ScheduledMethodProcessor;
import io.delayq.spring.listener.DelayqListenerContainer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * Recurring schedules: {@link io.delayq.spring.schedule.DelayqScheduled} methods and {@code
 * delayq.schedules.<name>.*} entries, checked while the context is built (a bad value fails
 * startup naming its attribute or property), stored in Redis and routed to their methods once it
 * is refreshed, before the listeners start.
 *
 * @since 0.4.0
 */
@AutoConfiguration(after = {DelayqListenerAutoConfiguration.class, DelayqForwardingAutoConfiguration.class})
@EnableConfigurationProperties({DelayqScheduleProperties.class, DelayqListenerProperties.class, DelayqProperties.class})
public class DelayqScheduleAutoConfiguration {
  private static final String GROUP = "delayq.schedules";
  /** Keys of {@code delayq.schedules.*} that are settings, not schedule names. */
  private static final Set<String> SETTINGS = Set.of("default-queue", "defaultqueue");

  /**
   * The declared schedules.
   *
   * @param delayq taken so that the client is destroyed after the registry, which uses it
   */
  @Bean
  public ScheduleRegistry delayqScheduleRegistry(Delayq delayq, ObjectProvider<ListenerRegistry> listeners,
      DelayqListenerProperties listenerProperties, DelayqProperties properties,
      DelayqScheduleProperties scheduleProperties, Environment environment) {
    ScheduleRegistry registry = new ScheduleRegistry(delayq, listeners::getObject, listenerProperties,
        Threading.VIRTUAL.isActive(environment), declared -> checkHandled(declared, listeners.getObject(),
            properties.getForward()));
    String defaultQueue = defaultQueue(scheduleProperties);
    definitions(environment).forEach((name, definition) -> {
      String prefix = DelayqForwardingAutoConfiguration.prefix(GROUP, name);
      String queue = StringUtils.hasText(definition.getQueue()) ? definition.getQueue().trim() : defaultQueue;
      check(prefix, "queue", () -> Rules.checkQueueName(queue));
      Schedule schedule = check(prefix, null, () -> schedule(name, definition));
      try {
        registry.declare(queue, schedule, prefix);
      } catch (IllegalStateException e) {
        throw new DelayqStartupException(e.getMessage() + ".", "Give each schedule of a queue its own name.", e);
      }
    });
    return registry;
  }

  @Bean
  ScheduledMethodProcessor delayqScheduledMethodProcessor(ScheduleRegistry delayqScheduleRegistry,
      PayloadConverter payloadConverter, Environment environment, DelayqScheduleProperties scheduleProperties) {
    return new ScheduledMethodProcessor(delayqScheduleRegistry, payloadConverter, environment,
        defaultQueue(scheduleProperties));
  }

  private static String defaultQueue(DelayqScheduleProperties properties) {
    String queue = properties.getDefaultQueue() == null ? "" : properties.getDefaultQueue().trim();
    check(GROUP, "default-queue", () -> Rules.checkQueueName(queue));
    return queue;
  }

  /** Each {@code delayq.schedules.<name>} entry, bound by name, in the order of the names. */
  static Map<String, DelayqScheduleProperties.Definition> definitions(Environment environment) {
    ConfigurationPropertyName group = ConfigurationPropertyName.of(GROUP);
    Set<String> names = new TreeSet<>();
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      if (source instanceof IterableConfigurationPropertySource iterable) {
        iterable.filter(group::isAncestorOf).stream()
            .filter(name -> name.getNumberOfElements() > group.getNumberOfElements() + 1)
            .map(name -> name.getElement(group.getNumberOfElements(), ConfigurationPropertyName.Form.ORIGINAL))
            .filter(name -> !SETTINGS.contains(name.toLowerCase(java.util.Locale.ROOT)))
            .forEach(names::add);
      }
    }
    Binder binder = Binder.get(environment);
    Map<String, DelayqScheduleProperties.Definition> definitions = new LinkedHashMap<>();
    for (String name : names) {
      // why: as the other messages spell it, delayq.schedules.tick.every rather than delayq.schedules[tick].every
      ConfigurationPropertyName key = ConfigurationPropertyName.of(DelayqForwardingAutoConfiguration.prefix(GROUP, name));
      definitions.put(name, binder.bind(key, Bindable.of(DelayqScheduleProperties.Definition.class))
          .orElseGet(DelayqScheduleProperties.Definition::new));
    }
    return definitions;
  }

  private static Schedule schedule(String name, DelayqScheduleProperties.Definition d) {
    boolean cron = StringUtils.hasText(d.getCron());
    if (cron == (d.getEvery() != null)) {
      throw new InvalidRequestException("cron/every", cron
          ? "both are set; give one of them"
          : "neither is set; give a cron expression (cron=0 9 * * *) or an interval (every=5m)");
    }
    Schedule s = cron ? Schedule.cron(name, d.getCron().trim()) : Schedule.every(name, d.getEvery());
    if (StringUtils.hasText(d.getZone())) {
      s = s.inZone(ScheduleValues.zone(d.getZone()));
    }
    if (d.getPayload() != null && d.getJsonPayload() != null) {
      throw new InvalidRequestException("payload", "and json-payload are both set; give one of them");
    }
    if (d.getPayload() != null) {
      s = s.withPayload(d.getPayload());
    } else if (d.getJsonPayload() != null) {
      s = s.withJsonPayload(d.getJsonPayload());
    }
    if (StringUtils.hasText(d.getStart())) {
      s = s.startingAt(ScheduleValues.instant("start", d.getStart()));
    }
    if (StringUtils.hasText(d.getEnd())) {
      s = s.endingAt(ScheduleValues.instant("end", d.getEnd()));
    }
    return s.withMisfire(ScheduleValues.misfire(StringUtils.hasText(d.getMisfire()) ? d.getMisfire() : null,
            d.getGrace()))
        .withOverlap(ScheduleValues.overlap(StringUtils.hasText(d.getOverlap()) ? d.getOverlap() : null))
        .withPaused(d.isPaused())
        .withMaxAttempts(d.getMaxAttempts());
  }

  /** Runs one of delayq's checks, or fails startup naming the property it concerns. */
  private static <T> T check(String prefix, String property, java.util.function.Supplier<T> build) {
    try {
      return build.get();
    } catch (InvalidRequestException e) {
      String named = prefix + "." + (property != null ? property : property(e.field()));
      if (e.field() != null && e.field().equals("name")) {
        named = prefix;
      }
      throw new DelayqStartupException(
          "The value of " + named + " is not valid: " + e.getMessage() + ".",
          "Change " + named + " (see \"Recurring schedules\" in docs/SPRING-BOOT.md).", e);
    }
  }

  /** The property a field of delayq's checks is set by. */
  private static String property(String field) {
    if (field == null) {
      return "*";
    }
    return switch (field) {
      case "cron/every" -> "cron";
      case "startAt" -> "start";
      case "endAt" -> "end";
      case "misfire.grace" -> "grace";
      case "misfire.maxRuns" -> "misfire";
      case "maxAttempts" -> "max-attempts";
      case "jsonPayload" -> "json-payload";
      default -> field;
    };
  }

  /**
   * A schedule of the properties is run by the listener or forwarder of its queue: refused, once
   * every listener is registered, when its queue has neither here.
   */
  private static void checkHandled(ScheduleRegistry schedules, ListenerRegistry listeners,
      DelayqProperties.Forward forward) {
    Set<String> listened = new TreeSet<>();
    for (DelayqListenerContainer container : listeners.containers()) {
      listened.add(container.queue());
    }
    schedules.propertyQueues().forEach((queue, prefix) -> {
      if (!listened.contains(queue) && !forward.getRabbitmq().containsKey(queue)
          && !forward.getList().containsKey(queue)) {
        throw new DelayqStartupException(
            prefix + ".* declares a schedule on queue '" + queue + "', which has no @DelayqListener in this"
                + " application and is not forwarded (delayq.forward.*): nothing here would run its occurrences.",
            "Add a @DelayqListener(queue = \"" + queue + "\") method, set " + prefix + ".queue to a queue that has"
                + " one, or declare the schedule with @DelayqScheduled on the method that should run it.", null);
      }
    });
  }
}
