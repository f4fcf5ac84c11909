package io.delayq.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import java.security.KeyStore;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails.Node;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslStoreBundle;

/** How the application's Redis settings become delayq's URL, checked by parsing it back with Lettuce. */
class DataRedisUrlsTest {
  private static final String HARD_PASSWORD = "p@ss:w/rd %+?#é";

  @Test
  void standaloneKeepsHostPortDatabaseAndCredentialsThroughEncoding() {
    DataRedisConnectionDetails details = standalone("redis.example", 6390, 3, "ann@ops é", HARD_PASSWORD, null);

    RedisTarget target = DataRedisUrls.from(details, null);

    RedisURI parsed = RedisURI.create(target.url());
    assertThat(parsed.getHost()).isEqualTo("redis.example");
    assertThat(parsed.getPort()).isEqualTo(6390);
    assertThat(parsed.getDatabase()).isEqualTo(3);
    assertThat(credentials(parsed).getUsername()).isEqualTo("ann@ops é");
    assertThat(new String(credentials(parsed).getPassword())).isEqualTo(HARD_PASSWORD);
    assertThat(parsed.isSsl()).isFalse();
    assertThat(target.redacted()).isEqualTo("redis://***@redis.example:6390/3").doesNotContain("ann");
    assertThat(target.source()).contains("spring.data.redis");
  }

  @Test
  void aPasswordWithoutUserAndNoCredentialsAtAll() {
    assertThat(DataRedisUrls.from(standalone("h", 6379, 0, null, "secret", null), null).url())
        .isEqualTo("redis://:secret@h:6379");
    assertThat(DataRedisUrls.from(standalone("h", 6379, 0, null, null, null), null).url()).isEqualTo("redis://h:6379");
    assertThat(DataRedisUrls.from(standalone("::1", 6379, 0, null, null, null), null).url()).isEqualTo("redis://[::1]:6379");
  }

  @Test
  void aUserNameWithAColonIsRefusedSinceNoUrlCanCarryIt() {
    assertThatThrownBy(() -> DataRedisUrls.from(standalone("h", 6379, 0, "a:b", "pw", null), null))
        .isInstanceOfSatisfying(DelayqStartupException.class, e -> assertThat(e.description()).contains("':'"));
  }

  @Test
  void sslEnabledWithoutABundleMeansRediss() {
    // spring.data.redis.ssl.enabled=true without a bundle name gives Boot's system-default bundle
    RedisTarget target = DataRedisUrls.from(standalone("h", 6380, 0, null, null, SslBundle.systemDefault()), null);

    assertThat(target.url()).isEqualTo("rediss://h:6380");
    assertThat(RedisURI.create(target.url()).isSsl()).isTrue();
  }

  @Test
  void aRedissSpringUrlMeansTlsAsInBootsOwnLettuceConfiguration() {
    assertThat(DataRedisUrls.from(standalone("h", 6380, 0, null, null, null), "rediss://h:6380").url())
        .startsWith("rediss://");
    assertThat(DataRedisUrls.from(standalone("h", 6380, 0, null, null, null), "redis://h:6380").url())
        .startsWith("redis://");
  }

  @Test
  void aBundleWithItsOwnTrustMaterialIsRefusedNotIgnored() throws Exception {
    KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
    trust.load(null, null);
    SslBundle bundle = SslBundle.of(SslStoreBundle.of(null, null, trust));

    assertThatThrownBy(() -> DataRedisUrls.from(standalone("h", 6380, 0, null, null, bundle), null))
        .isInstanceOfSatisfying(DelayqStartupException.class, e -> {
          assertThat(e.description()).contains("SSL bundle").contains("cannot take an SSLContext");
          assertThat(e.action()).contains("delayq.redis.url").contains("rediss://");
        });
  }

