package io.delayq.server.web.attack;

import io.delayq.Delayq;
import io.delayq.JobRequest;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.server.http.ApiServer;
import io.delayq.server.http.HttpSettings;
import io.delayq.server.testing.ServerProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * An {@link ApiServer} with its dashboard in this JVM, on the test Redis ({@code DELAYQ_TEST_REDIS},
 * else a redis-server of its own), and a client that sends exactly the headers a test gives: no
 * cookies kept, no redirects followed, and raw bytes when the test needs what no HTTP client sends.
 */
final class AttackServer implements AutoCloseable {
  private static Delayq shared;
  private static String sharedUrl;
  private static RedisServerProcess ownRedis;

  private final ApiServer api;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
      .version(HttpClient.Version.HTTP_1_1).followRedirects(HttpClient.Redirect.NEVER).build();

  private AttackServer(ApiServer api) {
    this.api = api;
  }

  static AttackServer start(HttpSettings settings) {
    try {
      return new AttackServer(ApiServer.start(delayq(), settings, 64));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static synchronized Delayq delayq() {
    if (shared == null) {
      String url = ServerProcess.testRedis();
      if (url == null) {
        ownRedis = RedisServerProcess.builder().start();
        url = ownRedis.uri();
        Runtime.getRuntime().addShutdownHook(new Thread(ownRedis::close));
      }
      shared = Delayq.connect(url);
      sharedUrl = url;
    }
    return shared;
  }

  /** The URL of the Redis that {@link #delayq()} uses, for tests that read its keys. */
  static synchronized String redisUrl() {
    delayq();
    return sharedUrl;
  }

  /** A queue no other test uses, holding one scheduled job so that it exists. */
  static String newQueue(String prefix) {
    String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    delayq().queue(name).schedule(JobRequest.of("x").withId("seed").withDelay(Duration.ofHours(1)));
    return name;
  }

  int port() {
    return api.address().getPort();
  }

  String baseUrl() {
    return api.baseUrl("127.0.0.1");
  }

  /** The dashboard's own Host value, as a browser on it sends it. */
  String host() {
    return "127.0.0.1:" + port();
  }

  record Answer(int status, java.net.http.HttpHeaders headers, String body) {
    String header(String name) {
      return headers.firstValue(name).orElse(null);
    }

    String sessionCookie() {
      String set = header("Set-Cookie");
      return set == null ? null : set.split(";", 2)[0];
    }

    @Override
    public String toString() {
      return status + " " + headers.map() + "\n" + body;
    }
  }

  Answer send(String method, String path, Map<String, String> form, Map<String, String> headers) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl() + path)).timeout(Duration.ofSeconds(20));
    headers.forEach(request::header);
    if (form == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      request.header("Content-Type", "application/x-www-form-urlencoded");
      request.method(method, HttpRequest.BodyPublishers.ofString(encode(form)));
    }
    try {
      HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return new Answer(response.statusCode(), response.headers(), response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  Answer get(String path, Map<String, String> headers) {
    return send("GET", path, null, headers);
  }

  /** Logs in as the dashboard's login form does with JavaScript on; the cookie, {@code delayq_session=...}. */
  String login(String token) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("X-Delayq-Request", "dashboard");
    headers.put("Sec-Fetch-Site", "same-origin");
    headers.put("HX-Request", "true");
    Answer answer = send("POST", "/login", Map.of("token", token), headers);
    if (answer.status() != 200 || answer.sessionCookie() == null) {
      throw new AssertionError("login failed: " + answer);
    }
    return answer.sessionCookie();
  }

  static String encode(Map<String, String> form) {
    StringBuilder body = new StringBuilder();
    form.forEach((name, value) -> body.append(body.length() == 0 ? "" : "&")
        .append(URLEncoder.encode(name, StandardCharsets.UTF_8)).append('=')
        .append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
    return body.toString();
  }

  /** Sends {@code request} as raw bytes and reads the answer's head (status line and headers). */
  String rawHead(byte[] request) {
    try (Socket socket = new Socket("127.0.0.1", port())) {
      socket.setSoTimeout(5000);
      OutputStream out = socket.getOutputStream();
      out.write(request);
      out.flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream read = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      try {
        int n;
        while ((n = in.read(buffer)) > 0) {
          read.write(buffer, 0, n);
          String text = read.toString(StandardCharsets.ISO_8859_1);
          int end = text.indexOf("\r\n\r\n");
          if (end >= 0) {
            return text.substring(0, end);
          }
        }
      } catch (SocketTimeoutException e) {
        // what arrived is the answer
      }
      return read.toString(StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    api.shutdown(Duration.ofSeconds(2));
  }
}
