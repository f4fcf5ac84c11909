package io.delayq.examples.ordertimeout;

import io.delayq.Delayq;
import io.delayq.QueueStats;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.json.JsonMapper;

/**
 * One running instance of the shop, started as its users start it (the real application class,
 * over HTTP on a free port), on a database file and a Redis that outlive it, so that a test can
 * stop it and start another on the same data.
 */
final class Shop implements AutoCloseable {
  private static final JsonMapper JSON = new JsonMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** Where the shop's data lives: kept across instances. */
  record Data(Path dir, String queue, Duration paymentTimeout) {}

  private final ConfigurableApplicationContext context;
  private final URI base;

  private Shop(ConfigurableApplicationContext context) {
    this.context = context;
    this.base = URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"));
  }

  static Shop start(Data data, String... extra) {
    List<String> args = new ArrayList<>(List.of(
        "--server.port=0",
        "--server.address=127.0.0.1",
        "--spring.datasource.url=jdbc:h2:file:" + data.dir().resolve("orders"),
        "--orders.cancel-queue=" + data.queue(),
        "--orders.payment-timeout=" + data.paymentTimeout(),
        "--orders.consumers=5",
        // a stopped instance's left-behind outbox rows are sent within a second, not ten
        "--delayq.outbox.relay.grace-period=500ms",
        "--delayq.outbox.relay.interval=200ms"));
    String redis = System.getenv("DELAYQ_TEST_REDIS");
    if (redis != null && !redis.isBlank()) {
      args.add("--delayq.redis.url=" + redis.trim());
    } else {
      // the embedded redis-server, with its append-only file where the next instance finds it
      args.add("--delayq.redis.embedded.data-dir=" + data.dir().resolve("redis"));
    }
    args.addAll(List.of(extra));
    return new Shop(new SpringApplicationBuilder(OrderTimeoutApplication.class).run(args.toArray(String[]::new)));
  }

  ConfigurableApplicationContext context() {
    return context;
  }

  /** POST /orders: the new order's id. */
  String order(String item, long amountCents) {
    HttpResponse<String> created = post("/orders", "{\"item\":\"" + item + "\",\"amountCents\":" + amountCents + "}");
    if (created.statusCode() != 201) {
      throw new AssertionError("POST /orders answered " + created.statusCode() + ": " + created.body());
    }
    return JSON.readTree(created.body()).get("id").asString();
  }

  /** POST /orders/{id}/pay: its status code (200 paid, 409 cancelled first). */
  int pay(String id) {
    return post("/orders/" + id + "/pay", "").statusCode();
  }

  /** GET /orders/{id}: its status, or null when there is no such order. */
  OrderStatus status(String id) {
    HttpResponse<String> order = send(HttpRequest.newBuilder(base.resolve("/orders/" + id)).GET());
    return order.statusCode() == 404 ? null : OrderStatus.valueOf(JSON.readTree(order.body()).get("status").asString());
  }

  QueueStats timeouts(Data data) {
    return context.getBean(Delayq.class).queue(data.queue()).admin().stats();
  }

  private HttpResponse<String> post(String path, String body) {
    return send(HttpRequest.newBuilder(base.resolve(path))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  private static HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return HTTP.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    context.close();
  }
}
