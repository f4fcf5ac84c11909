package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OwnOriginTest {
  @Test
  void theSameSchemeHostAndPortIsThisServersOrigin() {
    assertThat(OwnOrigin.matches("http://127.0.0.1:8080", "127.0.0.1:8080", false)).isTrue();
    assertThat(OwnOrigin.matches("HTTP://Example.COM:8080", "example.com:8080", false)).isTrue();
    assertThat(OwnOrigin.matches("https://example.com:8443", "example.com:8443", true)).isTrue();
    assertThat(OwnOrigin.matches("http://[::1]:8080", "[::1]:8080", false)).isTrue();
  }

  @Test
  void aSchemesDefaultPortMayBeLeftOutOnEitherSide() {
    assertThat(OwnOrigin.matches("https://example.com", "example.com:443", true)).isTrue();
    assertThat(OwnOrigin.matches("https://example.com:443", "example.com", true)).isTrue();
    assertThat(OwnOrigin.matches("http://example.com", "example.com:80", false)).isTrue();
    assertThat(OwnOrigin.matches("http://example.com", "example.com:443", false)).isFalse();
  }

  @Test
  void anotherSchemeHostOrPortIsAnotherOrigin() {
    assertThat(OwnOrigin.matches("https://127.0.0.1:8080", "127.0.0.1:8080", false)).isFalse();
    assertThat(OwnOrigin.matches("http://127.0.0.1:8080", "127.0.0.1:8080", true)).isFalse();
    assertThat(OwnOrigin.matches("evil://127.0.0.1:8080", "127.0.0.1:8080", false)).isFalse();
    assertThat(OwnOrigin.matches("127.0.0.1:8080", "127.0.0.1:8080", false)).isFalse();
    assertThat(OwnOrigin.matches("http://127.0.0.1:8081", "127.0.0.1:8080", false)).isFalse();
    assertThat(OwnOrigin.matches("http://127.0.0.1", "127.0.0.1:8080", false)).isFalse();
    assertThat(OwnOrigin.matches("http://localhost:8080", "127.0.0.1:8080", false)).isFalse();
    assertThat(OwnOrigin.matches("http://u@127.0.0.1:8080", "127.0.0.1:8080", false)).isFalse();
    assertThat(OwnOrigin.matches("http://127.0.0.1:8080/x", "127.0.0.1:8080", false)).isFalse();
    assertThat(OwnOrigin.matches("null", "127.0.0.1:8080", false)).isFalse();
    assertThat(OwnOrigin.matches("http://127.0.0.1:8080", null, false)).isFalse();
  }

  @Test
  void httpsIsTlsHereOrAsTheProxyInFrontSays() {
    assertThat(OwnOrigin.https(true, null)).isTrue();
    assertThat(OwnOrigin.https(false, "https")).isTrue();
    assertThat(OwnOrigin.https(false, "HTTPS, http")).isTrue();
    assertThat(OwnOrigin.https(false, "http")).isFalse();
    assertThat(OwnOrigin.https(false, null)).isFalse();
  }
}
