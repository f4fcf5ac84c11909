package io.delayq.internal;

import io.delayq.InvalidRequestException;
import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Reading the Redis URL a user gives: one URL, the seed nodes of a cluster, or the Sentinels of a master. */
final class RedisUrls {
  private static final Set<String> SCHEMES = Set.of("redis", "rediss");
  private static final Set<String> SENTINEL_SCHEMES =
      Set.of(RedisURI.URI_SCHEME_REDIS_SENTINEL, RedisURI.URI_SCHEME_REDIS_SENTINEL_SECURE);
  static final String SENTINEL_FORMAT =
      "redis-sentinel://[[user:]password@]host1[:port1][,host2[:port2]...][/db]#masterName"
          + " (rediss-sentinel:// for TLS; a Sentinel's port defaults to 26379)";

  private RedisUrls() {}

  /**
   * One URL, or several separated by commas for the seed nodes of a cluster. A seed may be given
   * as just {@code host:port}; it then takes scheme, user and password from the first.
   */
  static List<RedisURI> parse(String url) {
    if (url == null || url.isBlank()) {
      throw new InvalidRequestException(
          "redisUrl", "is missing; give one like redis://localhost:6379 or rediss://user:pass@host:6380");
    }
    if (SENTINEL_SCHEMES.contains(schemeOf(url.trim()))) {
      return List.of(parseSentinel(url.trim()));
    }
    if (url.contains("-sentinel://")) {
      throw new InvalidRequestException(
          "redisUrl",
          "mixes a Sentinel URL with other URLs; a Sentinel URL names all its Sentinels itself: " + SENTINEL_FORMAT);
    }
    List<RedisURI> uris = new ArrayList<>();
    String[] parts = url.split(",");
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i].trim();
      if (part.isEmpty()) {
        throw new InvalidRequestException(
            "redisUrl", "has an empty entry between commas; separate seed URLs with single commas");
      }
      if (i > 0 && !part.contains("://")) {
        uris.add(seedLike(uris.get(0), part));
        continue;
      }
      uris.add(parseOne(part));
    }
    return uris;
  }

  private static RedisURI parseOne(String url) {
    int colon = url.indexOf("://");
    String scheme = colon < 0 ? "" : url.substring(0, colon);
    if (!SCHEMES.contains(scheme)) {
      throw new InvalidRequestException(
          "redisUrl",
          "'" + Rules.abbreviate(url.replaceAll("//[^@/]*@", "//***@"))
              + "' must start with redis:// or rediss:// (TLS), or redis-sentinel:// to reach a master through"
              + " Redis Sentinel (" + SENTINEL_FORMAT + ")");
    }
    try {
      return RedisURI.create(url);
    } catch (IllegalArgumentException e) {
      throw new InvalidRequestException(
          "redisUrl", "cannot be parsed (" + e.getMessage() + "); expected redis://[user:password@]host:port[/db]");
    }
  }

  /** Whether the URI names a master through Sentinels rather than a server. */
  static boolean isSentinel(RedisURI uri) {
    return uri.getSentinelMasterId() != null && !uri.getSentinels().isEmpty();
  }

  private static String schemeOf(String url) {
    int colon = url.indexOf("://");
    return colon < 0 ? "" : url.substring(0, colon).toLowerCase(Locale.ROOT);
  }

  /**
   * Lettuce's Sentinel URL, checked here first so that each mistake gets its own message (Lettuce
   * reports a missing master name and a bad port in terms of its own parser). The URL's user and
   * password are the data nodes'; Lettuce would send none to the Sentinels, and delayq sends them
   * the same, so that Sentinels protected by the data nodes' password work. A Sentinel without a
   * password accepts them too ({@code HELLO 3 AUTH} succeeds for the password-less default user).
   */
  private static RedisURI parseSentinel(String given) {
    // why: Lettuce matches the scheme case-sensitively
    String url = schemeOf(given) + given.substring(given.indexOf("://"));
    String shown = redactText(url);
    int schemeEnd = url.indexOf("://") + 3;
    int hash = url.indexOf('#');
    String fragment = hash < 0 ? "" : url.substring(hash + 1);
    String rest = hash < 0 ? url.substring(schemeEnd) : url.substring(schemeEnd, hash);
    int query = rest.indexOf('?');
    String queryText = query < 0 ? "" : rest.substring(query + 1);
    String beforeQuery = query < 0 ? rest : rest.substring(0, query);
    boolean masterInQuery = queryText.toLowerCase(Locale.ROOT)
        .contains(RedisURI.PARAMETER_NAME_SENTINEL_MASTER_ID.toLowerCase(Locale.ROOT) + "=");
    if (fragment.isBlank() && !masterInQuery) {
      throw new InvalidRequestException(
          "redisUrl", "'" + shown + "' names no master: put the name the Sentinels monitor it under after '#';"
              + " expected " + SENTINEL_FORMAT);
    }
    int at = beforeQuery.lastIndexOf('@');
    String authority = at < 0 ? beforeQuery : beforeQuery.substring(at + 1);
    int slash = authority.indexOf('/');
    String hosts = slash < 0 ? authority : authority.substring(0, slash);
    String database = slash < 0 ? "" : authority.substring(slash + 1);
    if (hosts.isEmpty()) {
      throw new InvalidRequestException("redisUrl", "'" + shown + "' names no Sentinel; expected " + SENTINEL_FORMAT);
    }
    for (String host : hosts.split(",", -1)) {
      checkSentinelHost(host.trim(), shown);
    }
    if (!database.isEmpty() && !database.chars().allMatch(Character::isDigit)) {
      throw new InvalidRequestException(
          "redisUrl", "'" + shown + "' has database '" + Rules.abbreviate(database) + "', which is not a number; expected "
              + SENTINEL_FORMAT);
    }
    RedisURI uri;
    try {
      uri = RedisURI.create(url);
    } catch (IllegalArgumentException e) {
      throw new InvalidRequestException(
          "redisUrl", "'" + shown + "' cannot be parsed (" + e.getMessage() + "); expected " + SENTINEL_FORMAT);
    }
    for (RedisURI sentinel : uri.getSentinels()) {
      sentinel.applyAuthentication(uri);
    }
    return uri;
  }

  private static void checkSentinelHost(String host, String shown) {
    if (host.isEmpty()) {
      throw new InvalidRequestException(
          "redisUrl", "'" + shown + "' has an empty Sentinel between commas; expected " + SENTINEL_FORMAT);
    }
    int colon = host.startsWith("[") ? host.indexOf(':', Math.max(0, host.indexOf(']'))) : host.lastIndexOf(':');
    if (colon < 0) {
      return;
    }
    String port = host.substring(colon + 1);
    boolean valid = !port.isEmpty() && port.length() <= 5 && port.chars().allMatch(Character::isDigit)
        && Integer.parseInt(port) >= 1 && Integer.parseInt(port) <= 65535;
    if (!valid) {
      throw new InvalidRequestException(
          "redisUrl", "Sentinel '" + Rules.abbreviate(host) + "' in '" + shown + "' has port '" + Rules.abbreviate(port)
              + "'; a port is a number from 1 to 65535. Expected " + SENTINEL_FORMAT);
    }
  }

  /** The URL as text for a message: any password replaced. */
  private static String redactText(String url) {
    return Rules.abbreviate(url.replaceAll("//[^@/]*@", "//***@"));
  }

  private static RedisURI seedLike(RedisURI first, String hostAndPort) {
    int colon = hostAndPort.lastIndexOf(':');
    int port;
    try {
      port = colon < 0 ? RedisURI.DEFAULT_REDIS_PORT : Integer.parseInt(hostAndPort.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new InvalidRequestException(
          "redisUrl", "seed '" + Rules.abbreviate(hostAndPort) + "' has no valid port; write host:port or a full URL");
    }
    return RedisURI.builder(first)
        .withHost(colon < 0 ? hostAndPort : hostAndPort.substring(0, colon))
        .withPort(port)
        .build();
  }

  static String redact(List<RedisURI> uris) {
    if (uris.size() == 1 && isSentinel(uris.get(0))) {
      RedisURI uri = uris.get(0);
      StringBuilder text = new StringBuilder(uri.isSsl() ? "rediss-sentinel://" : "redis-sentinel://");
      for (RedisURI sentinel : uri.getSentinels()) {
        text.append(sentinel == uri.getSentinels().get(0) ? "" : ",").append(sentinel.getHost()).append(':')
            .append(sentinel.getPort());
      }
      return text.append(uri.getDatabase() != 0 ? "/" + uri.getDatabase() : "").append('#')
          .append(uri.getSentinelMasterId()).toString();
    }
    StringBuilder text = new StringBuilder();
    for (RedisURI uri : uris) {
      text.append(text.length() == 0 ? "" : ",")
          .append(uri.isSsl() ? "rediss://" : "redis://")
          .append(uri.getHost())
          .append(':')
          .append(uri.getPort());
    }
    return text.toString();
  }
}
