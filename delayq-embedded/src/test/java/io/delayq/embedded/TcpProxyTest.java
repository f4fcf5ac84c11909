package io.delayq.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TcpProxyTest {

    private static final int SILENCE_MILLIS = 500;

    private EchoServer echo;
    private TcpProxy proxy;
    private final List<Socket> sockets = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        echo = new EchoServer();
        proxy = new TcpProxy("127.0.0.1", echo.port()).start();
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        proxy.close();
        echo.close();
    }

    @Test
    void forwardsBothWaysOnAFreeLoopbackPort() throws IOException {
        assertThat(proxy.port()).isPositive().isNotEqualTo(echo.port());

        Socket socket = connect();

        assertThat(roundTrip(socket, "hello")).isEqualTo("hello");
        assertThat(roundTrip(socket, "again")).isEqualTo("again");
        assertThat(echo.received()).isEqualTo(10);
    }

    @Test
    void forwardsMoreThanABufferInBothDirections() throws Exception {
        Socket socket = connect();
        byte[] sent = new byte[3 * 1024 * 1024];
        for (int i = 0; i < sent.length; i++) {
            sent[i] = (byte) (i * 31);
        }
        // The echo sends back while we are still sending: write on another thread, or both sides would block.
        CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
            try {
                socket.getOutputStream().write(sent);
                socket.getOutputStream().flush();
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        byte[] back = socket.getInputStream().readNBytes(sent.length);
        writing.get(10, TimeUnit.SECONDS);

        assertThat(Arrays.equals(back, sent)).as("echoed bytes equal sent bytes").isTrue();
    }

    @Test
    void blackHoledConnectionsStayOpenAndSilentWhileTheirDataIsStillAcked() throws Exception {
        Socket old = connect();
        assertThat(roundTrip(old, "ping")).isEqualTo("ping");
        long receivedBefore = echo.received();

        proxy.blackHoleExisting();

        send(old, "lost");
        assertSilent(old);
        // The proxy keeps reading what the client sends, so the client's writes never block: far more than the
        // socket buffers could hold is taken off its hands.
        CompletableFuture<Void> flood = CompletableFuture.runAsync(() -> {
            try {
                old.getOutputStream().write(new byte[16 * 1024 * 1024]);
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        flood.get(10, TimeUnit.SECONDS);
        assertThat(echo.received()).as("bytes that reached the target").isEqualTo(receivedBefore);
        assertThat(old.isClosed()).isFalse();
        assertThat(proxy.connectionCount()).isEqualTo(1);

        Socket fresh = connect();
        assertThat(roundTrip(fresh, "new")).isEqualTo("new");
        assertSilent(old);
    }

    @Test
    void stallAllSilencesOldAndNewConnectionsUntilForwardAllServesNewOnes() throws IOException {
        Socket old = connect();
        assertThat(roundTrip(old, "a")).isEqualTo("a");

        proxy.stallAll();

        send(old, "b");
        assertSilent(old);
        Socket duringStall = connect();
        send(duringStall, "c");
        assertSilent(duringStall);

        proxy.forwardAll();

        Socket after = connect();
        assertThat(roundTrip(after, "d")).isEqualTo("d");
        send(old, "e");
        send(duringStall, "f");
        assertSilent(old);
        assertSilent(duringStall);
    }

    @Test
    void closeAllResetsEveryConnectionAndNewOnesStillWork() throws IOException {
        Socket first = connect();
        Socket second = connect();
        assertThat(roundTrip(first, "1")).isEqualTo("1");
        assertThat(roundTrip(second, "2")).isEqualTo("2");

        proxy.closeAll();

        assertReset(first);
        assertReset(second);
        assertThat(proxy.connectionCount()).isZero();
        assertThat(roundTrip(connect(), "3")).isEqualTo("3");
    }

    @Test
    void refuseNewRefusesConnectsUntilForwardAllListensOnTheSamePortAgain() throws IOException {
        int port = proxy.port();
        Socket open = connect();
        assertThat(roundTrip(open, "x")).isEqualTo("x");

        proxy.refuseNew();

        assertThatThrownBy(this::connect).isInstanceOf(ConnectException.class);
        assertThat(roundTrip(open, "still")).as("open connections are left alone").isEqualTo("still");

        proxy.forwardAll();

        assertThat(proxy.port()).isEqualTo(port);
        assertThat(roundTrip(connect(), "back")).isEqualTo("back");
    }

    @Test
    void aTargetThatRefusesGetsTheClientReset() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        try (TcpProxy toNowhere = new TcpProxy("127.0.0.1", closedPort).start()) {
            Socket socket = new Socket(InetAddress.getLoopbackAddress(), toNowhere.port());
            sockets.add(socket);
            socket.setSoTimeout(5000);
            assertReset(socket);
        }
    }

    @Test
    void oneDaemonThreadServesAllConnections() throws IOException {
        for (int i = 0; i < 20; i++) {
            assertThat(roundTrip(connect(), "c" + i)).isEqualTo("c" + i);
        }

        List<Thread> threads = proxyThreads();
        assertThat(threads).hasSize(1);
        assertThat(threads.get(0).isDaemon()).isTrue();
        assertThat(threads.get(0).getName()).isEqualTo("delayq-tcp-proxy-" + proxy.port());
    }

    @Test
    void closeStopsTheThreadAndTheListenerAndIsIdempotent() throws IOException {
        Socket open = connect();
        assertThat(roundTrip(open, "x")).isEqualTo("x");
        int port = proxy.port();

        proxy.close();
        proxy.close();

        assertThat(proxyThreads()).noneMatch(t -> t.getName().equals("delayq-tcp-proxy-" + port));
        assertThat(open.getInputStream().read()).isEqualTo(-1);
        assertThatThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), port).close())
                .isInstanceOf(ConnectException.class);
        assertThatThrownBy(proxy::blackHoleExisting).isInstanceOf(IllegalStateException.class);
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
        sockets.add(socket);
        socket.setSoTimeout(5000);
        socket.setTcpNoDelay(true);
        return socket;
    }

    private static void send(Socket socket, String text) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(text.getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private static String roundTrip(Socket socket, String text) throws IOException {
        send(socket, text);
        byte[] back = socket.getInputStream().readNBytes(text.length());
        return new String(back, StandardCharsets.UTF_8);
    }

    /** Nothing arrives within {@link #SILENCE_MILLIS}, and the connection is not closed either. */
    private static void assertSilent(Socket socket) throws IOException {
        int timeout = socket.getSoTimeout();
        socket.setSoTimeout(SILENCE_MILLIS);
        try {
            assertThatThrownBy(() -> socket.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
        } finally {
            socket.setSoTimeout(timeout);
        }
    }

    private static void assertReset(Socket socket) {
        assertThatThrownBy(() -> {
            // A reset shows as an exception on read; tolerate an end of stream first on some platforms.
            InputStream in = socket.getInputStream();
            if (in.read() == -1) {
                throw new SocketException("end of stream");
            }
        }).isInstanceOf(SocketException.class).isNotInstanceOf(SocketTimeoutException.class);
    }

    private static List<Thread> proxyThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("delayq-tcp-proxy-"))
                .toList();
    }

    /** Echoes every byte back; counts the bytes it received. One thread per connection (tests open few). */
    private static final class EchoServer implements AutoCloseable {
        private final ServerSocket server;
        private final AtomicLong received = new AtomicLong();
        private final List<Socket> accepted = new ArrayList<>();

        EchoServer() throws IOException {
            server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            Thread acceptor = new Thread(this::acceptLoop, "echo-accept");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        long received() {
            return received.get();
        }

        private void acceptLoop() {
            while (!server.isClosed()) {
                try {
                    Socket socket = server.accept();
                    synchronized (accepted) {
                        accepted.add(socket);
                    }
                    Thread t = new Thread(() -> echo(socket), "echo-" + socket.getPort());
                    t.setDaemon(true);
                    t.start();
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void echo(Socket socket) {
            byte[] buffer = new byte[8192];
            try (socket) {
                InputStream in = socket.getInputStream();
                OutputStream out = socket.getOutputStream();
                int n;
                while ((n = in.read(buffer)) > 0) {
                    received.addAndGet(n);
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the test closed or reset the connection
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
            synchronized (accepted) {
                for (Socket socket : accepted) {
                    socket.close();
                }
            }
        }
    }
}
