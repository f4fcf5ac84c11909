package io.delayq.spring.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/** Settings of delayq in a Spring Boot application, under {@code delayq.*}. */
@ConfigurationProperties("delayq")
public class DelayqProperties {
  private final Redis redis = new Redis();

  public Redis getRedis() {
    return redis;
  }

  /** Where delayq's Redis is. */
  public static class Redis {
    /**
     * Redis URL for delayq: redis://[user:password@]host:port[/db], rediss:// for TLS, several
     * comma-separated for a cluster. When unset, delayq uses the application's own Redis settings
     * (spring.data.redis.*).
     */
    private String url;

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }
  }
}
