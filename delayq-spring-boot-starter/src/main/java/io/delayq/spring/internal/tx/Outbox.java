package io.delayq.spring.internal.tx;

import io.delayq.Delayq;
import io.delayq.DuplicatePolicy;
import io.delayq.JobRequest;
import io.delayq.internal.Ids;
import io.delayq.spring.OutboxUnavailableException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The transactional outbox. Inside a transaction, each write is a row of the outbox table written
 * through the transaction's own connection, so it commits or rolls back with the application's
 * data. After commit, the transaction's rows are applied to Redis and deleted at once, on that
 * same connection (see {@link #deliverCommitted}). Rows a
 * stopped process (or an unreachable Redis) left behind are applied by {@link #relayOnce()}, which
 * {@link OutboxRelay} runs on every instance. See {@link Delivery} for why applying a row twice
 * runs no job twice.
 */
public final class Outbox implements TransactionalWrites {
  private static final Logger LOG = LoggerFactory.getLogger(Outbox.class);

  private final DataSource dataSource;
  /**
   * The same database, but never the connection bound to the caller's transaction; also the key
   * under which a transaction manager binds that connection (it unwraps a transaction-aware proxy).
   */
  private final DataSource ownConnections;
  private final JdbcTemplate jdbc;
  private final Delayq delayq;
  private final OutboxSettings settings;
  private final OutboxTable table;
  private final Delivery delivery;
  private volatile Boolean skipLocked;
  private volatile Boolean postgres;
  /** After Redis failed, commits leave their rows to the relay until then (epoch ms). */
  private volatile long leaveToRelayUntil;

  public Outbox(DataSource dataSource, Delayq delayq, OutboxSettings settings) {
    this.dataSource = dataSource;
    this.ownConnections =
        dataSource instanceof TransactionAwareDataSourceProxy proxy ? proxy.getTargetDataSource() : dataSource;
    this.jdbc = new JdbcTemplate(dataSource);
    this.delayq = delayq;
    this.settings = settings;
    this.table = new OutboxTable(settings.table());
    this.delivery = new Delivery(delayq, table, settings);
    if (settings.claim() != OutboxSettings.Claim.AUTO) {
      this.skipLocked = settings.claim() == OutboxSettings.Claim.SKIP_LOCKED;
    }
  }

  public OutboxSettings settings() {
    return settings;
  }

  // ---- writes inside the application's transaction ----

  @Override
  public String schedule(String queue, JobRequest request, long dueMs) {
    JdbcTemplate tx = joined("schedule a job in queue '" + queue + "'");
    boolean generated = request.id() == null;
    String id = generated ? Ids.generate() : request.id();
    boolean keep = generated || request.onDuplicate() == DuplicatePolicy.KEEP;
    record(tx, new OutboxEntry(0, OutboxEntry.SCHEDULE, queue, id, generated, request.payload(),
        request.payloadIsJson(), dueMs, request.maxAttempts(), keep, System.currentTimeMillis(), 0));
    return id;
  }

  @Override
  public boolean cancel(String queue, String id) {
    JdbcTemplate tx = joined("cancel job '" + id + "' in queue '" + queue + "'");
    int pending = table.deletePending(tx, queue, id);
    // why: a cancel row even when the job was still here: a delivery of it may have reached Redis
    // before the process stopped, leaving the row behind
    record(tx, new OutboxEntry(0, OutboxEntry.CANCEL, queue, id, false, null, false, 0, 0, false,
        System.currentTimeMillis(), 0));
    return pending > 0 || RedisAnswers.scheduledNow(delayq, queue, id);
  }

  @Override
  public Instant reschedule(String queue, String id, long dueMs) {
    JdbcTemplate tx = joined("reschedule job '" + id + "' in queue '" + queue + "'");
    int pending = table.moveSchedules(tx, queue, id, dueMs);
    record(tx, new OutboxEntry(0, OutboxEntry.RESCHEDULE, queue, id, false, null, false, dueMs, 0, false,
        System.currentTimeMillis(), 0));
    if (pending == 0) {
      RedisAnswers.requireReschedulable(delayq, queue, id);
    }
    return Instant.ofEpochMilli(dueMs);
  }

  /**
   * The JdbcTemplate on the caller's transaction, after checking that the transaction holds this
   * DataSource's connection: one that is in auto-commit mode belongs to no transaction (a JMS or
   * Kafka transaction manager, or one for another database, runs this one), and a row written on
   * it would stay even if the transaction rolled back.
   */
  private JdbcTemplate joined(String what) {
    Connection con = DataSourceUtils.getConnection(dataSource);
    try {
      if (con.getAutoCommit()) {
        throw RefusingWrites.refusal(what,
            "the transaction in progress does not include the DataSource of delayq's outbox (its"
                + " connection is in auto-commit mode, so the transaction is run by another"
                + " transaction manager: one for JMS, Kafka, or another DataSource)");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("delayq outbox: cannot inspect the transaction's connection: " + e, e);
    } finally {
      DataSourceUtils.releaseConnection(con, dataSource);
    }
    return jdbc;
  }

  private void record(JdbcTemplate tx, OutboxEntry entry) {
    long seq;
    try {
      seq = table.insert(tx, entry, entry.createdMs() + settings.gracePeriod().toMillis());
    } catch (BadSqlGrammarException e) {
      throw new OutboxUnavailableException(
          "cannot write the " + entry + " to the outbox: " + missingTable(e.getSQLException()), e);
    }
    // why: without synchronization (a transaction manager set to SYNCHRONIZATION_NEVER) there is no
    // after-commit hook; the row is still committed with the transaction and the relay applies it
    if (TransactionSynchronizationManager.isSynchronizationActive()) {
      synchronization().seqs.add(seq);
    }
  }

  private AfterCommit synchronization() {
    for (TransactionSynchronization s : TransactionSynchronizationManager.getSynchronizations()) {
      if (s instanceof AfterCommit mine && mine.outbox == this) {
        return mine;
      }
    }
    AfterCommit created = new AfterCommit(this);
    TransactionSynchronizationManager.registerSynchronization(created);
    return created;
  }

  /** One per transaction; a suspended outer transaction keeps its own. */
  private static final class AfterCommit implements TransactionSynchronization {
    final Outbox outbox;
    final List<Long> seqs = new ArrayList<>();

    AfterCommit(Outbox outbox) {
      this.outbox = outbox;
    }

    @Override
    public void afterCommit() {
      outbox.deliverCommitted(seqs);
    }
  }

  // ---- delivery after commit, on the transaction's connection ----

  /**
   * Applies a committed transaction's rows now. Never throws: the transaction has committed, the
   * rows are safe in the table, and whatever is not applied here the relay applies.
   *
   * <p>It runs on the connection the transaction committed on, still bound to this thread: a
   * transaction manager returns it to the pool only after the after-commit callbacks. Borrowing a
   * second connection instead would make a commit wait for the pool while it holds a connection
   * of its own, and as many concurrent commits as the pool has connections would each wait the
   * pool's whole connection timeout. Only when no connection is bound (a transaction manager that
   * releases it before the callbacks) does it borrow one.
   */
  void deliverCommitted(List<Long> seqs) {
    if (seqs.isEmpty() || System.currentTimeMillis() < leaveToRelayUntil) {
      return;
    }
    Connection committed = committedConnection();
    for (int from = 0; from < seqs.size(); from += settings.batchSize()) {
      List<Long> chunk = seqs.subList(from, Math.min(seqs.size(), from + settings.batchSize()));
      InTransaction<Delivery.Result> work = con -> {
        List<OutboxEntry> rows = skipLocked(con) ? table.lockSkipping(con, chunk) : table.lockUpdating(con, chunk, null);
        return finish(con, delivery.deliver(con, rows, Delivery.Mode.AFTER_COMMIT));
      };
      try {
        Delivery.Result result = committed != null ? inLocalTransaction(committed, true, work) : inOwnTransaction(true, work);
        if (result.redisFailure != null) {
          leaveToRelayUntil = System.currentTimeMillis() + settings.relayInterval().toMillis();
          LOG.warn("delayq outbox: Redis could not be reached after commit ({}); the transaction's"
              + " writes stay in table {} and the relay applies them", result.redisFailure.toString(), table.name());
          return;
        }
      } catch (SQLException | RuntimeException e) {
        LOG.warn("delayq outbox: could not apply a committed transaction's writes at once ({}); they"
            + " stay in table {} and the relay applies them", e.toString(), table.name());
        return;
      }
    }
  }

  /** The connection the transaction committed on, when it is still bound to this thread and open. */
  private Connection committedConnection() {
    Object bound = TransactionSynchronizationManager.getResource(ownConnections);
    if (bound == null && ownConnections != dataSource) {
      bound = TransactionSynchronizationManager.getResource(dataSource);
    }
    if (!(bound instanceof ConnectionHolder holder) || holder.getConnectionHandle() == null) {
      return null;
    }
    try {
      Connection con = holder.getConnection();
      return con != null && !con.isClosed() ? con : null;
    } catch (SQLException | RuntimeException e) {
      LOG.debug("delayq outbox: the committed transaction's connection cannot be used; borrowing one", e);
      return null;
    }
  }

  /**
   * One relay round: up to a batch of rows whose grace period has passed, oldest first, locked so
   * that no other relay or commit applies them at the same time.
   *
   * @return how many rows it took (a full batch means more may be waiting)
   */
  public int relayOnce() throws SQLException {
    Delivery.Result result = inOwnTransaction(true, con -> {
      long now = System.currentTimeMillis();
      List<OutboxEntry> rows = skipLocked(con)
          ? table.lockDueSkipping(con, now, settings.batchSize())
          : table.lockUpdating(con, table.dueSeqs(con, now, settings.batchSize()), now);
      Delivery.Result r = finish(con, delivery.deliver(con, rows, Delivery.Mode.RELAY));
      r.taken = rows.size();
      return r;
    });
    if (result.redisFailure != null) {
      throw result.redisFailure;
    }
    return result.taken;
  }

  /**
   * Whether the outbox table can be read.
   *
   * @return null when it can, else what is wrong and what to do
   */
  public String checkTable() {
    try {
      inOwnTransaction(false, con -> {
        table.probe(con);
        return null;
      });
      return null;
    } catch (SQLException e) {
      return missingTable(e);
    }
  }

  private String missingTable(SQLException e) {
    return "table " + table.name() + " cannot be used (" + e.getMessage() + "). Create it from the script"
        + " for the database in the starter's jar, io/delayq/spring/outbox/schema-<h2|postgresql|mysql>.sql,"
        + " or set delayq.outbox.initialize-schema=always to have it created at startup; or set"
        + " delayq.outbox.enabled=false to go without the outbox (see docs/SPRING-TRANSACTIONS.md)";
  }

  private Delivery.Result finish(Connection con, Delivery.Result result) throws SQLException {
    table.delete(con, result.done);
    table.postpone(con, result.postponed);
    return result;
  }

  private boolean skipLocked(Connection con) throws SQLException {
    Boolean known = skipLocked;
    if (known == null) {
      known = OutboxTable.supportsSkipLocked(con.getMetaData());
      skipLocked = known;
      LOG.debug("delayq outbox: rows are locked with {}", known ? "FOR UPDATE SKIP LOCKED" : "UPDATE");
    }
    return known;
  }

  private boolean isPostgres(Connection con) throws SQLException {
    Boolean known = postgres;
    if (known == null) {
      known = "PostgreSQL".equals(con.getMetaData().getDatabaseProductName());
      postgres = known;
    }
    return known;
  }

  private interface InTransaction<T> {
    T run(Connection con) throws SQLException;
  }

  /**
   * Runs {@code work} in a transaction of its own on a connection of its own, READ COMMITTED.
   *
   * @param delivery whether it applies rows: on PostgreSQL its commit then does not wait for the
   *     disk. Such a commit lost in a database crash undoes only deletes and put-offs of rows whose
   *     writes reached Redis, which the relay applies again to no effect; it saves a disk flush on
   *     every commit of the application that schedules a job.
   */
  private <T> T inOwnTransaction(boolean delivery, InTransaction<T> work) throws SQLException {
    try (Connection con = ownConnections.getConnection()) {
      return inLocalTransaction(con, delivery, work);
    }
  }

  /**
   * Runs {@code work} in a local transaction on {@code con}, READ COMMITTED and read-write, and
   * leaves the connection as it found it (auto-commit, isolation, read-only), so that a
   * transaction manager whose connection this is cleans it up as it expects to.
   */
  private <T> T inLocalTransaction(Connection con, boolean delivery, InTransaction<T> work) throws SQLException {
    boolean autoCommit = con.getAutoCommit();
    int isolation = con.getTransactionIsolation();
    boolean readOnly = con.isReadOnly();
    try {
      if (readOnly) {
        // why: a read-only transaction may have written rows where the flag is only a hint (H2)
        con.setReadOnly(false);
      }
      // why: the check for a job's older rows must see rows other transactions committed since
      // this one began (MySQL's default, REPEATABLE READ, would not)
      if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
        con.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
      }
      if (autoCommit) {
        con.setAutoCommit(false);
      }
      try {
        if (delivery && isPostgres(con)) {
          try (Statement st = con.createStatement()) {
            st.execute("SET LOCAL synchronous_commit TO OFF");
          }
        }
        T result = work.run(con);
        con.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        try {
          con.rollback();
        } catch (SQLException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
    } finally {
      if (autoCommit) {
        con.setAutoCommit(true);
      }
      if (isolation != Connection.TRANSACTION_READ_COMMITTED) {
        con.setTransactionIsolation(isolation);
      }
      if (readOnly) {
        con.setReadOnly(true);
      }
    }
  }
}
