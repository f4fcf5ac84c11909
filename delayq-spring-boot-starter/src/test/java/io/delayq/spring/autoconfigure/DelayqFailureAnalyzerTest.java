package io.delayq.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.RedisUnavailableException;
import io.delayq.spring.FreePort;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A start that cannot connect ends with Boot's "APPLICATION FAILED TO START" report, a description
 * and the property to fix, and no stack trace: run through a real {@link SpringApplication}, and
 * through the analyzer alone.
 */
@ExtendWith(OutputCaptureExtension.class)
class DelayqFailureAnalyzerTest {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {}

  private static void failToStart(String... args) {
    SpringApplication application = new SpringApplication(App.class);
    application.setWebApplicationType(WebApplicationType.NONE);
    assertThatThrownBy(() -> application.run(args)).isInstanceOf(BeanCreationException.class);
  }

  @Test
  void aBadUrlEndsStartupWithTheReportNamingTheProperty(CapturedOutput output) {
    failToStart("--delayq.redis.url=http://localhost:6379");

    assertThat(output.toString())
        .contains("APPLICATION FAILED TO START")
        .containsPattern("Description:\\s+delayq cannot use the Redis URL made from delayq.redis.url")
        .containsPattern("Action:\\s+Fix delayq.redis.url: redis://")
        .doesNotContain("\tat io.delayq");
  }

  @Test
  void anUnreachableRedisEndsStartupWithTheReportNamingTheProperty(CapturedOutput output) {
    int port = FreePort.get();
    failToStart("--delayq.redis.url=redis://127.0.0.1:" + port, "--delayq.command-timeout=2s");

    assertThat(output.toString())
        .contains("APPLICATION FAILED TO START")
        .containsPattern("Description:\\s+delayq cannot reach Redis at redis://127.0.0.1:" + port)
        .containsPattern("Action:\\s+Start Redis there, or fix delayq.redis.url")
        .doesNotContain("\tat io.delayq");
  }

  @Test
  void aPasswordInTheUrlNeverShowsInTheReport(CapturedOutput output) {
    failToStart("--delayq.redis.url=redis://app:s3cr3t-pw@127.0.0.1:" + FreePort.get(), "--delayq.command-timeout=2s");

    assertThat(output.toString()).contains("APPLICATION FAILED TO START").doesNotContain("s3cr3t-pw");
  }

  /**
   * A careless user pastes a password with reserved characters into the URL without
   * percent-encoding them: whatever the URL then means to the parser, no part of the password may
   * reach the report.
   */
  @ParameterizedTest
  @ValueSource(strings = {"Xq9pw/Zk7pw", "Xq9pw,Zk7pw", "Xq9pw%Zk7pw", "Xq9pw Zk7pw", "Xq9pw@Zk7pw"})
  void aPasswordWithUnencodedReservedCharactersNeverShowsInTheReport(String password, CapturedOutput output) {
    failToStart("--delayq.redis.url=redis://app:" + password + "@127.0.0.1:" + FreePort.get(),
        "--delayq.command-timeout=2s");

    assertThat(output.toString()).contains("APPLICATION FAILED TO START").doesNotContain("Xq9pw")
        .doesNotContain("Zk7pw");
  }

  @Test
  void theAnalyzerTakesTheDescriptionAndActionOfTheStartupFailure() {
    DelayqStartupException cause = new DelayqStartupException("what is wrong", "what to do", null);

    FailureAnalysis analysis =
        new DelayqFailureAnalyzer().analyze(new BeanCreationException("delayq", "could not create", cause));

    assertThat(analysis.getDescription()).isEqualTo("what is wrong");
    assertThat(analysis.getAction()).isEqualTo("what to do");
    assertThat(analysis.getCause()).isSameAs(cause);
  }

  @Test
  void aFailureOfTheApplicationsOwnDelayqBeanPointsAtThatBean() {
    RedisUnavailableException cause = new RedisUnavailableException("cannot connect to Redis at redis://h:1", null);

    FailureAnalysis analysis = new DelayqFailureAnalyzer().analyze(new BeanCreationException("mine", "failed", cause));

    assertThat(analysis.getDescription()).contains("cannot connect to Redis at redis://h:1");
    assertThat(analysis.getAction()).contains("own Delayq bean");
  }

  @Test
  void otherFailuresAreLeftToOtherAnalyzers() {
    assertThat(new DelayqFailureAnalyzer().analyze(new IllegalStateException("not ours"))).isNull();
  }
}
