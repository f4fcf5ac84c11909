package io.delayq.spring.autoconfigure;

import io.delayq.Delayq;
import io.delayq.InvalidRequestException;
import io.delayq.OutcomeUnknownException;
import io.delayq.QueueConfigurationException;
import io.delayq.RedisUnavailableException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * The {@link Delayq} client, from {@code delayq.*} properties. Its Redis is {@code
 * delayq.redis.url} when set, else the application's own Redis ({@code spring.data.redis.*}, or a
 * {@code @ServiceConnection}), else startup fails saying what to set: delayq never guesses a Redis,
 * since jobs written to a Redis nobody reads are lost in all but name. {@link
 * DelayqBuilderCustomizer} beans adjust the builder; a {@code Delayq} bean of the application's own
 * replaces the client.
 *
 * @since 0.1.0
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@EnableConfigurationProperties(DelayqProperties.class)
public class DelayqAutoConfiguration {

  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public Delayq delayq(
      DelayqProperties properties,
      ObjectProvider<ApplicationRedis> applicationRedis,
      ObjectProvider<EmbeddedRedis> embeddedRedis,
      ObjectProvider<DelayqBuilderCustomizer> customizers) {
    RedisTarget target = target(properties, applicationRedis.getIfAvailable(), embeddedRedis.getIfAvailable());
    Delayq.Builder builder = Delayq.builder().redisUrl(target.url());
    DelayqProperties.DeadLetter deadLetter = properties.getDeadLetter();
    DelayqProperties.WaitForReplicas replicas = properties.getWaitForReplicas();
    apply("delayq.command-timeout", () -> builder.commandTimeout(properties.getCommandTimeout()));
    apply("delayq.max-payload-size", () -> builder.maxPayloadBytes(payloadBytes(properties)));
    apply("delayq.dead-letter.limit", () -> builder.deadLetterLimit(deadLetter.getLimit()));
    apply("delayq.dead-letter.retention", () -> builder.deadLetterRetention(deadLetter.getRetention()));
    apply("delayq.refuse-evicting-redis", () -> builder.refuseEvictingRedis(properties.isRefuseEvictingRedis()));
    apply("delayq.wait-for-replicas.*", () -> builder.waitForReplicas(replicas.getReplicas(), replicas.getTimeout()));
    apply("delayq.idempotency-window", () -> builder.idempotencyWindow(properties.getIdempotencyWindow()));
    customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
    return connect(builder, target);
  }

  private static RedisTarget target(
      DelayqProperties properties, ApplicationRedis applicationRedis, EmbeddedRedis embeddedRedis) {
    String url = properties.getRedis().getUrl();
    if (StringUtils.hasText(url)) {
      return new RedisTarget(url.trim(), RedisTarget.DELAYQ_URL);
    }
    RedisTarget fromApplication = applicationRedis == null ? null : applicationRedis.target();
    if (fromApplication != null) {
      return fromApplication;
    }
    if (embeddedRedis != null) {
      // why: created while the client is, so it is destroyed after the client, never under it
      return embeddedRedis.start();
    }
    throw new DelayqStartupException(
        "delayq has no Redis to connect to: delayq.redis.url is not set, and the application has no"
            + " Redis settings of its own (spring-boot-data-redis is not on the classpath, or it made no"
            + " DataRedisConnectionDetails).",
        "Set delayq.redis.url, e.g. delayq.redis.url=redis://localhost:6379, or add"
            + " spring-boot-starter-data-redis and set spring.data.redis.host/port (or its url); for"
            + " development, add io.delayq:delayq-embedded to start a redis-server with the application.",
        null);
  }

  private static int payloadBytes(DelayqProperties properties) {
    long bytes = properties.getMaxPayloadSize().toBytes();
    return bytes > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) bytes;
  }

  /** Runs one builder setter; a value it refuses fails startup naming the property. */
  private static void apply(String property, Runnable setter) {
    try {
      setter.run();
    } catch (InvalidRequestException | NullPointerException e) {
      throw new DelayqStartupException(
          "The value of " + property + " is not valid: " + e.getMessage() + ".",
          "Change " + property + " (see the property's description in your IDE or delayq's README).",
          e);
    }
  }

  private static Delayq connect(Delayq.Builder builder, RedisTarget target) {
    try {
      return builder.build();
    } catch (InvalidRequestException e) {
      throw new DelayqStartupException(
          "delayq cannot use the Redis URL made from " + target.source() + " (" + target.redacted() + "): "
              + target.scrub(e.getMessage()) + ".",
          target.source().equals(RedisTarget.DELAYQ_URL)
              ? "Fix delayq.redis.url: redis://[user:password@]host:port[/db], rediss:// for TLS, or several"
                  + " comma-separated for a Redis Cluster (percent-encode reserved characters in the password)."
              : "Fix " + target.source() + ", or set delayq.redis.url to override them for delayq.",
          e);
    } catch (RedisUnavailableException | OutcomeUnknownException e) {
      throw new DelayqStartupException(
          "delayq cannot reach Redis at " + target.redacted() + " (from " + target.source() + "): "
              + target.scrub(rootMessage(e)) + ".",
          "Start Redis there, or fix "
              + (target.source().equals(RedisTarget.DELAYQ_URL) ? "delayq.redis.url" : target.source()
                  + " (or set delayq.redis.url)")
              + "; check host, port, user, password and TLS (rediss://).",
          e);
    } catch (QueueConfigurationException e) {
      throw new DelayqStartupException(
          "delayq refuses this Redis (delayq.refuse-evicting-redis=true): " + target.scrub(e.getMessage()),
          "Set maxmemory-policy to noeviction on that Redis (CONFIG SET maxmemory-policy noeviction, and in"
              + " redis.conf), or set delayq.refuse-evicting-redis=false to start with a warning instead.",
          e);
    }
  }

  /** The innermost cause's message (e.g. "Connection refused"), or the failure's own. */
  private static String rootMessage(Throwable failure) {
    String message = failure.getMessage();
    for (Throwable t = failure.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t.getMessage() != null) {
        message = t.getMessage();
      }
    }
    return message;
  }

  /** The application's own Redis, read lazily: only when delayq.redis.url does not override it. */
  @FunctionalInterface
  interface ApplicationRedis {
    /** Null when the application has no Redis settings. */
    RedisTarget target();
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.delayq.embedded.RedisServerProcess")
  @ConditionalOnProperty(prefix = "delayq.redis.embedded", name = "enabled", havingValue = "true", matchIfMissing = true)
  static class EmbeddedRedisConfiguration {

    @Bean
    EmbeddedRedis delayqEmbeddedRedis(DelayqProperties properties) {
      return new EmbeddedRedis(properties.getRedis().getEmbedded().getDataDir());
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(DataRedisConnectionDetails.class)
  static class ApplicationRedisConfiguration {

    @Bean
    ApplicationRedis delayqApplicationRedis(ObjectProvider<DataRedisConnectionDetails> details, Environment environment) {
      return () -> {
        DataRedisConnectionDetails found = details.getIfAvailable();
        return found == null ? null : DataRedisUrls.from(found, environment.getProperty("spring.data.redis.url"));
      };
    }
  }
}
