package io.delayq.spring.autoconfigure;

import io.delayq.Delayq;
import io.delayq.spring.DelayqTemplate;
import io.delayq.spring.PayloadConverter;
import io.delayq.spring.internal.tx.AfterCommitWrites;
import io.delayq.spring.internal.tx.Outbox;
import io.delayq.spring.internal.tx.OutboxRelay;
import io.delayq.spring.internal.tx.OutboxSchemaInitializer;
import io.delayq.spring.internal.tx.RefusingWrites;
import io.delayq.spring.internal.tx.TransactionalWrites;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * The {@link DelayqTemplate}, and the transactional outbox that makes its writes inside a
 * transaction safe: on when the application has one {@code DataSource} (and spring-boot-jdbc),
 * unless {@code delayq.outbox.enabled=false}. See docs/SPRING-TRANSACTIONS.md.
 *
 * @since 0.3.0
 */
@AutoConfiguration(
    after = {DelayqAutoConfiguration.class, DelayqPayloadAutoConfiguration.class},
    afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnBean(Delayq.class)
@EnableConfigurationProperties(DelayqOutboxProperties.class)
public class DelayqTemplateAutoConfiguration {
  private static final String JDBC_INITIALIZER = "org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer";

  @Bean
  @ConditionalOnMissingBean
  public DelayqTemplate delayqTemplate(
      Delayq delayq,
      PayloadConverter converter,
      DelayqOutboxProperties properties,
      ObjectProvider<TransactionalWrites> outbox,
      ListableBeanFactory beans) {
    return new DelayqTemplate(delayq, converter, writesInTransaction(delayq, properties, outbox, beans));
  }

  private static TransactionalWrites writesInTransaction(
      Delayq delayq,
      DelayqOutboxProperties properties,
      ObjectProvider<TransactionalWrites> outbox,
      ListableBeanFactory beans) {
    if (!properties.isEnabled()) {
      return new AfterCommitWrites(delayq);
    }
    // why: asked for by its interface, so that this class never loads the outbox's JDBC types
    TransactionalWrites available = outbox.getIfAvailable();
    if (available != null) {
      return available;
    }
    int dataSources = beans.getBeanNamesForType(DataSource.class, true, false).length;
    String reason;
    if (dataSources == 0) {
      reason = "the application has no DataSource bean";
    } else if (!ClassUtils.isPresent(JDBC_INITIALIZER, DelayqTemplateAutoConfiguration.class.getClassLoader())) {
      reason = "org.springframework.boot:spring-boot-jdbc is not on the class path";
    } else {
      reason = "the application has " + dataSources + " DataSource beans and none of them is @Primary";
    }
    return new RefusingWrites(reason);
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"org.springframework.jdbc.core.JdbcTemplate", JDBC_INITIALIZER})
  @ConditionalOnSingleCandidate(DataSource.class)
  @ConditionalOnBooleanProperty(name = "delayq.outbox.enabled", matchIfMissing = true)
  static class OutboxConfiguration {

    @Bean
    @ConditionalOnMissingBean
    OutboxSchemaInitializer delayqOutboxSchemaInitializer(DataSource dataSource, DelayqOutboxProperties properties) {
      return new OutboxSchemaInitializer(dataSource, properties.toSettings(),
          DatabaseInitializationMode.valueOf(properties.getInitializeSchema().name()));
    }

    @Bean
    @ConditionalOnMissingBean
    Outbox delayqOutbox(
        DataSource dataSource,
        Delayq delayq,
        DelayqOutboxProperties properties,
        ObjectProvider<OutboxSchemaInitializer> schema) {
      // why: the table must exist before anything writes to it or the relay reads it
      schema.ifAvailable(initializer -> {});
      return new Outbox(dataSource, delayq, properties.toSettings());
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "delayq.outbox.relay.enabled", matchIfMissing = true)
    OutboxRelay delayqOutboxRelay(Outbox outbox) {
      return new OutboxRelay(outbox);
    }
  }
}
