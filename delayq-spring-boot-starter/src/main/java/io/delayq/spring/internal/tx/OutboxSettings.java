package io.delayq.spring.internal.tx;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The outbox's settings, checked.
 *
 * @param table the table's name, optionally schema-qualified
 * @param gracePeriod how long a committed row is left to its own transaction's after-commit
 *     delivery before a relay may take it
 * @param relayInterval time between relay rounds
 * @param batchSize most rows one delivery or relay round handles in one database transaction
 * @param claim how rows are locked for delivery
 * @param idempotencyWindow the Delayq client's idempotency window: a relayed row older than this is
 *     logged, since a repeat of its delivery is no longer recognised
 */
public record OutboxSettings(
    String table, Duration gracePeriod, Duration relayInterval, int batchSize, Claim claim,
    Duration idempotencyWindow) {

  /** How rows are locked: skip-locked where the database has it, else an update that takes the lock. */
  public enum Claim {
    AUTO,
    SKIP_LOCKED,
    UPDATE
  }

  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

  public OutboxSettings {
    checkTableName(table);
    requirePositive("gracePeriod", gracePeriod);
    requirePositive("relayInterval", relayInterval);
    if (batchSize < 1 || batchSize > 1000) {
      throw new IllegalArgumentException("batchSize must be between 1 and 1000; got " + batchSize);
    }
    Objects.requireNonNull(claim, "claim");
    Objects.requireNonNull(idempotencyWindow, "idempotencyWindow");
  }

  /**
   * Checks a table name: one or two (schema and table) SQL identifiers of letters, digits and
   * underscores, since the name is put into SQL text and must not be able to change its meaning.
   */
  public static String checkTableName(String table) {
    String[] parts = table == null ? new String[0] : table.split("\\.", -1);
    boolean ok = parts.length == 1 || parts.length == 2;
    for (String part : parts) {
      ok &= NAME.matcher(part).matches();
    }
    if (!ok) {
      throw new IllegalArgumentException(
          "the outbox table name "
              + (table == null ? "is missing" : "'" + table + "' is not allowed")
              + "; use a name of letters, digits and '_' (not starting with a digit, at most 63"
              + " characters), optionally prefixed by a schema name and '.', such as delayq_outbox"
              + " or jobs.delayq_outbox");
    }
    return table;
  }

  /** The table name without its schema: the stem of the index names. */
  String bareTable() {
    int dot = table.indexOf('.');
    return dot < 0 ? table : table.substring(dot + 1);
  }

  private static void requirePositive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be a positive duration; got " + value);
    }
  }
}
