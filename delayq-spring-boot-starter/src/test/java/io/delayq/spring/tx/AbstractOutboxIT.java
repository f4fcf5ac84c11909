package io.delayq.spring.tx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.delayq.Delayq;
import io.delayq.DuplicatePolicy;
import io.delayq.JobInfo;
import io.delayq.JobState;
import io.delayq.WorkerOptions;
import io.delayq.Workers;
import io.delayq.embedded.RedisServerProcess;
import io.delayq.spring.DelayqTemplate;
import io.delayq.spring.JobOptions;
import io.delayq.spring.TestRedisUrl;
import io.delayq.spring.internal.tx.OutboxRelay;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The outbox's promises, on a real database and a real Redis: a rolled-back write never reaches
 * Redis, a committed one always does, exactly once, whether the committing process stops before
 * Redis, after it, or while Redis is down. Each database runs the same tests.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractOutboxIT {
  record Reminder(String orderId, int n) {}

  private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();
  private final List<AutoCloseable> closeLast = new ArrayList<>();
  private TestDatabase db;
  private String table;
  protected final Faults faults = new Faults();
  protected String queue;
  protected ConfigurableApplicationContext app;

  /** The database; null-safe to call once per class. */
  abstract TestDatabase database();

  /** Extra properties for every instance, such as the claim mode. */
  String[] properties() {
    return new String[0];
  }

  @BeforeEach
  void startInstance() {
    if (db == null) {
      db = database();
      table = "dq_outbox_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }
    queue = "ob-" + UUID.randomUUID();
    app = start(TestRedisUrl.get());
  }

  @AfterEach
  void stopInstances() throws Exception {
    faults.onThisThread(Faults.Kind.NONE);
    faults.everywhere(Faults.Kind.NONE);
    for (ConfigurableApplicationContext context : contexts) {
      if (context.isActive()) {
        context.getBean(Delayq.class).existingQueue(queue).ifPresent(q -> q.admin().delete(true));
      }
      context.close();
    }
    contexts.clear();
    for (AutoCloseable c : closeLast) {
      c.close();
    }
    closeLast.clear();
  }

  @AfterAll
  void dropTable() throws Exception {
    if (db != null && !db.name().equals("H2")) {
      try (Connection con = db.connect(); Statement st = con.createStatement()) {
        st.execute("DROP TABLE IF EXISTS " + table);
      }
    }
  }

  protected ConfigurableApplicationContext start(String redisUrl, String... more) {
    List<String> props = new ArrayList<>(List.of(properties()));
    props.addAll(List.of(more));
    ConfigurableApplicationContext context =
        OutboxTestApp.start(db, redisUrl, table, faults, props.toArray(String[]::new));
    contexts.add(context);
    return context;
  }

  // ---- rollback ----

  @Test
  void aRolledBackScheduleLeavesNoRowAndNoJobEvenAfterTheRelayRan() {
    String[] id = new String[1];
    tx(app).executeWithoutResult(status -> {
      id[0] = template(app).schedule(queue, new Reminder("o-1", 1), Duration.ZERO);
      assertThat(rows(app)).as("the row, seen from its own transaction").isEqualTo(1);
      status.setRollbackOnly();
    });
    assertThat(rows(app)).isZero();
    awaitRelayRounds(app, 3);
    assertThat(template(app).get(queue, id[0])).isEmpty();
    assertThat(rows(app)).isZero();
  }

  // ---- commit ----

  @Test
  void aCommittedScheduleIsInRedisWhenCommitReturnsAndItsRowIsGone() {
    Instant before = Instant.now();
    String id = tx(app).execute(status -> {
      String scheduled = template(app).schedule(queue, new Reminder("o-2", 2), Duration.ofMinutes(30));
      assertThat(template(app).get(queue, scheduled)).as("not before the commit").isEmpty();
      return scheduled;
    });
    JobInfo job = template(app).get(queue, id).orElseThrow();
    assertThat(job.state()).isEqualTo(JobState.SCHEDULED);
    assertThat(job.payloadIsJson()).isTrue();
    assertThat(job.payloadAsString()).isEqualTo("{\"orderId\":\"o-2\",\"n\":2}");
    assertThat(job.runAt()).isBetween(before.plus(Duration.ofMinutes(30)), Instant.now().plus(Duration.ofMinutes(30)));
    assertThat(rows(app)).isZero();
  }

  @Test
  void manyWritesInOneTransactionAreAppliedInBatchesAtCommit() {
    List<String> ids = tx(app).execute(status -> {
      List<String> scheduled = new ArrayList<>();
      for (int i = 0; i < 250; i++) {
        scheduled.add(template(app).schedule(queue, "job " + i, Duration.ofHours(1)));
      }
      return scheduled;
    });
    assertThat(rows(app)).isZero();
    for (String id : ids) {
      assertThat(template(app).get(queue, id)).isPresent();
    }
  }

  // ---- the committing process stops ----

  @Test
  void aCommitWhoseProcessStopsBeforeRedisIsScheduledByAnotherInstancesRelayExactlyOnce() {
    // this instance commits and "dies" before its delivery; it runs no relay
    ConfigurableApplicationContext dying = start(TestRedisUrl.get(), "delayq.outbox.relay.enabled=false");
    faults.onThisThread(Faults.Kind.BEFORE_REDIS);
    String id = tx(dying).execute(status -> template(dying).schedule(queue, "survives", Duration.ZERO));
    faults.onThisThread(Faults.Kind.NONE);
    assertThat(rows(dying)).isEqualTo(1);
    assertThat(template(dying).get(queue, id)).isEmpty();
    dying.close();

    Runs runs = runs(app);
    await().atMost(Duration.ofSeconds(20)).until(() -> runs.of(id) == 1);
    awaitRelayRounds(app, 3);
    assertThat(runs.of(id)).isEqualTo(1);
    assertThat(rows(app)).isZero();
  }

  @Test
  void aCommitWhoseProcessStopsAfterRedisBeforeTheDeleteIsNotRunTwice() {
    Runs runs = runs(app);
    faults.onThisThread(Faults.Kind.AFTER_REDIS);
    String id = tx(app).execute(status -> template(app).schedule(queue, "once", Duration.ZERO));
    faults.onThisThread(Faults.Kind.NONE);
    // the job reached Redis and runs; its row stayed behind, and the relay applies it again
    await().atMost(Duration.ofSeconds(20)).until(() -> runs.of(id) == 1);
    await().atMost(Duration.ofSeconds(20)).until(() -> rows(app) == 0);
    awaitRelayRounds(app, 3);
    assertThat(runs.of(id)).isEqualTo(1);
  }

  @Test
  void aReplaceTheRelayFindsInRedisAlreadyIsNotSentAgain() {
    faults.onThisThread(Faults.Kind.AFTER_REDIS);
    tx(app).executeWithoutResult(status ->
        template(app).schedule(queue, "v1", Duration.ofHours(1), JobOptions.ofId("order-9")));
    faults.onThisThread(Faults.Kind.NONE);
    Instant created = template(app).get(queue, "order-9").orElseThrow().createdAt();
    await().atMost(Duration.ofSeconds(20)).until(() -> rows(app) == 0);
    JobInfo job = template(app).get(queue, "order-9").orElseThrow();
    assertThat(job.payloadAsString()).isEqualTo("v1");
    assertThat(job.createdAt()).as("written once").isEqualTo(created);
  }

  @Test
  void aCommitWhileRedisIsDownIsScheduledByTheRelayOnceRedisIsBack() {
    // why: every instance sharing an outbox table must use the same Redis; the default instance
    // uses another one, and its relay would take the row there
    app.close();
    RedisServerProcess redis = RedisServerProcess.builder().start();
    closeLast.add(redis);
    ConfigurableApplicationContext instance = start(redis.uri());
    Runs runs = runs(instance);
    String id = tx(instance).execute(status -> {
      String scheduled = template(instance).schedule(queue, "after the outage", Duration.ZERO);
      redis.kill();
      return scheduled;
    });
    assertThat(rows(instance)).isEqualTo(1);
    awaitRelayRounds(instance, 3);
    assertThat(rows(instance)).as("kept while Redis is down").isEqualTo(1);

    redis.restart();
    await().atMost(Duration.ofSeconds(30)).until(() -> runs.of(id) == 1);
    await().atMost(Duration.ofSeconds(10)).until(() -> rows(instance) == 0);
    awaitRelayRounds(instance, 3);
    assertThat(runs.of(id)).isEqualTo(1);
  }

  // ---- cancel and reschedule ----

  @Test
  void aCancelInARolledBackTransactionKeepsTheJob() {
    String id = template(app).schedule(queue, "stays", Duration.ofHours(1));
    tx(app).executeWithoutResult(status -> {
      assertThat(template(app).cancel(queue, id)).isTrue();
      assertThat(template(app).get(queue, id)).as("not before the commit").isPresent();
      status.setRollbackOnly();
    });
    awaitRelayRounds(app, 3);
    assertThat(template(app).get(queue, id)).get().extracting(JobInfo::state).isEqualTo(JobState.SCHEDULED);
    assertThat(rows(app)).isZero();
  }

  @Test
  void aCommittedCancelRemovesTheJob() {
    String id = template(app).schedule(queue, "goes", Duration.ofHours(1));
    tx(app).executeWithoutResult(status -> template(app).cancel(queue, id));
    assertThat(template(app).get(queue, id)).isEmpty();
    assertThat(rows(app)).isZero();
  }

  @Test
  void aCommittedCancelWhoseProcessStopsIsAppliedByTheRelay() {
    String id = template(app).schedule(queue, "goes later", Duration.ofHours(1));
    faults.onThisThread(Faults.Kind.BEFORE_REDIS);
    tx(app).executeWithoutResult(status -> template(app).cancel(queue, id));
    faults.onThisThread(Faults.Kind.NONE);
    assertThat(template(app).get(queue, id)).isPresent();
    await().atMost(Duration.ofSeconds(20)).until(() -> template(app).get(queue, id).isEmpty());
    await().atMost(Duration.ofSeconds(10)).until(() -> rows(app) == 0);
  }

  @Test
  void aJobScheduledAndCancelledInOneTransactionNeverReachesRedis() {
    Runs runs = runs(app);
    String id = tx(app).execute(status -> {
      String scheduled = template(app).schedule(queue, "never", Duration.ZERO);
      assertThat(template(app).cancel(queue, scheduled)).as("it was in the outbox").isTrue();
      return scheduled;
    });
    assertThat(template(app).get(queue, id)).isEmpty();
    assertThat(rows(app)).isZero();
    awaitRelayRounds(app, 3);
    assertThat(runs.of(id)).isZero();
  }

  @Test
  void aRescheduleMovesTheJobOnlyWhenItsTransactionCommits() {
    String id = template(app).schedule(queue, "moved", Duration.ofHours(1));
    Instant first = template(app).get(queue, id).orElseThrow().runAt();
    tx(app).executeWithoutResult(status -> {
      template(app).reschedule(queue, id, Duration.ofHours(5));
      status.setRollbackOnly();
    });
    assertThat(template(app).get(queue, id).orElseThrow().runAt()).isEqualTo(first);

    Instant moved = tx(app).execute(status -> template(app).reschedule(queue, id, Duration.ofHours(5)));
    assertThat(template(app).get(queue, id).orElseThrow().runAt()).isEqualTo(moved);
    assertThat(moved).isAfter(first.plus(Duration.ofHours(3)));
    assertThat(rows(app)).isZero();
  }

  @Test
  void aCallersIdsWritesFromSeveralTransactionsApplyInOrderThoughTheFirstWasLeftBehind() {
    // the first transaction's schedule is left to the relay; a later transaction cancels the job
    faults.onThisThread(Faults.Kind.BEFORE_REDIS);
    tx(app).executeWithoutResult(status ->
        template(app).schedule(queue, "first", Duration.ofHours(1), JobOptions.ofId("order-1")));
    faults.onThisThread(Faults.Kind.NONE);
    tx(app).executeWithoutResult(status ->
        template(app).schedule(queue, "second", Duration.ofHours(1),
            JobOptions.ofId("order-1").withOnDuplicate(DuplicatePolicy.REPLACE)));
    await().atMost(Duration.ofSeconds(20)).until(() -> rows(app) == 0);
    assertThat(template(app).get(queue, "order-1").orElseThrow().payloadAsString())
        .as("the later write wins, though the earlier one reached Redis later").isEqualTo("second");
  }

  // ---- many transactions, two instances ----

  @Test
  void manyConcurrentTransactionsOnTwoInstancesRunEachCommittedJobExactlyOnce() throws Exception {
    ConfigurableApplicationContext other = start(TestRedisUrl.get());
    List<ConfigurableApplicationContext> instances = List.of(app, other);
    Runs runs = runs(app);
    Set<String> committed = ConcurrentHashMap.newKeySet();
    Set<String> rolledBack = ConcurrentHashMap.newKeySet();
    int threads = 6;
    int perThread = 40;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        done.add(pool.submit(() -> {
          ConfigurableApplicationContext instance = instances.get(thread % 2);
          for (int i = 0; i < perThread; i++) {
            int n = i;
            int kind = (thread + i) % 4;
            faults.onThisThread(kind == 1 ? Faults.Kind.BEFORE_REDIS : kind == 2 ? Faults.Kind.AFTER_REDIS : Faults.Kind.NONE);
            List<String> ids = new ArrayList<>();
            tx(instance).executeWithoutResult(status -> {
              ids.add(template(instance).schedule(queue, "g", Duration.ofMillis(n % 5 * 50)));
              ids.add(template(instance).schedule(queue, "k", Duration.ZERO,
                  JobOptions.ofId("t" + thread + "-" + UUID.randomUUID()).withOnDuplicate(DuplicatePolicy.KEEP)));
              if (kind == 3) {
                status.setRollbackOnly();
              }
            });
            (kind == 3 ? rolledBack : committed).addAll(ids);
          }
          faults.onThisThread(Faults.Kind.NONE);
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> runs.all().keySet().containsAll(committed));
    await().atMost(Duration.ofSeconds(30)).until(() -> rows(app) == 0);
    awaitRelayRounds(app, 3);
    awaitRelayRounds(other, 3);
    Map<String, Integer> seen = runs.all();
    assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(committed);
    assertThat(seen).allSatisfy((id, n) -> assertThat(n).as("runs of " + id).isEqualTo(1));
    assertThat(rolledBack).doesNotContainAnyElementsOf(seen.keySet());
  }

  // ---- helpers ----

  static DelayqTemplate template(ConfigurableApplicationContext context) {
    return context.getBean(DelayqTemplate.class);
  }

  static TransactionTemplate tx(ConfigurableApplicationContext context) {
    return new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
  }

  /** Rows of this test's queue, read in the caller's transaction if there is one. */
  int rows(ConfigurableApplicationContext context) {
    return new JdbcTemplate(context.getBean(DataSource.class))
        .queryForObject("SELECT COUNT(*) FROM " + table + " WHERE queue_name = ?", Integer.class, queue);
  }

  static void awaitRelayRounds(ConfigurableApplicationContext context, int rounds) {
    OutboxRelay relay = context.getBean(OutboxRelay.class);
    long target = relay.rounds() + rounds;
    await().atMost(Duration.ofSeconds(20)).until(() -> relay.rounds() >= target);
  }

  Runs runs(ConfigurableApplicationContext context) {
    Runs runs = new Runs();
    Workers workers = context.getBean(Delayq.class).queue(queue).startWorkers(
        job -> runs.counts.computeIfAbsent(job.id(), k -> new AtomicInteger()).incrementAndGet(),
        WorkerOptions.builder().concurrency(8).build());
    closeLast.add(0, workers);
    return runs;
  }

  /** How often each job ran. */
  static final class Runs {
    final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

    int of(String id) {
      AtomicInteger n = counts.get(id);
      return n == null ? 0 : n.get();
    }

    Map<String, Integer> all() {
      Map<String, Integer> copy = new java.util.HashMap<>();
      counts.forEach((id, n) -> copy.put(id, n.get()));
      return copy;
    }
  }
}
