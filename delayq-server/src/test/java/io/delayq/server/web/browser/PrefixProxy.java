package io.delayq.server.web.browser;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A reverse proxy of the test's own, as nginx is set up in front of delayq: it serves {@code
 * <prefix>/...} on its own loopback port, strips the prefix, passes {@code Host} through and adds
 * {@code X-Forwarded-Prefix: <prefix>}. Anything outside the prefix is 404 here, as it would be on a
 * site that mounts delayq under it.
 *
 * <p>One upstream connection per request ({@code Connection: close}), read to its end: simple, and
 * plenty for a browser test.
 */
final class PrefixProxy implements AutoCloseable {
  private static final Set<String> HOP_BY_HOP = Set.of(
      "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
      "content-length", "x-forwarded-prefix");

  private final HttpServer server;
  private final String prefix;
  private final int upstreamPort;

  private PrefixProxy(HttpServer server, String prefix, int upstreamPort) {
    this.server = server;
    this.prefix = prefix;
    this.upstreamPort = upstreamPort;
  }

  static PrefixProxy start(String prefix, int upstreamPort) {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      PrefixProxy proxy = new PrefixProxy(server, prefix, upstreamPort);
      server.createContext("/", proxy::forward);
      server.start();
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code http://127.0.0.1:<port>} */
  String origin() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void forward(HttpExchange exchange) throws IOException {
    try (exchange) {
      String target = exchange.getRequestURI().getRawPath();
      String query = exchange.getRequestURI().getRawQuery();
      if (!target.equals(prefix) && !target.startsWith(prefix + "/")) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      String upstreamPath = target.substring(prefix.length());
      if (upstreamPath.isEmpty()) {
        upstreamPath = "/";
      }
      if (query != null) {
        upstreamPath += "?" + query;
      }
      byte[] body = exchange.getRequestBody().readAllBytes();
      StringBuilder head = new StringBuilder()
          .append(exchange.getRequestMethod()).append(' ').append(upstreamPath).append(" HTTP/1.1\r\n");
      for (var header : exchange.getRequestHeaders().entrySet()) {
        if (HOP_BY_HOP.contains(header.getKey().toLowerCase(Locale.ROOT))) {
          continue;
        }
        for (String value : header.getValue()) {
          head.append(header.getKey()).append(": ").append(value).append("\r\n");
        }
      }
      head.append("X-Forwarded-Prefix: ").append(prefix).append("\r\n")
          .append("X-Forwarded-Proto: http\r\n")
          .append("Connection: close\r\n")
          .append("Content-Length: ").append(body.length).append("\r\n\r\n");
      try (Socket upstream = new Socket(InetAddress.getLoopbackAddress(), upstreamPort)) {
        OutputStream out = upstream.getOutputStream();
        out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
        relay(new BufferedInputStream(upstream.getInputStream()), exchange, exchange.getRequestMethod().equals("HEAD"));
      }
    }
  }

  /** Reads the upstream answer whole and sends it on. */
  private static void relay(InputStream in, HttpExchange exchange, boolean head) throws IOException {
    String status = line(in);
    int code = Integer.parseInt(status.split(" ")[1]);
    Headers headers = exchange.getResponseHeaders();
    long length = -1;
    boolean chunked = false;
    for (String line = line(in); !line.isEmpty(); line = line(in)) {
      int colon = line.indexOf(':');
      String name = line.substring(0, colon).trim();
      String value = line.substring(colon + 1).trim();
      String lower = name.toLowerCase(Locale.ROOT);
      if (lower.equals("content-length")) {
        length = Long.parseLong(value);
      } else if (lower.equals("transfer-encoding")) {
        chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
      } else if (!HOP_BY_HOP.contains(lower)) {
        headers.add(name, value);
      }
    }
    byte[] body;
    if (head || code == 204 || code == 304) {
      body = new byte[0];
    } else if (chunked) {
      body = dechunk(in);
    } else if (length >= 0) {
      body = in.readNBytes((int) length);
    } else {
      body = in.readAllBytes();
    }
    exchange.sendResponseHeaders(code, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      exchange.getResponseBody().write(body);
    }
  }

  private static byte[] dechunk(InputStream in) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    while (true) {
      String size = line(in);
      int semicolon = size.indexOf(';');
      int n = Integer.parseInt((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
      if (n == 0) {
        while (!line(in).isEmpty()) {
          // trailers: none that matter here
        }
        return body.toByteArray();
      }
      body.write(in.readNBytes(n));
      line(in);
    }
  }

  private static String line(InputStream in) throws IOException {
    List<Byte> bytes = new ArrayList<>();
    for (int b = in.read(); b != -1; b = in.read()) {
      if (b == '\n') {
        break;
      }
      if (b != '\r') {
        bytes.add((byte) b);
      }
    }
    byte[] out = new byte[bytes.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = bytes.get(i);
    }
    return new String(out, StandardCharsets.ISO_8859_1);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
