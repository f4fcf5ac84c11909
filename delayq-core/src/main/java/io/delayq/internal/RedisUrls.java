package io.delayq.internal;

import io.delayq.InvalidRequestException;
import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Reading the Redis URL a user gives: one URL, or the seed nodes of a cluster. */
final class RedisUrls {
  private static final Set<String> SCHEMES = Set.of("redis", "rediss");

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
              + "' must start with redis:// or rediss:// (TLS)");
    }
    try {
      return RedisURI.create(url);
    } catch (IllegalArgumentException e) {
      throw new InvalidRequestException(
          "redisUrl", "cannot be parsed (" + e.getMessage() + "); expected redis://[user:password@]host:port[/db]");
    }
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
