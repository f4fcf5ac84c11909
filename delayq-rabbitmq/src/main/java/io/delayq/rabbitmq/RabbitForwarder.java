package io.delayq.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.delayq.Backoff;
import io.delayq.Forwarder;
import io.delayq.ForwarderStatus;
import io.delayq.ForwarderStatus.State;
import io.delayq.InvalidRequestException;
import io.delayq.JobQueue;
import io.delayq.LeaseExpiredException;
import io.delayq.LeasedJob;
import io.delayq.PullConsumer;
import io.delayq.PullConsumer.Settled;
import io.delayq.PullConsumer.Settlement;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forwards the due jobs of one delayq queue to a RabbitMQ exchange, and removes each job from
 * delayq only after the broker confirmed the message.
 *
 * <p>The usual "delayed message" loop takes a due job out of a Redis sorted set and then publishes
 * it: a process that dies between the two steps loses the job, and a broker that is down gets
 * nothing while the job is already gone. This forwarder claims due jobs with a lease instead (the
 * {@linkplain PullConsumer pull API}), publishes them with publisher confirms, {@code
 * mandatory=true} and as persistent messages, and acks them in delayq, in batches, once the broker
 * has confirmed them. A job whose message the broker refused ({@code basic.nack}), did not confirm
 * within {@linkplain Builder#confirmTimeout the confirm timeout}, or lost with its channel or
 * connection is {@linkplain PullConsumer#release(String, long, Duration) handed back} uncounted
 * and forwarded again later: a broker outage does not use up the job's attempts. A message that no
 * queue is bound for (returned as unroutable) is never acked silently: its job goes to delayq's
 * dead-letter set with a reason naming the exchange and the routing key.
 *
 * <p><b>Delivery guarantee: at least once, with the job id as the message id.</b> A job is
 * published more than once only in these cases, each giving a message with the same {@code
 * messageId}:
 *
 * <ul>
 *   <li>the process died (or lost Redis) after the broker confirmed the message and before delayq
 *       recorded the ack: the lease ends and the job is forwarded again; at most the jobs of one
 *       {@linkplain Builder#maxInFlight window} are concerned;
 *   <li>no confirm arrived within the confirm timeout (or the channel closed before it did) but
 *       the broker had in fact taken the message;
 *   <li>a job's lease ended while it was in flight (a Redis call slower than the lease minus the
 *       confirm timeout).
 * </ul>
 *
 * Consumers therefore deduplicate on {@code messageId} (see docs/RABBITMQ.md).
 *
 * <p>The forwarder owns its connection: it turns amqp-client's automatic recovery off (a
 * recovered channel forgets its outstanding confirms) and reconnects by itself with backoff,
 * claiming nothing while the broker is unusable. A missing exchange makes it {@link
 * State#MISCONFIGURED}: the jobs stay in delayq, due, and are delivered once the exchange is
 * declared.
 *
 * <p>Threads: {@code delayq-forwarder-<queue>} claims and publishes, {@code
 * delayq-forwarder-settle-<queue>} records confirms in delayq; confirms arrive on amqp-client's
 * own threads.
 *
 * @since 0.3.0
 */
public final class RabbitForwarder implements Forwarder {
  /** Unconfirmed messages (and their jobs) held at most at once. */
  public static final int DEFAULT_MAX_IN_FLIGHT = 1000;
  /** How long a published message may wait for its confirm before its job is handed back. */
  public static final Duration DEFAULT_CONFIRM_TIMEOUT = Duration.ofSeconds(10);
  /** How long each claimed job is leased: longer than the confirm timeout, with room for Redis. */
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(60);
  /** The first wait before reconnecting, doubled after each failure. */
  public static final Duration DEFAULT_RETRY_MIN = Duration.ofMillis(200);
  /** The longest wait before reconnecting. */
  public static final Duration DEFAULT_RETRY_MAX = Duration.ofSeconds(30);

  /** Header naming the delayq queue the message came from. */
  public static final String HEADER_QUEUE = "x-delayq-queue";
  /** Header with the job's attempt, counting from 1. */
  public static final String HEADER_ATTEMPT = "x-delayq-attempt";
  /** Header with the time the job was due, epoch milliseconds. */
  public static final String HEADER_DUE_AT = "x-delayq-due-at";
  /** Header with the time the forwarder claimed the job, epoch milliseconds by the Redis clock. */
  public static final String HEADER_CLAIMED_AT = "x-delayq-claimed-at";

  private static final Logger log = LoggerFactory.getLogger(RabbitForwarder.class);
  private static final int MAX_CLAIM = 500;
  /** How long an idle claim long-polls: bounds how late a close or a broken channel is noticed. */
  private static final Duration CLAIM_WAIT = Duration.ofMillis(500);
  private static final String JSON = "application/json";

  private final JobQueue queue;
  private final PullConsumer pull;
  private final ConnectionFactory factory;
  private final RabbitRoute defaultRoute;
  private final Function<LeasedJob, RabbitRoute> route;
  private final int maxInFlight;
  private final Duration confirmTimeout;
  private final Duration lease;
  private final Backoff backoff;
  private final String contentType;
  private final IntConsumer confirmHook;

  private final Semaphore window;
  private final LinkedBlockingQueue<Outcome> outcomes = new LinkedBlockingQueue<>();
  private final CountDownLatch closeSignal = new CountDownLatch(1);
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Set<String> suspectExchanges = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final Map<String, Long> nextExchangeCheck = new java.util.concurrent.ConcurrentHashMap<>();
  private final AtomicLong forwarded = new AtomicLong();
  private final AtomicLong deadLettered = new AtomicLong();
  private final AtomicLong retried = new AtomicLong();
  private final Object stateLock = new Object();
  private volatile State state = State.STARTING;
  private volatile String lastError;
  private volatile Instant lastErrorAt;
  private String lastLogged;
  private volatile Session session;
  /** The broker's max_message_size once a 406 told it; -1 until then. */
  private volatile long maxMessageBytes = -1;
  private volatile boolean settlerStop;
  private Thread forwarderThread;
  private Thread settlerThread;

  private RabbitForwarder(Builder b) {
    this.queue = b.queue;
    this.pull = b.queue.pull();
    this.factory = b.factory.clone();
    // why: a recovered channel starts its publish sequence again and forgets the confirms it
    // owed, so jobs could be acked for messages the broker never took; reconnecting is ours
    this.factory.setAutomaticRecoveryEnabled(false);
    this.factory.setTopologyRecoveryEnabled(false);
    this.defaultRoute = new RabbitRoute(b.exchange, b.routingKey);
    this.route = b.route;
    this.maxInFlight = b.maxInFlight;
    this.confirmTimeout = b.confirmTimeout;
    this.lease = b.lease;
    this.backoff = new Backoff(b.retryMin, b.retryMax, 2.0, 0.2);
    this.contentType = b.contentType;
    this.confirmHook = b.confirmHook;
    this.window = new Semaphore(maxInFlight);
  }

  /**
   * Starts configuring a forwarder of {@code queue}'s due jobs to the broker that {@code factory}
   * connects to. The factory is copied; the forwarder opens (and closes) its own connection.
   */
  public static Builder builder(JobQueue queue, ConnectionFactory factory) {
    return new Builder(queue, factory);
  }

  /**
   * Starts forwarding: connects in the background and returns at once ({@link #status()} says
   * {@link State#STARTING} until connected).
   *
   * @throws IllegalStateException when started before or closed
   */
  public RabbitForwarder start() {
    if (closed.get()) {
      throw new IllegalStateException("the forwarder of queue '" + queue.name() + "' is closed; build a new one");
    }
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("the forwarder of queue '" + queue.name() + "' is started already");
    }
    settlerThread = new Thread(this::runSettler, "delayq-forwarder-settle-" + queue.name());
    forwarderThread = new Thread(this::runForwarder, "delayq-forwarder-" + queue.name());
    settlerThread.setDaemon(true);
    forwarderThread.setDaemon(true);
    settlerThread.start();
    forwarderThread.start();
    return this;
  }

  @Override
  public String queue() {
    return queue.name();
  }

  @Override
  public String target() {
    return "rabbitmq:" + defaultRoute.exchange() + "/" + defaultRoute.routingKey();
  }

  @Override
  public ForwarderStatus status() {
    Session s = session;
    int inFlight = s == null ? 0 : s.unconfirmed.size();
    return new ForwarderStatus(
        state, target(), forwarded.get(), deadLettered.get(), retried.get(), inFlight, lastError, lastErrorAt);
  }

  /**
   * Stops claiming, waits up to the confirm timeout for the confirms still owed, hands back every
   * job whose message stays unconfirmed (due at once, uncounted), records what was confirmed, and
   * closes the connection it opened. Bounded: a publish the broker blocks is cut off by aborting
   * the connection, and recording gets at most 30 s more. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    closeSignal.countDown();
    if (forwarderThread != null) {
      // why: a publish blocked by the broker (a resource alarm) holds the thread; aborting the
      // connection frees it, and its unconfirmed jobs are handed back like any lost connection's
      if (!join(forwarderThread, confirmTimeout.plusSeconds(2))) {
        Session s = session;
        if (s != null) {
          s.connection.abort(1000);
        }
        join(forwarderThread, Duration.ofSeconds(5));
      }
      settlerStop = true;
      if (!join(settlerThread, Duration.ofSeconds(30))) {
        log.warn("the forwarder of queue '{}' closed before it could record every outcome in delayq; the jobs"
            + " concerned are forwarded again when their leases end", queue.name());
      }
    }
    synchronized (stateLock) {
      state = State.CLOSED;
    }
  }

  /** Waits up to {@code max} for {@code t} to end; whether it did. */
  private static boolean join(Thread t, Duration max) {
    long deadline = System.nanoTime() + max.toNanos();
    boolean interrupted = false;
    while (t.isAlive() && System.nanoTime() < deadline) {
      try {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return !t.isAlive();
  }

  // ---- the claim-and-publish loop -------------------------------------------------------------

  private void runForwarder() {
    int failures = 0;
    int redisFailures = 0;
    while (!closed.get()) {
      Session s = session;
      if (s == null) {
        try {
          s = connect();
          session = s;
          if (failures > 0 || state == State.STARTING) {
            running();
          }
        } catch (Exception e) {
          failures++;
          Problem p = Problem.of(e, factory.getHost(), factory.getPort(), suspectExchanges);
          failed(p);
          pause(backoff.delayAfter(failures, ThreadLocalRandom.current()));
          continue;
        }
      }
      if (s.confirmedAny) {
        failures = 0;
      }
      Throwable failure = s.failure;
      if (failure == null) {
        Pending oldest = s.oldest();
        if (oldest != null && System.nanoTime() - oldest.publishedNanos > confirmTimeout.toNanos()) {
          failure = new ConfirmTimeoutException(
              "no confirm from the broker within " + confirmTimeout + " (" + s.unconfirmed.size() + " unconfirmed)");
          s.fail(failure);
        }
      }
      if (failure != null) {
        failures++;
        long max = Problem.maxMessageSize(failure);
        if (max >= 0) {
          maxMessageBytes = max;
        }
        Problem p = Problem.of(failure, factory.getHost(), factory.getPort(), suspectExchanges);
        Duration delay = backoff.delayAfter(failures, ThreadLocalRandom.current());
        failed(p);
        drop(s, delay);
        session = null;
        pause(delay);
        continue;
      }
      int n = acquireWindow();
      if (n == 0) {
        continue;
      }
      List<LeasedJob> jobs;
      try {
        jobs = pull.claim(n, lease, CLAIM_WAIT);
        redisFailures = 0;
      } catch (RuntimeException e) {
        window.release(n);
        redisFailures++;
        noteError("claiming from delayq failed: " + e.getMessage());
        pause(backoff.delayAfter(redisFailures, ThreadLocalRandom.current()));
        continue;
      }
      if (Thread.interrupted()) {
        // why: an interrupt is not ours to act on (close uses its own signal); clear it so the
        // socket writes of the next publishes are not disturbed
        log.debug("forwarder of queue '{}' ignored an interrupt", queue.name());
      }
      window.release(n - jobs.size());
      if (!jobs.isEmpty()) {
        publish(s, jobs, failures);
      }
    }
    finish();
  }

  private int acquireWindow() {
    int n = window.drainPermits();
    int batch = Math.min(MAX_CLAIM, Math.max(1, maxInFlight / 4));
    try {
      if (n == 0) {
        if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
          return 0;
        }
        n = 1 + window.drainPermits();
      }
      // why: with messages in flight, the window frees a few slots at a time; claiming each few
      // alone costs a Redis round trip per handful of jobs, so wait briefly for a batch's worth
      if (n < batch && n < maxInFlight && window.tryAcquire(batch - n, 5, TimeUnit.MILLISECONDS)) {
        n = batch;
      }
    } catch (InterruptedException e) {
      window.release(n);
      return 0;
    }
    n += window.drainPermits();
    if (n > MAX_CLAIM) {
      window.release(n - MAX_CLAIM);
      n = MAX_CLAIM;
    }
    return n;
  }

  private void publish(Session s, List<LeasedJob> jobs, int failures) {
    for (int i = 0; i < jobs.size(); i++) {
      LeasedJob job = jobs.get(i);
      RabbitRoute to;
      try {
        to = routeOf(job);
      } catch (RuntimeException e) {
        noteError("the route function failed for job '" + job.id() + "': " + e);
        log.warn("the route function of the forwarder of queue '{}' failed for job '{}'; the job is handed back",
            queue.name(), job.id(), e);
        outcomes.add(new Release(job, backoff.delayAfter(failures + 1, ThreadLocalRandom.current())));
        continue;
      }
      if (!to.exchange().equals(defaultRoute.exchange()) && suspectExchanges.contains(to.exchange())
          && !exchangeExists(s.connection, to.exchange())) {
        // why: publishing would close the channel (404) and hand back every job in flight with it
        noteError("job '" + job.id() + "' is routed to exchange '" + to.exchange() + "', which does not exist: declare"
            + " it; such jobs wait in delayq, the others are forwarded");
        outcomes.add(new Release(job, backoff.delayAfter(failures + 5, ThreadLocalRandom.current())));
        continue;
      }
      String unpublishable = unpublishable(job);
      if (unpublishable != null) {
        // why: amqp-client refuses such a message before sending anything; publishing it would fail the
        // channel, hand back every job in flight with it, and do the same again on each claim, forever
        outcomes.add(new Bury(job, unpublishable));
        continue;
      }
      Pending p = new Pending(job, to, System.nanoTime());
      try {
        // why: registered before the publish, since its confirm may arrive before basicPublish returns
        long seq = s.channel.getNextPublishSeqNo();
        s.unconfirmed.put(seq, p);
        s.byId.put(job.id(), p);
        s.channel.basicPublish(to.exchange(), to.routingKey(), true, properties(job), job.payload());
      } catch (IOException | RuntimeException e) {
        s.fail(e);
        Duration delay = backoff.delayAfter(failures + 1, ThreadLocalRandom.current());
        for (int k = i + 1; k < jobs.size(); k++) {
          outcomes.add(new Release(jobs.get(k), delay));
        }
        return;
      }
    }
  }

  /**
   * Whether a suspect exchange that only per-job routes name exists now, asked passively on a
   * channel of its own at most once a second per exchange; found, it is no longer suspect.
   */
  private boolean exchangeExists(Connection connection, String exchange) {
    long now = System.nanoTime();
    Long next = nextExchangeCheck.get(exchange);
    if (next != null && now - next < 0) {
      return false;
    }
    nextExchangeCheck.put(exchange, now + TimeUnit.SECONDS.toNanos(1));
    try {
      Channel probe = connection.createChannel();
      probe.exchangeDeclarePassive(exchange);
      probe.close();
    } catch (IOException | java.util.concurrent.TimeoutException | RuntimeException e) {
      return false;
    }
    suspectExchanges.remove(exchange);
    nextExchangeCheck.remove(exchange);
    return true;
  }

  private RabbitRoute routeOf(LeasedJob job) {
    if (route == null) {
      return defaultRoute;
    }
    RabbitRoute r = route.apply(job);
    return r != null ? r : defaultRoute;
  }

  /**
   * Why AMQP, or this broker, cannot take {@code job}'s message as it is (short strings hold 255
   * bytes; the broker refuses bodies over its max_message_size), or null.
   */
  private String unpublishable(LeasedJob job) {
    long max = maxMessageBytes;
    if (max >= 0 && job.payload().length > max) {
      return "unpublishable: the payload takes " + job.payload().length + " bytes; the broker refuses messages over "
          + max + " bytes (406 PRECONDITION_FAILED, its max_message_size): raise max_message_size or store the body"
          + " elsewhere and schedule its key";
    }
    int idBytes = RabbitRoute.utf8Length(job.id());
    if (idBytes > RabbitRoute.MAX_SHORT_STRING_BYTES) {
      return "unpublishable: the job id takes " + idBytes + " bytes and becomes the messageId, which AMQP limits to "
          + RabbitRoute.MAX_SHORT_STRING_BYTES + "; schedule it again with a shorter id";
    }
    for (String name : job.traceHeaders().keySet()) {
      int bytes = RabbitRoute.utf8Length(name);
      if (bytes > RabbitRoute.MAX_SHORT_STRING_BYTES) {
        return "unpublishable: trace header name takes " + bytes + " bytes; AMQP limits header names to "
            + RabbitRoute.MAX_SHORT_STRING_BYTES;
      }
    }
    return null;
  }

  private AMQP.BasicProperties properties(LeasedJob job) {
    Map<String, Object> headers = new HashMap<>(job.traceHeaders());
    headers.put(HEADER_QUEUE, queue.name());
    headers.put(HEADER_ATTEMPT, job.attempt());
    headers.put(HEADER_DUE_AT, job.runAt().toEpochMilli());
    headers.put(HEADER_CLAIMED_AT, job.leaseUntil().toEpochMilli() - lease.toMillis());
    return new AMQP.BasicProperties.Builder()
        .messageId(job.id())
        .deliveryMode(2)
        .contentType(job.payloadIsJson() ? JSON : contentType)
        .headers(headers)
        .build();
  }

  private Session connect() throws IOException, java.util.concurrent.TimeoutException {
    Connection connection = factory.newConnection("delayq-forwarder-" + queue.name());
    try {
      // why: a publish to a missing exchange closes the channel and would cost the jobs claimed
      // for it a round trip; a passive check first keeps the forwarder from claiming at all
      Set<String> check = new LinkedHashSet<>();
      check.add(defaultRoute.exchange());
      check.addAll(suspectExchanges);
      for (String exchange : check) {
        if (exchange.isEmpty()) {
          continue;
        }
        if (!exchange.equals(defaultRoute.exchange())) {
          // why: an exchange only some jobs are routed to must not stop the others; its jobs wait (publish)
          exchangeExists(connection, exchange);
          continue;
        }
        Channel probe = connection.createChannel();
        probe.exchangeDeclarePassive(exchange);
        probe.close();
        suspectExchanges.remove(exchange);
      }
      Session s = new Session(connection, connection.createChannel());
      s.channel.confirmSelect();
      s.channel.addConfirmListener(
          (seq, multiple) -> s.confirmed(seq, multiple, true), (seq, multiple) -> s.confirmed(seq, multiple, false));
      s.channel.addReturnListener(r -> s.returned(r.getProperties().getMessageId(), r.getExchange(), r.getRoutingKey(),
          r.getReplyCode(), r.getReplyText()));
      s.channel.addShutdownListener(s::fail);
      connection.addShutdownListener(s::fail);
      connection.addBlockedListener(
          reason -> noteError("the broker blocks publishing (" + reason + "); confirms wait until it unblocks"),
          () -> log.info("the broker unblocked publishing for the forwarder of queue '{}'", queue.name()));
      return s;
    } catch (IOException | RuntimeException e) {
      closeQuietly(connection);
      throw e;
    }
  }

  /** Hands back every job still unconfirmed on a session that failed or is closing, and closes it. */
  private void drop(Session s, Duration delay) {
    closeQuietly(s.connection);
    for (Long seq : new ArrayList<>(s.unconfirmed.keySet())) {
      Pending p = s.unconfirmed.remove(seq);
      if (p != null) {
        s.byId.remove(p.job.id(), p);
        outcomes.add(new Release(p.job, delay));
      }
    }
  }

  private void finish() {
    Session s = session;
    if (s != null) {
      long deadline = System.nanoTime() + confirmTimeout.toNanos();
      synchronized (s) {
        while (!s.unconfirmed.isEmpty() && s.failure == null && System.nanoTime() < deadline) {
          try {
            s.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
          } catch (InterruptedException e) {
            break;
          }
        }
      }
      int left = s.unconfirmed.size();
      if (left > 0) {
        log.info("forwarder of queue '{}' closes with {} messages unconfirmed; their jobs are handed back",
            queue.name(), left);
      }
      drop(s, Duration.ZERO);
      session = null;
    }
  }

  private void pause(Duration d) {
    try {
      closeSignal.await(d.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      // the loop checks for close itself
    }
  }

  private static void closeQuietly(Connection c) {
    try {
      if (c.isOpen()) {
        c.close(1000);
      }
    } catch (Exception e) {
      c.abort(1000);
    }
  }

  // ---- status ---------------------------------------------------------------------------------

  private void running() {
    synchronized (stateLock) {
      if (closed.get()) {
        return;
      }
      State before = state;
      state = State.RUNNING;
      lastLogged = null;
      if (before != State.STARTING) {
        log.info("forwarder of queue '{}' to {} is forwarding again", queue.name(), target());
      }
    }
  }

  private void failed(Problem p) {
    synchronized (stateLock) {
      if (closed.get()) {
        return;
      }
      state = p.state();
      lastError = p.message();
      lastErrorAt = Instant.now();
      String key = p.state() + p.message();
      // why: a broker down for an hour is retried hundreds of times; log each change, not each try
      if (!key.equals(lastLogged)) {
        lastLogged = key;
        log.warn("forwarder of queue '{}' to {} is {}: {}", queue.name(), target(), p.state(), p.message());
      }
    }
  }

  private void noteError(String message) {
    lastError = message;
    lastErrorAt = Instant.now();
  }

  // ---- recording outcomes in delayq -----------------------------------------------------------

  private sealed interface Outcome permits Confirmed, Bury, Release {
    LeasedJob job();
  }

  private record Confirmed(LeasedJob job) implements Outcome {}

  private record Bury(LeasedJob job, String reason) implements Outcome {}

  private record Release(LeasedJob job, Duration dueIn) implements Outcome {}

  private record Retry(Outcome outcome, long notBeforeNanos) {}

  private void runSettler() {
    List<Outcome> batch = new ArrayList<>();
    List<Retry> retries = new ArrayList<>();
    while (true) {
      Outcome first;
      try {
        first = outcomes.poll(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        first = null;
      }
      long now = System.nanoTime();
      for (var it = retries.iterator(); it.hasNext(); ) {
        Retry r = it.next();
        if (settlerStop || r.notBeforeNanos <= now) {
          batch.add(r.outcome);
          it.remove();
        }
      }
      if (first != null) {
        batch.add(first);
      }
      outcomes.drainTo(batch, Math.max(0, PullConsumer.MAX_SETTLEMENTS - batch.size()));
      if (batch.isEmpty()) {
        if (settlerStop && outcomes.isEmpty() && retries.isEmpty()) {
          return;
        }
        continue;
      }
      List<Outcome> again = settle(batch);
      batch.clear();
      boolean last = settlerStop;
      for (Outcome o : again) {
        if (!last && o.job().leaseUntil().isAfter(Instant.now())) {
          retries.add(new Retry(o, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200)));
        } else {
          giveUp(o);
        }
      }
    }
  }

  /** Records a batch; returns what failed for a reason worth another try. */
  private List<Outcome> settle(List<Outcome> batch) {
    List<Outcome> again = new ArrayList<>();
    List<Settlement> acks = new ArrayList<>();
    List<Outcome> ackOutcomes = new ArrayList<>();
    for (Outcome o : batch) {
      if (o instanceof Confirmed) {
        acks.add(Settlement.ack(o.job()));
        ackOutcomes.add(o);
      }
    }
    if (!acks.isEmpty()) {
      if (confirmHook != null) {
        confirmHook.accept(acks.size());
      }
      List<Settled> answers;
      try {
        answers = pull.settleAll(acks);
      } catch (RuntimeException e) {
        noteError("recording confirms in delayq failed: " + e.getMessage());
        answers = null;
      }
      for (int i = 0; i < ackOutcomes.size(); i++) {
        Settled answer = answers == null ? null : answers.get(i);
        if (answer != null && answer.outcome() == Settled.Outcome.ACKED) {
          forwarded.incrementAndGet();
          window.release();
        } else if (answer != null && answer.outcome() == Settled.Outcome.REFUSED) {
          lateAck(ackOutcomes.get(i).job());
          window.release();
        } else {
          again.add(ackOutcomes.get(i));
        }
      }
    }
    for (Outcome o : batch) {
      LeasedJob job = o.job();
      try {
        if (o instanceof Bury b) {
          pull.bury(job.id(), job.token(), b.reason());
          deadLettered.incrementAndGet();
          log.warn("job '{}' of queue '{}' is dead: {}", job.id(), queue.name(), b.reason());
          window.release();
        } else if (o instanceof Release r) {
          if (pull.release(job.id(), job.token(), r.dueIn())) {
            retried.incrementAndGet();
          }
          window.release();
        }
      } catch (LeaseExpiredException e) {
        window.release();
      } catch (RuntimeException e) {
        noteError("handing a job back to delayq failed: " + e.getMessage());
        again.add(o);
      }
    }
    return again;
  }

  private void lateAck(LeasedJob job) {
    log.warn("job '{}' of queue '{}' was confirmed by the broker after its lease ended; it will be forwarded again"
        + " with the same messageId", job.id(), queue.name());
  }

  private void giveUp(Outcome o) {
    window.release();
    log.warn("could not record the {} of job '{}' of queue '{}' in delayq before its lease ended; the job will be"
        + " delivered again (messageId '{}')", o.getClass().getSimpleName().toLowerCase(), o.job().id(), queue.name(),
        o.job().id());
  }

  // ---- one connection and its channel ---------------------------------------------------------

  /** A publish waiting for its confirm. */
  private static final class Pending {
    final LeasedJob job;
    final RabbitRoute route;
    final long publishedNanos;
    volatile String returned;

    Pending(LeasedJob job, RabbitRoute route, long publishedNanos) {
      this.job = job;
      this.route = route;
      this.publishedNanos = publishedNanos;
    }
  }

  static final class ConfirmTimeoutException extends Exception {
    private static final long serialVersionUID = 1L;

    ConfirmTimeoutException(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * A connection with its confirm channel. Publish sequence numbers start at 1 on every channel,
   * so each session keeps its own unconfirmed map; whoever removes an entry (a confirm, or the
   * failure of the session) owns its outcome, so each job is settled exactly once.
   */
  private final class Session {
    final Connection connection;
    final Channel channel;
    final java.util.concurrent.ConcurrentSkipListMap<Long, Pending> unconfirmed =
        new java.util.concurrent.ConcurrentSkipListMap<>();
    final Map<String, Pending> byId = new java.util.concurrent.ConcurrentHashMap<>();
    volatile Throwable failure;
    volatile boolean confirmedAny;

    Session(Connection connection, Channel channel) {
      this.connection = connection;
      this.channel = channel;
    }

    Pending oldest() {
      var first = unconfirmed.firstEntry();
      return first == null ? null : first.getValue();
    }

    void fail(Throwable cause) {
      if (failure == null) {
        failure = cause;
      }
      synchronized (this) {
        notifyAll();
      }
    }

    void returned(String messageId, String exchange, String routingKey, int code, String text) {
      Pending p = messageId == null ? null : byId.get(messageId);
      if (p != null) {
        // why: the return of a mandatory message comes before its confirm, which then settles it
        p.returned = "unroutable: no queue bound to exchange '" + exchange + "' for routing key '" + routingKey
            + "' (" + code + " " + text + ")";
      }
    }

    void confirmed(long seq, boolean multiple, boolean ack) {
      confirmedAny = true;
      if (ack && state == State.RETRYING && failure == null) {
        running();
      }
      if (multiple) {
        var head = unconfirmed.headMap(seq, true);
        for (Long k : new ArrayList<>(head.keySet())) {
          settleOne(unconfirmed.remove(k), ack);
        }
      } else {
        settleOne(unconfirmed.remove(seq), ack);
      }
      if (unconfirmed.isEmpty()) {
        synchronized (this) {
          notifyAll();
        }
      }
    }

    private void settleOne(Pending p, boolean ack) {
      if (p == null) {
        return;
      }
      byId.remove(p.job.id(), p);
      if (!ack) {
        // why: no job id in the message, so that a run of nacks is logged once, not once per job
        failed(new Problem(State.RETRYING, "the broker refused messages to " + p.route
            + " (basic.nack: a queue full with overflow reject-publish, or a broker error); their jobs are handed"
            + " back and tried again"));
        outcomes.add(new Release(p.job, backoff.delayAfter(1, ThreadLocalRandom.current())));
      } else if (p.returned != null) {
        outcomes.add(new Bury(p.job, p.returned));
      } else {
        outcomes.add(new Confirmed(p.job));
      }
    }
  }

  // ---- configuration --------------------------------------------------------------------------

  /**
   * Configures a {@link RabbitForwarder}. {@link #exchange} and {@link #routingKey} are required;
   * every other setting has a default ({@code DEFAULT_*} on {@link RabbitForwarder}).
   *
   * @since 0.3.0
   */
  public static final class Builder {
    private final JobQueue queue;
    private final ConnectionFactory factory;
    private String exchange;
    private String routingKey;
    private Function<LeasedJob, RabbitRoute> route;
    private int maxInFlight = DEFAULT_MAX_IN_FLIGHT;
    private Duration confirmTimeout = DEFAULT_CONFIRM_TIMEOUT;
    private Duration lease = DEFAULT_LEASE;
    private Duration retryMin = DEFAULT_RETRY_MIN;
    private Duration retryMax = DEFAULT_RETRY_MAX;
    private String contentType;
    private IntConsumer confirmHook;

    private Builder(JobQueue queue, ConnectionFactory factory) {
      if (queue == null) {
        throw new InvalidRequestException("queue", "is null; pass the JobQueue whose due jobs to forward");
      }
      if (factory == null) {
        throw new InvalidRequestException("factory", "is null; pass a ConnectionFactory for the broker");
      }
      this.queue = queue;
      this.factory = factory;
    }

    /** The exchange every job goes to unless {@link #route} names another; {@code ""} is the default exchange. */
    public Builder exchange(String exchange) {
      this.exchange = exchange;
      return this;
    }

    /** The routing key every job is published with unless {@link #route} names another. */
    public Builder routingKey(String routingKey) {
      this.routingKey = routingKey;
      return this;
    }

    /**
     * A route per job (for example from a field of the payload); returning {@code null} uses the
     * default {@link #exchange} and {@link #routingKey}. Called on the publishing thread, so keep
     * it quick; a route that throws hands the job back to be tried again.
     */
    public Builder route(Function<LeasedJob, RabbitRoute> route) {
      this.route = route;
      return this;
    }

    /**
     * The most messages published and not yet confirmed (and recorded) at once: the window of the
     * asynchronous confirms, and the most duplicates a crash can cause.
     */
    public Builder maxInFlight(int maxInFlight) {
      this.maxInFlight = maxInFlight;
      return this;
    }

    /**
     * How long a message may wait for its confirm; after that the channel is taken as broken, its
     * unconfirmed jobs are handed back and the forwarder reconnects.
     */
    public Builder confirmTimeout(Duration confirmTimeout) {
      this.confirmTimeout = confirmTimeout;
      return this;
    }

    /**
     * How long each claimed job is leased: longer than the confirm timeout, so that a job is never
     * claimed by another forwarder while its message may still be confirmed.
     */
    public Builder lease(Duration lease) {
      this.lease = lease;
      return this;
    }

    /**
     * The wait before reconnecting: {@code min} after the first failure, doubling up to {@code
     * max}, ±20%. Jobs handed back because the broker failed are due again after the same wait.
     */
    public Builder retryBackoff(Duration min, Duration max) {
      this.retryMin = min;
      this.retryMax = max;
      return this;
    }

    /**
     * The content type of messages whose payload was not scheduled as JSON; none by default.
     * JSON payloads are always {@code application/json}.
     */
    public Builder contentType(String contentType) {
      this.contentType = contentType;
      return this;
    }

    /** Test seam: called on the settling thread with the number of confirms about to be recorded. */
    Builder confirmHook(IntConsumer hook) {
      this.confirmHook = hook;
      return this;
    }

    /**
     * Checks the settings and makes the forwarder, not yet started.
     *
     * @throws InvalidRequestException naming the setting that is wrong
     */
    public RabbitForwarder build() {
      if (exchange == null) {
        throw new InvalidRequestException(
            "exchange", "is not set; call exchange(\"name\") (\"\" is RabbitMQ's default exchange)");
      }
      if (routingKey == null) {
        throw new InvalidRequestException("routingKey", "is not set; call routingKey(\"key\") (\"\" when the exchange ignores it)");
      }
      new RabbitRoute(exchange, routingKey);
      if (maxInFlight <= 0) {
        throw new InvalidRequestException("maxInFlight", "must be at least 1; got " + maxInFlight);
      }
      positive("confirmTimeout", confirmTimeout);
      positive("lease", lease);
      if (lease.compareTo(confirmTimeout) <= 0) {
        throw new InvalidRequestException("lease", "(" + lease + ") must be longer than confirmTimeout (" + confirmTimeout
            + "), or a job could be claimed again while its message may still be confirmed; raise lease or lower"
            + " confirmTimeout");
      }
      if (retryMin == null || retryMax == null || retryMin.isNegative() || retryMax.compareTo(retryMin) < 0
          || retryMax.isZero()) {
        throw new InvalidRequestException(
            "retryBackoff", "needs 0 <= min <= max and max > 0; got min " + retryMin + " and max " + retryMax);
      }
      return new RabbitForwarder(this);
    }

    /** As {@code build().start()}. */
    public RabbitForwarder start() {
      return build().start();
    }

    private static void positive(String field, Duration d) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new InvalidRequestException(field, "must be a positive duration; got " + d);
      }
    }
  }
}
