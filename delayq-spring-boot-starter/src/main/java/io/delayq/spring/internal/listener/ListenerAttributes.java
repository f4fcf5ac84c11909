package io.delayq.spring.internal.listener;

import java.time.Duration;
import java.util.function.Function;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanExpressionResolver;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.Environment;

/**
 * Reads the String attributes of one {@code @DelayqListener}: {@code ${…}} placeholders through
 * the {@link Environment} (an unresolvable one is an error, never left in place), then {@code #{…}}
 * expressions, then the value's own syntax. An attribute that is empty, or resolves to nothing,
 * takes its default.
 */
final class ListenerAttributes {
  private final Environment environment;
  private final BeanExpressionResolver expressions;
  private final BeanExpressionContext expressionContext;
  private final String listener;

  ListenerAttributes(Environment environment, ConfigurableListableBeanFactory beanFactory, String listener) {
    this.environment = environment;
    this.expressions = beanFactory.getBeanExpressionResolver();
    this.expressionContext = new BeanExpressionContext(beanFactory, null);
    this.listener = listener;
  }

  /** The resolved value, or {@code null} when the attribute is empty or resolves to nothing. */
  private Object resolve(String attribute, String raw) {
    if (raw.isEmpty()) {
      return null;
    }
    String text;
    try {
      text = environment.resolveRequiredPlaceholders(raw);
    } catch (IllegalArgumentException e) {
      throw problem(attribute, raw, e.getMessage() + "; define the property or give the placeholder a default"
          + " (${name:default})");
    }
    Object value = text;
    if (expressions != null && text.contains("#{")) {
      try {
        value = expressions.evaluate(text, expressionContext);
      } catch (RuntimeException e) {
        throw problem(attribute, raw, "the expression failed: " + e.getMessage());
      }
    }
    if (value instanceof String s && s.isBlank()) {
      return null;
    }
    return value;
  }

  String text(String attribute, String raw, String fallback) {
    Object value = resolve(attribute, raw);
    return value == null ? fallback : value.toString().trim();
  }

  int integer(String attribute, String raw, int fallback, int min, int max) {
    Object value = resolve(attribute, raw);
    if (value == null) {
      return fallback;
    }
    long n;
    if (value instanceof Integer || value instanceof Long || value instanceof Short) {
      n = ((Number) value).longValue();
    } else {
      try {
        n = Long.parseLong(value.toString().trim());
      } catch (NumberFormatException e) {
        throw problem(attribute, raw, "'" + value + "' is not a whole number; give one from " + min + " to " + max);
      }
    }
    if (n < min || n > max) {
      throw problem(attribute, raw, n + " is out of range; give one from " + min + " to " + max);
    }
    return (int) n;
  }

  double decimal(String attribute, String raw, double fallback) {
    Object value = resolve(attribute, raw);
    if (value == null) {
      return fallback;
    }
    if (value instanceof Number number) {
      return number.doubleValue();
    }
    try {
      return Double.parseDouble(value.toString().trim());
    } catch (NumberFormatException e) {
      throw problem(attribute, raw, "'" + value + "' is not a number");
    }
  }

  Duration duration(String attribute, String raw, Duration fallback) {
    Object value = resolve(attribute, raw);
    if (value == null) {
      return fallback;
    }
    if (value instanceof Duration duration) {
      return duration;
    }
    try {
      return DurationStyle.detectAndParse(value.toString().trim());
    } catch (IllegalArgumentException e) {
      throw problem(attribute, raw, "'" + value + "' is not a duration; write it as Spring Boot does, e.g. 500ms,"
          + " 30s, 10m, 1h or PT30S");
    }
  }

  boolean flag(String attribute, String raw, boolean fallback) {
    Object value = resolve(attribute, raw);
    if (value == null) {
      return fallback;
    }
    if (value instanceof Boolean b) {
      return b;
    }
    String s = value.toString().trim();
    if (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(s);
    }
    throw problem(attribute, raw, "'" + value + "' is neither true nor false");
  }

  /** Applies a check of delayq's own (which throws with its rule), reported against this attribute. */
  <T, R> R check(String attribute, String raw, T value, Function<T, R> rule) {
    try {
      return rule.apply(value);
    } catch (RuntimeException e) {
      throw problem(attribute, raw, e.getMessage());
    }
  }

  ListenerDefinitionException problem(String attribute, String raw, String why) {
    return new ListenerDefinitionException(listener, attribute + " = \"" + raw + "\": " + why);
  }
}
