package io.delayq.spring.autoconfigure;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails.Node;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslStoreBundle;

/**
 * The application's own Redis settings ({@code spring.data.redis.*}, or the {@link
 * DataRedisConnectionDetails} a {@code @ServiceConnection} provides instead) as the URL delayq-core
 * takes. Mirrors how Boot's Lettuce configuration reads them: Sentinel first, then cluster, then
 * static master/replica, else standalone; TLS when an SSL bundle is given (which is what {@code
 * spring.data.redis.ssl.enabled} produces) or when {@code spring.data.redis.url} is {@code
 * rediss://}.
 */
final class DataRedisUrls {
  static final String SOURCE = "spring.data.redis.* (or the @ServiceConnection that replaces them)";

  private DataRedisUrls() {}

  /**
   * @param springUrl the value of {@code spring.data.redis.url}, which Boot also reads for TLS
   *     alone; null when unset
   */
  static RedisTarget from(DataRedisConnectionDetails details, String springUrl) {
    boolean ssl = usesSsl(details.getSslBundle(), springUrl);
    String credentials = RedisTarget.userInfo(details.getUsername(), details.getPassword());
    DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
    if (sentinel != null) {
      return new RedisTarget(sentinelUrl(sentinel, details, credentials, ssl), SOURCE);
    }
    DataRedisConnectionDetails.Cluster cluster = details.getCluster();
    if (cluster != null) {
      // why: delayq-core takes later seeds as host:port with the first one's scheme and credentials
      return new RedisTarget(
          (ssl ? "rediss://" : "redis://") + credentials + nodes(cluster.getNodes(), "spring.data.redis.cluster.nodes"),
          SOURCE);
    }
    if (details.getMasterReplica() != null) {
      throw new DelayqStartupException(
          "The application's Redis is a static master/replica set (spring.data.redis.masterreplica.nodes),"
              + " but delayq writes to one master and cannot tell which of those nodes it is.",
          "Set delayq.redis.url to the master, e.g. redis://master-host:6379, or use Redis Sentinel"
              + " (spring.data.redis.sentinel.*) so that the master is found and followed on failover.",
          null);
    }
    DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
    return new RedisTarget(
        (ssl ? "rediss://" : "redis://") + credentials
            + RedisTarget.hostAndPort(standalone.getHost(), standalone.getPort())
            + (standalone.getDatabase() != 0 ? "/" + standalone.getDatabase() : ""),
        SOURCE);
  }

  /** Lettuce's format: {@code redis-sentinel://[user:password@]host1:port1,host2:port2[/db]#master}. */
  private static String sentinelUrl(
      DataRedisConnectionDetails.Sentinel sentinel, DataRedisConnectionDetails details, String credentials, boolean ssl) {
    boolean sameAsMasters = Objects.equals(emptyToNull(sentinel.getPassword()), emptyToNull(details.getPassword()))
        && !notEmpty(sentinel.getUsername());
    if ((notEmpty(sentinel.getPassword()) || notEmpty(sentinel.getUsername())) && !sameAsMasters) {
      // why: the URL's user-info is the master's, which delayq-core also gives the Sentinels;
      // Lettuce's URL has no place for other Sentinel credentials (lettuce#2327), and sending the
      // master's to a Sentinel that wants its own fails with NOAUTH
      throw new DelayqStartupException(
          "spring.data.redis.sentinel.username/password differ from the master's, but delayq can only"
              + " log in to Redis Sentinels with the master's password: its Redis URL (Lettuce's"
              + " redis-sentinel:// form) carries one set of credentials.",
          "Give the Sentinels the master's password (or none), or remove"
              + " spring.data.redis.sentinel.username/password and keep the master's in"
              + " spring.data.redis.username/password; or point delayq.redis.url at the master directly.",
          null);
    }
    if (sentinel.getMaster() == null || sentinel.getMaster().isBlank()) {
      throw new DelayqStartupException(
          "The application's Redis Sentinel settings name no master.",
          "Set spring.data.redis.sentinel.master to the name the Sentinels monitor, or set delayq.redis.url.",
          null);
    }
    return (ssl ? "rediss-sentinel://" : "redis-sentinel://") + credentials
        + nodes(sentinel.getNodes(), "spring.data.redis.sentinel.nodes")
        + (sentinel.getDatabase() != 0 ? "/" + sentinel.getDatabase() : "")
        + "#" + RedisTarget.encode(sentinel.getMaster());
  }

  private static String emptyToNull(String text) {
    return notEmpty(text) ? text : null;
  }

  private static String nodes(List<Node> nodes, String property) {
    if (nodes == null || nodes.isEmpty()) {
      throw new DelayqStartupException(
          "The application's Redis settings name no nodes in " + property + ".",
          "List the nodes as host:port in " + property + ", or set delayq.redis.url.",
          null);
    }
    return nodes.stream().map(n -> RedisTarget.hostAndPort(n.host(), n.port())).collect(Collectors.joining(","));
  }

  private static boolean usesSsl(SslBundle bundle, String springUrl) {
    if (bundle != null && hasOwnKeyMaterial(bundle)) {
      throw new DelayqStartupException(
          "The application's Redis uses an SSL bundle with its own key or trust material"
              + " (spring.data.redis.ssl.bundle, or a @ServiceConnection with SSL), but delayq-core cannot"
              + " take an SSLContext or bundle yet: it connects over TLS with the JVM's default trust"
              + " store only. delayq refuses to start rather than ignore the bundle.",
          "Set delayq.redis.url to a rediss:// URL whose server certificate the JVM's default trust store"
              + " accepts (e.g. by adding the CA with -Djavax.net.ssl.trustStore=...), or use"
              + " spring.data.redis.ssl.enabled=true without a bundle.",
          null);
    }
    return bundle != null || (springUrl != null && springUrl.trim().startsWith("rediss:"));
  }

  /**
   * Whether the bundle brings key or trust stores of its own. {@code spring.data.redis.ssl.enabled}
   * without a bundle name yields Boot's system-default bundle, which has neither and means "TLS with
   * the JVM's defaults": exactly what a rediss:// URL does.
   */
  private static boolean hasOwnKeyMaterial(SslBundle bundle) {
    SslStoreBundle stores = bundle.getStores();
    return stores != null && (stores.getKeyStore() != null || stores.getTrustStore() != null);
  }

  private static boolean notEmpty(String text) {
    return text != null && !text.isEmpty();
  }
}
