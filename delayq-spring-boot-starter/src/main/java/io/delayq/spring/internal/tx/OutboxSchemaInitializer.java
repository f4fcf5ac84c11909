package io.delayq.spring.internal.tx;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.jdbc.init.PlatformPlaceholderDatabaseDriverResolver;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.core.io.Resource;
import org.springframework.util.StreamUtils;

/**
 * Creates the outbox table from the script shipped for the database
 * ({@code io/delayq/spring/outbox/schema-<platform>.sql}), under the configured table name. It is a
 * Boot {@link DataSourceScriptDatabaseInitializer}, so it runs when Boot's own scripts run and
 * before the beans that depend on database initialisation; {@code CREATE ... IF NOT EXISTS} makes
 * it safe on every start.
 */
public final class OutboxSchemaInitializer extends DataSourceScriptDatabaseInitializer {
  static final String LOCATION = "classpath:io/delayq/spring/outbox/schema-@@platform@@.sql";

  private final OutboxSettings settings;
  private final DatabaseInitializationMode mode;
  private final String location;

  public OutboxSchemaInitializer(DataSource dataSource, OutboxSettings settings, DatabaseInitializationMode mode) {
    this(dataSource, settings, mode, mode == DatabaseInitializationMode.NEVER ? null : resolve(dataSource));
  }

  private OutboxSchemaInitializer(
      DataSource dataSource, OutboxSettings settings, DatabaseInitializationMode mode, String location) {
    super(dataSource, settings(mode, location));
    this.settings = settings;
    this.mode = mode;
    this.location = location;
  }

  private static String resolve(DataSource dataSource) {
    // why: MariaDB takes the MySQL script
    return new PlatformPlaceholderDatabaseDriverResolver()
        .withDriverPlatform(DatabaseDriver.MARIADB, "mysql")
        .resolveAll(dataSource, LOCATION)
        .get(0);
  }

  private static DatabaseInitializationSettings settings(DatabaseInitializationMode mode, String location) {
    DatabaseInitializationSettings s = new DatabaseInitializationSettings();
    s.setSchemaLocations(location == null ? List.of() : List.of(location));
    s.setMode(mode);
    s.setEncoding(StandardCharsets.UTF_8);
    return s;
  }

  @Override
  public void afterPropertiesSet() throws Exception {
    boolean applies = mode == DatabaseInitializationMode.ALWAYS
        || (mode == DatabaseInitializationMode.EMBEDDED && isEmbeddedDatabase());
    if (applies && !new DefaultResourceLoader(getClass().getClassLoader()).getResource(location).exists()) {
      throw new IllegalStateException(
          "delayq.outbox.initialize-schema=" + mode.name().toLowerCase() + " asks for the outbox table to be"
              + " created, but delayq ships no script for this database (" + location + " does not exist;"
              + " there are scripts for H2, PostgreSQL, MySQL and MariaDB). Create table " + settings.table()
              + " yourself, with io/delayq/spring/outbox/schema-postgresql.sql as a model, and set"
              + " delayq.outbox.initialize-schema=never");
    }
    super.afterPropertiesSet();
  }

  @Override
  protected void runScripts(Scripts scripts) {
    List<Resource> named = new ArrayList<>();
    Charset charset = scripts.getEncoding() != null ? scripts.getEncoding() : StandardCharsets.UTF_8;
    for (Resource script : scripts) {
      try {
        String sql = StreamUtils.copyToString(script.getInputStream(), charset);
        named.add(new ByteArrayResource(
            withTableName(sql, settings).getBytes(charset), script.getDescription() + " for " + settings.table()));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + script.getDescription(), e);
      }
    }
    super.runScripts(new Scripts(named)
        .continueOnError(scripts.isContinueOnError())
        .separator(scripts.getSeparator())
        .encoding(charset));
  }

  /** The script with the configured table name, and index names made from its unqualified part. */
  static String withTableName(String sql, OutboxSettings settings) {
    String bare = settings.bareTable();
    return sql.replaceAll("\\bdelayq_outbox_relay\\b", bare + "_relay")
        .replaceAll("\\bdelayq_outbox_job\\b", bare + "_job")
        .replaceAll("\\bdelayq_outbox\\b", settings.table());
  }
}
