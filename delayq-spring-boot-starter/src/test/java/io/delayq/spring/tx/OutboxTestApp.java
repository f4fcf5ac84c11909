package io.delayq.spring.tx;

import com.zaxxer.hikari.HikariDataSource;
import io.delayq.spring.autoconfigure.DelayqAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqPayloadAutoConfiguration;
import io.delayq.spring.autoconfigure.DelayqTemplateAutoConfiguration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * One instance of an application that uses the outbox: the starter's auto-configuration on a real
 * database (through {@link FaultyDataSource}) and a real Redis, with Boot's JDBC transaction
 * manager.
 */
@Configuration(proxyBeanMethods = false)
@ImportAutoConfiguration({
  JacksonAutoConfiguration.class,
  DelayqAutoConfiguration.class,
  DelayqPayloadAutoConfiguration.class,
  DataSourceTransactionManagerAutoConfiguration.class,
  DelayqTemplateAutoConfiguration.class
})
class OutboxTestApp {

  @Bean
  DataSource dataSource(Environment env, Faults faults) {
    HikariDataSource hikari = new HikariDataSource();
    hikari.setJdbcUrl(env.getRequiredProperty("test.db.url"));
    hikari.setUsername(env.getProperty("test.db.user"));
    hikari.setPassword(env.getProperty("test.db.password"));
    hikari.setMaximumPoolSize(16);
    return new FaultyDataSource(hikari, faults);
  }

  static ConfigurableApplicationContext start(
      TestDatabase db, String redisUrl, String table, Faults faults, String... properties) {
    List<String> all = new ArrayList<>(List.of(
        "test.db.url=" + db.url(),
        "test.db.user=" + db.user(),
        "test.db.password=" + db.password(),
        "delayq.redis.url=" + redisUrl,
        "delayq.outbox.table-name=" + table,
        "delayq.outbox.initialize-schema=always",
        "delayq.outbox.relay.grace-period=300ms",
        "delayq.outbox.relay.interval=100ms",
        "spring.main.banner-mode=off"));
    all.addAll(List.of(properties));
    return new SpringApplicationBuilder(OutboxTestApp.class)
        .web(WebApplicationType.NONE)
        .properties(all.toArray(String[]::new))
        .initializers(context -> context.getBeanFactory().registerSingleton("faults", faults))
        .run();
  }
}
