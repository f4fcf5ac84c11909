package io.delayq.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loopback TCP proxy for tests, listening on a free 127.0.0.1 port and forwarding every connection to a target,
 * that can be told to fail the way real networks fail.
 *
 * <p>The failure it exists for is the silent one: a NAT entry that expired or a proxy that black-holes traffic. The
 * connection stays open, nothing is answered, and — because the proxy keeps reading what the client sends, so its
 * kernel keeps ACKing — neither TCP retransmission timeouts nor TCP keepalive on the client ever notice.
 *
 * <pre>{@code
 * try (TcpProxy proxy = new TcpProxy("127.0.0.1", redis.port()).start()) {
 *     RedisClient client = RedisClient.create("redis://127.0.0.1:" + proxy.port());
 *     ...
 *     proxy.blackHoleExisting();   // the client's open connections go silent; new ones work
 *     proxy.stallAll();            // every connection, old and new, goes silent
 *     proxy.refuseNew();           // nobody listens: connects are refused, as when the server is down
 *     proxy.forwardAll();          // new connections are forwarded again, on the same port
 *     proxy.closeAll();            // every open connection is reset (RST)
 * }
 * }</pre>
 *
 * <p>All forwarding runs on one daemon thread ({@code delayq-tcp-proxy-<port>}) with a NIO selector, however many
 * connections there are. The control methods are thread-safe and take effect before they return: once
 * {@link #blackHoleExisting()} returns, not one more byte is forwarded on the connections open at that moment.
 */
public final class TcpProxy implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TcpProxy.class);

    private static final int BUFFER_BYTES = 64 * 1024;
    private static final Duration CONTROL_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);

    /** What happens to connections accepted from now on. */
    private enum Mode {
        FORWARD, STALL, REFUSE
    }

    private final InetSocketAddress target;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

    // Touched by the selector thread only, once started.
    private final Set<Pipe> pipes = new LinkedHashSet<>();
    private final ByteBuffer discard = ByteBuffer.allocate(BUFFER_BYTES);
    private Mode mode = Mode.FORWARD;
    private ServerSocketChannel listener;

    private Selector selector;
    private Thread thread;
    private volatile int port;
    private volatile boolean started;
    private volatile boolean closed;

    /** A proxy to {@code targetHost:targetPort}; nothing listens until {@link #start()}. */
    public TcpProxy(String targetHost, int targetPort) {
        Objects.requireNonNull(targetHost, "targetHost");
        if (targetPort <= 0 || targetPort > 65535) {
            throw new IllegalArgumentException("targetPort must be in 1..65535, not " + targetPort);
        }
        this.target = new InetSocketAddress(targetHost, targetPort);
    }

    /**
     * Binds a free port on 127.0.0.1 and starts forwarding.
     *
     * @return this proxy
     * @throws IllegalStateException if already started or closed
     */
    public synchronized TcpProxy start() {
        if (started || closed) {
            throw new IllegalStateException(closed ? "TcpProxy is closed" : "TcpProxy is already started");
        }
        try {
            selector = Selector.open();
            listener = openListener(0);
            port = ((InetSocketAddress) listener.getLocalAddress()).getPort();
        } catch (IOException e) {
            closeQuietly(listener);
            closeQuietly(selector);
            throw new UncheckedIOException("Cannot start a TCP proxy to " + target, e);
        }
        thread = new Thread(this::run, "delayq-tcp-proxy-" + port);
        thread.setDaemon(true);
        started = true;
        thread.start();
        LOG.debug("TCP proxy 127.0.0.1:{} -> {} started", port, target);
        return this;
    }

    /** The loopback port clients connect to; it stays the same across {@link #refuseNew()} and {@link #forwardAll()}. */
    public int port() {
        requireStarted();
        return port;
    }

    /**
     * Connections open now go silent in both directions but stay open; what the client sends is still read (and
     * dropped), so the client's kernel sees its data ACKed. Connections made later are forwarded as before.
     */
    public void blackHoleExisting() {
        onLoop(() -> {
            for (Pipe pipe : pipes) {
                pipe.silence();
            }
        });
    }

    /**
     * Every connection, open now or made later, goes silent: new connections are accepted but nothing is forwarded,
     * as with a proxy whose upstream hangs. Undone for new connections by {@link #forwardAll()}.
     */
    public void stallAll() {
        onLoop(() -> {
            mode = Mode.STALL;
            reopenListener();
            for (Pipe pipe : pipes) {
                pipe.silence();
            }
        });
    }

    /**
     * Stops listening, so that new connections are refused (as when the server is down); open connections are
     * left as they are. Undone by {@link #forwardAll()}.
     */
    public void refuseNew() {
        onLoop(() -> {
            mode = Mode.REFUSE;
            if (listener != null) {
                closeQuietly(listener);
                listener = null;
            }
        });
    }

    /**
     * New connections are forwarded again (listening again on the same port if {@link #refuseNew()} stopped it).
     * Connections silenced earlier stay silent: their byte streams lost data, so they could never be correct again.
     *
     * @throws UncheckedIOException if the port cannot be bound again
     */
    public void forwardAll() {
        onLoop(() -> {
            mode = Mode.FORWARD;
            reopenListener();
        });
    }

    /** Resets (RST) every open connection, on both the client's and the target's side. */
    public void closeAll() {
        onLoop(() -> {
            for (Pipe pipe : new ArrayList<>(pipes)) {
                pipe.reset();
            }
        });
    }

    /** How many connections are open through the proxy now (silenced ones included). */
    public int connectionCount() {
        int[] count = new int[1];
        onLoop(() -> count[0] = pipes.size());
        return count[0];
    }

    /** Stops listening and closes every connection. Idempotent. */
    @Override
    public void close() {
        Thread loop;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            loop = thread;
        }
        if (loop == null) {
            return;
        }
        selector.wakeup();
        try {
            loop.join(STOP_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (loop.isAlive()) {
            LOG.warn("TCP proxy thread {} did not stop within {}", loop.getName(), STOP_TIMEOUT);
        }
    }

    @Override
    public String toString() {
        return "TcpProxy[127.0.0.1:" + port + " -> " + target + "]";
    }

    private void requireStarted() {
        if (!started) {
            throw new IllegalStateException("TcpProxy is not started");
        }
    }

    /** Runs {@code task} on the selector thread and waits for it, so that it has taken effect on return. */
    private void onLoop(Runnable task) {
        requireStarted();
        if (closed) {
            throw new IllegalStateException("TcpProxy is closed");
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        tasks.add(() -> {
            try {
                task.run();
                // why: a channel closed while registered is only really closed (FIN/RST sent, port released)
                // when the selector deregisters it; do that now rather than at the next event.
                selector.selectNow();
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        selector.wakeup();
        try {
            done.get(CONTROL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for the TCP proxy", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new IllegalStateException("TCP proxy operation failed", cause);
        } catch (TimeoutException e) {
            throw new IllegalStateException("TCP proxy thread did not answer within " + CONTROL_TIMEOUT
                    + (thread.isAlive() ? "" : " (it has stopped)"), e);
        }
    }

    private ServerSocketChannel openListener(int bindPort) throws IOException {
        ServerSocketChannel channel = ServerSocketChannel.open();
        try {
            channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            channel.bind(new InetSocketAddress(Ports.LOOPBACK, bindPort), 128);
            channel.configureBlocking(false);
            channel.register(selector, SelectionKey.OP_ACCEPT);
            return channel;
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            throw e;
        }
    }

    private void reopenListener() {
        if (listener == null) {
            try {
                listener = openListener(port);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot listen on 127.0.0.1:" + port + " again", e);
            }
        }
    }

    private void run() {
        try {
            while (!closed) {
                selector.select();
                Runnable task;
                while ((task = tasks.poll()) != null) {
                    task.run();
                }
                Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext()) {
                    SelectionKey key = keys.next();
                    keys.remove();
                    handle(key);
                }
            }
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                LOG.error("TCP proxy {} stopped on an unexpected error", this, e);
            }
        } finally {
            for (Pipe pipe : new ArrayList<>(pipes)) {
                pipe.close();
            }
            closeQuietly(listener);
            closeQuietly(selector);
            LOG.debug("TCP proxy 127.0.0.1:{} -> {} stopped", port, target);
        }
    }

    private void handle(SelectionKey key) {
        if (!key.isValid()) {
            return;
        }
        if (key.isAcceptable()) {
            accept((ServerSocketChannel) key.channel());
            return;
        }
        End end = (End) key.attachment();
        Pipe pipe = end.pipe;
        try {
            if (key.isConnectable()) {
                pipe.finishConnect();
            }
            if (key.isValid() && key.isReadable()) {
                pipe.read(end.client);
            }
            if (key.isValid() && key.isWritable()) {
                pipe.flush(end.client);
            }
        } catch (IOException e) {
            LOG.debug("TCP proxy connection {} failed: {}", pipe, e.toString());
            pipe.reset();
        }
    }

    private void accept(ServerSocketChannel server) {
        while (true) {
            SocketChannel client;
            try {
                client = server.accept();
            } catch (IOException e) {
                LOG.debug("TCP proxy accept failed: {}", e.toString());
                return;
            }
            if (client == null) {
                return;
            }
            try {
                client.configureBlocking(false);
                client.setOption(StandardSocketOptions.TCP_NODELAY, true);
                Pipe pipe = new Pipe(client);
                pipes.add(pipe);
                if (mode == Mode.FORWARD) {
                    pipe.connectUpstream();
                } else {
                    pipe.silence();
                }
            } catch (IOException e) {
                LOG.debug("TCP proxy cannot set up a connection from {}: {}", client.socket().getRemoteSocketAddress(),
                        e.toString());
                resetQuietly(client);
            }
        }
    }

    /** Which end of a pipe a selection key belongs to. */
    private static final class End {
        final Pipe pipe;
        final boolean client;

        End(Pipe pipe, boolean client) {
            this.pipe = pipe;
            this.client = client;
        }
    }

    /** One proxied connection: the client's socket, the socket to the target, and a buffer each way. */
    private final class Pipe {
        final SocketChannel client;
        final SelectionKey clientKey;
        final ByteBuffer toTarget = ByteBuffer.allocate(BUFFER_BYTES);
        final ByteBuffer toClient = ByteBuffer.allocate(BUFFER_BYTES);
        SocketChannel upstream;
        SelectionKey upstreamKey;
        boolean connected;
        boolean silent;

        Pipe(SocketChannel client) throws IOException {
            this.client = client;
            // why: read nothing from the client until the target is connected, so nothing piles up here
            this.clientKey = client.register(selector, 0, new End(this, true));
        }

        void connectUpstream() throws IOException {
            upstream = SocketChannel.open();
            upstream.configureBlocking(false);
            upstream.setOption(StandardSocketOptions.TCP_NODELAY, true);
            upstreamKey = upstream.register(selector, SelectionKey.OP_CONNECT, new End(this, false));
            if (upstream.connect(target)) {
                finishConnect();
            }
        }

        void finishConnect() throws IOException {
            if (connected || !upstream.finishConnect()) {
                return;
            }
            connected = true;
            upstreamKey.interestOps(SelectionKey.OP_READ);
            clientKey.interestOps(SelectionKey.OP_READ);
        }

        /** From now on every byte read from either side is dropped; the client is still read so that it is ACKed. */
        void silence() {
            silent = true;
            toTarget.clear();
            toClient.clear();
            if (clientKey.isValid()) {
                clientKey.interestOps(SelectionKey.OP_READ);
            }
            if (upstreamKey != null && upstreamKey.isValid()) {
                upstreamKey.interestOps(connected ? SelectionKey.OP_READ : SelectionKey.OP_CONNECT);
            }
        }

        void read(boolean fromClient) throws IOException {
            SocketChannel from = fromClient ? client : upstream;
            if (silent) {
                discard.clear();
                if (from.read(discard) < 0) {
                    if (fromClient) {
                        close();
                    } else {
                        // The target gave up on its side; the client must still see nothing at all.
                        closeQuietly(upstream);
                        upstreamKey = null;
                    }
                }
                return;
            }
            ByteBuffer buffer = fromClient ? toTarget : toClient;
            if (from.read(buffer) < 0) {
                close();
                return;
            }
            flush(!fromClient);
        }

        /** Writes what is buffered for {@code toClientSide}'s socket; while some is left, reads no more from its peer. */
        void flush(boolean toClientSide) throws IOException {
            if (silent) {
                return;
            }
            ByteBuffer buffer = toClientSide ? toClient : toTarget;
            SocketChannel to = toClientSide ? client : upstream;
            SelectionKey toKey = toClientSide ? clientKey : upstreamKey;
            SelectionKey fromKey = toClientSide ? upstreamKey : clientKey;
            buffer.flip();
            to.write(buffer);
            buffer.compact();
            if (buffer.position() > 0) {
                fromKey.interestOps(fromKey.interestOps() & ~SelectionKey.OP_READ);
                toKey.interestOps(toKey.interestOps() | SelectionKey.OP_WRITE);
            } else {
                toKey.interestOps(toKey.interestOps() & ~SelectionKey.OP_WRITE);
                fromKey.interestOps(fromKey.interestOps() | SelectionKey.OP_READ);
            }
        }

        /** Both sockets closed with RST (SO_LINGER 0) rather than FIN. */
        void reset() {
            pipes.remove(this);
            resetQuietly(client);
            if (upstream != null) {
                resetQuietly(upstream);
            }
        }

        void close() {
            pipes.remove(this);
            closeQuietly(client);
            closeQuietly(upstream);
        }

        @Override
        public String toString() {
            return client.socket().getRemoteSocketAddress() + " -> " + target + (silent ? " (silent)" : "");
        }
    }

    private static void resetQuietly(SocketChannel channel) {
        try {
            channel.setOption(StandardSocketOptions.SO_LINGER, 0);
        } catch (IOException | RuntimeException e) {
            // already closed or never connected: closing is all that is left
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            LOG.trace("ignored on close: {}", e.toString());
        }
    }
}
