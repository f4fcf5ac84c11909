package io.delayq.embedded;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A deliberately tiny RESP client for tests, independent of the code under test: one socket, one command at a time.
 * Replies: simple strings and errors as {@code "+OK"} / {@code "-ERR ..."}, bulk strings as their text (or null),
 * integers as Long, arrays as List.
 */
final class RawRedis implements AutoCloseable {

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    RawRedis(int port) {
        try {
            socket = new Socket(InetAddress.getLoopbackAddress(), port);
            socket.setSoTimeout(5_000);
            out = socket.getOutputStream();
            in = new BufferedInputStream(socket.getInputStream());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends one command on a fresh connection. */
    static Object call(int port, String... command) {
        try (RawRedis redis = new RawRedis(port)) {
            return redis.send(command);
        }
    }

    Object send(String... command) {
        try {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            buf.write(("*" + command.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            for (String arg : command) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                buf.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
                buf.write(bytes);
                buf.write("\r\n".getBytes(StandardCharsets.UTF_8));
            }
            out.write(buf.toByteArray());
            out.flush();
            return read();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Object read() throws IOException {
        String line = line();
        char type = line.charAt(0);
        String rest = line.substring(1);
        switch (type) {
            case '+':
            case '-':
                return line;
            case ':':
                return Long.parseLong(rest);
            case '$': {
                int length = Integer.parseInt(rest);
                if (length < 0) {
                    return null;
                }
                String value = new String(in.readNBytes(length), StandardCharsets.UTF_8);
                line();
                return value;
            }
            case '*': {
                int count = Integer.parseInt(rest);
                List<Object> items = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    items.add(read());
                }
                return items;
            }
            default:
                throw new IOException("Unexpected reply: " + line);
        }
    }

    private String line() throws IOException {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\n') {
            if (b == -1) {
                throw new IOException("Connection closed");
            }
            if (b != '\r') {
                buf.write(b);
            }
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
