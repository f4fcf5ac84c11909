package io.delayq.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Backoff;
import io.delayq.Delayq;
import io.delayq.DuplicatePolicy;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.JobState;
import io.delayq.LeasedJob;
import io.delayq.QueueStats;
import io.delayq.ScheduledJob;
import io.delayq.WorkerOptions;
import io.delayq.Workers;
import io.delayq.internal.Keys;
import io.delayq.internal.TraceHeaders;
import io.delayq.testing.TestRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Observations and traces of a client on a real Redis: the trace context of a schedule call is
 * stored with its jobs, and each run of a handler is a span of its own that links to the scheduling
 * span, never its child; delayq's own claims and sweeps are never observed.
 */
class TracingIT {
  private final SimpleTracer tracer = new RootIdsTracer();
  private final W3cTestPropagator propagator = new W3cTestPropagator(tracer);
  private final TestObservationRegistry observations = TestObservationRegistry.create();
  private Delayq delayq;

  @BeforeEach
  void connect() {
    observations.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
        new ProcessTracingObservationHandler(tracer, propagator),
        new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
        new DefaultTracingObservationHandler(tracer)));
    delayq = Delayq.builder().redisUrl(TestRedis.url()).observationRegistry(observations).build();
  }

  @AfterEach
  void close() {
    delayq.close();
  }

  private static WorkerOptions fast() {
    return WorkerOptions.builder().backoff(Backoff.fixed(Duration.ofMillis(50))).sweepInterval(Duration.ofMillis(100))
        .build();
  }

  /** Spans that ended, by name; the extraction probes the handler abandons never end. */
  private List<SimpleSpan> ended(String name) {
    return tracer.getSpans().stream()
        .filter(s -> name.equals(s.getName()))
        .filter(s -> s.getEndTimestamp() != null && s.getEndTimestamp().isAfter(Instant.EPOCH))
        .toList();
  }

  private static String hex(String s) {
    return s == null ? "" : s;
  }

  @Test
  void eachRunOfAJobIsANewTraceThatLinksToTheSpanThatScheduledIt() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("traced"));
    String q = queue.name();
    Observation checkout = Observation.start("checkout", observations);
    try (Observation.Scope scope = checkout.openScope()) {
      queue.schedule(JobRequest.of("pay").withId("order-1").withDelay(Duration.ofMillis(200)));
    } finally {
      checkout.stop();
    }
    SimpleSpan checkoutSpan = ended("checkout").get(0);
    SimpleSpan scheduleSpan = ended("schedule " + q).get(0);

    List<String> spansSeenByHandler = new CopyOnWriteArrayList<>();
    List<Map<String, String>> headersSeen = new CopyOnWriteArrayList<>();
    try (Workers workers = queue.startWorkers(job -> {
          Span current = tracer.currentSpan();
          spansSeenByHandler.add(current == null ? "none" : current.context().spanId());
          headersSeen.add(job.traceHeaders());
          if (job.attempt() == 1) {
            throw new IllegalStateException("card declined");
          }
        }, fast())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> ended("process " + q).size() == 2);
    }

    // the schedule call: a producer span in the caller's trace, under the caller's span
    assertThat(scheduleSpan.getTraceId()).isEqualTo(checkoutSpan.getTraceId());
    assertThat(scheduleSpan.getParentId()).isEqualTo(checkoutSpan.getSpanId());
    assertThat(scheduleSpan.getKind()).isEqualTo(Span.Kind.PRODUCER);
    assertThat(scheduleSpan.getTags()).containsEntry("queue", q).containsEntry("outcome", "success")
        .containsEntry("delayq.job.id", "order-1");

    // each attempt: a consumer span that starts a trace of its own and links to the schedule span
    List<SimpleSpan> runs = ended("process " + q);
    for (SimpleSpan run : runs) {
      assertThat(run.getKind()).isEqualTo(Span.Kind.CONSUMER);
      assertThat(run.getTraceId()).isNotEqualTo(scheduleSpan.getTraceId());
      assertThat(hex(run.getParentId())).isEmpty();
      assertThat(run.getLinks()).hasSize(1);
      Link link = run.getLinks().get(0);
      assertThat(link.getTraceContext().traceId()).isEqualTo(scheduleSpan.getTraceId());
      assertThat(link.getTraceContext().spanId()).isEqualTo(scheduleSpan.getSpanId());
      assertThat(run.getTags()).containsEntry("queue", q).containsEntry("delayq.job.id", "order-1");
    }
    assertThat(runs).extracting(s -> s.getTags().get("outcome")).containsExactlyInAnyOrder("failure", "success");
    assertThat(runs).extracting(s -> s.getTags().get("delayq.job.attempt")).containsExactlyInAnyOrder("1", "2");
    assertThat(runs).filteredOn(s -> "failure".equals(s.getTags().get("outcome")))
        .allSatisfy(s -> assertThat(s.getError()).hasMessage("card declined"));
    assertThat(runs.get(0).getTraceId()).isNotEqualTo(runs.get(1).getTraceId());
    // the handler ran inside its span, so what it does is traced under it
    assertThat(spansSeenByHandler).containsExactlyInAnyOrderElementsOf(runs.stream().map(SimpleSpan::getSpanId).toList());
    assertThat(headersSeen).allSatisfy(h -> assertThat(h)
        .containsEntry("traceparent", "00-" + scheduleSpan.getTraceId() + "-" + scheduleSpan.getSpanId() + "-01"));

    TestObservationRegistryAssert.assertThat(observations)
        .hasNumberOfObservationsWithNameEqualTo("delayq.schedule", 1)
        .hasNumberOfObservationsWithNameEqualTo("delayq.process", 2)
        .forAllObservationsWithNameEqualTo("delayq.process", process -> process
            .doesNotHaveParentObservation()
            .hasLowCardinalityKeyValue("queue", q)
            .hasHighCardinalityKeyValue("delayq.job.id", "order-1"))
        .hasAnObservation(process -> process.hasNameEqualTo("delayq.process")
            .hasLowCardinalityKeyValue("outcome", "failure").hasHighCardinalityKeyValue("delayq.job.attempt", "1")
            .hasError())
        .hasObservationWithNameEqualTo("delayq.schedule").that()
        .hasContextualNameEqualTo("schedule " + q)
        .hasLowCardinalityKeyValue("queue", q)
        .hasLowCardinalityKeyValue("outcome", "success")
        .hasHighCardinalityKeyValue("delayq.job.id", "order-1")
        .hasHighCardinalityKeyValue("delayq.job.count", "1")
        .hasParentObservationEqualTo(checkout)
        .hasBeenStarted()
        .hasBeenStopped();
  }

  @Test
  void claimsSweepsAcksAndLeaseKeepingAreNeverObserved() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("quiet"));
    try (Workers workers = queue.startWorkers(job -> {}, fast())) {
      queue.pull().claim(1, Duration.ofSeconds(30), Duration.ofMillis(300));
      queue.admin().stats();
      // ten sweeps of an idle queue, a long poll and a stats call: nothing to observe
      await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> noObservations());

      queue.schedule(JobRequest.of("x").withId("one"));
      await().atMost(Duration.ofSeconds(5)).until(() -> ended("process " + queue.name()).size() == 1);
      await().atMost(Duration.ofSeconds(5)).until(() -> queue.admin().stats().equals(
          new QueueStats(queue.name(), 1, 0, 0, 0, 0, 0, false)));
      // the ack and the sweeps after it add nothing
      await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> observationCount() == 2);
    }
    TestObservationRegistryAssert.assertThat(observations)
        .hasNumberOfObservationsWithNameEqualTo("delayq.schedule", 1)
        .hasNumberOfObservationsWithNameEqualTo("delayq.process", 1);
  }

  @Test
  void aPullConsumerGetsTheStoredHeadersToLinkItself() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("pulled"));
    queue.schedule(JobRequest.of("x").withId("pulled"));
    SimpleSpan scheduleSpan = ended("schedule " + queue.name()).get(0);
    LeasedJob job = queue.pull().claim(1, Duration.ofSeconds(30)).get(0);
    assertThat(job.traceHeaders())
        .containsEntry("traceparent", "00-" + scheduleSpan.getTraceId() + "-" + scheduleSpan.getSpanId() + "-01");
    queue.pull().ack(job);
    // the pull API runs no handler of delayq's: only the schedule call was observed
    assertThat(observationCount()).isEqualTo(1);
  }

  @Test
  void headersOverOneKibibyteAreDroppedAndTheRunIsUnlinked() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("big-baggage"));
    propagator.baggage = "k=" + "v".repeat(TraceHeaders.MAX_BYTES);
    queue.schedule(JobRequest.of("x").withId("heavy"));
    propagator.baggage = null;
    try (Workers workers = queue.startWorkers(job -> assertThat(job.traceHeaders()).isEmpty(), fast())) {
      await().atMost(Duration.ofSeconds(5)).until(() -> ended("process " + queue.name()).size() == 1);
    }
    SimpleSpan run = ended("process " + queue.name()).get(0);
    assertThat(run.getLinks()).isEmpty();
    assertThat(run.getTags()).containsEntry("outcome", "success");
  }

  @Test
  void jobsStoredWithTraceHeadersFollowEveryRuleOfOtherJobs() {
    JobQueue queue = delayq.queue(TestRedis.uniqueQueue("v3-records"));
    queue.schedule(JobRequest.of("x").withId("replace-then-keep"));
    assertThat(storedRecord(queue.name(), "replace-then-keep")).startsWith("3|r|5|");
    // KEEP on a job REPLACE made marks it, so its id is remembered once it is done
    assertThat(queue.schedule(JobRequest.of("x").withId("replace-then-keep").withOnDuplicate(DuplicatePolicy.KEEP))
        .outcome()).isEqualTo(ScheduledJob.Outcome.KEPT);
    assertThat(storedRecord(queue.name(), "replace-then-keep")).startsWith("3|k|5|");
    queue.schedule(JobRequest.of("y").withId("two-tries").withMaxAttempts(2));

    List<String> runs = new CopyOnWriteArrayList<>();
    Map<String, Map<String, String>> headers = new ConcurrentHashMap<>();
    try (Workers workers = queue.startWorkers(job -> {
          runs.add(job.id() + "#" + job.attempt());
          headers.put(job.id(), job.traceHeaders());
          if (job.id().equals("two-tries")) {
            throw new IllegalStateException("never works");
          }
        }, fast())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> queue.admin().stats().dead() == 1
          && queue.admin().stats().active() == 0 && queue.admin().stats().scheduled() == 0);
    }
    // the scripts read maxAttempts from the version 3 header: two tries, then dead
    assertThat(runs).containsExactlyInAnyOrder("replace-then-keep#1", "two-tries#1", "two-tries#2");
    assertThat(queue.get("two-tries")).hasValueSatisfying(info -> assertThat(info.state()).isEqualTo(JobState.DEAD));
    assertThat(headers.values()).allSatisfy(h -> assertThat(h).containsKey("traceparent"));
    // and whether it was scheduled with KEEP: done, its id is remembered for the idempotency window
    assertThat(queue.schedule(JobRequest.of("x").withId("replace-then-keep").withOnDuplicate(DuplicatePolicy.KEEP))
        .outcome()).isEqualTo(ScheduledJob.Outcome.KEPT);
    assertThat(queue.get("replace-then-keep")).isEmpty();
  }

  private static String storedRecord(String queue, String id) {
    RedisClient client = RedisClient.create(TestRedis.url());
    try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
      byte[] record = connection.sync().hget(Keys.partition(queue, 0).jobs(), id.getBytes(StandardCharsets.UTF_8));
      return record == null ? null : new String(record, StandardCharsets.UTF_8);
    } finally {
      client.shutdown();
    }
  }

  private boolean noObservations() {
    return observationCount() == 0;
  }

  private int observationCount() {
    int[] n = {0};
    TestObservationRegistryAssert.assertThat(observations).hasHandledContextsThatSatisfy(contexts -> n[0] = contexts.size());
    return n[0];
  }
}
