package io.delayq.server.http;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.delayq.Delayq;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API v1, {@code /health}, {@code /metrics} and {@code /openapi.json} on the JDK's own
 * HTTP server, answering from a bounded pool of threads named {@code delayq-http-N}.
 *
 * <p>Each request is routed by the one {@linkplain Routes route table}, checked for the bearer
 * token, handled with calls to delayq-core's public API only, and any exception it throws is
 * turned into a status and error body by the one {@linkplain ErrorMapping exception table}.
 *
 * <p>{@link #shutdown(Duration)} drains: new requests are answered 503, waiting claims return at
 * once with what they have, requests in flight get up to the given time to finish, and then the
 * server closes every connection.
 *
 * @since 0.1.0
 */
public final class ApiServer {
  private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
  /** Threads answering requests; a waiting claim holds one for up to 60 s. */
  public static final int THREADS = 64;
  /** Claims that may wait at once; the other threads stay free for producers and acks. */
  public static final int WAITING_CLAIMS = 48;
  /** Requests accepted but not yet given a thread, beyond which connections are dropped. */
  private static final int QUEUED_REQUESTS = 1024;
  private static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS");

  private final HttpServer server;
  private final ThreadPoolExecutor executor;
  private final Router router;
  private final BearerAuth auth;
  private final ServerMetrics metrics;
  private final LongPolls longPolls;
  private final AtomicInteger admitted = new AtomicInteger();
  private final Object drained = new Object();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private volatile boolean draining;

  private ApiServer(HttpServer server, ThreadPoolExecutor executor, Delayq delayq, String token, int maxPartitions) {
    this.server = server;
    this.executor = executor;
    this.auth = new BearerAuth(token);
    this.metrics = new ServerMetrics();
    this.longPolls = new LongPolls(WAITING_CLAIMS);
    metrics.waitingClaims(longPolls);
    Queues queues = new Queues(delayq);
    this.router =
        new Router(
            Routes.table(
                new JobEndpoints(queues, metrics),
                new WorkerEndpoints(queues, metrics, longPolls),
                new QueueEndpoints(queues, maxPartitions),
                new SystemEndpoints(delayq, metrics)));
  }

  /**
   * Binds {@code bind:port} (port 0: a free one) and starts answering.
   *
   * @param token the bearer token every call but {@code /health} must carry, or null for none
   * @param maxPartitions most partitions a queue created or configured through the API may have
   */
  public static ApiServer start(Delayq delayq, String bind, int port, String token, int maxPartitions)
      throws IOException {
    // why: the JDK server writes headers and body in separate writes; with Nagle's algorithm on,
    // a small response can then wait for the client's delayed ACK (up to 40 ms on Linux).
    setIfAbsent("sun.net.httpserver.nodelay", "true");
    // why: the JDK server reads a request on one of our threads and, by default, waits for a slow
    // sender forever; 64 trickling clients would then hold every thread. 30 s (in seconds) still
    // lets the largest batch body through a slow link; exposed beyond loopback, the server belongs
    // behind a reverse proxy that buffers requests.
    setIfAbsent("sun.net.httpserver.maxReqTime", "30");
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(bind), port), 128);
    } catch (BindException e) {
      throw new BindException("cannot listen on " + bind + ":" + port + " (" + e.getMessage() + "); choose another"
          + " --port (DELAYQ_PORT) or --bind (DELAYQ_BIND), or stop the program that uses it");
    }
    ThreadPoolExecutor executor =
        new ThreadPoolExecutor(
            THREADS, THREADS, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUED_REQUESTS), named("delayq-http-"));
    executor.allowCoreThreadTimeOut(true);
    ApiServer api = new ApiServer(server, executor, delayq, token, maxPartitions);
    server.createContext("/", api::handle);
    server.setExecutor(executor);
    server.start();
    return api;
  }

  private static void setIfAbsent(String property, String value) {
    if (System.getProperty(property) == null) {
      System.setProperty(property, value);
    }
  }

  /** The address actually bound. */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  /** {@code http://<bind>:<port>}, with IPv6 addresses in brackets. */
  public String baseUrl(String bind) {
    InetAddress address;
    try {
      address = InetAddress.getByName(bind);
    } catch (IOException e) {
      address = null;
    }
    String host = address instanceof Inet6Address && !bind.startsWith("[") ? "[" + bind + "]" : bind;
    return "http://" + host + ":" + address().getPort();
  }

  public boolean requiresToken() {
    return auth.enabled();
  }

  private void handle(HttpExchange exchange) {
    long start = System.nanoTime();
    String method = exchange.getRequestMethod();
    String rawPath = exchange.getRequestURI().getRawPath();
    String route = Router.UNMATCHED;
    int status = 500;
    admitted.incrementAndGet();
    try {
      Response response;
      try {
        if (draining) {
          throw ApiException.shuttingDown();
        }
        Router.Match match = router.match(method, rawPath);
        route = match.label();
        if (!match.pathOpen()) {
          auth.check(exchange.getRequestHeaders().getFirst("Authorization"));
        }
        response = match.found() ? match.route().handler().handle(new Request(exchange, match.params())) : noRoute(match, method, rawPath);
      } catch (Exception e) {
        response = ErrorMapping.toResponse(e, method, PathCodec.abbreviate(rawPath));
      }
      status = response.status();
      send(exchange, response);
    } finally {
      metrics.request(METHODS.contains(method) ? method : "other", route, status, System.nanoTime() - start);
      if (admitted.decrementAndGet() == 0 && draining) {
        synchronized (drained) {
          drained.notifyAll();
        }
      }
    }
  }

  private static Response noRoute(Router.Match match, String method, String rawPath) {
    if (match.allowedMethods().isEmpty()) {
      throw ApiException.notFound(
          "no route " + method + " " + PathCodec.abbreviate(rawPath) + "; the API is under /v1 and described at /openapi.json");
    }
    String allowed = String.join(", ", match.allowedMethods());
    throw ApiException.methodNotAllowed(
        method + " is not allowed on " + PathCodec.abbreviate(rawPath) + "; allowed: " + allowed, allowed);
  }

  private static void send(HttpExchange exchange, Response response) {
    try {
      Headers headers = exchange.getResponseHeaders();
      response.headers().forEach(headers::set);
      byte[] body = response.body();
      if (body == null || body.length == 0) {
        exchange.sendResponseHeaders(response.status(), -1);
      } else {
        headers.set("Content-Type", response.contentType());
        exchange.sendResponseHeaders(response.status(), body.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      }
    } catch (IOException e) {
      log.debug("could not send the answer to {} {}: {}", exchange.getRequestMethod(), exchange.getRequestURI(), e.toString());
      response.onUndelivered().run();
    } finally {
      exchange.close();
    }
  }

  /**
   * Stops the server, each step logged: new requests are refused with 503, waiting claims return
   * with what they have, requests in flight get up to {@code drain} to finish, then every
   * connection is closed and the threads end. Idempotent.
   */
  public void shutdown(Duration drain) {
    if (!stopping.compareAndSet(false, true)) {
      return;
    }
    draining = true;
    longPolls.close();
    log.info("shutdown: no longer taking requests; {} in flight ({} waiting claims told to return), waiting up to {} s",
        admitted.get(), longPolls.waiting(), drain.toSeconds());
    long deadline = System.nanoTime() + drain.toNanos();
    synchronized (drained) {
      long left;
      while (admitted.get() > 0 && (left = deadline - System.nanoTime()) > 0) {
        try {
          TimeUnit.NANOSECONDS.timedWait(drained, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    int unfinished = admitted.get();
    if (unfinished > 0) {
      log.warn("shutdown: {} request(s) still running after {} s; closing their connections", unfinished, drain.toSeconds());
    } else {
      log.info("shutdown: all requests finished");
    }
    // why: stop(0), after draining ourselves: JDK 17's HttpServer.stop(delay) waits the whole
    // delay when no exchange is in flight (JDK-8304065, fixed in JDK 21).
    server.stop(0);
    executor.shutdown();
    try {
      if (!executor.awaitTermination(2, TimeUnit.SECONDS)) {
        executor.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      executor.shutdownNow();
    }
    metrics.close();
    log.info("shutdown: HTTP server stopped");
  }

  private static ThreadFactory named(String prefix) {
    AtomicInteger next = new AtomicInteger(1);
    return task -> {
      Thread thread = new Thread(task, prefix + next.getAndIncrement());
      thread.setDaemon(true);
      return thread;
    };
  }
}
