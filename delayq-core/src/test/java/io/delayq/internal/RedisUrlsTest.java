package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.InvalidRequestException;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisUrlsTest {
  /** The example of docs/SENTINEL.md and Delayq.connect's javadoc. */
  private static final String EXAMPLE =
      "redis-sentinel://:secret@10.0.0.1:26379,10.0.0.2:26379,10.0.0.3:26379#mymaster";

  @Test
  void aSentinelUrlNamesTheSentinelsAndTheMasterAndGivesThemTheDataNodesPassword() {
    List<RedisURI> uris = RedisUrls.parse(EXAMPLE);
    assertThat(uris).hasSize(1);
    RedisURI uri = uris.get(0);
    assertThat(RedisUrls.isSentinel(uri)).isTrue();
    assertThat(uri.getSentinelMasterId()).isEqualTo("mymaster");
    assertThat(uri.getSentinels()).extracting(RedisURI::getHost).containsExactly("10.0.0.1", "10.0.0.2", "10.0.0.3");
    assertThat(uri.getSentinels()).extracting(RedisURI::getPort).containsOnly(26379);
    assertThat(password(uri)).isEqualTo("secret");
    assertThat(uri.getSentinels()).allSatisfy(s -> assertThat(password(s)).isEqualTo("secret"));
    assertThat(RedisUrls.redact(uris))
        .isEqualTo("redis-sentinel://10.0.0.1:26379,10.0.0.2:26379,10.0.0.3:26379#mymaster")
        .doesNotContain("secret");
  }

  @Test
  void portDatabaseTlsUserAndTheQueryFormOfTheMasterName() {
    RedisURI uri = RedisUrls.parse("REDISS-SENTINEL://app:pw@s1,s2:26380/3?sentinelMasterId=orders&verifyPeer=NONE").get(0);
    assertThat(uri.getSentinelMasterId()).isEqualTo("orders");
    assertThat(uri.getSentinels()).extracting(RedisURI::getPort).containsExactly(RedisURI.DEFAULT_SENTINEL_PORT, 26380);
    assertThat(uri.getDatabase()).isEqualTo(3);
    assertThat(uri.isSsl()).isTrue();
    assertThat(uri.getSentinels()).allMatch(RedisURI::isSsl);
    RedisCredentials credentials = uri.getSentinels().get(1).getCredentialsProvider().resolveCredentials().block();
    assertThat(credentials.getUsername()).isEqualTo("app");
    assertThat(RedisUrls.redact(List.of(uri))).isEqualTo("rediss-sentinel://s1:26379,s2:26380/3#orders");
  }

  @Test
  void eachMistakeIsNamedWithTheExpectedForm() {
    assertThatThrownBy(() -> RedisUrls.parse("redis-sentinel://s1:26379")).isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("names no master").hasMessageContaining(RedisUrls.SENTINEL_FORMAT);
    assertThatThrownBy(() -> RedisUrls.parse("redis-sentinel://s1:0#m")).hasMessageContaining("has port '0'");
    assertThatThrownBy(() -> RedisUrls.parse("redis-sentinel://#m")).hasMessageContaining("names no Sentinel");
    assertThatThrownBy(() -> RedisUrls.parse("redis-sentinel://:pw@s1:2x#m"))
        .hasMessageContaining("Sentinel 's1:2x'").hasMessageNotContaining("pw@");
  }

  private static String password(RedisURI uri) {
    char[] password = uri.getCredentialsProvider().resolveCredentials().block().getPassword();
    return password == null ? null : new String(password);
  }
}
