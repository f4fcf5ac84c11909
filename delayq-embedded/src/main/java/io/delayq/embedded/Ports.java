package io.delayq.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Picks free loopback ports. The port is released before Redis binds it, so callers must tolerate a lost race. */
final class Ports {

    static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    /** Redis Cluster listens on {@code port + 10000} for its bus, so the data port may not exceed this. */
    static final int MAX_CLUSTER_PORT = 65535 - 10000;

    private static final int CLUSTER_ATTEMPTS = 200;

    private Ports() {
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, LOOPBACK)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot find a free loopback port", e);
        }
    }

    /** A free port {@code p <= 55535} whose cluster bus port {@code p + 10000} is free as well. */
    static int freeClusterPort() {
        for (int i = 0; i < CLUSTER_ATTEMPTS; i++) {
            int port = freePort();
            if (port <= MAX_CLUSTER_PORT && isFree(port + 10000)) {
                return port;
            }
        }
        throw new IllegalStateException("Cannot find a free loopback port p <= " + MAX_CLUSTER_PORT
                + " with p + 10000 free after " + CLUSTER_ATTEMPTS + " attempts");
    }

    static boolean isFree(int port) {
        try (ServerSocket ignored = new ServerSocket(port, 1, LOOPBACK)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
