package io.delayq.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.convert.TypeDescriptor;

/**
 * The configuration metadata the processor generated (what IDEs complete from) lists every
 * property of {@link DelayqProperties}, each with a description, and its defaults are the values
 * the properties really start with.
 */
class ConfigurationMetadataTest {

  private static String metadata() throws IOException {
    for (URL url : Collections.list(
        DelayqProperties.class.getClassLoader().getResources("META-INF/spring-configuration-metadata.json"))) {
      try (InputStream in = url.openStream()) {
        String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        if (json.contains("\"io.delayq.spring.autoconfigure.DelayqProperties\"")) {
          return json;
        }
      }
    }
    throw new AssertionError("no configuration metadata of DelayqProperties on the classpath");
  }

  /** Every bindable leaf of the properties, by its kebab-case name, with its bean path. */
  private static Map<String, String> leaves(Class<?> type, String prefix, String path, Map<String, String> into) {
    for (PropertyDescriptor p : new BeanWrapperImpl(type).getPropertyDescriptors()) {
      if (p.getReadMethod() == null || p.getName().equals("class")) {
        continue;
      }
      String name = prefix + "." + p.getName().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase();
      String beanPath = path.isEmpty() ? p.getName() : path + "." + p.getName();
      if (p.getWriteMethod() != null) {
        into.put(name, beanPath);
      } else if (isGroup(p.getPropertyType())) {
        leaves(p.getPropertyType(), name, beanPath, into);
      }
    }
    return into;
  }

  /** Each @ConfigurationProperties class of the starter and its prefix. */
  private static final Map<Class<?>, String> ROOTS =
      Map.of(DelayqProperties.class, "delayq", DelayqListenerProperties.class, "delayq.listener",
          DelayqOutboxProperties.class, "delayq.outbox", DelayqScheduleProperties.class, "delayq.schedules");

  private static boolean isGroup(Class<?> type) {
    return type.getEnclosingClass() != null && ROOTS.containsKey(type.getEnclosingClass());
  }

  /** Every leaf of every root, by name, with its root and bean path. */
  private static Map<String, Map.Entry<Class<?>, String>> leaves() {
    Map<String, Map.Entry<Class<?>, String>> all = new java.util.TreeMap<>();
    ROOTS.forEach((root, prefix) -> leaves(root, prefix, "", new java.util.TreeMap<>())
        .forEach((name, path) -> all.put(name, Map.entry(root, path))));
    return all;
  }

  @Test
  void everyPropertyIsInTheMetadataWithADescription() throws IOException {
    String json = metadata();
    List<Map<String, Object>> properties = JsonPath.read(json, "$.properties[?(@.name =~ /delayq\\..*/)]");

    List<String> names = properties.stream().map(p -> (String) p.get("name")).sorted().toList();
    assertThat(names).containsExactlyElementsOf(leaves().keySet());
    assertThat(properties).allSatisfy(p -> assertThat((String) p.get("description"))
        .as("description of %s", p.get("name"))
        .isNotBlank()
        .endsWith("."));
    assertThat(leaves()).containsKeys(
        "delayq.redis.url",
        "delayq.command-timeout",
        "delayq.max-payload-size",
        "delayq.dead-letter.limit",
        "delayq.dead-letter.retention",
        "delayq.refuse-evicting-redis",
        "delayq.wait-for-replicas.replicas",
        "delayq.wait-for-replicas.timeout",
        "delayq.idempotency-window",
        "delayq.health.queues",
        "delayq.health.sweep-interval",
        "delayq.health.stuck-after-sweeps",
        "delayq.health.memory-threshold",
        "delayq.listener.concurrency",
        "delayq.listener.shutdown-timeout");
  }

  @Test
  void theDefaultsInTheMetadataAreTheValuesThePropertiesStartWith() throws IOException {
    List<Map<String, Object>> withDefaults =
        JsonPath.read(metadata(), "$.properties[?(@.name =~ /delayq\\..*/ && @.defaultValue)]");
    Map<String, Map.Entry<Class<?>, String>> leaves = leaves();

    assertThat(withDefaults).extracting(p -> p.get("name"))
        .contains("delayq.command-timeout", "delayq.max-payload-size", "delayq.dead-letter.limit",
            "delayq.dead-letter.retention", "delayq.idempotency-window", "delayq.health.sweep-interval");
    for (Map<String, Object> p : withDefaults) {
      Map.Entry<Class<?>, String> leaf = leaves.get((String) p.get("name"));
      BeanWrapper fresh = new BeanWrapperImpl(BeanUtils.instantiateClass(leaf.getKey()));
      String beanPath = leaf.getValue();
      TypeDescriptor type = fresh.getPropertyTypeDescriptor(beanPath);
      Object converted = ApplicationConversionService.getSharedInstance().convert(p.get("defaultValue"), type);
      assertThat(converted).as("default of %s", p.get("name")).isEqualTo(fresh.getPropertyValue(beanPath));
    }
  }
}
