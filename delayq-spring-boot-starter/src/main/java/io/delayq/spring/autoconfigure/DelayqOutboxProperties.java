package io.delayq.spring.autoconfigure;

import io.delayq.Delayq;
import io.delayq.spring.internal.tx.OutboxSettings;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the transactional outbox that makes {@code DelayqTemplate} writes inside a
 * transaction commit and roll back with it, under {@code delayq.outbox.*}. See
 * docs/SPRING-TRANSACTIONS.md.
 *
 * @since 0.3.0
 */
@ConfigurationProperties("delayq.outbox")
public class DelayqOutboxProperties {
  /**
   * Whether writes made inside a transaction go through the outbox table. When false, they are
   * sent to Redis after the transaction commits and nothing is kept: a write whose commit went
   * through is lost if the process stops (or Redis is unreachable) before it reaches Redis.
   */
  private boolean enabled = true;

  /** Name of the outbox table, optionally schema-qualified. */
  private String tableName = "delayq_outbox";

  /** When to create the outbox table from the script delayq ships for the database. */
  private SchemaInitialization initializeSchema = SchemaInitialization.EMBEDDED;

  private final Relay relay = new Relay();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public String getTableName() {
    return tableName;
  }

  public void setTableName(String tableName) {
    this.tableName = OutboxSettings.checkTableName(tableName);
  }

  public SchemaInitialization getInitializeSchema() {
    return initializeSchema;
  }

  public void setInitializeSchema(SchemaInitialization initializeSchema) {
    this.initializeSchema = initializeSchema;
  }

  public Relay getRelay() {
    return relay;
  }

  /** When the outbox table is created, as Boot's own {@code spring.sql.init.mode}. */
  public enum SchemaInitialization {
    /** Only for an embedded (in-memory) database. */
    EMBEDDED,
    /** On every start; the script creates only what is missing. */
    ALWAYS,
    /** Never: the table is created by hand or by a migration tool. */
    NEVER
  }

  /** The relay, which applies the rows a stopped process left behind. */
  public static class Relay {
    /**
     * Whether this instance runs a relay. At least one instance of the application must, or
     * writes whose process stopped between commit and Redis are never applied.
     */
    private boolean enabled = true;

    /**
     * How long a committed write is left to its own transaction to apply before a relay takes it.
     * It bounds how late a job is after a crash (plus the interval); shorter than a commit takes,
     * it only makes the relay and the committing thread meet at the rows' locks.
     */
    private Duration gracePeriod = Duration.ofSeconds(10);

    /** Time between relay rounds. */
    private Duration interval = Duration.ofSeconds(5);

    /** Most rows one relay round (one database transaction) takes, from 1 to 1000. */
    private int batchSize = 100;

    /**
     * How rows are locked: 'auto' uses SELECT ... FOR UPDATE SKIP LOCKED on PostgreSQL 9.5+,
     * MySQL 8+, MariaDB 10.6+ and H2 2.2+, and elsewhere claims rows by updating them, which
     * makes relays wait for each other.
     */
    private Claim claim = Claim.AUTO;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public Duration getGracePeriod() {
      return gracePeriod;
    }

    public void setGracePeriod(Duration gracePeriod) {
      this.gracePeriod = gracePeriod;
    }

    public Duration getInterval() {
      return interval;
    }

    public void setInterval(Duration interval) {
      this.interval = interval;
    }

    public int getBatchSize() {
      return batchSize;
    }

    public void setBatchSize(int batchSize) {
      this.batchSize = batchSize;
    }

    public Claim getClaim() {
      return claim;
    }

    public void setClaim(Claim claim) {
      this.claim = claim;
    }
  }

  /** How a relay locks the rows it applies. */
  public enum Claim {
    /** SKIP_LOCKED where the database is known to have it, else UPDATE. */
    AUTO,
    /** {@code SELECT ... LIMIT n FOR UPDATE SKIP LOCKED}: relays share the rows without waiting. */
    SKIP_LOCKED,
    /** An {@code UPDATE} of each row takes its lock: works everywhere, relays wait for each other. */
    UPDATE
  }

  /** The settings, checked. */
  OutboxSettings toSettings() {
    return new OutboxSettings(tableName, relay.gracePeriod, relay.interval, relay.batchSize,
        OutboxSettings.Claim.valueOf(relay.claim.name()), Delayq.Builder.DEFAULT_IDEMPOTENCY_WINDOW);
  }
}
