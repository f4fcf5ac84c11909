package io.delayq.embedded;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;

/** {@link ChildServerMain} in its own JVM, with its output collected line by line. */
final class ChildJvm implements AutoCloseable {

    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private ChildJvm(Process process) {
        this.process = process;
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the child ended
            }
        }, "child-jvm-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts a child on {@code dataDir}, with {@code environment} on top of this JVM's. */
    static ChildJvm start(Path dataDir, Map<String, String> environment) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                ChildServerMain.class.getName(), dataDir.toString()).redirectErrorStream(true);
        builder.environment().putAll(environment);
        try {
            return new ChildJvm(builder.start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits for the child's {@code CHILD <key> <value>} line and returns the value. */
    String awaitLine(String key) {
        String prefix = "CHILD " + key + " ";
        Awaitility.await().atMost(Duration.ofSeconds(30))
                .failFast("child exited: " + lines, () -> !process.isAlive() && find(prefix).isEmpty())
                .until(() -> find(prefix).isPresent());
        return find(prefix).orElseThrow().substring(prefix.length());
    }

    private Optional<String> find(String prefix) {
        return lines.stream().filter(l -> l.startsWith(prefix)).findFirst();
    }

    long pid() {
        return process.pid();
    }

    Process process() {
        return process;
    }

    List<String> lines() {
        return List.copyOf(lines);
    }

    /** SIGKILL: no shutdown hook runs. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }
}
