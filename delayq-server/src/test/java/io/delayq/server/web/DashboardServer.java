package io.delayq.server.web;

import io.delayq.Delayq;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.server.http.ApiServer;
import io.delayq.server.http.HttpSettings;
import io.delayq.server.testing.ServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;

/**
 * An {@link ApiServer} in this JVM, with its dashboard, on the test Redis ({@code DELAYQ_TEST_REDIS},
 * else a redis-server of its own for the whole run), and a small browser-like client of it that
 * keeps no cookies: each test says which cookie and headers it sends.
 */
final class DashboardServer implements AutoCloseable {
  /** The headers the dashboard's own pages send with every action (htmx). */
  static final Map<String, String> FROM_DASHBOARD =
      Map.of("X-Delayq-Request", "dashboard", "Sec-Fetch-Site", "same-origin", "HX-Request", "true");
  private static final Pattern LINK = Pattern.compile("\\s(?:href|src|action|hx-post|hx-get)=\"([^\"]*)\"");
  private static Delayq shared;
  private static String sharedUrl;
  private static RedisServerProcess ownRedis;

  private final ApiServer api;
  private final String baseUrl;
  private final HttpClient http;

  private DashboardServer(ApiServer api, String baseUrl, HttpClient http) {
    this.api = api;
    this.baseUrl = baseUrl;
    this.http = http;
  }

  static DashboardServer start(HttpSettings settings) {
    return start(settings, null);
  }

  static DashboardServer start(HttpSettings settings, SSLContext trust) {
    try {
      ApiServer api = ApiServer.start(delayq(), settings, 64);
      HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
          .version(HttpClient.Version.HTTP_1_1).followRedirects(HttpClient.Redirect.NEVER);
      if (trust != null) {
        client.sslContext(trust);
      }
      String base = api.baseUrl("127.0.0.1");
      return new DashboardServer(api, trust != null ? base.replace("127.0.0.1", "localhost") : base, client.build());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The client every test's servers share, on the test Redis. */
  static synchronized Delayq delayq() {
    if (shared == null) {
      String url = ServerProcess.testRedis();
      if (url == null) {
        ownRedis = RedisServerProcess.builder().start();
        url = ownRedis.uri();
        Runtime.getRuntime().addShutdownHook(new Thread(ownRedis::close));
      }
      sharedUrl = url;
      shared = Delayq.connect(url);
    }
    return shared;
  }

  /** The URL of the Redis {@link #delayq()} is on, for tests that need clients of their own. */
  static synchronized String redisUrl() {
    delayq();
    return sharedUrl;
  }

  /** A queue name no other test uses, with a job scheduled on it so that it exists. */
  static String newQueue(String prefix) {
    String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    delayq().queue(name).schedule(io.delayq.JobRequest.of("x").withId("seed").withDelay(Duration.ofHours(1)));
    return name;
  }

  String baseUrl() {
    return baseUrl;
  }

  int port() {
    return api.address().getPort();
  }

  /** One answer, whole. */
  record Answer(int status, HttpHeaders headers, String body) {
    String header(String name) {
      return headers.firstValue(name).orElse(null);
    }

    /** Every href, src, action, hx-post and hx-get value of the page. */
    List<String> links() {
      List<String> links = new ArrayList<>();
      Matcher m = LINK.matcher(body);
      while (m.find()) {
        links.add(m.group(1));
      }
      return links;
    }

    /** The session cookie this answer sets, as {@code delayq_session=<value>}, or null. */
    String sessionCookie() {
      String set = header("Set-Cookie");
      return set == null ? null : set.split(";", 2)[0];
    }

    @Override
    public String toString() {
      return status + " " + headers.map() + "\n" + body;
    }
  }

  Answer get(String path, Map<String, String> headers) {
    return send("GET", path, null, headers);
  }

  Answer get(String path) {
    return get(path, Map.of());
  }

  /** GET with this session cookie. */
  Answer get(String path, String cookie) {
    return get(path, cookie == null ? Map.of() : Map.of("Cookie", cookie));
  }

  /** A POST of {@code form} as the dashboard's pages send it, with {@code cookie} (or none). */
  Answer action(String path, String cookie, Map<String, String> form) {
    Map<String, String> headers = new LinkedHashMap<>(FROM_DASHBOARD);
    if (cookie != null) {
      headers.put("Cookie", cookie);
    }
    return send("POST", path, form, headers);
  }

  Answer action(String path, String cookie) {
    return action(path, cookie, Map.of());
  }

  /** Logs in with {@code token}; returns the session cookie ({@code delayq_session=...}). */
  String login(String token) {
    Answer answer = action("/login", null, Map.of("token", token));
    if (answer.status() != 200 || answer.sessionCookie() == null) {
      throw new AssertionError("login failed: " + answer);
    }
    return answer.sessionCookie();
  }

  Answer send(String method, String path, Map<String, String> form, Map<String, String> headers) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(20));
    headers.forEach(request::header);
    if (form == null) {
      request.method(method, HttpRequest.BodyPublishers.noBody());
    } else {
      StringBuilder body = new StringBuilder();
      form.forEach((name, value) -> body.append(body.length() == 0 ? "" : "&")
          .append(java.net.URLEncoder.encode(name, StandardCharsets.UTF_8)).append('=')
          .append(java.net.URLEncoder.encode(value, StandardCharsets.UTF_8)));
      request.header("Content-Type", "application/x-www-form-urlencoded");
      request.method(method, HttpRequest.BodyPublishers.ofString(body.toString()));
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

  @Override
  public void close() {
    api.shutdown(Duration.ofSeconds(2));
  }
}
