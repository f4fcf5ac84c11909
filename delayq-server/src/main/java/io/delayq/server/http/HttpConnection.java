package io.delayq.server.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.timeout.WriteTimeoutException;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.delayq.server.web.Dashboard;
import io.delayq.server.web.Prefix;
import io.delayq.server.web.WebException;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: reads each request whole within its limits and timeouts, hands it to
 * the {@link ApiServer} to answer, writes the answer, and keeps the connection for the next one
 * or closes it.
 *
 * <p>Every method runs on the connection's event loop. The connection is in one of four states:
 * idle between requests (closed after the idle timeout), reading a request's head (from its first
 * byte; the header timeout applies), reading its body (the body timeout applies), or busy while
 * the request is answered. Requests a client pipelines while one is answered wait their turn.
 * After any framing error the connection is closed: bytes after a request the server could not
 * delimit are never read as another request.
 */
final class HttpConnection extends ChannelDuplexHandler {
  private static final Logger log = LoggerFactory.getLogger(HttpConnection.class);
  private static final Logger access = LoggerFactory.getLogger("io.delayq.server.access");
  private static final Set<String> METHODS = Set.of("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS");
  /** Bytes of requests a client may pipeline behind the one being answered; more closes the connection. */
  private static final int MAX_PIPELINED_BYTES = 1024 * 1024;
  /** What the access log shows in place of a token sent in a query. */
  static final String REDACTED = "REDACTED";

  private enum State { IDLE, HEAD, BODY, DISCARD, BUSY, CLOSED }

  private final ApiServer server;
  private final HttpSettings settings;
  private final String remote;
  private ChannelHandlerContext ctx;
  private State state = State.IDLE;
  private ScheduledFuture<?> timer;
  private final ArrayDeque<Object> pipelined = new ArrayDeque<>();
  private long pipelinedBytes;

  private HttpRequest head;
  private Router.Match match;
  private String path;
  private String rawQuery;
  /** Whether the current request is the dashboard's: answered in HTML, with its security headers. */
  private boolean dashboardRequest;
  private CompositeByteBuf body;
  private int bodyLimit;
  private long discarded;
  private boolean keepAlive;
  private long startNanos;
  private CompletableFuture<Void> gone;
  /** Bytes of the {@link MemoryBudget} this connection's current request and answer hold. */
  private long held;
  /** The client shut down its sending side: answer what it sent, then close. */
  private boolean inputShutdown;

  HttpConnection(ApiServer server, HttpSettings settings, SocketAddress remote) {
    this.server = server;
    this.settings = settings;
    this.remote = remote == null ? "-" : remote.toString().replaceFirst("^/", "");
  }

  /** Sits before the decoder: the header timeout starts with a request's first byte. */
  ChannelHandler firstByteWatch() {
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext context, Object msg) {
        if (state == State.IDLE && msg instanceof ByteBuf bytes && bytes.isReadable()) {
          state = State.HEAD;
          arm(settings.headerTimeout(), this::headersTooSlow);
        }
        context.fireChannelRead(msg);
      }

