package io.delayq.embedded;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Just enough RESP over a plain socket to probe and shut down a server, so this module needs no Redis client.
 * Reads simple replies and bulk strings only: what {@code PING}, {@code AUTH}, {@code INFO} and {@code SHUTDOWN} need.
 */
final class Resp {

    private static final int TIMEOUT_MILLIS = 1_000;

    private Resp() {
    }

    /**
     * Sends {@code AUTH password} (when a password is given) and then {@code command} on a fresh connection.
     *
     * @return the reply's first line, e.g. {@code +PONG} or {@code -LOADING ...}, except for a bulk string reply
     *     (e.g. to {@code INFO}), where it is the payload; {@code null} if the server closed the connection without
     *     replying, which is how a successful {@code SHUTDOWN} answers
     * @throws IOException if the server cannot be reached, or the reply to AUTH is an error
     */
    static String call(int port, String password, String... command) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(Ports.LOOPBACK, port), TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            if (password != null) {
                out.write(encode("AUTH", password));
                out.flush();
                String auth = readLine(in);
                if (auth == null || !auth.startsWith("+")) {
                    throw new IOException("AUTH failed: " + auth);
                }
            }
            out.write(encode(command));
            out.flush();
            return readReply(in);
        }
    }

    /** {@code PING}: the reply (ready means {@code +PONG}), or a description of why there was none. Never throws. */
    static String ping(int port, String password) {
        try {
            return call(port, password, "PING");
        } catch (IOException e) {
            return e.toString();
        }
    }

    static byte[] encode(String... args) {
        StringBuilder sb = new StringBuilder().append('*').append(args.length).append("\r\n");
        for (String arg : args) {
            int length = arg.getBytes(StandardCharsets.UTF_8).length;
            sb.append('$').append(length).append("\r\n").append(arg).append("\r\n");
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String readReply(InputStream in) throws IOException {
        String line = readLine(in);
        if (line == null || !line.startsWith("$") || line.equals("$-1")) {
            return line;
        }
        int length = Integer.parseInt(line.substring(1));
        byte[] payload = in.readNBytes(length);
        if (payload.length < length) {
            throw new IOException("Connection closed inside a bulk reply");
        }
        return new String(payload, StandardCharsets.UTF_8);
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1) {
            if (b == '\n') {
                String s = line.toString(StandardCharsets.UTF_8);
                return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
            }
            line.write(b);
        }
        return line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
    }
}
