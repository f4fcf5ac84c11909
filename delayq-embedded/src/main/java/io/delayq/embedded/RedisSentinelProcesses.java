package io.delayq.embedded;

import static io.delayq.embedded.Polling.await;

import io.delayq.embedded.Polling.NotYet;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A primary, its replicas and the Redis Sentinels that watch them, on 127.0.0.1: one {@link RedisServerProcess} each,
 * with auto-picked ports and temp data dirs, the Sentinels started as {@code redis-server <config> --sentinel}.
 *
 * <pre>{@code
 * try (RedisSentinelProcesses redis = RedisSentinelProcesses.builder().start()) {  // 1 primary, 1 replica, 3 Sentinels
 *     Delayq delayq = Delayq.connect(redis.url());     // redis-sentinel://127.0.0.1:<s1>,...#mymaster
 *     RedisServerProcess old = redis.master();
 *     redis.failover();                                 // SENTINEL FAILOVER
 *     RedisServerProcess promoted = redis.awaitNewMaster(old, Duration.ofSeconds(30));
 * }
 * }</pre>
 *
 * <p>{@link Builder#start()} returns once every replica is in sync with the primary and every Sentinel knows the
 * replicas and the other Sentinels, so that a failover can be authorized right away (a quorum to agree the master is
 * down, a majority of Sentinels to elect the leader that promotes a replica). Down-after and failover timeouts are
 * short by default (1 s and 5 s) so that tests fail over within a few seconds. Instances are thread-safe.
 */
public final class RedisSentinelProcesses implements AutoCloseable {

    public static final String DEFAULT_MASTER_NAME = "mymaster";
    public static final Duration DEFAULT_DOWN_AFTER = Duration.ofSeconds(1);
    public static final Duration DEFAULT_FAILOVER_TIMEOUT = Duration.ofSeconds(5);

    private static final Logger LOG = LoggerFactory.getLogger(RedisSentinelProcesses.class);
    private static final Duration FORM_TIMEOUT = Duration.ofSeconds(30);

    private final String masterName;
    private final String password;
    private final String sentinelPassword;
    /** The first primary, then the replicas, whatever their roles now. */
    private final List<RedisServerProcess> dataNodes;
    private final List<RedisServerProcess> sentinels;
    private boolean closed;

    private RedisSentinelProcesses(Builder b, List<RedisServerProcess> dataNodes, List<RedisServerProcess> sentinels) {
        this.masterName = b.masterName;
        this.password = b.password;
        this.sentinelPassword = b.sentinelPassword;
        this.dataNodes = List.copyOf(dataNodes);
        this.sentinels = List.copyOf(sentinels);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The name the Sentinels know the primary by. */
    public String masterName() {
        return masterName;
    }

    /**
     * Lettuce's Sentinel URL: {@code redis-sentinel://127.0.0.1:<port1>,127.0.0.1:<port2>,...#<masterName>}, without a
     * password.
     */
    public String url() {
        return "redis-sentinel://" + sentinels.stream().map(s -> "127.0.0.1:" + s.port()).collect(Collectors.joining(","))
                + "#" + masterName;
    }

    /** The primary and the replicas in start order, whatever their roles now and whether running or not. */
    public List<RedisServerProcess> dataNodes() {
        return dataNodes;
    }

    public List<RedisServerProcess> sentinels() {
        return sentinels;
    }

    /**
     * The running data node that says it is a master ({@code INFO replication}); right after a
     * {@code SENTINEL FAILOVER}, the old one may still say so for a while.
     *
     * @throws IllegalStateException if no running data node or more than one says it is a master
     */
    public RedisServerProcess master() {
        List<RedisServerProcess> masters = withRole("master");
        if (masters.size() != 1) {
            throw new IllegalStateException(masters.size() + " data nodes say they are masters: " + ports(masters));
        }
        return masters.get(0);
    }

    /** Asks a running Sentinel for a manual failover ({@code SENTINEL FAILOVER <masterName>}). */
    public void failover() {
        List<String> failures = new ArrayList<>();
        for (RedisServerProcess sentinel : running(sentinels)) {
            try {
                String reply = Resp.call(sentinel.port(), sentinelPassword, "SENTINEL", "FAILOVER", masterName);
                if ("+OK".equals(reply)) {
                    LOG.info("SENTINEL FAILOVER {} accepted by Sentinel on port {}", masterName, sentinel.port());
                    return;
                }
                failures.add(sentinel.port() + ": " + reply);
            } catch (IOException e) {
                failures.add(sentinel.port() + ": " + e);
            }
        }
        throw new IllegalStateException("No Sentinel accepted SENTINEL FAILOVER " + masterName + ": " + failures);
    }

    /**
     * Waits until every running Sentinel names the same running data node other than {@code old} as the master
     * ({@code SENTINEL GET-MASTER-ADDR-BY-NAME}) and that node says it is a master; returns it.
     *
     * @throws IllegalStateException after {@code timeout}, with what the Sentinels said last
     */
    public RedisServerProcess awaitNewMaster(RedisServerProcess old, Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        long start = System.nanoTime();
        RedisServerProcess master = await("new master other than port " + old.port(), timeout, () -> {
            RedisServerProcess agreed = agreedMaster();
            if (agreed == old) {
                throw new NotYet("the Sentinels still name port " + old.port());
            }
            return agreed;
        });
        LOG.info("Sentinels agree on master {} (was {}) after {} ms", master.port(), old.port(),
                (System.nanoTime() - start) / 1_000_000);
        return master;
    }

    /**
     * Waits until {@code replica} is running, says it is a replica of the current master and its link is up (after
     * {@code SENTINEL FAILOVER} the Sentinels turn the old primary into one; a killed one restarted comes back as a
     * master and is turned into one too).
     */
    public void awaitReplicaInSync(RedisServerProcess replica, Duration timeout) {
        await("port " + replica.port() + " in sync as a replica", timeout, () -> {
            RedisServerProcess master = agreedMaster();
            String info = query(replica, "INFO", "replication");
            if (!"slave".equals(infoField(info, "role")) || !Integer.toString(master.port())
                    .equals(infoField(info, "master_port")) || !"up".equals(infoField(info, "master_link_status"))) {
                throw new NotYet("port " + replica.port() + " reports role " + infoField(info, "role") + ", master port "
                        + infoField(info, "master_port") + ", link " + infoField(info, "master_link_status"));
            }
            return null;
        });
    }

    /** Stops every process by its pid ({@link RedisServerProcess#close()}), Sentinels first. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<RedisServerProcess> all = new ArrayList<>(dataNodes);
        all.addAll(sentinels);
        closeAll(all);
    }

    private RedisServerProcess agreedMaster() throws NotYet {
        Integer port = null;
        for (RedisServerProcess sentinel : running(sentinels)) {
            Object reply = sentinelQuery(sentinel, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName);
            if (!(reply instanceof List<?> address) || address.size() != 2) {
                throw new NotYet("Sentinel " + sentinel.port() + " answered " + reply);
            }
            int named = Integer.parseInt(String.valueOf(address.get(1)));
            if (port != null && port != named) {
                throw new NotYet("Sentinels disagree: ports " + port + " and " + named);
            }
            port = named;
        }
        if (port == null) {
            throw new NotYet("no Sentinel is running");
        }
        int masterPort = port;
        RedisServerProcess master = dataNodes.stream().filter(n -> n.port() == masterPort).findFirst()
                .orElseThrow(() -> new NotYet("the Sentinels name port " + masterPort + ", not one of " + ports(dataNodes)));
        if (!master.isAlive() || !"master".equals(infoField(query(master, "INFO", "replication"), "role"))) {
            throw new NotYet("port " + masterPort + " is named master but is not running as one yet");
        }
        return master;
    }

    private void awaitFormed() {
        RedisServerProcess primary = dataNodes.get(0);
        for (RedisServerProcess replica : dataNodes.subList(1, dataNodes.size())) {
            awaitReplicaInSync(replica, FORM_TIMEOUT);
        }
        int replicas = dataNodes.size() - 1;
        int others = sentinels.size() - 1;
        for (RedisServerProcess sentinel : sentinels) {
            await("Sentinel " + sentinel.port() + " knowing " + replicas + " replica(s) and " + others
                    + " other Sentinel(s)", FORM_TIMEOUT, () -> {
                        int knownReplicas = size(sentinelQuery(sentinel, "SENTINEL", "REPLICAS", masterName));
                        int knownSentinels = size(sentinelQuery(sentinel, "SENTINEL", "SENTINELS", masterName));
                        if (knownReplicas < replicas || knownSentinels < others) {
                            throw new NotYet("it knows " + knownReplicas + " replica(s), " + knownSentinels
                                    + " other Sentinel(s)");
                        }
                        return null;
                    });
        }
        LOG.info("Sentinel set up: primary {}, replicas {}, Sentinels {} (master name {})", primary.port(),
                ports(dataNodes.subList(1, dataNodes.size())), ports(sentinels), masterName);
    }

    private static int size(Object reply) throws NotYet {
        if (reply instanceof List<?> list) {
            return list.size();
        }
        throw new NotYet("unexpected reply " + reply);
    }

    private List<RedisServerProcess> withRole(String role) {
        List<RedisServerProcess> result = new ArrayList<>();
        for (RedisServerProcess node : running(dataNodes)) {
            try {
                if (role.equals(infoField(query(node, "INFO", "replication"), "role"))) {
                    result.add(node);
                }
            } catch (NotYet e) {
                // died or not answering since the isAlive() check: it is neither
            }
        }
        return result;
    }

    private String query(RedisServerProcess node, String... command) throws NotYet {
        try {
            String reply = Resp.call(node.port(), password, command);
            if (reply == null || reply.startsWith("-")) {
                throw new NotYet(command[0] + " on port " + node.port() + " replied " + reply);
            }
            return reply;
        } catch (IOException e) {
            throw new NotYet(command[0] + " on port " + node.port() + " failed: " + e);
        }
    }

    private Object sentinelQuery(RedisServerProcess sentinel, String... command) throws NotYet {
        try {
            Object reply = Resp.query(sentinel.port(), sentinelPassword, command);
            if (reply instanceof String s && s.startsWith("-")) {
                throw new NotYet(String.join(" ", command) + " on Sentinel " + sentinel.port() + " replied " + s);
            }
            return reply;
        } catch (IOException e) {
            throw new NotYet(String.join(" ", command) + " on Sentinel " + sentinel.port() + " failed: " + e);
        }
    }

    private static List<RedisServerProcess> running(List<RedisServerProcess> processes) {
        return processes.stream().filter(RedisServerProcess::isAlive).toList();
    }

    private static List<Integer> ports(List<RedisServerProcess> processes) {
        return processes.stream().map(RedisServerProcess::port).toList();
    }

    private static String infoField(String info, String name) {
        String prefix = name + ":";
        return info.lines().filter(l -> l.startsWith(prefix)).map(l -> l.substring(prefix.length()).trim())
                .findFirst().orElse("<absent>");
    }

    private static void closeAll(List<RedisServerProcess> processes) {
        RuntimeException failure = null;
        for (int i = processes.size() - 1; i >= 0; i--) {
            try {
                processes.get(i).close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** Configures a {@link RedisSentinelProcesses}; every setting is optional. */
    public static final class Builder {
        private String masterName = DEFAULT_MASTER_NAME;
        private int replicas = 1;
        private int sentinels = 3;
        private int quorum = 2;
        private Duration downAfter = DEFAULT_DOWN_AFTER;
        private Duration failoverTimeout = DEFAULT_FAILOVER_TIMEOUT;
        private Path binary;
        private String password;
        private String sentinelPassword;

        private Builder() {
        }

        /** The name the Sentinels monitor the primary under; default {@value #DEFAULT_MASTER_NAME}. */
        public Builder masterName(String masterName) {
            Objects.requireNonNull(masterName, "masterName");
            if (masterName.isEmpty() || masterName.chars().anyMatch(c -> Character.isWhitespace(c) || c == '"')) {
                throw new IllegalArgumentException("Invalid master name: '" + masterName + "'");
            }
            this.masterName = masterName;
            return this;
        }

        /** Replicas of the primary; default 1. */
        public Builder replicas(int replicas) {
            if (replicas < 0) {
                throw new IllegalArgumentException("replicas must be >= 0: " + replicas);
            }
            this.replicas = replicas;
            return this;
        }

        /** Number of Sentinels and the quorum that must agree the master is down; default 3 and 2. */
        public Builder sentinels(int sentinels, int quorum) {
            if (sentinels < 1 || quorum < 1 || quorum > sentinels) {
                throw new IllegalArgumentException("need 1 <= quorum <= sentinels: " + quorum + " of " + sentinels);
            }
            this.sentinels = sentinels;
            this.quorum = quorum;
            return this;
        }

        /** {@code down-after-milliseconds}: default 1 s (Redis's own is 30 s). */
        public Builder downAfter(Duration downAfter) {
            this.downAfter = positive(downAfter, "downAfter");
            return this;
        }

        /** {@code failover-timeout}: default 5 s (Redis's own is 3 minutes). */
        public Builder failoverTimeout(Duration failoverTimeout) {
            this.failoverTimeout = positive(failoverTimeout, "failoverTimeout");
            return this;
        }

        /**
         * The redis-server executable (6.2 or later); default: {@link RedisServerProcess#machineBinary()} if there is
         * one, else {@link RedisServerProcess#bundledBinary()}.
         */
        public Builder binary(Path binary) {
            this.binary = Objects.requireNonNull(binary, "binary");
            return this;
        }

        /**
         * The data nodes' {@code requirepass} (and {@code masterauth}); the Sentinels get it as {@code auth-pass}.
         * Default: none.
         */
        public Builder password(String password) {
            this.password = nonEmpty(password, "password");
            return this;
        }

        /** The Sentinels' own {@code requirepass}; default: none. */
        public Builder sentinelPassword(String sentinelPassword) {
            this.sentinelPassword = nonEmpty(sentinelPassword, "sentinelPassword");
            return this;
        }

        /**
         * Starts the primary, the replicas and the Sentinels and waits until they are ready (see the class
         * description). On failure, stops whatever it started.
         *
         * @throws IllegalStateException if a process fails to start or the set is not ready within 30 s per step
         */
        public RedisSentinelProcesses start() {
            Path bin = binary != null ? binary
                    : RedisServerProcess.machineBinary().orElseGet(RedisServerProcess::bundledBinary);
            List<RedisServerProcess> data = new ArrayList<>();
            List<RedisServerProcess> watchers = new ArrayList<>();
            try {
                RedisServerProcess primary = dataNode(bin).start();
                data.add(primary);
                for (int i = 0; i < replicas; i++) {
                    data.add(dataNode(bin).setting("replicaof", "127.0.0.1", Integer.toString(primary.port())).start());
                }
                for (int i = 0; i < sentinels; i++) {
                    watchers.add(sentinel(bin, primary.port()).start());
                }
                RedisSentinelProcesses set = new RedisSentinelProcesses(this, data, watchers);
                set.awaitFormed();
                return set;
            } catch (RuntimeException e) {
                List<RedisServerProcess> all = new ArrayList<>(data);
                all.addAll(watchers);
                try {
                    closeAll(all);
                } catch (RuntimeException closeFailure) {
                    e.addSuppressed(closeFailure);
                }
                throw e;
            }
        }

        private RedisServerProcess.Builder dataNode(Path bin) {
            RedisServerProcess.Builder node = RedisServerProcess.builder()
                    .binary(bin)
                    // why: Redis 7 defaults to diskless sync with a 5 s wait for more replicas before each sync
                    .setting("repl-diskless-sync", "yes")
                    .setting("repl-diskless-sync-delay", "0")
                    .setting("repl-ping-replica-period", "1");
            if (password != null) {
                node.setting("requirepass", password).setting("masterauth", password);
            }
            return node;
        }

        private RedisServerProcess.Builder sentinel(Path bin, int primaryPort) {
            RedisServerProcess.Builder node = RedisServerProcess.builder()
                    .binary(bin)
                    .sentinelMode(true)
                    .setting("sentinel", "monitor", masterName, "127.0.0.1", Integer.toString(primaryPort),
                            Integer.toString(quorum))
                    .setting("sentinel", "down-after-milliseconds", masterName, Long.toString(downAfter.toMillis()))
                    .setting("sentinel", "failover-timeout", masterName, Long.toString(failoverTimeout.toMillis()))
                    .setting("sentinel", "parallel-syncs", masterName, "1");
            if (password != null) {
                node.setting("sentinel", "auth-pass", masterName, password);
            }
            if (sentinelPassword != null) {
                // why: Sentinels talk to each other too, with the same password
                node.setting("requirepass", sentinelPassword).setting("sentinel", "sentinel-pass", sentinelPassword);
            }
            return node;
        }

        private static Duration positive(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (d.toMillis() < 1) {
                throw new IllegalArgumentException(name + " must be at least 1 ms: " + d);
            }
            return d;
        }

        private static String nonEmpty(String value, String name) {
            Objects.requireNonNull(value, name);
            if (value.isEmpty() || value.chars().anyMatch(c -> Character.isWhitespace(c) || c == '"')) {
                throw new IllegalArgumentException(name + " must be non-empty without spaces or quotes");
            }
            return value;
        }
    }
}
