package io.delayq.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds a redis-server that a previous run left running on a data dir (its JVM was killed where the parent-death
 * signal is not available, or before it took effect) and stops it, so that a new start never runs a second server on
 * the same AOF. Redis writes its pid to {@code redis.pid} in the data dir at start and removes it at a clean exit.
 */
final class Orphans {

    private static final Logger LOG = LoggerFactory.getLogger(Orphans.class);

    static final String PID_FILE = "redis.pid";
    private static final Duration TERM_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration KILL_TIMEOUT = Duration.ofSeconds(5);
    private static final long POLL_MILLIS = 20;

    private Orphans() {
    }

    /**
     * Stops the server named by the pid file in {@code dataDir} if it is still running and is a redis-server of
     * this user whose working directory is {@code dataDir}: SIGTERM (Redis then fsyncs its AOF), SIGKILL after 10 s.
     * A stale pid file (no such process, or someone else's) is left for Redis to overwrite.
     *
     * @throws IllegalStateException if a redis-server of this user runs under that pid but this system cannot tell
     *     whether it is on this data dir (no {@code /proc}), or if it cannot be stopped
     */
    static void stopOrphan(Path dataDir) {
        Optional<Long> pid = readPid(dataDir.resolve(PID_FILE));
        if (pid.isEmpty() || pid.get() == ProcessHandle.current().pid()) {
            return;
        }
        Optional<ProcessHandle> handle = ProcessHandle.of(pid.get()).filter(ProcessHandle::isAlive);
        if (handle.isEmpty() || !isRedisServer(handle.get())) {
            return;
        }
        Path cwd = Path.of("/proc", Long.toString(pid.get()), "cwd");
        Path orphanDir;
        try {
            orphanDir = Files.readSymbolicLink(cwd);
        } catch (IOException | UnsupportedOperationException e) {
            if (Files.isDirectory(Path.of("/proc/self"))) {
                return; // not ours to read: another user's process that reuses the pid
            }
            throw new IllegalStateException("A redis-server (pid " + pid.get() + ") is running that may be a server"
                    + " left on the data dir " + dataDir + " by a previous run, and this system cannot tell (no /proc)."
                    + " Stop it (kill " + pid.get() + ") if it is, or remove " + dataDir.resolve(PID_FILE)
                    + " if it is not, then start again");
        }
        if (!sameDir(orphanDir, dataDir)) {
            return;
        }
        ProcessHandle orphan = handle.get();
        LOG.warn("redis-server pid {} from an earlier run is still running on {} (its owner was killed); stopping it"
                + " with SIGTERM so that no two servers share the AOF", orphan.pid(), dataDir);
        orphan.destroy();
        if (!awaitExit(orphan, TERM_TIMEOUT)) {
            LOG.warn("redis-server pid {} did not stop within {} of SIGTERM; killing it", orphan.pid(), TERM_TIMEOUT);
            orphan.destroyForcibly();
            if (!awaitExit(orphan, KILL_TIMEOUT)) {
                throw new IllegalStateException("redis-server pid " + orphan.pid() + ", left running on " + dataDir
                        + " by an earlier run, did not exit after SIGKILL; stop it and start again");
            }
        }
        LOG.warn("redis-server pid {} from the earlier run stopped", orphan.pid());
    }

    private static Optional<Long> readPid(Path pidFile) {
        try {
            String text = Files.readString(pidFile, StandardCharsets.US_ASCII).trim();
            return text.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(text));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException | NumberFormatException e) {
            LOG.debug("ignoring unreadable pid file {}: {}", pidFile, e.toString());
            return Optional.empty();
        }
    }

    /** Its executable is named redis-server*, and it runs as this user (as far as the system says). */
    private static boolean isRedisServer(ProcessHandle process) {
        ProcessHandle.Info info = process.info();
        boolean named = info.command()
                .map(command -> Path.of(command.replace(" (deleted)", "")).getFileName().toString())
                .map(name -> name.startsWith("redis-server"))
                .orElse(false);
        return named && runsAsUs(process, info);
    }

    private static boolean runsAsUs(ProcessHandle process, ProcessHandle.Info info) {
        Path proc = Path.of("/proc", Long.toString(process.pid()));
        if (Files.isDirectory(proc)) {
            try {
                return (Integer) Files.getAttribute(proc, "unix:uid") == CurrentUser.uid();
            } catch (IOException | UnsupportedOperationException e) {
                return false;
            }
        }
        return info.user().map(user -> user.equals(System.getProperty("user.name"))).orElse(false);
    }

    private static boolean sameDir(Path a, Path b) {
        try {
            return a.toRealPath().equals(b.toRealPath());
        } catch (IOException e) {
            return false;
        }
    }

    /** Polls: a process that is not our child has no exit notification. */
    private static boolean awaitExit(ProcessHandle process, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (process.isAlive()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return !process.isAlive();
            }
        }
        return true;
    }
}
