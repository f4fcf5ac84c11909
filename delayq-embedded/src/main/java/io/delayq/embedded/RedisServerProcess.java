package io.delayq.embedded;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real {@code redis-server} running as a child process, bound to 127.0.0.1.
 *
 * <p>Unlike an in-process fake, it can be crashed with {@link #kill()} (SIGKILL, no AOF fsync beyond what
 * {@code appendfsync} already did) and brought back with {@link #restart()} on the same port, config and data dir,
 * which is what durability tests need. By default it runs the redis-server bundled in the
 * {@code com.github.codemonstur:embedded-redis} jar; only that binary is used, not the library's API, because the
 * library cannot SIGKILL or restart on the same data dir.
 *
 * <pre>{@code
 * try (RedisServerProcess redis = RedisServerProcess.builder().appendOnly(true).appendFsync("always").start()) {
 *     RedisClient client = RedisClient.create(redis.uri());
 *     ...
 *     redis.kill();
 *     redis.restart();
 * }
 * }</pre>
 *
 * <p>Every process still running when the JVM shuts down is stopped (SIGTERM, then SIGKILL) by a shutdown hook, and unclosed temp data
 * dirs are deleted, so an aborted test run leaves nothing behind. A SIGKILLed JVM runs no hooks, so on Linux the server
 * is also started under {@code setpriv --pdeathsig KILL} and dies with the JVM; where that is unavailable, the next
 * start on the same data dir finds the orphan by its pid file and stops it.
 *
 * <p>Whatever the settings: the data dir is private (0700; an existing one must be this user's and writable by nobody
 * else), Redis runs with umask 077 so its AOF, log and pid files are 0600, one lock file keeps a second server (in any
 * JVM) off the same data dir ({@link DataDirInUseException}), and a bundled binary's SHA-256 is checked before every
 * start. {@link Builder#lockedDown} adds what a server others share needs: a random password, and {@code CONFIG},
 * {@code DEBUG} and {@code MODULE} disabled.
 *
 * <p>Instances are thread-safe.
 */
public final class RedisServerProcess implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RedisServerProcess.class);

    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final long POLL_MILLIS = 20;
    /** Attempts at a fresh auto-chosen port when another process took the one we picked before Redis bound it. */
    private static final int PORT_ATTEMPTS = 3;
    private static final int LOG_TAIL_BYTES = 4096;
    private static final Set<String> FSYNC_POLICIES = Set.of("always", "everysec", "no");
    /** Set by the builder; overriding them with {@code setting} would break start-up or readiness checks. */
    private static final Set<String> RESERVED_SETTINGS = Set.of(
            "port", "bind", "dir", "daemonize", "logfile", "appendonly", "appendfsync", "cluster-enabled", "include",
            "pidfile", "protected-mode");
    /** Commands a locked-down server disables: they can rewrite its files ({@code CONFIG SET dir} + {@code SAVE}),
     * crash it, or load code. */
    private static final List<String> LOCKED_DOWN_COMMANDS = List.of("CONFIG", "DEBUG", "MODULE");
    private static final int PASSWORD_BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path binary;
    private final boolean autoPort;
    private final boolean clusterMode;
    private final boolean sentinelMode;
    private final Path dataDir;
    private final boolean ownsDataDir;
    private final boolean appendOnly;
    private final String appendFsync;
    private final Path logFile;
    private final Path stdoutFile;
    private final List<String> extraConfig;
    private final String password;
    private final boolean lockedDown;
    private final boolean generatedPassword;
    private final Map<String, String> environment;

    private int port;
    private Process process;
    private boolean started;
    private boolean closed;
    private DataDirLock lock;

    private RedisServerProcess(Builder b) throws IOException {
        this.ownsDataDir = b.dataDir == null;
        // why: createTempDirectory makes it 0700 already; a given one is created so or checked
        this.dataDir = ownsDataDir
                ? Reaper.trackTempDir(Files.createTempDirectory("delayq-redis-"))
                : PrivateFiles.ensurePrivateDir(b.dataDir, "Redis data dir", true);
        this.binary = b.binary != null ? b.binary.toAbsolutePath() : bundledBinary();
        this.autoPort = b.port == 0;
        this.clusterMode = b.clusterMode;
        this.sentinelMode = b.sentinelMode;
        this.port = autoPort ? pickPort(clusterMode) : b.port;
        this.appendOnly = b.appendOnly;
        this.appendFsync = b.appendFsync;
        this.logFile = b.logFile != null ? b.logFile.toAbsolutePath() : dataDir.resolve("redis.log");
        this.stdoutFile = dataDir.resolve("redis.stdout.log");
        this.extraConfig = List.copyOf(b.extraConfig);
        this.lockedDown = b.lockedDown;
        this.generatedPassword = b.lockedDown && b.password == null;
        this.password = generatedPassword ? randomPassword() : b.password;
        this.environment = Map.copyOf(b.environment);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The bundled redis-server for this OS and architecture, extracted (once per JVM) into the per-user directory
     * {@code <java.io.tmpdir>/delayq-embedded-<user.name>}, which concurrent JVMs share safely. That directory is
     * created with mode 0700; an existing one that another user owns or may write is refused, and so is a binary there
     * whose SHA-256 is not the bundled one's.
     *
     * @throws IllegalStateException if no binary is bundled for this platform, or the directory or binary there is
     *     not safe to use (the message says why and what to do)
     */
    public static Path bundledBinary() {
        return BundledBinary.extract(BundledBinary.defaultCacheDir());
    }

    /** Like {@link #bundledBinary()}, but extracts into {@code cacheDir}. */
    public static Path bundledBinary(Path cacheDir) {
        return BundledBinary.extract(Objects.requireNonNull(cacheDir, "cacheDir"));
    }

    /** A {@code redis-server} executable found on {@code PATH}, if any. */
    public static Optional<Path> machineBinary() {
        String path = Objects.requireNonNullElse(System.getenv("PATH"), "");
        return Stream.of(path.split(File.pathSeparator))
                .filter(dir -> !dir.isBlank())
                .map(dir -> Path.of(dir, "redis-server"))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** The output of {@code binary --version}, e.g. {@code Redis server v=6.2.11 sha=... bits=64 ...}. */
    public static String version(Path binary) {
        try {
            Process p = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException(binary + " --version failed: " + out);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run " + binary + " --version", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + binary + " --version", e);
        }
    }

    /** The version text of this server's binary (checked first, if bundled); see {@link #version(Path)}. */
    public String version() {
        BundledBinary.verify(binary);
        return version(binary);
    }

    /**
     * Starts the server and waits up to 20 s until it answers {@code PING} with {@code PONG} (after loading any
     * AOF). Also used to start again after {@link #kill()} or {@link #stop()}, with the same port, password and data.
     *
     * <p>The first start locks the data dir until {@link #close()}. Every start first checks a bundled binary's
     * SHA-256, stops a server that an earlier, killed owner left running on this data dir (found by its pid file and
     * {@code /proc}), and makes existing files in the data dir private.
     *
     * @throws DataDirInUseException if another process or instance holds the data dir
     * @throws IllegalStateException if already running or closed, if the binary was replaced, or if the server exits
     *     or is not ready in time; the message then includes the tail of its log
     */
    public synchronized RedisServerProcess start() {
        if (closed) {
            throw new IllegalStateException("Closed");
        }
        if (isAlive()) {
            throw new IllegalStateException("Already running as pid " + process.pid());
        }
        if (lock == null) {
            lock = DataDirLock.acquire(dataDir);
        }
        BundledBinary.verify(binary);
        Orphans.stopOrphan(dataDir);
        PrivateFiles.tightenContents(dataDir);
        PrivateFiles.tighten(logFile);
        for (int attempt = 1; ; attempt++) {
            try {
                launchAndAwaitReady();
                started = true;
                LOG.info("redis-server pid {} ready on port {} (data dir {})", process.pid(), port, dataDir);
                return this;
            } catch (PortInUseException e) {
                if (!autoPort || started || attempt == PORT_ATTEMPTS) {
                    throw e;
                }
                LOG.debug("Port {} was taken before redis-server bound it; retrying on another", port);
                port = pickPort(clusterMode);
            }
        }
    }

    /** Stops the server if it is running, then {@link #start()}s it again with the same port, config and data. */
    public synchronized RedisServerProcess restart() {
        stop();
        return start();
    }

    /**
     * Crashes the server: SIGKILL, then waits for it to exit. Only writes Redis already made (for AOF, per
     * {@code appendfsync}) survive. No-op if not running.
     */
    public synchronized void kill() {
        if (isAlive()) {
            process.destroyForcibly();
            awaitExit(process, STOP_TIMEOUT);
            LOG.info("redis-server pid {} killed", process.pid());
        }
    }

    /**
     * Stops the server gracefully with {@code SHUTDOWN}, which fsyncs the AOF (and saves an RDB only if
     * {@code save} points were configured through {@link Builder#setting}). Falls back to SIGTERM if the command
     * is refused, and to SIGKILL after 10 s. No-op if not running.
     */
    public synchronized void stop() {
        if (!isAlive()) {
            return;
        }
        boolean accepted;
        try {
            accepted = Resp.call(port, password, "SHUTDOWN") == null;
        } catch (IOException e) {
            accepted = false;
        }
        if (!accepted) {
            process.destroy();
        }
        if (!awaitExit(process, STOP_TIMEOUT)) {
            LOG.warn("redis-server pid {} did not stop within {}; killing it", process.pid(), STOP_TIMEOUT);
            process.destroyForcibly();
            awaitExit(process, STOP_TIMEOUT);
        }
        LOG.info("redis-server pid {} stopped", process.pid());
    }

    /**
     * Stops the server if running, releases the data dir's lock, and deletes the data dir if it was a temp dir created
     * here. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        stop();
        closed = true;
        if (lock != null) {
            lock.close();
            lock = null;
        }
        if (ownsDataDir) {
            deleteRecursively(dataDir);
            Reaper.untrackTempDir(dataDir);
        }
    }

    /** Pid of the current, or last, server process. */
    public synchronized long pid() {
        if (process == null) {
            throw new IllegalStateException("Not started");
        }
        return process.pid();
    }

    /** The port; chosen at build time, but an auto-chosen one may change if the first {@link #start()} loses it. */
    public synchronized int port() {
        return port;
    }

    /** {@code redis://127.0.0.1:<port>} (without any password). */
    public String uri() {
        return "redis://127.0.0.1:" + port();
    }

    /**
     * {@code redis://:<password>@127.0.0.1:<port>} when the server has a password ({@link Builder#lockedDown} or a
     * {@code requirepass} setting), else {@link #uri()}. It is a secret: never log it.
     */
    public String uriWithPassword() {
        if (password == null) {
            return uri();
        }
        return "redis://:" + URLEncoder.encode(password, StandardCharsets.UTF_8).replace("+", "%20") + "@127.0.0.1:"
                + port();
    }

    /** Whether this server was built {@link Builder#lockedDown locked down}. */
    public boolean isLockedDown() {
        return lockedDown;
    }

    public Path dataDir() {
        return dataDir;
    }

    public Path logFile() {
        return logFile;
    }

    public synchronized boolean isAlive() {
        return process != null && process.isAlive();
    }

    private void launchAndAwaitReady() {
        Path config = dataDir.resolve("redis.conf");
        try {
            Files.createDirectories(logFile.getParent());
            // why: it may hold the password; private from its first byte
            PrivateFiles.writePrivate(config, configText());
            PrivateFiles.createPrivateFile(stdoutFile);
            List<String> command = new ArrayList<>(List.of(binary.toString(), config.toString()));
            if (sentinelMode) {
                command.add("--sentinel");
            }
            ProcessBuilder launcher = new ProcessBuilder(command)
                    .directory(dataDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(stdoutFile.toFile()));
            launcher.environment().putAll(environment);
            process = ChildLauncher.start(launcher);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + binary + " " + config, e);
        }
        Reaper.track(process);
        awaitReady(process);
    }

    private void awaitReady(Process p) {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        String reply = "no reply yet";
        while (p.isAlive()) {
            reply = Resp.ping(port, password);
            if ("+PONG".equals(reply)) {
                checkIsOurs(p);
                return;
            }
            // Anything else (connection refused, -LOADING while the AOF replays, ...) means "not yet".
            if (System.nanoTime() - deadline > 0) {
                p.destroyForcibly();
                awaitExit(p, STOP_TIMEOUT);
                throw startFailure("redis-server was not ready within " + STARTUP_TIMEOUT
                        + " (last PING reply: " + reply + ")");
            }
            awaitExit(p, Duration.ofMillis(POLL_MILLIS));
        }
        String message = "redis-server exited with code " + p.exitValue() + " during start-up on port " + port;
        throw logTail().contains("Address already in use") ? new PortInUseException(startFailure(message))
                : startFailure(message);
    }

    /** Guards against a PONG from some other server that already held the port (e.g. a system Redis on 6379). */
    private void checkIsOurs(Process p) {
        String info;
        try {
            info = Resp.call(port, password, "INFO", "server");
        } catch (IOException e) {
            info = e.toString();
        }
        if (info == null || !info.contains("process_id:" + p.pid() + "\r\n")) {
            p.destroyForcibly();
            awaitExit(p, STOP_TIMEOUT);
            throw new PortInUseException(startFailure("Port " + port + " is served by another process"));
        }
    }

    private String configText() {
        List<String> lines = new ArrayList<>();
        lines.add("bind 127.0.0.1");
        lines.add("port " + port);
        lines.add("protected-mode yes");
        lines.add("daemonize no");
        lines.add("dir " + quote(dataDir.toString()));
        lines.add("logfile " + quote(logFile.toString()));
        // why: read by the next start on this data dir, to find a server whose owner was killed (see Orphans)
        lines.add("pidfile " + quote(dataDir.resolve(Orphans.PID_FILE).toString()));
        if (generatedPassword) {
            lines.add("requirepass " + password);
        }
        if (lockedDown) {
            // why: rename-command works on Redis 6.2 and 7 alike (enable-debug-command exists only on 7)
            LOCKED_DOWN_COMMANDS.forEach(command -> lines.add("rename-command " + command + " \"\""));
        }
        lines.add("save \"\"");
        lines.add("appendonly " + (appendOnly ? "yes" : "no"));
        if (appendFsync != null) {
            lines.add("appendfsync " + appendFsync);
        }
        if (clusterMode) {
            lines.add("cluster-enabled yes");
            lines.add("cluster-config-file nodes.conf");
        }
        lines.addAll(extraConfig);
        return String.join("\n", lines) + "\n";
    }

    /** Quotes a config argument the way redis.conf's parser (sdssplitargs) reads it back. */
    private static String quote(String value) {
        if (!value.isEmpty() && value.chars().noneMatch(c -> Character.isWhitespace(c) || c == '"' || c == '\''
                || c == '\\')) {
            return value;
        }
        return '"' + value.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    private IllegalStateException startFailure(String message) {
        return new IllegalStateException(message + " (" + binary + " " + dataDir.resolve("redis.conf") + ")"
                + logTail());
    }

    /** Redis reports config errors on stderr, everything later in its log file; show both. */
    private String logTail() {
        return tail(stdoutFile) + tail(logFile);
    }

    private static String tail(Path file) {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            long start = Math.max(0, raf.length() - LOG_TAIL_BYTES);
            byte[] bytes = new byte[(int) (raf.length() - start)];
            raf.seek(start);
            raf.readFully(bytes);
            return bytes.length == 0 ? ""
                    : "\n--- tail of " + file + " ---\n" + new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static String randomPassword() {
        byte[] bytes = new byte[PASSWORD_BYTES];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private static int pickPort(boolean clusterMode) {
        return clusterMode ? Ports.freeClusterPort() : Ports.freePort();
    }

    /** Waits for exit even if interrupted (exits after signals are quick), restoring the interrupt flag. */
    private static boolean awaitExit(Process p, Duration timeout) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                try {
                    return p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            LOG.warn("Cannot delete {}", dir, e);
        }
    }

    /** The first start failed because the port was not ours after all; an auto-chosen port can be re-picked. */
    private static final class PortInUseException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        PortInUseException(IllegalStateException cause) {
            super(cause.getMessage());
        }
    }

    /**
     * From a JVM shutdown hook, SIGKILLs every server process this class started that is still running, then deletes
     * the temp data dirs of servers that were never closed.
     */
    private static final class Reaper {
        private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
        private static final Set<Path> TEMP_DIRS = ConcurrentHashMap.newKeySet();

        static {
            Runtime.getRuntime().addShutdownHook(new Thread(Reaper::killAll, "delayq-embedded-reaper"));
        }

        static void track(Process p) {
            LIVE.add(p);
            p.onExit().thenRun(() -> LIVE.remove(p));
        }

        static Path trackTempDir(Path dir) {
            TEMP_DIRS.add(dir);
            return dir;
        }

        static void untrackTempDir(Path dir) {
            TEMP_DIRS.remove(dir);
        }

        /**
         * SIGTERM first: redis-server then fsyncs its AOF and exits, so a server whose owner's own shutdown hook has
         * not stopped it yet (hooks run in no fixed order) loses nothing. SIGKILL only for one that does not exit in
         * time. Both signal this exact child's pid, never a reused one; waiting lets this JVM reap them, rather than
         * leaving zombies to an init that may not reap (as in some containers).
         */
        private static void killAll() {
            List<Process> processes = List.copyOf(LIVE);
            processes.forEach(Process::destroy);
            processes.forEach(p -> {
                if (!awaitExit(p, Duration.ofSeconds(5))) {
                    p.destroyForcibly();
                    awaitExit(p, Duration.ofSeconds(2));
                }
            });
            TEMP_DIRS.forEach(RedisServerProcess::deleteRecursively);
        }
    }

    /** Configures a {@link RedisServerProcess}; every setting is optional. */
    public static final class Builder {
        private Path binary;
        private int port;
        private boolean clusterMode;
        private boolean sentinelMode;
        private Path dataDir;
        private boolean appendOnly;
        private String appendFsync;
        private Path logFile;
        private final List<String> extraConfig = new ArrayList<>();
        private String password;
        private boolean lockedDown;
        private final Map<String, String> environment = new LinkedHashMap<>();

        private Builder() {
        }

        /**
         * Locks the server down for use beside other local users (as {@code delayq serve} does): a random 256-bit
         * password ({@code requirepass}, unless one is set with {@link #setting}), the same across
         * {@link RedisServerProcess#restart() restarts} of this instance and new for each instance; and the commands
         * {@code CONFIG}, {@code DEBUG} and {@code MODULE} disabled ({@code rename-command ... ""}), so that even a
         * client with the password cannot make Redis write files elsewhere, crash it or load code. Clients connect
         * with {@link RedisServerProcess#uriWithPassword()}. Default: off, as tests need {@code CONFIG}.
         */
        public Builder lockedDown(boolean lockedDown) {
            this.lockedDown = lockedDown;
            return this;
        }

        /** The redis-server executable; default: {@link RedisServerProcess#bundledBinary()}. */
        public Builder binary(Path binary) {
            this.binary = Objects.requireNonNull(binary, "binary");
            return this;
        }

        /** The port; default: a free loopback port, with {@code port + 10000} also free in cluster mode. */
        public Builder port(int port) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port must be in 1..65535: " + port);
            }
            this.port = port;
            return this;
        }

        /** Enables {@code cluster-enabled yes}; the cluster bus then listens on {@code port + 10000}. */
        public Builder clusterMode(boolean clusterMode) {
            this.clusterMode = clusterMode;
            return this;
        }

        /**
         * Runs it as a Redis Sentinel ({@code redis-server <config> --sentinel}) instead of a data node. Its
         * {@code sentinel ...} lines are given with {@link #setting}, e.g. {@code setting("sentinel", "monitor",
         * "mymaster", "127.0.0.1", "6379", "2")}. A Sentinel rewrites its config file as it learns the topology; a
         * {@link RedisServerProcess#restart()} starts it again from the settings given here. Default: off.
         */
        public Builder sentinelMode(boolean sentinelMode) {
            this.sentinelMode = sentinelMode;
            return this;
        }

        /**
         * Where Redis keeps its AOF, config, log, pid file and lock file; default: a temp dir, deleted by
         * {@link #close()}. Created with mode 0700 if missing; an existing one must be owned by this user and not
         * writable by group or others (else {@link #build()} refuses it), and loses any group or other read access.
         */
        public Builder dataDir(Path dataDir) {
            this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
            return this;
        }

        /** Enables the AOF ({@code appendonly yes}); default: off, and no RDB snapshots either. */
        public Builder appendOnly(boolean appendOnly) {
            this.appendOnly = appendOnly;
            return this;
        }

        /** {@code always}, {@code everysec} (Redis's default) or {@code no}. */
        public Builder appendFsync(String policy) {
            String p = Objects.requireNonNull(policy, "policy").toLowerCase(Locale.ROOT);
            if (!FSYNC_POLICIES.contains(p)) {
                throw new IllegalArgumentException("appendfsync must be one of " + FSYNC_POLICIES + ": " + policy);
            }
            this.appendFsync = p;
            return this;
        }

        /** The Redis log file; default: {@code redis.log} in the data dir. */
        public Builder logFile(Path logFile) {
            this.logFile = Objects.requireNonNull(logFile, "logFile");
            return this;
        }

        /**
         * Adds a config line, e.g. {@code setting("maxmemory-policy", "allkeys-lru")}; written after the defaults,
         * so it can override one such as {@code save}. {@code requirepass} is also used for the readiness check and
         * {@code SHUTDOWN}.
         *
         * @throws IllegalArgumentException for settings this builder owns (port, dir, appendonly, ...)
         */
        public Builder setting(String name, String... values) {
            Objects.requireNonNull(name, "name");
            String key = name.toLowerCase(Locale.ROOT);
            if (key.isEmpty() || key.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("Invalid setting name: '" + name + "'");
            }
            if (RESERVED_SETTINGS.contains(key)) {
                throw new IllegalArgumentException("'" + name + "' is set by the builder; use its own method");
            }
            StringBuilder line = new StringBuilder(key);
            for (String value : values) {
                if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
                    throw new IllegalArgumentException("Line break in value of " + name);
                }
                line.append(' ').append(quote(value));
            }
            extraConfig.add(line.toString());
            if (key.equals("requirepass")) {
                password = values.length == 1 && !values[0].isEmpty() ? values[0] : null;
            }
            return this;
        }

        /**
         * Sets an environment variable of the server process, on top of this JVM's own, for every start and restart.
         * E.g. {@code environment("LD_PRELOAD", ".../faketime/libfaketime.so.1")} with
         * {@code environment("FAKETIME", "+20s")} runs its clock 20 s ahead (the bundled binary allows this; a
         * redis-server linked to a shared libjemalloc hangs under libfaketime).
         *
         * @throws IllegalArgumentException for an empty name, a name with {@code =}, or a NUL character in either
         */
        public Builder environment(String name, String value) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
            if (name.isEmpty() || name.indexOf('=') >= 0 || name.indexOf('\0') >= 0 || value.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("Invalid environment variable: '" + name + "'");
            }
            environment.put(name, value);
            return this;
        }

        /**
         * Creates the server without starting it: resolves the binary, picks the port and creates the data dir.
         *
         * @throws IllegalArgumentException if cluster mode is combined with a port above 55535
         */
        public RedisServerProcess build() {
            if (clusterMode && sentinelMode) {
                throw new IllegalArgumentException("A server runs either in cluster mode or as a Sentinel, not both");
            }
            if (clusterMode && port > Ports.MAX_CLUSTER_PORT) {
                throw new IllegalArgumentException("In cluster mode the port must be <= " + Ports.MAX_CLUSTER_PORT
                        + " (its bus port is port + 10000): " + port);
            }
            try {
                return new RedisServerProcess(this);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot create the data dir", e);
            }
        }

        /** {@code build().start()}, but closes (deleting a temp data dir) if the start fails. */
        public RedisServerProcess start() {
            RedisServerProcess server = build();
            try {
                return server.start();
            } catch (RuntimeException e) {
                server.close();
                throw e;
            }
        }
    }
}
