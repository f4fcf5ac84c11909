package io.delayq.server.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.delayq.Delayq;
import io.delayq.ForwarderStatus;
import io.delayq.server.forward.ForwardSupervisor;
import java.util.Map;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/** {@code /health}, {@code /metrics} and {@code /openapi.json}. */
final class SystemEndpoints {
  /** Longest a health check waits for Redis. */
  static final Duration HEALTH_TIMEOUT = Duration.ofSeconds(2);
  static final String OPENAPI_RESOURCE = "/io/delayq/server/http/openapi.json";

  private final Delayq delayq;
  private final ServerMetrics metrics;
  private final BooleanSupplier draining;
  private final ForwardSupervisor forwarding;
  /** The probe in flight, shared by concurrent health checks so a hung Redis is asked only once. */
  private final AtomicReference<CompletableFuture<Void>> probe = new AtomicReference<>();
  private byte[] openApi;

  SystemEndpoints(Delayq delayq, ServerMetrics metrics, BooleanSupplier draining, ForwardSupervisor forwarding) {
    this.forwarding = forwarding;
    this.delayq = delayq;
    this.metrics = metrics;
    this.draining = draining;
  }

  /**
   * {@code GET /health/live} → 200 {@code {"status":"up"}} while the process serves requests at
   * all, whatever Redis does: a supervisor restarts the server when this fails, which would not
   * help when Redis is the one away ({@code /health/ready} says that).
   */
  Response live(Request request) {
    return draining.getAsBoolean()
        ? Response.json(503, Json.object().put("status", "stopping"))
        : Response.ok(Json.object().put("status", "up"));
  }

  /** {@code GET /health} and {@code GET /health/ready} → 200 {@code {"status":"up","redis":"up"}}, or 503 when Redis does not answer in time. */
  Response health(Request request) {
    String problem;
    try {
      currentProbe().get(HEALTH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      return Response.ok(withForwarding(Json.object().put("status", "up").put("redis", "up")));
    } catch (TimeoutException e) {
      problem = "Redis did not answer within " + HEALTH_TIMEOUT.toMillis() + " ms";
    } catch (ExecutionException e) {
      problem = String.valueOf(e.getCause().getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      problem = "interrupted";
    }
    return Response.json(503, Json.object().put("status", "down").put("redis", "down").put("detail", problem));
  }

  /**
   * Adds each forwarder that is not forwarding right now (a missing exchange, RabbitMQ away) with
   * its state and last error. The status stays up: the API still serves, and the jobs wait in
   * delayq; taking the server out of a load balancer would not bring the exchange back.
   */
  private ObjectNode withForwarding(ObjectNode health) {
    if (forwarding == null) {
      return health;
    }
    Map<String, ForwardSupervisor.View> views = forwarding.views();
    ObjectNode problems = Json.object();
    views.forEach((queue, view) -> {
      ForwarderStatus status = view.status();
      if (status != null && !status.isHealthy()) {
        ObjectNode problem = problems.putObject(queue).put("state", status.state().name()).put("target", status.target());
        if (status.lastError() != null) {
          problem.put("lastError", status.lastError());
        }
      }
    });
    health.put("forwarders", views.size());
    if (!problems.isEmpty()) {
      health.set("forwardersNotRunning", problems);
    }
    return health;
  }

  private CompletableFuture<Void> currentProbe() {
    while (true) {
      CompletableFuture<Void> running = probe.get();
      if (running != null) {
        return running;
      }
      CompletableFuture<Void> mine = new CompletableFuture<>();
      if (probe.compareAndSet(null, mine)) {
        Thread prober = new Thread(() -> {
          try {
            delayq.queueNames();
            mine.complete(null);
          } catch (RuntimeException e) {
            mine.completeExceptionally(e);
          } finally {
            probe.compareAndSet(mine, null);
          }
        }, "delayq-health-probe");
        prober.setDaemon(true);
        prober.start();
        return mine;
      }
    }
  }

  /** {@code GET /metrics} → the Prometheus text format. */
  Response metrics(Request request) {
    return Response.text(200, ServerMetrics.CONTENT_TYPE, metrics.scrape(delayq));
  }

  /** {@code GET /openapi.json} → the OpenAPI 3.0 document of this API. */
  Response openApi(Request request) {
    return Response.bytes(200, Response.JSON, openApiDocument());
  }

  synchronized byte[] openApiDocument() {
    if (openApi == null) {
      try (InputStream in = SystemEndpoints.class.getResourceAsStream(OPENAPI_RESOURCE)) {
        if (in == null) {
          throw new IllegalStateException(OPENAPI_RESOURCE + " is missing from the jar");
        }
        openApi = in.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return openApi;
  }
}
