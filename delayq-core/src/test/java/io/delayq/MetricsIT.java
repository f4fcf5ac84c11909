package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.testing.TestRedis;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The meters a client publishes, counted against what really happened on a real Redis. */
class MetricsIT {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final List<Delayq> clients = new ArrayList<>();

  @AfterEach
  void close() {
    clients.forEach(Delayq::close);
  }

  private Delayq connect(Delayq.Builder builder) {
    Delayq delayq = builder.redisUrl(TestRedis.url()).meterRegistry(registry).build();
    clients.add(delayq);
    return delayq;
  }

  private double count(String name, String queue, String... tags) {
    Counter counter = registry.find(name).tag("queue", queue).tags(tags).counter();
    return counter == null ? 0 : counter.count();
  }

  private Timer timer(String name, String queue, String... tags) {
    return registry.get(name).tag("queue", queue).tags(tags).timer();
  }

  private double gauge(String queue, String state) {
    return registry.get("delayq.queue.jobs").tags("queue", queue, "state", state).gauge().value();
  }

  @Test
  void countsEveryOutcomeOfAWorkloadExactly() {
    Delayq delayq = connect(Delayq.builder());
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("metrics"));
    String q = queue.name();
    List<JobRequest> jobs = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      jobs.add(JobRequest.of("job " + i).withId("j" + i));
    }
    jobs.add(JobRequest.of("hopeless").withId("j9").withMaxAttempts(2));
    queue.scheduleAll(jobs);
    // the same ids again: j5 kept (KEEP), j6 replaced (REPLACE, the default)
    queue.schedule(JobRequest.of("job 5").withId("j5").withOnDuplicate(DuplicatePolicy.KEEP));
    queue.schedule(JobRequest.of("job 6, again").withId("j6"));

    Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
    JobHandler handler = job -> {
      int attempt = attempts.computeIfAbsent(job.id(), id -> new AtomicInteger()).incrementAndGet();
      if (job.id().equals("j9") || (attempt == 1 && List.of("j0", "j1", "j2").contains(job.id()))) {
        throw new IllegalStateException("attempt " + attempt + " of " + job.id() + " fails");
      }
    };
    WorkerOptions options = WorkerOptions.builder().concurrency(4).backoff(Backoff.fixed(Duration.ofMillis(50))).build();
    try (Workers workers = queue.startWorkers(handler, options)) {
      await().atMost(Duration.ofSeconds(15))
          .until(() -> count("delayq.jobs.acked", q) == 9 && count("delayq.jobs.dead", q) == 1);
    }

    assertThat(count("delayq.jobs.scheduled", q, "outcome", "created")).isEqualTo(10);
    assertThat(count("delayq.jobs.scheduled", q, "outcome", "replaced")).isEqualTo(1);
    assertThat(count("delayq.jobs.scheduled", q, "outcome", "kept")).isEqualTo(1);
    // 10 first attempts, 3 second attempts of j0..j2, the second (last) attempt of j9
    assertThat(count("delayq.jobs.delivered", q)).isEqualTo(14);
    assertThat(count("delayq.jobs.acked", q)).isEqualTo(9);
    // j0, j1, j2 once each, and j9's first attempt
    assertThat(count("delayq.jobs.retried", q)).isEqualTo(4);
    assertThat(count("delayq.jobs.dead", q)).isEqualTo(1);
    assertThat(count("delayq.jobs.released", q)).isZero();
    assertThat(count("delayq.leases.expired", q)).isZero();
    assertThat(timer("delayq.handler.duration", q, "outcome", "success").count()).isEqualTo(9);
    assertThat(timer("delayq.handler.duration", q, "outcome", "failure").count()).isEqualTo(5);

    Timer lateness = timer("delayq.job.lateness", q);
    assertThat(lateness.count()).isEqualTo(14);
    assertThat(lateness.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(0);
    // every job was due when scheduled or 50 ms after a failure; workers were waiting for them
    assertThat(lateness.max(TimeUnit.MILLISECONDS)).isBetween(0.0, 3_000.0);
    assertThat(queue.admin().stats().dead()).isEqualTo(1);
  }

  @Test
  void latenessIsClaimTimeMinusDueTimeByTheRedisClock() {
    Delayq delayq = connect(Delayq.builder());
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("lateness"));
    // runAt is the due time by the Redis clock; on one machine that clock is the local one
    ScheduledJob scheduled = queue.schedule(JobRequest.of("x").withId("late").withDelay(Duration.ofMillis(300)));
    await().atMost(Duration.ofSeconds(5)).until(() -> queue.admin().stats().due() == 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(scheduled.runAt().plusMillis(400)));
    Instant before = Instant.now();
    List<LeasedJob> got = queue.pull().claim(1, Duration.ofSeconds(30));
    Instant after = Instant.now();
    assertThat(got).extracting(LeasedJob::id).containsExactly("late");
    queue.pull().ack(got.get(0));

    Timer lateness = timer("delayq.job.lateness", queue.name());
    assertThat(lateness.count()).isEqualTo(1);
    double late = lateness.totalTime(TimeUnit.MILLISECONDS);
    // why: 5 ms either side covers the clock's and runAt's millisecond rounding
    assertThat(late)
        .isGreaterThanOrEqualTo(Duration.between(scheduled.runAt(), before).toMillis() - 5.0)
        .isLessThanOrEqualTo(Duration.between(scheduled.runAt(), after).toMillis() + 5.0)
        .isGreaterThanOrEqualTo(400 - 5.0);
    assertThat(count("delayq.jobs.acked", queue.name())).isEqualTo(1);
  }

  @Test
  void expiredLeasesReleasesAndTheirDeadAreCounted() {
    Delayq delayq = connect(Delayq.builder());
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("leases"));
    String q = queue.name();
    queue.schedule(JobRequest.of("once").withId("once").withMaxAttempts(1));
    queue.schedule(JobRequest.of("again").withId("again").withMaxAttempts(3));
    PullConsumer pull = queue.pull();
    assertThat(pull.claim(10, Duration.ofMillis(300))).hasSize(2);

    // both leases run out unacked; the claim that finds them recovers both, buries the one on its
    // last attempt and leases the other again at once
    AtomicReference<List<LeasedJob>> again = new AtomicReference<>(List.of());
    await().atMost(Duration.ofSeconds(5)).until(() -> {
      again.set(pull.claim(10, Duration.ofSeconds(30)));
      return !again.get().isEmpty();
    });
    assertThat(again.get()).extracting(LeasedJob::id).containsExactly("again");
    assertThat(count("delayq.leases.expired", q)).isEqualTo(2);
    assertThat(count("delayq.jobs.dead", q)).isEqualTo(1);
    assertThat(count("delayq.jobs.delivered", q)).isEqualTo(3);

    assertThat(pull.release(again.get().get(0))).isTrue();
    assertThat(count("delayq.jobs.released", q)).isEqualTo(1);
    LeasedJob last = pull.claim(1, Duration.ofSeconds(30)).get(0);
    assertThat(pull.settleAll(List.of(PullConsumer.Settlement.ack(last)))).allMatch(PullConsumer.Settled::isSettled);
    assertThat(count("delayq.jobs.acked", q)).isEqualTo(1);
    assertThat(count("delayq.jobs.delivered", q)).isEqualTo(4);
    assertThat(timer("delayq.job.lateness", q).count()).isEqualTo(4);
  }

  @Test
  void depthGaugesFollowTheQueueInTheBackgroundAndGoAwayWithTheClient() {
    Delayq delayq = connect(Delayq.builder().queueDepthInterval(Duration.ofSeconds(1)));
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("depth"));
    String q = queue.name();
    PullConsumer pull = queue.pull();
    queue.schedule(JobRequest.of("d").withId("doomed").withMaxAttempts(1));
    assertThat(pull.nack(pull.claim(1, Duration.ofSeconds(30)).get(0), null, "no")).isEqualTo(JobState.DEAD);
    queue.scheduleAll(List.of(JobRequest.of("a").withId("a1"), JobRequest.of("a").withId("a2")));
    assertThat(pull.claim(1, Duration.ofSeconds(30))).hasSize(1);
    for (int i = 0; i < 3; i++) {
      queue.schedule(JobRequest.of("later").withId("later" + i).withDelay(Duration.ofHours(1)));
    }

    // 3 later + 1 due, 1 due, 1 held, 1 dead
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      assertThat(gauge(q, "scheduled")).isEqualTo(4);
      assertThat(gauge(q, "due")).isEqualTo(1);
      assertThat(gauge(q, "active")).isEqualTo(1);
      assertThat(gauge(q, "expired")).isEqualTo(0);
      assertThat(gauge(q, "dead")).isEqualTo(1);
      assertThat(registry.get("delayq.queue.paused").tag("queue", q).gauge().value()).isEqualTo(0);
    });
    queue.admin().pause();
    await().atMost(Duration.ofSeconds(10))
        .until(() -> registry.get("delayq.queue.paused").tag("queue", q).gauge().value() == 1);

    delayq.close();
    assertThat(registry.find("delayq.queue.jobs").tag("queue", q).gauges()).isEmpty();
    assertThat(count("delayq.jobs.dead", q)).isEqualTo(1);
  }

  @Test
  void gaugesAreReadOncePerIntervalNotPerScrape() {
    Delayq delayq = connect(Delayq.builder().queueDepthInterval(Duration.ofHours(1)));
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("frozen"));
    queue.schedule(JobRequest.of("x").withId("first").withDelay(Duration.ofHours(1)));
    await().atMost(Duration.ofSeconds(5)).until(() -> gauge(queue.name(), "scheduled") == 1);
    queue.schedule(JobRequest.of("x").withId("second").withDelay(Duration.ofHours(1)));
    assertThat(queue.admin().stats().scheduled()).isEqualTo(2);
    for (int i = 0; i < 100; i++) {
      assertThat(gauge(queue.name(), "scheduled")).isEqualTo(1);
    }
  }

  @Test
  void theReadmeSnippetPublishesMetersAndObservations() {
    MeterRegistry meterRegistry = new SimpleMeterRegistry();
    ObservationRegistry observationRegistry = ObservationRegistry.create();
    observationRegistry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meterRegistry));
    String redisUrl = TestRedis.url();
    // README: Metrics and tracing
    try (Delayq delayq = Delayq.builder()
        .redisUrl(redisUrl)
        .meterRegistry(meterRegistry)                 // delayq.jobs.*, delayq.job.lateness, delayq.queue.jobs, ...
        .observationRegistry(observationRegistry)     // delayq.schedule and delayq.process
        .build()) {
      delayq.queue("orders-" + UUID.randomUUID()).schedule(JobRequest.of("cancel 42").withDelay(Duration.ofMinutes(30)));
    }
    assertThat(meterRegistry.find("delayq.jobs.scheduled").tag("outcome", "created").counter().count()).isEqualTo(1);
    assertThat(meterRegistry.find("delayq.schedule").tag("outcome", "success").timer().count()).isEqualTo(1);
  }

  @Test
  void aQueueOnlyLookedAtGetsNoMeters() {
    Delayq delayq = connect(Delayq.builder());
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("untouched"));
    queue.admin().stats();
    queue.get("nothing");
    assertThat(registry.getMeters().stream().map(Meter::getId).filter(id -> queue.name().equals(id.getTag("queue"))))
        .isEmpty();
  }

  @Test
  void latenessBucketsAreConfigurable() {
    List<DistributionStatisticConfig> seen = new ArrayList<>();
    registry.config().meterFilter(new MeterFilter() {
      @Override
      public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
        if (id.getName().equals("delayq.job.lateness")) {
          seen.add(config);
        }
        return config;
      }
    });
    Delayq delayq = connect(Delayq.builder()
        .latenessSlos(List.of(Duration.ofSeconds(1), Duration.ofMillis(100), Duration.ofSeconds(1)))
        .latenessPercentileHistogram(true));
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("buckets"));
    queue.schedule(JobRequest.of("x").withId("x"));
    queue.pull().ack(queue.pull().claim(1, Duration.ofSeconds(30)).get(0));

    assertThat(seen).hasSize(1);
    assertThat(seen.get(0).isPercentileHistogram()).isTrue();
    assertThat(seen.get(0).getServiceLevelObjectiveBoundaries())
        .containsExactly(TimeUnit.MILLISECONDS.toNanos(100), TimeUnit.SECONDS.toNanos(1));
    HistogramSnapshot snapshot = timer("delayq.job.lateness", queue.name()).takeSnapshot();
    assertThat(Arrays.stream(snapshot.histogramCounts()).map(CountAtBucket::bucket))
        .contains((double) TimeUnit.MILLISECONDS.toNanos(100), (double) TimeUnit.SECONDS.toNanos(1));
  }
}
