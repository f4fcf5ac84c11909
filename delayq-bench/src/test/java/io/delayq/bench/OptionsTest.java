package io.delayq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** The benchmark's command line. */
class OptionsTest {
  @Test
  void everyScenarioRunsUnlessOnlyNamesSome() {
    assertThat(BenchMain.Options.parse(new String[] {"--quick"}).scenarios()).isEqualTo(EnumSet.allOf(Scenario.class));
    assertThat(BenchMain.Options.parse(new String[] {"--only=http"}).scenarios()).containsExactly(Scenario.HTTP);
    assertThat(BenchMain.Options.parse(new String[] {"--only=HTTP, drain"}).scenarios())
        .containsExactly(Scenario.DRAIN, Scenario.HTTP);
  }

  @Test
  void anUnknownScenarioIsRefusedWithTheNamesThereAre() {
    assertThatThrownBy(() -> BenchMain.Options.parse(new String[] {"--only=htp"}))
        .isInstanceOf(BenchMain.UsageException.class)
        .hasMessage("--only: 'htp' is not a scenario; name one or more of ceiling,enqueue,drain,steady,idle,memory,"
            + "idempotency,backlog,partitions,cluster,durable,http,rabbitmq, comma-separated");
    assertThatThrownBy(() -> BenchMain.Options.parse(new String[] {"--only="}))
        .isInstanceOf(BenchMain.UsageException.class).hasMessageStartingWith("--only: '' is not a scenario");
  }

  @Test
  void theServerJarIsTakenAsGivenOrLeftToTheDefault() {
    assertThat(BenchMain.Options.parse(new String[] {"--server-jar=x/delayq-server.jar"}).serverJar())
        .isEqualTo(Path.of("x/delayq-server.jar").toAbsolutePath());
    assertThat(BenchMain.Options.parse(new String[] {}).serverJar()).isNull();
  }
}
