package io.delayq.spring.internal.tx;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;

/**
 * Every statement on the outbox table, in one place. The table name is checked by {@link
 * OutboxSettings#checkTableName} before it is put into SQL text; every value is a parameter.
 */
final class OutboxTable {
  private static final String COLUMNS =
      "seq, op, queue_name, job_id, id_generated, payload, payload_json, due_ms, max_attempts,"
          + " keep_existing, created_ms, relay_attempts";

  private final String table;
  private final String insert;
  private final String deletePending;
  private final String moveSchedules;
  private final String olderRows;
  private final String delete;
  private final String postpone;

  OutboxTable(String table) {
    this.table = table;
    this.insert =
        "INSERT INTO " + table + " (op, queue_name, job_id, id_generated, payload, payload_json, due_ms,"
            + " max_attempts, keep_existing, created_ms, relay_after_ms, relay_attempts)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)";
    this.deletePending = "DELETE FROM " + table + " WHERE queue_name = ? AND job_id = ? AND op <> 'C'";
    this.moveSchedules = "UPDATE " + table + " SET due_ms = ? WHERE queue_name = ? AND job_id = ? AND op = 'S'";
    this.olderRows = "SELECT COUNT(*) FROM " + table + " WHERE queue_name = ? AND job_id = ? AND seq < ?";
    this.delete = "DELETE FROM " + table + " WHERE seq = ?";
    this.postpone =
        "UPDATE " + table + " SET relay_after_ms = ?, relay_attempts = relay_attempts + ? WHERE seq = ?";
  }

  String name() {
    return table;
  }

  // ---- inside the application's transaction, through its connection ----

  /** Writes a row; returns its seq. */
  long insert(JdbcTemplate jdbc, OutboxEntry e, long relayAfterMs) {
    KeyHolder keys = new GeneratedKeyHolder();
    jdbc.update(
        con -> {
          // why: name the key column, or PostgreSQL returns every column as the "generated keys"
          PreparedStatement ps = con.prepareStatement(insert, new String[] {"seq"});
          ps.setString(1, String.valueOf(e.op()));
          ps.setString(2, e.queue());
          ps.setString(3, e.jobId());
          ps.setBoolean(4, e.idGenerated());
          if (e.payload() == null) {
            ps.setNull(5, Types.BINARY);
          } else {
            ps.setBytes(5, e.payload());
          }
          ps.setBoolean(6, e.json());
          ps.setLong(7, e.dueMs());
          ps.setInt(8, e.maxAttempts());
          ps.setBoolean(9, e.keep());
          ps.setLong(10, e.createdMs());
          ps.setLong(11, relayAfterMs);
          return ps;
        },
        keys);
    // why: some drivers return the key under another name (MySQL's GENERATED_KEY), or several columns
    Number key = keys.getKeyList().get(0).values().stream()
        .filter(Number.class::isInstance).map(Number.class::cast).findFirst()
        .orElseThrow(() -> new IllegalStateException("the database returned no key for the outbox row"));
    return key.longValue();
  }

  /** Removes the schedules and reschedules of one job not yet applied; returns how many. */
  int deletePending(JdbcTemplate jdbc, String queue, String id) {
    return jdbc.update(deletePending, queue, id);
  }

  /** Moves the schedules of one job not yet applied; returns how many. */
  int moveSchedules(JdbcTemplate jdbc, String queue, String id, long dueMs) {
    return jdbc.update(moveSchedules, dueMs, queue, id);
  }

  // ---- on a connection of delayq's own, in a transaction of its own ----

  /** Fails with the database's own error when the table is missing or unreadable. */
  void probe(Connection con) throws SQLException {
    try (Statement st = con.createStatement()) {
      st.executeQuery("SELECT " + COLUMNS + ", relay_after_ms FROM " + table + " WHERE 1 = 0").close();
    }
  }

  /** Locks these rows, skipping the ones another transaction holds; returns those it locked, by seq. */
  List<OutboxEntry> lockSkipping(Connection con, List<Long> seqs) throws SQLException {
    String sql = "SELECT " + COLUMNS + " FROM " + table + " WHERE seq IN (" + marks(seqs.size())
        + ") ORDER BY seq FOR UPDATE SKIP LOCKED";
    try (PreparedStatement ps = con.prepareStatement(sql)) {
      for (int i = 0; i < seqs.size(); i++) {
        ps.setLong(i + 1, seqs.get(i));
      }
      return read(ps);
    }
  }

  /** Up to {@code limit} due rows, oldest first, locked, skipping the ones others hold. */
  List<OutboxEntry> lockDueSkipping(Connection con, long nowMs, int limit) throws SQLException {
    String sql = "SELECT " + COLUMNS + " FROM " + table
        + " WHERE relay_after_ms <= ? ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED";
    try (PreparedStatement ps = con.prepareStatement(sql)) {
      ps.setLong(1, nowMs);
      ps.setInt(2, limit);
      return read(ps);
    }
  }

