package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AccessLogRedactionTest {
  @Test
  void theValueOfATokenParameterIsRedactedHoweverItIsSpelled() {
    assertThat(HttpConnection.redactQuery("next=%2F&token=s3cret")).isEqualTo("next=%2F&token=REDACTED");
    assertThat(HttpConnection.redactQuery("token=s3cret")).isEqualTo("token=REDACTED");
    assertThat(HttpConnection.redactQuery("TOKEN=s3cret&token=other")).isEqualTo("TOKEN=REDACTED&token=REDACTED");
    assertThat(HttpConnection.redactQuery("%74oken=s3cret")).isEqualTo("%74oken=REDACTED");
    assertThat(HttpConnection.redactQuery("token")).isEqualTo("token=REDACTED");
  }

  @Test
  void everythingElseIsLoggedAsSent() {
    assertThat(HttpConnection.redactQuery("")).isEmpty();
    assertThat(HttpConnection.redactQuery("state=active&cursor=abc")).isEqualTo("state=active&cursor=abc");
    assertThat(HttpConnection.redactQuery("tokens=1&my_token=2&a=&&b")).isEqualTo("tokens=1&my_token=2&a=&&b");
    assertThat(HttpConnection.redactQuery("%zz=1")).isEqualTo("%zz=1");
  }
}
