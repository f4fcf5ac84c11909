package io.delayq.server.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.InvalidRequestException;
import org.junit.jupiter.api.Test;

class ScheduleListingTest {
  @Test
  void aPositionSurvivesItsCursor() {
    ScheduleListing.Position position = new ScheduleListing.Position("c0ffee", "orders.eu", "digest:1");

    assertThat(ScheduleListing.Position.decode(position.encode())).isEqualTo(position);
    assertThat(ScheduleListing.Position.decode(new ScheduleListing.Position(null, "q", null).encode()))
        .isEqualTo(new ScheduleListing.Position(null, "q", null));
    assertThat(position.encode()).matches("[A-Za-z0-9_-]+");
  }

  @Test
  void aCursorItDidNotGiveOutIsRefusedNamingTheField() {
    for (String bad : new String[] {"!!", "bm90IGEgY3Vyc29y", "czEKCi4uCg"}) {
      assertThatThrownBy(() -> ScheduleListing.Position.decode(bad))
          .isInstanceOf(InvalidRequestException.class)
          .hasMessageContaining("cursor")
          .hasMessageContaining("Next link");
    }
  }
}