  /** Seqs of up to {@code limit} due rows, oldest first, without locking them. */
  List<Long> dueSeqs(Connection con, long nowMs, int limit) throws SQLException {
    List<Long> seqs = new ArrayList<>();
    try (PreparedStatement ps = con.prepareStatement(
        "SELECT seq FROM " + table + " WHERE relay_after_ms <= ? ORDER BY seq")) {
      // why: maxRows rather than LIMIT, which not every database has
      ps.setMaxRows(limit);
      ps.setLong(1, nowMs);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          seqs.add(rs.getLong(1));
        }
      }
    }
    return seqs;
  }

  /**
   * Locks these rows by updating them, in seq order (so that two claimers never deadlock), waiting
   * for any that another transaction holds; then reads those still there (and, with {@code dueBy}, still
   * due). A row another transaction deleted meanwhile is gone when its lock is granted, so it is
   * not returned.
   */
  List<OutboxEntry> lockUpdating(Connection con, List<Long> seqs, Long dueBy) throws SQLException {
    List<Long> sorted = new ArrayList<>(seqs);
    Collections.sort(sorted);
    String claim = "UPDATE " + table + " SET relay_attempts = relay_attempts WHERE seq = ?"
        + (dueBy == null ? "" : " AND relay_after_ms <= ?");
    try (PreparedStatement ps = con.prepareStatement(claim)) {
      for (long seq : sorted) {
        ps.setLong(1, seq);
        if (dueBy != null) {
          ps.setLong(2, dueBy);
        }
        ps.executeUpdate();
      }
    }
    if (sorted.isEmpty()) {
      return List.of();
    }
    String sql = "SELECT " + COLUMNS + " FROM " + table + " WHERE seq IN (" + marks(sorted.size()) + ")"
        + (dueBy == null ? "" : " AND relay_after_ms <= ?") + " ORDER BY seq";
    try (PreparedStatement ps = con.prepareStatement(sql)) {
      int i = 1;
      for (long seq : sorted) {
        ps.setLong(i++, seq);
      }
      if (dueBy != null) {
        ps.setLong(i, dueBy);
      }
      return read(ps);
    }
  }

  /** Rows of the same job before this one, the caller's own included. */
  int olderRows(Connection con, OutboxEntry e) throws SQLException {
    try (PreparedStatement ps = con.prepareStatement(olderRows)) {
      ps.setString(1, e.queue());
      ps.setString(2, e.jobId());
      ps.setLong(3, e.seq());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  void delete(Connection con, List<Long> seqs) throws SQLException {
    if (seqs.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = con.prepareStatement(delete)) {
      for (long seq : seqs) {
        ps.setLong(1, seq);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /** Puts rows off until a time, counting an attempt for those whose try failed. */
  void postpone(Connection con, List<Delivery.Postponed> rows) throws SQLException {
    if (rows.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = con.prepareStatement(postpone)) {
      for (Delivery.Postponed p : rows) {
        ps.setLong(1, p.untilMs());
        ps.setInt(2, p.countsAsAttempt() ? 1 : 0);
        ps.setLong(3, p.seq());
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /** Whether the database can lock with {@code FOR UPDATE SKIP LOCKED} in the syntax used here. */
  static boolean supportsSkipLocked(DatabaseMetaData meta) throws SQLException {
    String product = meta.getDatabaseProductName();
    int major = meta.getDatabaseMajorVersion();
    int minor = meta.getDatabaseMinorVersion();
    if (product == null) {
      return false;
    }
    return switch (product) {
      case "PostgreSQL" -> major > 9 || (major == 9 && minor >= 5);
      case "MySQL" -> major >= 8;
      case "MariaDB" -> major > 10 || (major == 10 && minor >= 6);
      case "H2" -> major > 2 || (major == 2 && minor >= 2);
      default -> false;
    };
  }

  private static List<OutboxEntry> read(PreparedStatement ps) throws SQLException {
    List<OutboxEntry> rows = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        rows.add(new OutboxEntry(
            rs.getLong(1),
            rs.getString(2).charAt(0),
            rs.getString(3),
            rs.getString(4),
            rs.getBoolean(5),
            rs.getBytes(6),
            rs.getBoolean(7),
            rs.getLong(8),
            rs.getInt(9),
            rs.getBoolean(10),
            rs.getLong(11),
            rs.getInt(12)));
      }
    }
    return rows;
  }

  private static String marks(int n) {
    return String.join(", ", Collections.nCopies(n, "?"));
  }
}
