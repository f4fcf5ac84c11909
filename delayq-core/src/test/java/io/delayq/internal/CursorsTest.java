package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.InvalidRequestException;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class CursorsTest {
  @Test
  void aCursorGivesBackItsPosition() {
    String cursor = Cursors.encode("jobs:q:DUE", 1_745_678_901_234.0, "order-ü-42");
    assertThat(cursor).matches("[A-Za-z0-9_-]+");
    assertThat(Cursors.decode("jobs:q:DUE", cursor)).isEqualTo(new Cursors.Position(1_745_678_901_234.0, "order-ü-42"));
  }

  @Test
  void everyAlteredBitAndEveryOtherListingIsRefused() {
    String cursor = Cursors.encode("jobs:q:DUE", 12345, "id");
    byte[] bytes = Base64.getUrlDecoder().decode(cursor);
    for (int bit = 0; bit < bytes.length * 8; bit++) {
      byte[] altered = bytes.clone();
      altered[bit / 8] ^= (byte) (1 << (bit % 8));
      String bad = Base64.getUrlEncoder().withoutPadding().encodeToString(altered);
      assertThatThrownBy(() -> Cursors.decode("jobs:q:DUE", bad)).isInstanceOf(InvalidRequestException.class);
    }
    assertThatThrownBy(() -> Cursors.decode("jobs:q:SCHEDULED", cursor))
        .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("cursor"))
        .hasMessageContaining("comes from another queue or another state");
    assertThatThrownBy(() -> Cursors.decode("jobs:q:DUE", "x".repeat(600))).isInstanceOf(InvalidRequestException.class);
  }

  @Test
  void scoresAreWrittenSoRedisReadsThemBackExactly() {
    assertThat(JobListing.scoreText(1_796_025_305_549_213.0)).isEqualTo("1796025305549213");
    assertThat(JobListing.scoreText(-5)).isEqualTo("-5");
    assertThat(JobListing.scoreText(1.5)).isEqualTo("1.5");
    assertThat(JobListing.scoreText(Double.POSITIVE_INFINITY)).isEqualTo("+inf");
  }
}
