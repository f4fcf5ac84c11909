package io.delayq.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;

/**
 * The starter's tests in this module run on Spring Boot 4.1's versions, not 4.0's: otherwise this
 * module would prove nothing.
 */
class BootVersionTest {

  private static String mavenVersion(String group, String artifact) throws IOException {
    String resource = "META-INF/maven/" + group + "/" + artifact + "/pom.properties";
    try (InputStream in = BootVersionTest.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    }
  }

  @Test
  void springBootIs412() {
    assertThat(SpringBootVersion.getVersion()).isEqualTo("4.1.2");
  }

  @Test
  void lettuceIsTheOneBoot41Manages() throws IOException {
    assertThat(mavenVersion("io.lettuce", "lettuce-core")).isEqualTo("7.5.2.RELEASE");
  }

  @Test
  void theStartersOwnTestsAreOnTheClasspath() throws ClassNotFoundException {
    assertThat(Class.forName("io.delayq.spring.autoconfigure.DelayqAutoConfigurationTest")).isNotNull();
  }
}
