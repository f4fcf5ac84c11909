package io.delayq.server.web.browser;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A tiny web site of the test's own on a free loopback port (so another origin than the server
 * under test): fixed pages by path, anything else 404.
 */
final class TestSite implements AutoCloseable {
  private record Page(String contentType, byte[] body, Map<String, String> headers) {}

  private final HttpServer server;
  private final Map<String, Page> pages = new ConcurrentHashMap<>();

  private TestSite(HttpServer server) {
    this.server = server;
  }

  static TestSite start() {
    try {
      HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      TestSite site = new TestSite(server);
      server.createContext("/", site::answer);
      server.start();
      return site;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Serves {@code body} at {@code path} with the given content type and extra headers. */
  TestSite page(String path, String contentType, String body, Map<String, String> headers) {
    pages.put(path, new Page(contentType, body.getBytes(StandardCharsets.UTF_8), Map.copyOf(headers)));
    return this;
  }

  TestSite page(String path, String contentType, String body) {
    return page(path, contentType, body, Map.of());
  }

  /** {@code http://127.0.0.1:<port>} */
  String origin() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  String url(String path) {
    return origin() + path;
  }

  private void answer(HttpExchange exchange) throws IOException {
    try (exchange) {
      Page page = pages.get(exchange.getRequestURI().getPath());
      if (page == null) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      exchange.getResponseHeaders().set("Content-Type", page.contentType());
      exchange.getResponseHeaders().set("Cache-Control", "no-store");
      page.headers().forEach(exchange.getResponseHeaders()::set);
      exchange.sendResponseHeaders(200, page.body().length);
      exchange.getResponseBody().write(page.body());
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
