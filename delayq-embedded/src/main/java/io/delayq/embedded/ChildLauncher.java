package io.delayq.embedded;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts redis-server so that every file it creates is private and, where the system allows, so that it dies with
 * this JVM:
 *
 * <pre>
 * setpriv --pdeathsig KILL -- /bin/sh -c 'umask 077 &amp;&amp; exec "$0" "$@"' redis-server redis.conf
 * </pre>
 *
 * <p>{@code umask 077} in the shell that then {@code exec}s redis-server (same pid) gives Redis the umask it creates
 * its AOF, RDB, log and pid files with: 0600, directories 0700. Java cannot set a child's umask itself.
 *
 * <p>{@code setpriv} (util-linux, Linux only) sets the parent-death signal, kept across {@code exec}: the kernel
 * SIGKILLs the server as soon as its parent goes, even by {@code kill -9}, which no shutdown hook survives. Where
 * {@code setpriv} is not on {@code PATH} (macOS, minimal images) a warning says so, and an orphan is found and stopped
 * by the next start on the same data dir instead.
 */
final class ChildLauncher {

    private static final Logger LOG = LoggerFactory.getLogger(ChildLauncher.class);

    private static final String SHELL = "/bin/sh";
    private static final String UMASK_THEN_EXEC = "umask 077 && exec \"$0\" \"$@\"";

    /**
     * why: Linux sends the parent-death signal when the *thread* that forked the child ends, not the process. Forking
     * from whichever thread calls {@code start()} (a supervisor's pool thread, a test's) would kill Redis when that
     * thread ends. So every child is forked from this one thread, which lives as long as the JVM. (Not named
     * delayq-*: tests check that a closed delayq client leaves no delayq-* thread behind.)
     */
    private static final ExecutorService FORKER = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "redis-server-forker");
        thread.setDaemon(true);
        return thread;
    });

    private static volatile Optional<Path> setpriv;

    private ChildLauncher() {
    }

    /**
     * Starts {@code command} as described above from the forker thread.
     *
     * @throws IOException if it cannot be started
     */
    static Process start(ProcessBuilder builder) throws IOException {
        List<String> command = wrap(builder.command());
        ProcessBuilder wrapped = builder.command(command);
        Future<Process> started = FORKER.submit(wrapped::start);
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return started.get();
                } catch (InterruptedException e) {
                    // the fork is quick and must not be abandoned half-way: wait for it, then restore the flag
                    interrupted = true;
                }
            }
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IllegalStateException("Cannot start " + command, e.getCause());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Whether children die with this JVM (setpriv found and working). */
    static boolean diesWithParent() {
        return setpriv().isPresent();
    }

    static List<String> wrap(List<String> command) {
        List<String> wrapped = new ArrayList<>();
        setpriv().ifPresent(path -> wrapped.addAll(List.of(path.toString(), "--pdeathsig", "KILL", "--")));
        if (Files.isExecutable(Path.of(SHELL))) {
            wrapped.addAll(List.of(SHELL, "-c", UMASK_THEN_EXEC));
        } else {
            LOG.warn("{} not found: redis-server runs with this JVM's umask, and the files it creates may be readable"
                    + " by other users", SHELL);
        }
        wrapped.addAll(command);
        return wrapped;
    }

    private static Optional<Path> setpriv() {
        Optional<Path> known = setpriv;
        if (known == null) {
            synchronized (ChildLauncher.class) {
                known = setpriv;
                if (known == null) {
                    known = findSetpriv();
                    setpriv = known;
                }
            }
        }
        return known;
    }

    /** setpriv on PATH that accepts {@code --pdeathsig} (util-linux 2.33 and later). */
    private static Optional<Path> findSetpriv() {
        String path = Objects.requireNonNullElse(System.getenv("PATH"), "");
        Optional<Path> found = Stream.of(path.split(File.pathSeparator))
                .filter(dir -> !dir.isBlank())
                .map(dir -> Path.of(dir, "setpriv"))
                .filter(Files::isExecutable)
                .findFirst();
        if (found.isPresent() && works(found.get())) {
            LOG.debug("redis-server children get the parent-death signal KILL through {}", found.get());
            return found;
        }
        LOG.warn("setpriv (util-linux) with --pdeathsig is not on PATH ({}): an embedded redis-server outlives this"
                + " JVM if the JVM is killed with SIGKILL; the next start on the same data dir stops it",
                found.map(p -> p + " does not support --pdeathsig").orElse("not found"));
        return Optional.empty();
    }

    private static boolean works(Path setpriv) {
        try {
            Process probe = new ProcessBuilder(setpriv.toString(), "--pdeathsig", "KILL", "--", SHELL, "-c", ":")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!probe.waitFor(5, TimeUnit.SECONDS)) {
                probe.destroyForcibly();
                return false;
            }
            return probe.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
