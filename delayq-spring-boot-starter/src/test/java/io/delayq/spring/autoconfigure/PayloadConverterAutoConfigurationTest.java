package io.delayq.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.spring.PayloadConversionException;
import io.delayq.spring.PayloadConverter;
import io.delayq.spring.internal.Jackson2PayloadConverter;
import io.delayq.spring.internal.JacksonPayloadConverter;
import io.delayq.spring.internal.NoJsonPayloadConverter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.ParameterizedTypeReference;
import tools.jackson.databind.PropertyNamingStrategies;
import tools.jackson.databind.json.JsonMapper;

class PayloadConverterAutoConfigurationTest {
  record Order(String orderId, long amountCents) {}

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(DelayqPayloadAutoConfiguration.class));

  @Test
  void theApplicationsJsonMapperShapesPayloads() {
    runner
        .withBean(JsonMapper.class, () -> JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE).build())
        .run(context -> {
          PayloadConverter converter = context.getBean(PayloadConverter.class);
          assertThat(converter).isInstanceOf(JacksonPayloadConverter.class);
          PayloadConverter.Payload payload = converter.write(new Order("o-1", 250));
          assertThat(payload.json()).isTrue();
          assertThat(new String(payload.bytes(), StandardCharsets.UTF_8))
              .isEqualTo("{\"order_id\":\"o-1\",\"amount_cents\":250}");
        });
  }

  @Test
  void bootsOwnJacksonAutoConfigurationIsUsedWhenPresent() {
    runner
        .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class))
        .run(context -> assertThat(context.getBean(PayloadConverter.class))
            .isInstanceOf(JacksonPayloadConverter.class));
  }

  @Test
  void anApplicationWithOnlyJackson2GetsItsObjectMapper() {
    ObjectMapper own = new ObjectMapper();
    runner
        .withClassLoader(new FilteredClassLoader("tools.jackson"))
        .withBean(ObjectMapper.class, () -> own)
        .run(context -> assertThat(context.getBean(PayloadConverter.class))
            .isInstanceOf(Jackson2PayloadConverter.class));
  }

  @Test
  void withoutAnyJacksonOnlyTextAndBytesAreAcceptedAndPojosAreRefusedWithTheFix() {
    runner
        .withClassLoader(new FilteredClassLoader("tools.jackson", "com.fasterxml.jackson"))
        .run(context -> {
          PayloadConverter converter = context.getBean(PayloadConverter.class);
          assertThat(converter).isInstanceOf(NoJsonPayloadConverter.class);
          assertThat(converter.write("hi").json()).isFalse();
          assertThatThrownBy(() -> converter.write(new Order("o", 1)))
              .isInstanceOf(PayloadConversionException.class)
              .hasMessageContaining("jackson-databind");
        });
  }

  @Test
  void aUsersConverterWins() {
    PayloadConverter own = new NoJsonPayloadConverter();
    runner
        .withBean(JsonMapper.class, JsonMapper::new)
        .withBean(PayloadConverter.class, () -> own)
        .run(context -> assertThat(context).getBean(PayloadConverter.class).isSameAs(own));
  }

  @Test
  void genericTypesAreReadAsDeclaredNeverAsMaps() {
    PayloadConverter converter = new JacksonPayloadConverter(new JsonMapper());
    byte[] json = "[{\"orderId\":\"a\",\"amountCents\":1},{\"orderId\":\"b\",\"amountCents\":2}]"
        .getBytes(StandardCharsets.UTF_8);
    Object read = converter.read(json, true, new ParameterizedTypeReference<List<Order>>() {}.getType());
    assertThat(read).isEqualTo(List.of(new Order("a", 1), new Order("b", 2)));
  }

  @Test
  void textMustBeUtf8AndBytesPassThrough() {
    PayloadConverter converter = new JacksonPayloadConverter(new JsonMapper());
    byte[] notUtf8 = {(byte) 0xC3, (byte) 0x28};
    assertThat(converter.read(notUtf8, false, byte[].class)).isSameAs(notUtf8);
    assertThatThrownBy(() -> converter.read(notUtf8, false, String.class))
        .isInstanceOf(PayloadConversionException.class)
        .hasMessageContaining("byte[]");
    assertThatThrownBy(() -> converter.read("{\"orderId\":".getBytes(StandardCharsets.UTF_8), true, Order.class))
        .isInstanceOf(PayloadConversionException.class)
        .hasMessageContaining(Order.class.getName());
    assertThatThrownBy(() -> converter.write(null)).isInstanceOf(PayloadConversionException.class);
  }
}
