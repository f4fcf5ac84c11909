package io.delayq.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** The {@code delayq} shell script the build puts next to {@code delayq-server.jar}. */
@EnabledOnOs({OS.LINUX, OS.MAC})
class LauncherIT {
  private static final Path LAUNCHER = Path.of("target", "delayq").toAbsolutePath();
  private static final String VERSION = System.getProperty("delayq.version", "(delayq.version not set by the build)");

  @TempDir Path elsewhere;

  record Run(int exitCode, String out, String err) {}

  /** Runs {@code script args} from a directory that holds no jar, with JAVA_HOME set to this JVM. */
  private Run run(Path script, Map<String, String> env, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(script.toString()));
    command.addAll(List.of(args));
    Path out = Files.createTempFile(elsewhere, "out", ".txt");
    Path err = Files.createTempFile(elsewhere, "err", ".txt");
    ProcessBuilder builder = new ProcessBuilder(command).directory(elsewhere.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().keySet().removeIf(name -> name.startsWith("DELAYQ_") || name.equals("REDIS_URL")
        || name.equals("JAVA_OPTS"));
    builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
    builder.environment().putAll(env);
    Process process = builder.start();
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("%s ended", command).isTrue();
    return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  @Test
  void theBuildPutsAnExecutableLauncherNextToTheJar() {
    assertThat(LAUNCHER).isRegularFile().isExecutable();
    assertThat(LAUNCHER.resolveSibling("delayq-server.jar")).isRegularFile();
  }

  @Test
  void itRunsTheJarNextToItFromAnyDirectoryAndThroughASymlink() throws Exception {
    Run direct = run(LAUNCHER, Map.of(), "--version");
    assertThat(direct.exitCode()).as("%s", direct).isZero();
    assertThat(direct.out()).isEqualTo("delayq " + VERSION + "\n");

    Path bin = Files.createDirectories(elsewhere.resolve("bin"));
    Path link = Files.createSymbolicLink(bin.resolve("delayq"), LAUNCHER);
    Run linked = run(link, Map.of(), "--version");
    assertThat(linked.exitCode()).as("%s", linked).isZero();
    assertThat(linked.out()).isEqualTo(direct.out());
  }

  @Test
  void itPassesArgumentsWholeAndJavaOptsAsSeparateOptions() throws Exception {
    Run flags = run(LAUNCHER, Map.of("JAVA_OPTS", "-XX:+PrintCommandLineFlags -Dsome.property=1"), "--version");
    assertThat(flags.exitCode()).as("%s", flags).isZero();
    assertThat(flags.out()).contains("-XX:+ExitOnOutOfMemoryError").endsWith("delayq " + VERSION + "\n");

    Run badOption = run(LAUNCHER, Map.of("JAVA_OPTS", "-XX:+NoSuchOptionAnywhere"), "--version");
    assertThat(badOption.exitCode()).as("%s", badOption).isNotZero();
    assertThat(badOption.err()).contains("NoSuchOptionAnywhere");

    Run spaced = run(LAUNCHER, Map.of(), "stats", "--server", "http://127.0.0.1:1 /x");
    assertThat(spaced.exitCode()).as("%s", spaced).isEqualTo(2);
    assertThat(spaced.err()).contains("'http://127.0.0.1:1 /x'");
  }

  @Test
  void withoutTheJarBesideItItSaysWhereItLooked() throws Exception {
    Path copy = Files.copy(LAUNCHER, elsewhere.resolve("delayq"));
    assertThat(copy.toFile().setExecutable(true)).isTrue();
    Run run = run(copy, Map.of(), "--version");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains(elsewhere.toRealPath().resolve("delayq-server.jar").toString())
        .contains("next to");
  }
}
