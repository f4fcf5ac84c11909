package io.delayq.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.convert.ApplicationConversionService;

/**
 * The settings of each forwarding, adoption and schedule entry ({@code
 * delayq.forward.rabbitmq.<queue>.*}, {@code delayq.schedules.<name>.*}, ...) are values of a
 * map, which the configuration metadata cannot list one by one: IDEs complete
 * only {@code delayq.forward.rabbitmq} itself. So docs/SPRING-BOOT.md's tables are their reference,
 * and this holds them to the code: every setting in its table, none that does not exist, and each
 * documented default the value the setting really starts with.
 */
class ForwardingPropertiesDocumentedTest {
  private static final Pattern ROW = Pattern.compile("^\\| `([a-z-]+)` \\| ([^|]+) \\|", Pattern.MULTILINE);

  private static String guide() throws IOException {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path guide = dir.resolve("docs/SPRING-BOOT.md");
      if (Files.exists(guide)) {
        return Files.readString(guide);
      }
    }
    throw new AssertionError("docs/SPRING-BOOT.md not found above " + Path.of("").toAbsolutePath());
  }

  /** The table rows of the section under {@code heading}, up to the next heading. */
  private static Map<String, String> table(String guide, String heading) {
    int start = guide.indexOf("\n" + heading);
    assertThat(start).as("section %s in docs/SPRING-BOOT.md", heading).isNotNegative();
    int end = guide.indexOf("\n#", start + 1);
    Matcher row = ROW.matcher(guide.substring(start, end < 0 ? guide.length() : end));
    Map<String, String> rows = new TreeMap<>();
    while (row.find()) {
      rows.put(row.group(1), row.group(2).trim());
    }
    return rows;
  }

  @ParameterizedTest
  @CsvSource({
    "### RabbitMQ: `delayq.forward.rabbitmq.<queue>.*`, io.delayq.spring.autoconfigure.DelayqProperties$Rabbit",
    "### Redis list: `delayq.forward.list.<queue>.*`, io.delayq.spring.autoconfigure.DelayqProperties$RedisList",
    "### Adoption: `delayq.adopt.<queue>.*`, io.delayq.spring.autoconfigure.DelayqProperties$Adopt",
    "### Properties: `delayq.schedules.<name>.*`, io.delayq.spring.autoconfigure.DelayqScheduleProperties$Definition"
  })
  void everySettingIsDocumentedWithItsTrueDefault(String heading, Class<?> type) throws IOException {
    Map<String, String> documented = table(guide(), heading);
    BeanWrapper fresh = new BeanWrapperImpl(BeanUtils.instantiateClass(type));
    Map<String, PropertyDescriptor> settings = new TreeMap<>();
    for (PropertyDescriptor p : fresh.getPropertyDescriptors()) {
      if (p.getWriteMethod() != null) {
        settings.put(p.getName().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(), p);
      }
    }

    assertThat(documented.keySet()).containsExactlyElementsOf(settings.keySet());
    settings.forEach((name, p) -> {
      String text = documented.get(name);
      Object actual = fresh.getPropertyValue(p.getName());
      if (text.startsWith("(")) {
        assertThat(actual).as("%s is documented as %s", name, text).isNull();
      } else {
        Object converted = ApplicationConversionService.getSharedInstance()
            .convert(text.replace("`", ""), fresh.getPropertyTypeDescriptor(p.getName()));
        assertThat(converted).as("documented default of %s", name).isEqualTo(actual);
      }
    });
  }
}
