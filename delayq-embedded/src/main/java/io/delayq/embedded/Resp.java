package io.delayq.embedded;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Just enough RESP over a plain socket to probe, shut down and form clusters of servers, so this module needs no Redis
 * client. One command per connection.
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
        return exchange(port, password, command, Resp::readReply);
    }

    /**
     * Like {@link #call}, but reads the whole reply: simple strings and errors as their line ({@code +OK},
     * {@code -ERR ...}), bulk strings as their text (or null), integers as Long, arrays as List (or null).
     *
     * @throws IOException also if the server closed the connection without replying
     */
    static Object query(int port, String password, String... command) throws IOException {
        return exchange(port, password, command, Resp::readValue);
    }

    private static <T> T exchange(int port, String password, String[] command, Reader<T> reader)
            throws IOException {
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
            return reader.read(in);
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
        return readBulk(in, line);
    }

    private static Object readValue(InputStream in) throws IOException {
        String line = readLine(in);
        if (line == null || line.isEmpty()) {
            throw new IOException("Connection closed without a reply");
        }
        switch (line.charAt(0)) {
            case ':':
                return Long.parseLong(line.substring(1));
            case '$':
                return line.equals("$-1") ? null : readBulk(in, line);
            case '*': {
                int count = Integer.parseInt(line.substring(1));
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(readValue(in));
                }
                return items;
            }
            default:
                return line;
        }
    }

    /** The payload announced by {@code header} ({@code $<length>}), consuming its trailing CRLF. */
    private static String readBulk(InputStream in, String header) throws IOException {
        int length = Integer.parseInt(header.substring(1));
        byte[] payload = in.readNBytes(length);
        if (payload.length < length || in.readNBytes(2).length < 2) {
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

    @FunctionalInterface
    private interface Reader<T> {
        T read(InputStream in) throws IOException;
    }
}
