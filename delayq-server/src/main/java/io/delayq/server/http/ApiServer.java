package io.delayq.server.http;

import io.delayq.Delayq;
import io.delayq.server.forward.ForwardSupervisor;
import io.delayq.server.web.Dashboard;
import io.delayq.server.web.WebResponse;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.ArrayList;
import java.util.List;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.timeout.WriteTimeoutHandler;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.BindException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API v1, the health checks, {@code /metrics} and {@code /openapi.json}, on Netty.
 *
 * <p>Connections are read on a few event-loop threads that never block: a request is read whole
 * (within its route's body limit and the header and body timeouts) before its handler runs on a
 * bounded pool of handler threads, because handlers call delayq-core, which waits for Redis (the
 * dashboard's pages on a small pool of their own, so that they never hold up the API). A
 * waiting claim (long poll) holds no thread: its answer is a promise, completed by a job becoming
 * due, its timer, or the client hanging up (which hands its jobs back at once).
 *
 * <p>Each request is routed by the one {@linkplain Routes route table}, checked for the bearer
 * token and, for browsers, by the {@link BrowserGuard}, and any exception is turned into a status
 * and error body by the one {@linkplain ErrorMapping exception table}.
 *
 * <p>{@link #shutdown(Duration)} drains: the port closes, new requests are answered 503, waiting
 * claims return at once with what they have, requests in flight get up to the given time to
 * finish, and then every connection is closed.
 *
 * @since 0.1.0
 */
public final class ApiServer {
  private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
  /** Threads running handlers, which block on Redis for a round trip or a few. */
  static final int HANDLER_THREADS = 64;
  /** Requests read and waiting for a handler thread, beyond which a request is answered 503. */
  private static final int QUEUED_REQUESTS = 4096;
  /**
   * Threads running the dashboard's pages, fragments and actions: their own, so that however many
   * pages load at once (a page may look into hundreds of queues), the API's handlers never wait
   * behind them.
   */
  static final int DASHBOARD_THREADS = 8;
  /** Dashboard requests waiting for one of its threads, beyond which one is answered 503 at once. */
  static final int QUEUED_DASHBOARD_REQUESTS = 16;
  /** Claims that may wait at once; each costs a promise and a timer, not a thread. */
  public static final int WAITING_CLAIMS = 4096;
  /** Most partitions a queue created or configured over HTTP may have, unless configured otherwise. */
  static final int DEFAULT_MAX_PARTITIONS = 64;
  static final int MAX_REQUEST_LINE = 8 * 1024;
  static final int MAX_HEADER_BYTES = 16 * 1024;

  private final HttpSettings settings;
  private final EventLoopGroup acceptor;
  private final EventLoopGroup loops;
  private final ChannelGroup connections = new DefaultChannelGroup("delayq-http", GlobalEventExecutor.INSTANCE);
  private final ThreadPoolExecutor handlers;
  private final ThreadPoolExecutor dashboardHandlers;
  private final SslContext tls;
  final Router router;
  final Dashboard dashboard;
  final BearerAuth auth;
  final BrowserGuard guard;
  final ServerMetrics metrics;
  final MemoryBudget memory = MemoryBudget.ofHeap();
  private final LongPolls longPolls;
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final Object drained = new Object();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private volatile boolean draining;
  private Channel listener;

  private ApiServer(Delayq delayq, HttpSettings settings, SslContext tls, int maxPartitions, ForwardSupervisor forwarding) {
    this.settings = settings;
    this.tls = tls;
    this.auth = new BearerAuth(settings.token(), settings.readOnlyToken());
    this.guard = new BrowserGuard(settings, auth.enabled());
    this.metrics = new ServerMetrics();
    this.acceptor = new MultiThreadIoEventLoopGroup(1, named("delayq-http-accept-"), NioIoHandler.newFactory());
    this.loops = new MultiThreadIoEventLoopGroup(
        Math.max(2, Runtime.getRuntime().availableProcessors()), named("delayq-http-io-"), NioIoHandler.newFactory());
    this.handlers = new ThreadPoolExecutor(HANDLER_THREADS, HANDLER_THREADS, 60, TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(QUEUED_REQUESTS), named("delayq-http-"));
    handlers.allowCoreThreadTimeOut(true);
    this.dashboardHandlers = new ThreadPoolExecutor(DASHBOARD_THREADS, DASHBOARD_THREADS, 60, TimeUnit.SECONDS,
        new ArrayBlockingQueue<>(QUEUED_DASHBOARD_REQUESTS), named("delayq-dashboard-"));
    dashboardHandlers.allowCoreThreadTimeOut(true);
    this.longPolls = new LongPolls(WAITING_CLAIMS, loops.next());
    metrics.waitingClaims(longPolls);
    Queues queues = new Queues(delayq);
    this.dashboard = new Dashboard(delayq, settings);
    List<Route> routes = new ArrayList<>(
        Routes.table(
            new JobEndpoints(queues, metrics),
            new WorkerEndpoints(queues, metrics, longPolls, forwarding),
            new QueueEndpoints(queues, maxPartitions, forwarding),
            new ScheduleEndpoints(queues, metrics),
            new SystemEndpoints(delayq, metrics, () -> draining, forwarding)));
    routes.addAll(DashboardAdapter.routes(dashboard));
    this.router = new Router(routes);
  }

  /** Binds {@code bind:port} (port 0: a free one) with every limit at its default, and starts answering. */
  public static ApiServer start(Delayq delayq, String bind, int port, String token) throws IOException {
    return start(delayq, HttpSettings.of(bind, port, token), DEFAULT_MAX_PARTITIONS);
  }

  /**
   * Binds the settings' address and starts answering.
   *
   * @param maxPartitions most partitions a queue created or configured through the API may have
   */
  public static ApiServer start(Delayq delayq, HttpSettings settings, int maxPartitions) throws IOException {
    return start(delayq, settings, maxPartitions, null);
  }

  /**
   * Binds the settings' address and starts answering; queues' {@code forward} settings are run by
   * {@code forwarding} (null: the API stores them, and shows no status).
   */
  public static ApiServer start(Delayq delayq, HttpSettings settings, int maxPartitions, ForwardSupervisor forwarding)
      throws IOException {
    ApiServer api =
        new ApiServer(delayq, settings, settings.tls() ? tlsContext(settings) : null, maxPartitions, forwarding);
    try {
      api.listen();
    } catch (IOException | RuntimeException e) {
      api.stopLoops();
      throw e;
    }
    return api;
  }

  private static SslContext tlsContext(HttpSettings settings) throws IOException {
    try {
      return SslContextBuilder.forServer(settings.tlsCertificate().toFile(), settings.tlsKey().toFile())
          .applicationProtocolConfig(new ApplicationProtocolConfig(
              ApplicationProtocolConfig.Protocol.ALPN,
              ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
              ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
              ApplicationProtocolNames.HTTP_1_1))
          .build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IOException("cannot use the TLS certificate " + settings.tlsCertificate() + " with key "
          + settings.tlsKey() + " (" + e.getMessage() + "); give a PEM certificate chain and its PEM private key"
          + " (PKCS#8, unencrypted), e.g. from `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256"
          + " -nodes -keyout key.pem -out cert.pem`", e);
    }
  }

  private void listen() throws IOException {
    InetAddress address = InetAddress.getByName(settings.bind());
    ServerBootstrap bootstrap = new ServerBootstrap()
        .group(acceptor, loops)
        .channel(NioServerSocketChannel.class)
        .option(ChannelOption.SO_BACKLOG, 1024)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.SO_KEEPALIVE, true)
        // why: a client may send its request and shut down its side; it still gets its answer
        .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel channel) {
            connections.add(channel);
            HttpConnection connection = new HttpConnection(ApiServer.this, settings, channel.remoteAddress());
            if (tls != null) {
              channel.pipeline().addLast("tls", tls.newHandler(channel.alloc()));
            }
            channel.pipeline()
                .addLast("limit", connectionLimit)
                .addLast("write-timeout", new WriteTimeoutHandler(settings.writeTimeout().toMillis(), TimeUnit.MILLISECONDS))
                .addLast("first-byte", connection.firstByteWatch())
                .addLast("decoder", new StrictRequestDecoder())
                .addLast("encoder", new HttpResponseEncoder())
                .addLast("api", connection);
          }
        });
    try {
      listener = bootstrap.bind(new InetSocketAddress(address, settings.port())).syncUninterruptibly().channel();
    } catch (Exception e) {
      if (e instanceof BindException || e.getCause() instanceof BindException) {
        throw new BindException("cannot listen on " + settings.bind() + ":" + settings.port() + " (" + e.getMessage()
            + "); choose another --port (DELAYQ_PORT) or --bind (DELAYQ_BIND), or stop the program that uses it");
      }
      throw e;
    }
  }

  /**
   * Closes connections beyond {@link HttpSettings#maxConnections()} as soon as they open, so that
   * a flood of idle or trickling connections costs a bounded amount of memory.
   */
  private final ChannelHandler connectionLimit = new ConnectionLimit();

  @ChannelHandler.Sharable
  private final class ConnectionLimit extends ChannelInboundHandlerAdapter {
    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      if (open.incrementAndGet() > settings.maxConnections() || draining) {
        metrics.connectionRefused();
        ctx.close();
        return;
      }
      ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      open.decrementAndGet();
      ctx.fireChannelInactive();
    }
  }

  /**
   * The request decoder, refusing a message that carries both {@code Content-Length} and
   * {@code Transfer-Encoding: chunked}: two framings for one body are how requests get smuggled
   * past a proxy that picks the other one.
   */
  private static final class StrictRequestDecoder extends HttpRequestDecoder {
    StrictRequestDecoder() {
      super(new HttpDecoderConfig()
          .setMaxInitialLineLength(MAX_REQUEST_LINE)
          .setMaxHeaderSize(MAX_HEADER_BYTES)
          .setMaxChunkSize(64 * 1024));
    }

    @Override
    protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
      throw new IllegalArgumentException(
          "the request has both Content-Length and Transfer-Encoding: chunked; send one of them");
    }
  }

  boolean draining() {
    return draining;
  }

  int openConnections() {
    return open.get();
  }

  /** Counts a request as in flight until {@link #finished()}; shutdown waits for these. */
  void started() {
    inFlight.incrementAndGet();
  }

  void finished() {
    if (inFlight.decrementAndGet() == 0 && draining) {
      synchronized (drained) {
        drained.notifyAll();
      }
    }
  }

  /**
   * Runs a matched request's handler on a handler thread; its answer, or the error it threw
   * turned into one, completes the returned stage.
   */
  CompletableFuture<Response> dispatch(Route route, Request request, String path) {
    CompletableFuture<Response> answer = new CompletableFuture<>();
    boolean page = route.dashboard() != null;
    try {
      (page ? dashboardHandlers : handlers).execute(() -> {
        try {
          request.checkQuery();
          CompletionStage<Response> stage = route.handler().handle(request);
          stage.whenComplete((response, error) -> {
            if (error != null) {
              answer.complete(failure(route, error, request, path));
            } else {
              answer.complete(response);
            }
          });
        } catch (Throwable e) {
          answer.complete(failure(route, e, request, path));
        }
      });
    } catch (RejectedExecutionException e) {
      if (page) {
        answer.complete(errorResponse(ApiException.busy("the dashboard is busy: " + DASHBOARD_THREADS + " pages are"
                + " being made and " + QUEUED_DASHBOARD_REQUESTS + " more wait; retry in a few seconds (the API is not"
                + " affected)"), request.method(), path, request.headers(), true,
            target(request.rawPath(), request.rawQuery())));
        return answer;
      }
      answer.complete(ErrorMapping.toResponse(
          ApiException.busy(QUEUED_REQUESTS + " requests are already waiting for a handler on this server; retry in a"
              + " second, or spread the load over more servers"), request.method(), path));
    }
    return answer;
  }

  /** Runs blocking clean-up (handing back jobs nobody received) off the event loop. */
  void runBlocking(Runnable task) {
    try {
      handlers.execute(task);
    } catch (RejectedExecutionException e) {
      Thread thread = new Thread(task, "delayq-http-cleanup");
      thread.setDaemon(true);
      thread.start();
    }
  }

  private Response failure(Route route, Throwable error, Request request, String path) {
    if (route.dashboard() == null) {
      return failure(error, request.method(), path);
    }
    Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    haltIfFatal(cause);
    return errorResponse(cause, request.method(), path, request.headers(), true, target(request.rawPath(), request.rawQuery()));
  }

  static String target(String path, String rawQuery) {
    return rawQuery == null || rawQuery.isEmpty() ? path : path + "?" + rawQuery;
  }

  /**
   * The answer to a refused or failed request: the API's JSON error body, or for a dashboard
   * request an HTML error page (or, for htmx, a flash message) that says what was wrong.
   */
  Response errorResponse(Throwable error, String method, String path, HttpHeaders headers, boolean dashboardRequest,
      String target) {
    if (!dashboardRequest) {
      return ErrorMapping.toResponse(error, method, path);
    }
    ErrorMapping.Failure failure = ErrorMapping.failure(error, method, path);
    try {
      WebResponse page = dashboard.error(failure.status(), failure.body().path("detail").asText(), failure.headers(),
          headers::get, target);
      return DashboardAdapter.answer(page);
    } catch (RuntimeException broken) {
      log.error("{} {}: the error page could not be rendered", method, path, broken);
      return ErrorMapping.toResponse(error, method, path);
    }
  }

  static Response failure(Throwable error, String method, String path) {
    Throwable cause = error instanceof CompletionException && error.getCause() != null
        ? error.getCause() : error;
    haltIfFatal(cause);
    return ErrorMapping.toResponse(cause, method, path);
  }

  /**
   * Ends the JVM on an {@link OutOfMemoryError} or another {@link VirtualMachineError} but a
   * stack overflow: a server that lost a thread's work to one is left in a state nobody can
   * vouch for, and one that is gone is restarted by its supervisor.
   */
  static void haltIfFatal(Throwable error) {
    if (error instanceof VirtualMachineError && !(error instanceof StackOverflowError)) {
      try {
        System.err.println("delayq: fatal " + error + "; exiting so that the server is restarted whole");
        System.err.flush();
      } finally {
        Runtime.getRuntime().halt(3);
      }
    }
  }

  /** The address actually bound. */
  public InetSocketAddress address() {
    return (InetSocketAddress) listener.localAddress();
  }

  /** {@code http(s)://<bind>:<port>}, with IPv6 addresses in brackets. */
  public String baseUrl(String bind) {
    InetAddress address;
    try {
      address = InetAddress.getByName(bind);
    } catch (IOException e) {
      address = null;
    }
    String host = address instanceof Inet6Address && !bind.startsWith("[") ? "[" + bind + "]" : bind;
    return (tls != null ? "https://" : "http://") + host + ":" + address().getPort();
  }

  public boolean requiresToken() {
    return auth.enabled();
  }

  /**
   * Stops the server, each step logged: the port closes and new requests are refused with 503,
   * waiting claims return with what they have, requests in flight get up to {@code drain} to
   * finish, then every connection is closed and the threads end. Idempotent.
   */
  public void shutdown(Duration drain) {
    if (!stopping.compareAndSet(false, true)) {
      return;
    }
    draining = true;
    if (listener != null) {
      listener.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
    int waiting = longPolls.waiting();
    int running = inFlight.get();
    longPolls.close();
    log.info("shutdown: no longer taking requests; {} in flight ({} waiting claims told to return), waiting up to {} s",
        running, waiting, drain.toSeconds());
    long deadline = System.nanoTime() + drain.toNanos();
    synchronized (drained) {
      long left;
      while (inFlight.get() > 0 && (left = deadline - System.nanoTime()) > 0) {
        try {
          TimeUnit.NANOSECONDS.timedWait(drained, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    int unfinished = inFlight.get();
    if (unfinished > 0) {
      log.warn("shutdown: {} request(s) still running after {} s; closing their connections", unfinished, drain.toSeconds());
    } else {
      log.info("shutdown: all requests finished");
    }
    connections.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    stopLoops();
    for (ThreadPoolExecutor pool : List.of(handlers, dashboardHandlers)) {
      pool.shutdown();
      try {
        if (!pool.awaitTermination(2, TimeUnit.SECONDS)) {
          pool.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        pool.shutdownNow();
      }
    }
    metrics.close();
    log.info("shutdown: HTTP server stopped");
  }

  private void stopLoops() {
    acceptor.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    loops.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
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