  @Test
  void aClusterBecomesCommaSeparatedSeedsWithTheCredentialsOnTheFirst() {
    DataRedisConnectionDetails details = new DataRedisConnectionDetails() {
      @Override
      public String getPassword() {
        return "pw";
      }

      @Override
      public Cluster getCluster() {
        return () -> List.of(new Node("n1", 7000), new Node("n2", 7001), new Node("n3", 7002));
      }
    };

    assertThat(DataRedisUrls.from(details, null).url()).isEqualTo("redis://:pw@n1:7000,n2:7001,n3:7002");
  }

  @Test
  void sentinelBecomesLettucesSentinelUrl() {
    RedisTarget target = DataRedisUrls.from(sentinel("my master", null), null);

    assertThat(target.url()).isEqualTo("redis-sentinel://app:p%40ss@s1:26379,s2:26380/2#my%20master");
    RedisURI parsed = RedisURI.create(target.url());
    assertThat(parsed.getSentinelMasterId()).isEqualTo("my master");
    assertThat(parsed.getDatabase()).isEqualTo(2);
    assertThat(credentials(parsed).getUsername()).isEqualTo("app");
    assertThat(new String(credentials(parsed).getPassword())).isEqualTo("p@ss");
    assertThat(parsed.getSentinels()).extracting(RedisURI::getHost, RedisURI::getPort)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("s1", 26379), org.assertj.core.groups.Tuple.tuple("s2", 26380));
  }

  @Test
  void aSentinelPasswordOfItsOwnIsRefusedSinceTheUrlCannotCarryIt() {
    assertThatThrownBy(() -> DataRedisUrls.from(sentinel("mymaster", "sentinel-secret"), null))
        .isInstanceOfSatisfying(DelayqStartupException.class, e -> {
          assertThat(e.description()).contains("spring.data.redis.sentinel.username/password");
          assertThat(e.action()).contains("delayq.redis.url");
          assertThat(e.getMessage()).doesNotContain("sentinel-secret");
        });
  }

  @Test
  void sentinelsWithTheMastersOwnPasswordAreAccepted() {
    // delayq-core gives the URL's password to the Sentinels too
    assertThat(DataRedisUrls.from(sentinel("mymaster", "p@ss"), null).url()).startsWith("redis-sentinel://app:p%40ss@");
  }

  @Test
  void staticMasterReplicaIsRefusedWithTheWayOut() {
    DataRedisConnectionDetails details = new DataRedisConnectionDetails() {
      @Override
      public MasterReplica getMasterReplica() {
        return () -> List.of(new Node("a", 6379), new Node("b", 6379));
      }
    };

    assertThatThrownBy(() -> DataRedisUrls.from(details, null))
        .isInstanceOfSatisfying(DelayqStartupException.class,
            e -> assertThat(e.action()).contains("delayq.redis.url").contains("Sentinel"));
  }

  /** Through the credentials provider: RedisURI's own getters are gone in Lettuce 7. */
  private static RedisCredentials credentials(RedisURI uri) {
    return uri.getCredentialsProvider().resolveCredentials().block();
  }

  private static DataRedisConnectionDetails standalone(
      String host, int port, int database, String user, String password, SslBundle bundle) {
    return new DataRedisConnectionDetails() {
      @Override
      public String getUsername() {
        return user;
      }

      @Override
      public String getPassword() {
        return password;
      }

      @Override
      public SslBundle getSslBundle() {
        return bundle;
      }

      @Override
      public Standalone getStandalone() {
        return Standalone.of(host, port, database);
      }
    };
  }

  private static DataRedisConnectionDetails sentinel(String master, String sentinelPassword) {
    return new DataRedisConnectionDetails() {
      @Override
      public String getUsername() {
        return "app";
      }

      @Override
      public String getPassword() {
        return "p@ss";
      }

      @Override
      public Sentinel getSentinel() {
        return new Sentinel() {
          @Override
          public int getDatabase() {
            return 2;
          }

          @Override
          public String getMaster() {
            return master;
          }

          @Override
          public List<Node> getNodes() {
            return List.of(new Node("s1", 26379), new Node("s2", 26380));
          }

          @Override
          public String getUsername() {
            return null;
          }

          @Override
          public String getPassword() {
            return sentinelPassword;
          }
        };
      }
    };
  }
}
