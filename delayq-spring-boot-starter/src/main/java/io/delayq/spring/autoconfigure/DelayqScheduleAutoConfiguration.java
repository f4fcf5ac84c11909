package io.delayq.spring.autoconfigure;

import io.delayq.Delayq;
import io.delayq.InvalidRequestException;
import io.delayq.Schedule;
import io.delayq.internal.Recurrence;
import io.delayq.internal.Rules;
import io.delayq.spring.PayloadConverter;
import io.delayq.spring.internal.listener.ListenerRegistry;
import io.delayq.spring.internal.listener.ScheduleRegistry;
import io.delayq.spring.internal.listener.ScheduleValues;
import io.delayq.spring.internal.listener.ScheduledMethodProcessor;
import io.delayq.spring.listener.DelayqListenerContainer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.PropertySourcesPlaceholdersResolver;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
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
  /** The one setting that shares its level with the schedule names. */
  private static final ConfigurationPropertyName DEFAULT_QUEUE = ConfigurationPropertyName.of(GROUP + ".default-queue");
  /**
   * {@code DELAYQ_SCHEDULES_DEFAULT_QUEUE}, as environment variables map it: Spring Boot binds it to
   * {@code default-queue}, so it is not also the queue of a schedule named {@code default}.
   */
  private static final ConfigurationPropertyName DEFAULT_QUEUE_VARIABLE =
      ConfigurationPropertyName.of(GROUP + ".default.queue");
  /** The settings of one schedule, as its properties spell them. */
  private static final List<String> SETTINGS = List.of("queue", "cron", "every", "zone", "payload", "json-payload",
      "misfire", "grace", "overlap", "paused", "max-attempts", "start", "end");

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
      if (definition.getQueue() != null && definition.getQueue().isBlank()) {
        // why: as for @DelayqListener; a variable set but empty must not move the schedule elsewhere
        throw new DelayqStartupException(prefix + ".queue is set but empty.", "Give " + prefix + ".queue a queue,"
            + " or remove it for delayq.schedules.default-queue ('" + defaultQueue + "').", null);
      }
      String queue = definition.getQueue() != null ? definition.getQueue().trim() : defaultQueue;
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

  /**
   * Each {@code delayq.schedules.<name>} entry, in the order of the names, bound by Spring Boot's
   * binder as a map: relaxed names, every property source merged (an environment variable
   * overrides the property it maps to), {@code default-queue} left out, and a setting no schedule
   * has refused.
   */
  static Map<String, DelayqScheduleProperties.Definition> definitions(Environment environment) {
    List<ConfigurationPropertySource> sources = new ArrayList<>();
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      boolean variables = source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource;
      sources.add(source.filter(name -> !DEFAULT_QUEUE.equals(name)
          && !(variables && DEFAULT_QUEUE_VARIABLE.equals(name))));
    }
    Binder binder = new Binder(sources, new PropertySourcesPlaceholdersResolver(environment));
    Map<String, DelayqScheduleProperties.Definition> bound;
    try {
      bound = binder.bind(GROUP, Bindable.mapOf(String.class, DelayqScheduleProperties.Definition.class),
          new NoUnboundElementsBindHandler(BindHandler.DEFAULT)).orElseGet(Map::of);
    } catch (BindException e) {
      if (e.getCause() instanceof UnboundConfigurationPropertiesException unbound) {
        throw unknownSettings(unbound);
      }
      throw e;
    }
    return oneSpellingEach(bound);
  }

  /**
   * The map's keys are as each source spells them: {@code nightly-report} from a properties file
   * and {@code nightlyreport} from {@code DELAYQ_SCHEDULES_NIGHTLYREPORT_EVERY} are two keys of one
   * schedule (Spring Boot ignores case and dashes in property names, and binds both the same). The
   * schedule takes the name as written where it is spelled with more than lower-case letters and
   * digits, since an environment variable can spell no more.
   */
  private static Map<String, DelayqScheduleProperties.Definition> oneSpellingEach(
      Map<String, DelayqScheduleProperties.Definition> bound) {
    Map<ConfigurationPropertyName, List<String>> spellings = new LinkedHashMap<>();
    for (String key : new TreeSet<>(bound.keySet())) {
      spellings.computeIfAbsent(ConfigurationPropertyName.adapt(GROUP + "." + key, '.'), n -> new ArrayList<>())
          .add(key);
    }
    Map<String, DelayqScheduleProperties.Definition> definitions = new TreeMap<>();
    spellings.values().forEach(keys -> {
      List<String> written = keys.stream().filter(k -> !k.matches("[a-z0-9]+")).toList();
      if (written.size() > 1) {
        throw new DelayqStartupException("The schedules " + written.stream().map(k -> GROUP + "." + k + ".*")
            .collect(Collectors.joining(" and ")) + " are one to Spring Boot, which ignores case and dashes in"
            + " property names.", "Spell the schedule's name one way.", null);
      }
      String name = written.isEmpty() ? keys.get(0) : written.get(0);
      definitions.put(name, bound.get(name));
    });
    return definitions;
  }

  /** A property under {@code delayq.schedules.<name>.} that is no setting of a schedule. */
  private static DelayqStartupException unknownSettings(UnboundConfigurationPropertiesException unbound) {
    List<String> found = new ArrayList<>();
    List<String> variables = new ArrayList<>();
    ConfigurationPropertyName group = ConfigurationPropertyName.of(GROUP);
    for (ConfigurationProperty property : new TreeSet<>(unbound.getUnboundProperties())) {
      ConfigurationPropertyName name = property.getName();
      found.add(name + (property.getOrigin() == null ? "" : " (" + property.getOrigin() + ")"));
      int first = group.getNumberOfElements();
      String last = name.getLastElement(ConfigurationPropertyName.Form.DASHED);
      if (name.getNumberOfElements() > first + 2 && SETTINGS.contains(last)) {
        // why: DELAYQ_SCHEDULES_NIGHTLY_REPORT_EVERY reads as delayq.schedules.nightly.report.every
        List<String> parts = new ArrayList<>();
        for (int i = first; i < name.getNumberOfElements() - 1; i++) {
          parts.add(name.getElement(i, ConfigurationPropertyName.Form.DASHED));
        }
        variables.add("DELAYQ_SCHEDULES_" + String.join("", parts).replace("-", "").toUpperCase(Locale.ROOT) + "_"
            + last.replace("-", "").toUpperCase(Locale.ROOT) + " sets " + GROUP + "." + String.join("-", parts) + "."
            + last);
      }
    }
    String description = String.join("; ", found) + (found.size() == 1 ? " is" : " are")
        + " not a setting of any schedule." + (variables.isEmpty() ? "" : " In an environment variable an underscore"
            + " separates the parts of a property name, so a schedule's name cannot hold one, and Spring Boot ignores"
            + " dashes: " + String.join("; ", variables) + ".");
    return new DelayqStartupException(description, "Use the settings of a schedule: " + GROUP + ".<name>.{"
        + String.join(", ", SETTINGS) + "}. Set a schedule whose name holds a dot or an underscore in a properties"
        + " file or SPRING_APPLICATION_JSON, not in environment variables.", unbound);
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
    s = s.withMisfire(ScheduleValues.misfire(StringUtils.hasText(d.getMisfire()) ? d.getMisfire() : null,
            d.getGrace()))
        .withOverlap(ScheduleValues.overlap(StringUtils.hasText(d.getOverlap()) ? d.getOverlap() : null))
        .withPaused(d.isPaused())
        .withMaxAttempts(d.getMaxAttempts());
    // why: refused here, before any schedule is stored, rather than by the store of this one
    try {
      Recurrence.checkFires(s, System.currentTimeMillis());
    } catch (InvalidRequestException e) {
      throw "cron/every".equals(e.field()) ? new InvalidRequestException(cron ? "cron" : "every", e.getMessage()) : e;
    }
    return s;
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