      private void headersTooSlow() {
        if (state == State.HEAD) {
          fail(ApiException.requestTimeout("the request line and headers did not arrive within "
              + settings.headerTimeout().toSeconds() + " s of the request's first byte; send them at once"), true);
        }
      }
    };
  }

  @Override
  public void handlerAdded(ChannelHandlerContext context) {
    this.ctx = context;
  }

  @Override
  public void channelActive(ChannelHandlerContext context) {
    // why: a connection that never sends a byte holds a slot of --max-connections; it gets the
    // header timeout, not the keep-alive idle timeout of a client that has made requests
    arm(settings.headerTimeout(), () -> {
      if (state == State.IDLE) {
        close();
      }
    });
    context.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext context, Object msg) {
    if (state == State.BUSY || !pipelined.isEmpty() && state != State.CLOSED) {
      pipelinedBytes += msg instanceof HttpContent content ? content.content().readableBytes() : 512;
      if (pipelinedBytes > MAX_PIPELINED_BYTES) {
        ReferenceCountUtil.release(msg);
        close();
        return;
      }
      pipelined.add(msg);
      return;
    }
    handle(msg);
  }

  private void handle(Object msg) {
    try {
      if (msg instanceof HttpRequest request) {
        onHead(request);
      }
      if (msg instanceof HttpContent content) {
        onContent(content);
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void onHead(HttpRequest request) {
    cancelTimer();
    if (state == State.CLOSED) {
      return;
    }
    startNanos = System.nanoTime();
    head = request;
    keepAlive = HttpUtil.isKeepAlive(request);
    splitTarget(request.uri());
    // why: behind a proxy that passes the prefix on, requests arrive with it; they are served as without
    path = Prefix.strip(settings.basePath(), path);
    match = null;
    dashboardRequest = false;
    DecoderResult result = request.decoderResult();
    if (result.isFailure()) {
      fail(framingError(result.cause()), true);
      return;
    }
    if (request.protocolVersion().majorVersion() != 1) {
      fail(ApiException.badFraming("only HTTP/1.0 and HTTP/1.1 are served here"), true);
      return;
    }
    ApiException malformed = malformed(request);
    if (malformed != null) {
      fail(malformed, true);
      return;
    }
    match = server.router.match(request.method().name(), path);
    if (!match.found() && request.method().equals(HttpMethod.HEAD)) {
      // why: a dashboard page answers HEAD as GET without the body (respond drops it); the API's
      // routes keep answering HEAD with 405 as they always have
      Router.Match get = server.router.match("GET", path);
      if (get.found() && get.route().dashboard() != null) {
        match = get;
      }
    }
    dashboardRequest = match.found() ? match.route().dashboard() != null : Dashboard.isDashboardPath(path);
    RuntimeException refused = admit(request);
    long declared = HttpUtil.getContentLength(request, -1L);
    boolean hasBody = declared > 0 || HttpUtil.isTransferEncodingChunked(request);
    bodyLimit = match.found() ? match.route().bodyLimit() : BodyLimits.SMALL_BYTES;
    if (refused == null && declared > bodyLimit) {
      refused = Request.tooLarge(bodyLimit, declared);
    }
    if (refused == null && hasBody) {
      long cost = (declared > 0 ? declared : bodyLimit) * (long) MemoryBudget.BODY_FACTOR;
      long taken = server.memory.tryTake(cost);
      if (taken < 0) {
        server.metrics.busy();
        refused = ApiException.busy("the server holds as many request bodies and answers as its memory allows;"
            + " retry in a second, send smaller batches, or spread the load over more servers");
      } else {
        held += taken;
      }
    }
    if (refused != null) {
      // why: the answer goes out at once, without reading a body nobody will use; the rest of the
      // body is read and dropped (up to a limit) so that the client sees the answer, not a reset
      keepAlive = keepAlive && !hasBody;
      // a client that asked to be told before sending its body will not send it now: close at once
      boolean discard = hasBody && !HttpUtil.is100ContinueExpected(request);
      state = discard ? State.DISCARD : State.BUSY;
      discarded = 0;
      if (discard) {
        arm(settings.bodyTimeout(), this::close);
      }
      respond(errorResponse(refused, request.method().name()), !discard);
      return;
    }
    if (HttpUtil.is100ContinueExpected(request)) {
      ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE, Unpooled.EMPTY_BUFFER));
    }
    body = ctx.alloc().compositeBuffer(1024);
    state = State.BODY;
    arm(settings.bodyTimeout(), this::bodyTooSlow);
  }

  /**
   * Headers that make a request ambiguous, refused with the connection closed (RFC 9112): a
   * transfer coding other than chunked, whose body length nobody could agree on; no {@code Host},
   * or two, or two {@code Origin}s, which different parts of a path may read differently.
   */
  private static ApiException malformed(HttpRequest request) {
    HttpHeaders headers = request.headers();
    List<String> codings = headers.getAll(HttpHeaderNames.TRANSFER_ENCODING);
    if (codings.size() > 1 || codings.size() == 1 && !codings.get(0).trim().equalsIgnoreCase("chunked")) {
      return ApiException.badFraming("Transfer-Encoding '" + PathCodec.abbreviate(String.join(", ", codings))
          + "' is not accepted; send the body with Content-Length or Transfer-Encoding: chunked alone");
    }
    List<String> hosts = headers.getAll(HttpHeaderNames.HOST);
    if (hosts.size() > 1 || hosts.isEmpty() && request.protocolVersion().equals(HttpVersion.HTTP_1_1)) {
      return ApiException.badFraming(hosts.isEmpty()
          ? "an HTTP/1.1 request needs a Host header" : "the request has " + hosts.size() + " Host headers; send one");
    }
    if (headers.getAll(HttpHeaderNames.ORIGIN).size() > 1) {
      return ApiException.badFraming("the request has more than one Origin header; send one");
    }
    return null;
  }

  /**
   * What is refused before the body is read: shutdown, browsers from elsewhere, no token (the API)
   * or no session (the dashboard), no route.
   */
  private RuntimeException admit(HttpRequest request) {
    String method = request.method().name();
    try {
      if (server.draining()) {
        return ApiException.shuttingDown();
      }
      server.guard.check(method, request.headers());
      if (dashboardRequest) {
        // why: a session cookie admits dashboard routes only, and never a /v1 call
        if (!match.found()) {
          return noRoute(method);
        }
        server.dashboard.admit(match.route().dashboard(), method, request.headers()::get, target());
        return null;
      }
      if (!match.pathOpen()) {
        server.auth.check(request.headers().get(HttpHeaderNames.AUTHORIZATION), method);
      }
      if (!match.found()) {
        return noRoute(method);
      }
      return null;
    } catch (ApiException | WebException e) {
      return e;
    }
  }

  private String target() {
    return ApiServer.target(path, rawQuery);
  }

  /** A refusal as the API's JSON or, for the dashboard, as HTML. */
  private Response errorResponse(Throwable error, String method) {
    return server.errorResponse(error, method, PathCodec.abbreviate(path == null ? "-" : path),
        head == null ? null : head.headers(), dashboardRequest && head != null, target());
  }

  private RuntimeException noRoute(String method) {
    if (match.allowedMethods().isEmpty() && dashboardRequest) {
      return WebException.notFound("there is no page " + PathCodec.abbreviate(path) + " here; the queues page"
          + " lists every queue, and the API is under /v1");
    }
    if (match.allowedMethods().isEmpty()) {
      return ApiException.notFound(
          "no route " + method + " " + PathCodec.abbreviate(path) + "; the API is under /v1 and described at /openapi.json");
    }
    String allowed = String.join(", ", match.allowedMethods());
    return ApiException.methodNotAllowed(
        method + " is not allowed on " + PathCodec.abbreviate(path) + "; allowed: " + allowed, allowed);
  }

  private void onContent(HttpContent content) {
    if (content.decoderResult().isFailure()) {
      fail(framingError(content.decoderResult().cause()), true);
      return;
    }
    boolean last = content instanceof LastHttpContent;
    if (state == State.DISCARD) {
      discarded += content.content().readableBytes();
      if (last || discarded > BodyLimits.DISCARD_BYTES) {
        close();
      }
      return;
    }
    if (state != State.BODY) {
      return;
    }
    ByteBuf bytes = content.content();
    if (body.readableBytes() + (long) bytes.readableBytes() > bodyLimit) {
      releaseBody();
      state = State.DISCARD;
      keepAlive = false;
      discarded = 0;
      respond(errorResponse(Request.tooLarge(bodyLimit, -1), head.method().name()), false);
      if (last) {
        close();
      }
      return;
    }
    if (bytes.isReadable()) {
      body.addComponent(true, bytes.retain());
    }
    if (last) {
      cancelTimer();
      byte[] whole = ByteBufUtil.getBytes(body);
      releaseBody();
      state = State.BUSY;
      dispatch(whole);
    }
  }

  private void dispatch(byte[] bytes) {
    gone = new CompletableFuture<>();
    String method = head.method().name();
    Request request =
        new Request(method, path, rawQuery, head.headers(), bytes, match.params(), match.route().query(), gone);
    server.started();
    server.dispatch(match.route(), request, PathCodec.abbreviate(path)).whenComplete((response, error) -> {
      Response answer = error != null ? ApiServer.failure(error, method, path) : response;
      if (ctx.executor().inEventLoop()) {
        respondInFlight(answer);
      } else {
        ctx.executor().execute(() -> respondInFlight(answer));
      }
    });
  }

  private void respondInFlight(Response response) {
    try {
      respond(response, true);
    } finally {
      server.finished();
    }
  }

  private void bodyTooSlow() {
    if (state == State.BODY) {
      fail(ApiException.requestTimeout("the request body did not arrive within " + settings.bodyTimeout().toSeconds()
          + " s of its headers; send it at once"), true);
    }
  }

  private static ApiException framingError(Throwable cause) {
    if (cause instanceof TooLongHttpLineException) {
      return ApiException.uriTooLong("the request line is longer than " + ApiServer.MAX_REQUEST_LINE
          + " bytes; send long values in the body");
    }
    if (cause instanceof TooLongHttpHeaderException) {
      return ApiException.headersTooLarge("the request headers are larger than " + ApiServer.MAX_HEADER_BYTES
          + " bytes; send fewer or shorter headers");
    }
    if (cause instanceof TooLongFrameException) {
      return ApiException.badFraming("a part of the request is too long: " + cause.getMessage());
    }
    String why = cause == null || cause.getMessage() == null ? "malformed" : cause.getMessage();
    return ApiException.badFraming("the request could not be read as HTTP/1.1 (" + PathCodec.abbreviate(why)
        + "); the connection is closed");
  }

  /** Answers an error and closes the connection once it is written. */
  private void fail(ApiException error, boolean closeAfter) {
    keepAlive = false;
    releaseBody();
    if (state == State.CLOSED) {
      return;
    }
    String method = head == null ? "-" : head.method().name();
    state = State.BUSY;
    respond(errorResponse(error, method), closeAfter);
  }

  /**
   * Writes an answer. When the client has gone, or the write fails, whatever the answer handed
   * out (a claim's jobs) is given back.
   *
   * @param thenContinue whether to go on with the next request (or close) once written; false
   *     while the rest of a refused body is still being dropped
   */
  private void respond(Response response, boolean thenContinue) {
    boolean connectionOpen = ctx.channel().isActive() && state != State.CLOSED;
    logRequest(response.status(), connectionOpen);
    if (!connectionOpen) {
      server.runBlocking(response.onUndelivered());
      return;
    }
    byte[] bytes = response.body();
    if (bytes != null) {
      long taken = server.memory.tryTake(bytes.length);
      if (taken < 0) {
        // why: an answer that does not fit is not sent; what it handed out (a claim's jobs) goes back
        server.runBlocking(response.onUndelivered());
        server.metrics.busy();
        response = ErrorMapping.toResponse(ApiException.busy("the server holds as many answers not yet read by their"
            + " clients as its memory allows; retry in a second (a claim's jobs were handed back, uncounted)"),
            head == null ? "-" : head.method().name(), path == null ? "-" : PathCodec.abbreviate(path));
        bytes = response.body();
      } else {
        held += taken;
      }
    }
    boolean close = !keepAlive || server.draining()
        || "close".equalsIgnoreCase(response.headers().getOrDefault("Connection", ""));
    // why: an answer to HEAD has the headers of the answer to GET and no body
    boolean headOnly = head != null && head.method().equals(HttpMethod.HEAD);
    FullHttpResponse http = new DefaultFullHttpResponse(
        http10() ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1,
        HttpResponseStatus.valueOf(response.status()),
        bytes == null || headOnly ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes));
    HttpHeaders headers = http.headers();
    for (Map.Entry<String, String> header : response.headers().entrySet()) {
      headers.set(header.getKey(), header.getValue());
    }
    if (bytes != null && bytes.length > 0) {
      headers.set(HttpHeaderNames.CONTENT_TYPE, response.contentType());
    }
    if (response.status() != 204) {
      headers.setInt(HttpHeaderNames.CONTENT_LENGTH, bytes == null ? 0 : bytes.length);
    }
    if (!headers.contains(HttpHeaderNames.CACHE_CONTROL)) {
      headers.set(HttpHeaderNames.CACHE_CONTROL, "no-store");
    }
    // why: on every answer, not only the dashboard's: an answer to a request that could not be
    // read (414, 431, 400) is made before anybody knows whether it was for a page, and the headers
    // change nothing for a JSON client
    Dashboard.SECURITY_HEADERS.forEach(headers::set);
    if (close) {
      headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    } else if (http10()) {
      headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
    }
    Runnable undelivered = response.onUndelivered();
    ctx.writeAndFlush(http).addListener((ChannelFutureListener) written -> {
      releaseHeld();
      if (!written.isSuccess()) {
        server.runBlocking(undelivered);
        close();
        return;
      }
      if (!thenContinue) {
        return;
      }
      if (close) {
        close();
      } else {
        next();
      }
    });
  }

  /** Whether the request was read, and read as HTTP/1.0 (a request that could not be read says 1.0 too). */
  private boolean http10() {
    return head != null && head.decoderResult().isSuccess() && head.protocolVersion().equals(HttpVersion.HTTP_1_0);
  }

  /** Ready for the next request: the idle timer runs, and a pipelined request is taken up. */
  private void next() {
    if (state == State.CLOSED) {
      return;
    }
    state = State.IDLE;
    head = null;
    gone = null;
    armIdle();
    if (pipelined.isEmpty() && inputShutdown) {
      close();
      return;
    }
    while (!pipelined.isEmpty() && state != State.BUSY && state != State.CLOSED) {
      Object msg = pipelined.poll();
      pipelinedBytes -= msg instanceof HttpContent content ? content.content().readableBytes() : 512;
      if (state == State.IDLE && msg instanceof HttpRequest) {
        state = State.HEAD;
      }
      handle(msg);
    }
  }

  private void logRequest(int status, boolean delivered) {
    String method = head == null ? "-" : head.method().name();
    long nanos = System.nanoTime() - startNanos;
    String route = match == null ? Router.UNMATCHED : match.label();
    server.metrics.request(METHODS.contains(method) ? method : "other", route, status, nanos);
    if (access.isInfoEnabled()) {
      String target = path == null ? "-"
          : PathCodec.abbreviate(path) + (rawQuery == null ? "" : "?" + PathCodec.abbreviate(redactQuery(rawQuery)));
      access.info("{} {} {} {} {} ms{}", remote, method, target, status,
          TimeUnit.NANOSECONDS.toMillis(nanos), delivered ? "" : " (client gone)");
    }
  }

  /**
   * {@code rawQuery} with the value of every parameter named {@code token} (in any case, however
   * encoded) replaced by {@value #REDACTED}: a login form submitted as a GET puts the token there,
   * and an access log is read by more people than the token's owners.
   */
  static String redactQuery(String rawQuery) {
    if (rawQuery.isEmpty()) {
      return rawQuery;
    }
    StringBuilder out = new StringBuilder(rawQuery.length());
    for (String pair : rawQuery.split("&", -1)) {
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String decoded;
      try {
        decoded = URLDecoder.decode(name, StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        decoded = name;
      }
      out.append(decoded.trim().equalsIgnoreCase("token") ? name + "=" + REDACTED : pair).append('&');
    }
    return out.substring(0, out.length() - 1);
  }

  /** Splits the request target into its path and query, accepting the absolute form too. */
  private void splitTarget(String uri) {
    String target = uri == null ? "/" : uri;
    if (!target.startsWith("/")) {
      int scheme = target.indexOf("://");
      int slash = scheme < 0 ? -1 : target.indexOf('/', scheme + 3);
      target = slash < 0 ? "/" : target.substring(slash);
    }
    int hash = target.indexOf('#');
    if (hash >= 0) {
      target = target.substring(0, hash);
    }
    int q = target.indexOf('?');
    path = q < 0 ? target : target.substring(0, q);
    rawQuery = q < 0 ? null : target.substring(q + 1);
  }

  private void armIdle() {
    arm(settings.idleTimeout(), () -> {
      if (state == State.IDLE) {
        close();
      }
    });
  }

  private void arm(Duration after, Runnable action) {
    cancelTimer();
    timer = ctx.executor().schedule(action, after.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  private void releaseHeld() {
    server.memory.giveBack(held);
    held = 0;
  }

  private void releaseBody() {
    if (body != null) {
      body.release();
      body = null;
    }
  }

  private void close() {
    if (state != State.CLOSED) {
      state = State.CLOSED;
      cancelTimer();
      ctx.close();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext context) {
    state = State.CLOSED;
    cancelTimer();
    releaseBody();
    releaseHeld();
    while (!pipelined.isEmpty()) {
      ReferenceCountUtil.release(pipelined.poll());
    }
    if (gone != null) {
      gone.complete(null);
    }
    context.fireChannelInactive();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext context, Object event) {
    if (event instanceof ChannelInputShutdownEvent) {
      inputShutdown = true;
      if (state == State.BUSY) {
        // a waiting claim, the one call that watches for it, ends as if the client hung up; any
        // other request is answered, then closed
        if (gone != null) {
          gone.complete(null);
        }
      } else if (pipelined.isEmpty() && state != State.DISCARD) {
        close();
      }
      return;
    }
    if (event instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
      log.debug("TLS handshake with {} failed: {}", remote, handshake.cause().toString());
      close();
      return;
    }
    context.fireUserEventTriggered(event);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
    ApiServer.haltIfFatal(cause);
    if (cause instanceof IOException || cause instanceof WriteTimeoutException) {
      log.debug("connection from {}: {}", remote, cause.toString());
    } else {
      log.warn("connection from {} failed; closing it", remote, cause);
    }
    close();
  }
}
