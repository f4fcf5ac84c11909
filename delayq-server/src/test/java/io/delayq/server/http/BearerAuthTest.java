package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BearerAuthTest {
  private final BearerAuth auth = new BearerAuth("s3cret-token-0123456789");

  @Test
  void letsTheRightTokenIn() {
    assertThatCode(() -> auth.check("Bearer s3cret-token-0123456789")).doesNotThrowAnyException();
    assertThatCode(() -> auth.check("bearer   s3cret-token-0123456789 ")).doesNotThrowAnyException();
  }

  @Test
  void refusesMissingWrongAndOtherSchemes() {
    for (String header : new String[] {null, "", "Bearer", "Bearer wrong", "Bearer s3cret-token-012345678",
        "Basic czNjcmV0", "s3cret-token-0123456789"}) {
      assertThatThrownBy(() -> auth.check(header)).as(String.valueOf(header))
          .isInstanceOfSatisfying(ApiException.class, e -> org.assertj.core.api.Assertions.assertThat(e.status()).isEqualTo(401));
    }
  }

  @Test
  void withoutATokenEverythingIsLetIn() {
    assertThatCode(() -> new BearerAuth(null).check(null)).doesNotThrowAnyException();
  }
}
