package io.delayq.embedded;

import static io.delayq.embedded.Polling.await;

import io.delayq.embedded.Polling.NotYet;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Redis Cluster on 127.0.0.1: one {@link RedisServerProcess} per node, each in cluster mode with its own
 * auto-picked port and temp data dir. The cluster is built with plain cluster commands ({@code CLUSTER ADDSLOTS},
 * {@code MEET}, {@code REPLICATE}), so it needs neither {@code redis-cli} nor Ruby, only a {@code redis-server}
 * binary: the one on {@code PATH} if there is one, else the bundled 6.2 build.
 *
 * <pre>{@code
 * try (RedisClusterProcesses cluster = RedisClusterProcesses.builder().start()) {   // 3 masters, 1 replica each
 *     RedisClusterClient client = RedisClusterClient.create(cluster.seedUrl());
 *     ...
 *     int slot = RedisClusterProcesses.slot("{dq:emails:0}");
 *     cluster.killMaster(slot);                                  // SIGKILL
 *     cluster.awaitFailover(slot, Duration.ofSeconds(15));       // a replica took over
 * }
 * }</pre>
 *
 * <p>{@link Builder#start()} returns once every node sees the same complete topology, {@code cluster_state:ok},
 * and every replica has synced with its master. A failover takes roughly the node timeout (default 1.5 s) plus one to
 * two seconds for the election; it needs at least three masters, as only a majority of masters can authorize it.
 * Instances are thread-safe.
 */
public final class RedisClusterProcesses implements AutoCloseable {

    /** Number of hash slots in a Redis Cluster. */
    public static final int SLOTS = 16384;
    public static final int DEFAULT_MASTERS = 3;
    public static final int DEFAULT_REPLICAS_PER_MASTER = 1;
    public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(1500);

    private static final Logger LOG = LoggerFactory.getLogger(RedisClusterProcesses.class);

    /** Bound on each phase of forming the cluster. */
    private static final Duration FORM_TIMEOUT = Duration.ofSeconds(30);
    private static final int LOG_END_LINES = 5;
    /** Set from {@link Builder#nodeTimeout} or needed as they are to form the cluster. */
    private static final Set<String> RESERVED_SETTINGS = Set.of("cluster-node-timeout", "cluster-config-file");

    private final int masterCount;
    private final int replicasPerMaster;
    /** The initial masters first, then the replicas of master 0, of master 1, ... */
    private final List<RedisServerProcess> nodes;
    private final String password;
    private boolean closed;

    private RedisClusterProcesses(Builder b, List<RedisServerProcess> nodes) {
        this.masterCount = b.masters;
        this.replicasPerMaster = b.replicasPerMaster;
        this.nodes = List.copyOf(nodes);
        this.password = b.password;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * The hash slot of {@code key}: CRC16 (XMODEM) of its UTF-8 bytes mod 16384, hashing only the part between the
     * first <code>{</code> and the next <code>}</code> when that part is not empty, as Redis does.
     */
    public static int slot(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int from = 0;
        int to = bytes.length;
        int open = indexOf(bytes, '{', 0);
        if (open >= 0) {
            int close = indexOf(bytes, '}', open + 1);
            if (close > open + 1) {
                from = open + 1;
                to = close;
            }
        }
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (bytes[i] & 0xFF) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
        }
        return crc & (SLOTS - 1);
    }

    /** Every node in start order, whatever its current role and whether running or not. */
    public List<RedisServerProcess> nodes() {
        return nodes;
    }

    /** The running nodes that currently say they are masters ({@code INFO replication}). */
    public List<RedisServerProcess> masters() {
        return withRole("master");
    }

    /** The running nodes that currently say they are replicas ({@code INFO replication}). */
    public List<RedisServerProcess> replicas() {
        return withRole("slave");
    }

    /** {@code redis://127.0.0.1:<port>} of the first node, enough for a cluster client to discover the rest. */
    public String seedUrl() {
        return nodes.get(0).uri();
    }

    /** The {@code redis://127.0.0.1:<port>} URL of every node, comma-separated, in {@link #nodes()} order. */
    public String seedUrls() {
        return nodes.stream().map(RedisServerProcess::uri).collect(Collectors.joining(","));
    }

    /**
     * The node that serves {@code slot} according to {@code CLUSTER NODES} of the first running node that answers.
     * Right after a master dies, and until a replica has taken over, that is still the dead master.
     *
     * @throws IllegalStateException if no running node answers or none assigns the slot
     */
    public RedisServerProcess masterOfSlot(int slot) {
        checkSlot(slot);
        List<String> seen = new ArrayList<>();
        for (RedisServerProcess node : running()) {
            try {
                NodeLine owner = ownerOf(slot, NodeLine.parse(query(node, "CLUSTER", "NODES")));
                if (owner != null) {
                    return byPort(owner.port);
                }
                seen.add(address(node) + " assigns slot " + slot + " to no master");
            } catch (NotYet e) {
                seen.add(e.getMessage());
            }
        }
        throw new IllegalStateException("Cannot tell which node serves slot " + slot + ": "
                + (seen.isEmpty() ? "no node is running" : String.join("; ", seen)));
    }

    /**
     * SIGKILLs the master serving {@code slot} (see {@link #masterOfSlot}) and returns it; it can come back later
     * as a replica with {@link RedisServerProcess#restart()}.
     *
     * @throws IllegalStateException if that master is not running, e.g. because no failover has happened yet since
     *     it was killed; call {@link #awaitFailover} first
     */
    public RedisServerProcess killMaster(int slot) {
        RedisServerProcess master = masterOfSlot(slot);
        if (!master.isAlive()) {
            throw new IllegalStateException("Slot " + slot + " is still assigned to " + address(master)
                    + ", which is not running; call awaitFailover(" + slot + ", timeout) first");
        }
        long pid = master.pid();
        master.kill();
        LOG.info("Killed master {} (pid {}) serving slot {}", address(master), pid, slot);
        return master;
    }

    /**
     * Waits until every running node agrees that a running node serves {@code slot} as master, that node says it is a
     * master, and every running node reports {@code cluster_state:ok}; returns that node. After
     * {@link #killMaster} this is the promoted replica; without a dead master it returns at once.
     *
     * @throws IllegalStateException after {@code timeout}, with what the nodes reported last
     */
    public RedisServerProcess awaitFailover(int slot, Duration timeout) {
        checkSlot(slot);
        Objects.requireNonNull(timeout, "timeout");
        long start = System.nanoTime();
        RedisServerProcess master = await("running master for slot " + slot, timeout, () -> liveMasterOf(slot));
        LOG.info("Slot {} served by master {} with cluster_state:ok after {} ms", slot, address(master),
                millisSince(start));
        return master;
    }

    /** Stops every node by its pid ({@link RedisServerProcess#close()}) and deletes their data dirs. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closeAll(nodes);
    }

    /** Forms the cluster out of freshly started nodes; {@code startNanos} is when the first node was started. */
    private void form(Path binary, long startNanos) {
        List<String> ids = new ArrayList<>();
        for (RedisServerProcess node : nodes) {
            ids.add(command(node, "CLUSTER", "MYID"));
        }
        for (int m = 0; m < masterCount; m++) {
            List<String> addSlots = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = m * SLOTS / masterCount; slot < (m + 1) * SLOTS / masterCount; slot++) {
                addSlots.add(Integer.toString(slot));
            }
            command(nodes.get(m), addSlots.toArray(String[]::new));
        }
        // why: distinct epochs up front, as redis-cli does, spare the nodes resolving epoch collisions one by one.
        for (int i = 0; i < nodes.size(); i++) {
            command(nodes.get(i), "CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
        }
        for (RedisServerProcess node : nodes.subList(1, nodes.size())) {
            command(node, "CLUSTER", "MEET", Ports.LOOPBACK.getHostAddress(), Integer.toString(nodes.get(0).port()));
        }
        await("handshake between all " + nodes.size() + " nodes", FORM_TIMEOUT, () -> everyNodeKnows(ids));
        for (int r = masterCount; r < nodes.size(); r++) {
            RedisServerProcess replica = nodes.get(r);
            String masterId = ids.get(masterIndexOf(r));
            // why: the replica may not have learnt from gossip yet that the target is a master; retry until it has.
            await("CLUSTER REPLICATE accepted by " + address(replica), FORM_TIMEOUT,
                    () -> query(replica, "CLUSTER", "REPLICATE", masterId));
        }
        await("complete, healthy cluster", FORM_TIMEOUT, () -> readiness(ids));
        LOG.info("Redis Cluster ready in {} ms: masters on ports {}, replicas on ports {}; {} ({})",
                millisSince(startNanos), ports(nodes.subList(0, masterCount)),
                ports(nodes.subList(masterCount, nodes.size())), binary, versionTag(binary));
    }

    private int masterIndexOf(int replicaIndex) {
        return (replicaIndex - masterCount) / replicasPerMaster;
    }

    private Void everyNodeKnows(List<String> ids) throws NotYet {
        for (RedisServerProcess node : nodes) {
            String text = query(node, "CLUSTER", "NODES");
            List<NodeLine> lines = NodeLine.parse(text);
            boolean complete = lines.stream().map(l -> l.id).collect(Collectors.toSet()).equals(Set.copyOf(ids))
                    && lines.stream().noneMatch(l -> l.flags.contains("handshake") || l.flags.contains("noaddr"));
            if (!complete) {
                throw new NotYet(address(node) + " knows:\n" + text);
            }
        }
        return null;
    }

    /** Same topology everywhere, all slots covered, cluster_state:ok, and every replica in sync with its master. */
    private Void readiness(List<String> ids) throws NotYet {
        for (RedisServerProcess node : nodes) {
            requireStateOk(node);
            String text = query(node, "CLUSTER", "NODES");
            String problem = topologyProblem(NodeLine.parse(text), ids);
            if (problem != null) {
                throw new NotYet(address(node) + ": " + problem + " in its CLUSTER NODES:\n" + text);
            }
        }
        for (RedisServerProcess replica : nodes.subList(masterCount, nodes.size())) {
            String status = infoField(query(replica, "INFO", "replication"), "master_link_status");
            if (!"up".equals(status)) {
                throw new NotYet("replica " + address(replica) + " has master_link_status:" + status
                        + "; the end of its log:\n" + logEnd(replica));
            }
        }
        for (RedisServerProcess node : nodes) {
            requireFullSlotMap(node);
        }
        return null;
    }

    private String topologyProblem(List<NodeLine> lines, List<String> ids) {
        if (lines.size() != ids.size()) {
            return lines.size() + " nodes instead of " + ids.size();
        }
        BitSet covered = new BitSet(SLOTS);
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.get(i);
            NodeLine line = lines.stream().filter(l -> l.id.equals(id)).findFirst().orElse(null);
            if (line == null) {
                return "node " + address(nodes.get(i)) + " (" + id + ") missing";
            }
            if (line.flags.contains("fail") || line.flags.contains("fail?")) {
                return "node " + address(nodes.get(i)) + " flagged " + line.flags;
            }
            if (i < masterCount) {
                if (!line.flags.contains("master")) {
                    return "master " + address(nodes.get(i)) + " flagged " + line.flags;
                }
                covered.or(line.slots);
            } else if (!line.flags.contains("slave") || !ids.get(masterIndexOf(i)).equals(line.masterId)) {
                return "replica " + address(nodes.get(i)) + " flagged " + line.flags + " with master " + line.masterId;
            }
        }
        return covered.cardinality() == SLOTS ? null : (SLOTS - covered.cardinality()) + " slots not covered";
    }

    /**
     * Clients that read {@code CLUSTER SLOTS} must see every slot with its master and all its replicas. Redis 7 leaves
     * out replicas whose replication offset is still 0, which {@code repl-ping-replica-period 1} soon changes.
     */
    @SuppressWarnings("unchecked")
    private void requireFullSlotMap(RedisServerProcess node) throws NotYet {
        Object reply;
        try {
            reply = Resp.query(node.port(), password, "CLUSTER", "SLOTS");
        } catch (IOException e) {
            throw new NotYet("CLUSTER SLOTS on " + address(node) + " failed: " + e);
        }
        if (!(reply instanceof List)) {
            throw new NotYet("CLUSTER SLOTS on " + address(node) + " replied " + reply);
        }
        int complete = 0;
        List<String> seen = new ArrayList<>();
        for (Object item : (List<Object>) reply) {
            List<Object> range = (List<Object>) item;
            long first = (Long) range.get(0);
            long last = (Long) range.get(1);
            List<Object> ports = range.subList(2, range.size()).stream().map(n -> ((List<Object>) n).get(1)).toList();
            seen.add(first + "-" + last + " on " + ports);
            if (ports.size() == 1 + replicasPerMaster) {
                complete += (int) (last - first + 1);
            }
        }
        if (complete != SLOTS) {
            throw new NotYet("CLUSTER SLOTS on " + address(node) + " lists " + complete + " slots with a master and "
                    + replicasPerMaster + " replica(s): " + seen);
        }
    }

    private RedisServerProcess liveMasterOf(int slot) throws NotYet {
        List<RedisServerProcess> live = running();
        if (live.isEmpty()) {
            throw new NotYet("no node is running");
        }
        NodeLine agreed = null;
        RedisServerProcess agreedBy = null;
        for (RedisServerProcess node : live) {
            requireStateOk(node);
            String text = query(node, "CLUSTER", "NODES");
            NodeLine owner = ownerOf(slot, NodeLine.parse(text));
            if (owner == null) {
                throw new NotYet(address(node) + " assigns slot " + slot + " to no master:\n" + text);
            }
            if (agreed == null) {
                agreed = owner;
                agreedBy = node;
            } else if (agreed.port != owner.port) {
                throw new NotYet(address(agreedBy) + " says port " + agreed.port + " serves slot " + slot + ", "
                        + address(node) + " says port " + owner.port);
            }
        }
        RedisServerProcess master = byPort(agreed.port);
        if (!master.isAlive()) {
            throw new NotYet("slot " + slot + " still assigned to " + address(master) + ", which is not running");
        }
        String role = infoField(query(master, "INFO", "replication"), "role");
        if (!"master".equals(role)) {
            throw new NotYet("slot " + slot + " assigned to " + address(master) + ", which has role:" + role);
        }
        return master;
    }

    private void requireStateOk(RedisServerProcess node) throws NotYet {
        String state = infoField(query(node, "CLUSTER", "INFO"), "cluster_state");
        if (!"ok".equals(state)) {
            throw new NotYet(address(node) + " has cluster_state:" + state);
        }
    }

    private static NodeLine ownerOf(int slot, List<NodeLine> lines) {
        return lines.stream().filter(l -> l.flags.contains("master") && l.slots.get(slot)).findFirst().orElse(null);
    }

    private List<RedisServerProcess> withRole(String role) {
        List<RedisServerProcess> result = new ArrayList<>();
        for (RedisServerProcess node : running()) {
            try {
                if (role.equals(infoField(query(node, "INFO", "replication"), "role"))) {
                    result.add(node);
                }
            } catch (NotYet e) {
                // Died or not answering since the isAlive() check: it is neither.
            }
        }
        return result;
    }

    private List<RedisServerProcess> running() {
        return nodes.stream().filter(RedisServerProcess::isAlive).toList();
    }

    private RedisServerProcess byPort(int port) {
        return nodes.stream().filter(n -> n.port() == port).findFirst().orElseThrow(
                () -> new IllegalStateException("The cluster names a node on port " + port + " that is not one of "
                        + ports(nodes)));
    }

    /** Sends a command; a reply that is missing or an error, or an unreachable node, is {@link NotYet}. */
    private String query(RedisServerProcess node, String... command) throws NotYet {
        String name = command[0] + (command.length > 1 ? " " + command[1] : "");
        String reply;
        try {
            reply = Resp.call(node.port(), password, command);
        } catch (IOException e) {
            throw new NotYet(name + " on " + address(node) + " failed: " + e);
        }
        if (reply == null || reply.startsWith("-")) {
            throw new NotYet(name + " on " + address(node) + " replied " + reply);
        }
        return reply;
    }

    /** Like {@link #query}, for a command that must succeed the first time. */
    private String command(RedisServerProcess node, String... command) {
        try {
            return query(node, command);
        } catch (NotYet e) {
            throw new IllegalStateException("Cannot form the Redis Cluster: " + e.getMessage(), e);
        }
    }

    /** The last lines of the node's log (which {@link #close()} deletes along with its data dir). */
    private static String logEnd(RedisServerProcess node) {
        try {
            List<String> lines = Files.readAllLines(node.logFile(), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_END_LINES), lines.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read " + node.logFile() + ": " + e + ")";
        }
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

    private static void checkSlot(int slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IllegalArgumentException("slot must be in 0.." + (SLOTS - 1) + ": " + slot);
        }
    }

    private static int indexOf(byte[] bytes, char c, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == c) {
                return i;
            }
        }
        return -1;
    }

    private static String address(RedisServerProcess node) {
        return Ports.LOOPBACK.getHostAddress() + ":" + node.port();
    }

    private static List<Integer> ports(List<RedisServerProcess> processes) {
        return processes.stream().map(RedisServerProcess::port).toList();
    }

    /** {@code v=7.0.15} out of {@code redis-server --version}. */
    private static String versionTag(Path binary) {
        String version = RedisServerProcess.version(binary);
        return Arrays.stream(version.split(" ")).filter(t -> t.startsWith("v=")).findFirst()
                .orElse(version);
    }

    private static long millisSince(long nanoTime) {
        return (System.nanoTime() - nanoTime) / 1_000_000;
    }

    /** A condition not met yet; its message says what was seen instead. */
    /**
     * One line of {@code CLUSTER NODES}:
     * {@code <id> <ip:port@busport[,hostname]> <flags> <master-id|-> <ping> <pong> <epoch> <link> <slot ranges...>}.
     */
    private record NodeLine(String id, int port, Set<String> flags, String masterId, BitSet slots) {

        static List<NodeLine> parse(String text) {
            return text.lines().filter(l -> !l.isBlank()).map(NodeLine::parseLine).toList();
        }

        private static NodeLine parseLine(String line) {
            String[] f = line.trim().split(" ");
            String hostPort = f[1].substring(0, f[1].indexOf('@'));
            int port = Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
            BitSet slots = new BitSet(SLOTS);
            for (int i = 8; i < f.length; i++) {
                if (f[i].startsWith("[")) {
                    continue; // a slot being imported or migrated: still served by its current owner
                }
                int dash = f[i].indexOf('-');
                int first = Integer.parseInt(dash < 0 ? f[i] : f[i].substring(0, dash));
                int last = dash < 0 ? first : Integer.parseInt(f[i].substring(dash + 1));
                slots.set(first, last + 1);
            }
            return new NodeLine(f[0], port, Set.of(f[2].split(",")), f[3], slots);
        }
    }

    /** Configures a {@link RedisClusterProcesses}; every setting is optional. */
    public static final class Builder {
        private int masters = DEFAULT_MASTERS;
        private int replicasPerMaster = DEFAULT_REPLICAS_PER_MASTER;
        private Duration nodeTimeout = DEFAULT_NODE_TIMEOUT;
        private Path binary;
        private final List<String[]> settings = new ArrayList<>();
        private String password;
        /** Per node index: the environment variables of that node's process. */
        private final Map<Integer, Map<String, String>> environments = new HashMap<>();

        private Builder() {
        }

        /** Number of masters, which share the 16384 slots evenly; default 3, the least that can fail over. */
        public Builder masters(int masters) {
            if (masters < 1 || masters > SLOTS) {
                throw new IllegalArgumentException("masters must be in 1.." + SLOTS + ": " + masters);
            }
            this.masters = masters;
            return this;
        }

        /** Replicas of each master; default 1. With 0, a killed master's slots stay down. */
        public Builder replicasPerMaster(int replicasPerMaster) {
            if (replicasPerMaster < 0) {
                throw new IllegalArgumentException("replicasPerMaster must be >= 0: " + replicasPerMaster);
            }
            this.replicasPerMaster = replicasPerMaster;
            return this;
        }

        /**
         * {@code cluster-node-timeout}: how long a node may be unreachable before it counts as failing; default 1.5 s
         * (Redis's own is 15 s). A failover takes about this long plus one to two seconds.
         */
        public Builder nodeTimeout(Duration nodeTimeout) {
            Objects.requireNonNull(nodeTimeout, "nodeTimeout");
            if (nodeTimeout.toMillis() < 1) {
                throw new IllegalArgumentException("nodeTimeout must be at least 1 ms: " + nodeTimeout);
            }
            this.nodeTimeout = nodeTimeout;
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
         * Adds a config line to every node, after this class's own ({@code cluster-replica-validity-factor 0},
         * {@code repl-diskless-sync yes}, {@code repl-diskless-sync-delay 0}, {@code repl-ping-replica-period 1}), so
         * it can override them. With
         * {@code requirepass}, nodes also get it as {@code masterauth} unless that is set too.
         *
         * @throws IllegalArgumentException for {@code cluster-node-timeout} (use {@link #nodeTimeout}),
         *     {@code cluster-config-file}, and what {@link RedisServerProcess.Builder#setting} rejects
         */
        public Builder setting(String name, String... values) {
            Objects.requireNonNull(name, "name");
            String key = name.toLowerCase(Locale.ROOT);
            if (RESERVED_SETTINGS.contains(key)) {
                throw new IllegalArgumentException("'" + name + "' is set by RedisClusterProcesses"
                        + (key.equals("cluster-node-timeout") ? "; use nodeTimeout(..)" : ""));
            }
            RedisServerProcess.builder().setting(name, values); // validates
            settings.add(concat(name, values));
            if (key.equals("requirepass")) {
                password = values.length == 1 && !values[0].isEmpty() ? values[0] : null;
            }
            return this;
        }

        /**
         * Sets an environment variable of one node's process (see {@link RedisServerProcess.Builder#environment}),
         * by the node's index in {@link RedisClusterProcesses#nodes()}: the masters are 0 to {@code masters - 1}, the
         * m-th serving the m-th share of the slots, then come the replicas of master 0, of master 1, ... E.g. master
         * 0 with libfaketime's {@code LD_PRELOAD} and {@code FAKETIME=+20s} runs its clock 20 s ahead of the others.
         *
         * @throws IllegalArgumentException for a negative index, and what {@code RedisServerProcess.Builder}
         *     rejects; {@link #start()} rejects an index beyond the last node
         */
        public Builder environment(int node, String name, String value) {
            if (node < 0) {
                throw new IllegalArgumentException("node must be >= 0: " + node);
            }
            RedisServerProcess.builder().environment(name, value); // validates
            environments.computeIfAbsent(node, n -> new HashMap<>()).put(name, value);
            return this;
        }

        /**
         * Starts {@code masters * (1 + replicasPerMaster)} nodes, forms the cluster and waits until it is healthy
         * (see the class description). On failure, stops whatever it started.
         *
         * @throws IllegalStateException if a node fails to start, or the cluster is not formed within 30 s per step;
         *     the message says what the nodes reported
         */
        public RedisClusterProcesses start() {
            Path bin = binary != null ? binary
                    : RedisServerProcess.machineBinary().orElseGet(RedisServerProcess::bundledBinary);
            int nodeCount = masters * (1 + replicasPerMaster);
            environments.keySet().stream().filter(n -> n >= nodeCount).findFirst().ifPresent(n -> {
                throw new IllegalArgumentException("environment(..) names node " + n + ", but the cluster has "
                        + nodeCount + " nodes (0.." + (nodeCount - 1) + ")");
            });
            List<RedisServerProcess> started = new ArrayList<>();
            long startNanos = System.nanoTime();
            try {
                for (int i = 0; i < nodeCount; i++) {
                    started.add(nodeBuilder(bin, i).start());
                }
                RedisClusterProcesses cluster = new RedisClusterProcesses(this, started);
                cluster.form(bin, startNanos);
                return cluster;
            } catch (RuntimeException e) {
                try {
                    closeAll(started);
                } catch (RuntimeException closeFailure) {
                    e.addSuppressed(closeFailure);
                }
                throw e;
            }
        }

        private RedisServerProcess.Builder nodeBuilder(Path bin, int index) {
            RedisServerProcess.Builder node = RedisServerProcess.builder()
                    .binary(bin)
                    .clusterMode(true)
                    .setting("cluster-node-timeout", Long.toString(nodeTimeout.toMillis()))
                    // why: a replica whose link to the dead master broke long ago may still take over.
                    .setting("cluster-replica-validity-factor", "0")
                    // why: Redis 7 defaults to diskless sync with a 5 s wait for more replicas before each sync.
                    .setting("repl-diskless-sync", "yes")
                    .setting("repl-diskless-sync-delay", "0")
                    // why: Redis 7 hides a replica from CLUSTER SLOTS until its replication offset moves; this moves
                    // it within a second instead of ten.
                    .setting("repl-ping-replica-period", "1");
            if (password != null) {
                node.setting("masterauth", password);
            }
            settings.forEach(s -> node.setting(s[0], Arrays.copyOfRange(s, 1, s.length)));
            environments.getOrDefault(index, Map.of()).forEach(node::environment);
            return node;
        }

        private static String[] concat(String name, String... values) {
            String[] line = new String[values.length + 1];
            line[0] = name;
            System.arraycopy(values, 0, line, 1, values.length);
            return line;
        }
    }
}
