package io.delayq.spring.internal.tx;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.ClassPathResource;

/** The shipped scripts under another table name. */
class OutboxSchemaTest {

  @Test
  void aSchemaQualifiedNameRenamesTheTableAndNamesTheIndexesAfterItsBarePart() throws IOException {
    String sql = new ClassPathResource("io/delayq/spring/outbox/schema-postgresql.sql")
        .getContentAsString(StandardCharsets.UTF_8);
    String renamed = rename(sql, "jobs.my_outbox");
    assertThat(renamed)
        .contains("CREATE TABLE IF NOT EXISTS jobs.my_outbox (")
        .contains("CREATE INDEX IF NOT EXISTS my_outbox_relay ON jobs.my_outbox (relay_after_ms)")
        .contains("CREATE INDEX IF NOT EXISTS my_outbox_job ON jobs.my_outbox (queue_name, job_id)")
        .doesNotContain("CREATE TABLE IF NOT EXISTS delayq_outbox");
  }

  @Test
  void everyShippedScriptCreatesTheSameColumns() throws IOException {
    String[] columns = {"seq", "op", "queue_name", "job_id", "id_generated", "payload", "payload_json", "due_ms",
        "max_attempts", "keep_existing", "created_ms", "relay_after_ms", "relay_attempts"};
    for (String platform : new String[] {"h2", "postgresql", "mysql"}) {
      String sql = new ClassPathResource("io/delayq/spring/outbox/schema-" + platform + ".sql")
          .getContentAsString(StandardCharsets.UTF_8);
      String body = sql.substring(sql.indexOf("CREATE TABLE"));
      for (String column : columns) {
        assertThat(body).as(platform + " has " + column).containsPattern("\\n  " + column + " ");
      }
    }
  }

  private static String rename(String sql, String table) {
    return OutboxSchemaInitializer.withTableName(sql, new OutboxSettings(table, Duration.ofSeconds(1),
        Duration.ofSeconds(1), 10, OutboxSettings.Claim.AUTO, Duration.ofMinutes(5)));
  }
}
