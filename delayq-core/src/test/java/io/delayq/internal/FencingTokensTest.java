package io.delayq.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FencingTokensTest {
  @Test
  void aStoredLeaseGivesItsDeliverysTokenAndHolder() {
    assertThat(FencingTokens.parseLease("1700000000000001@7@0123456789abcdef"))
        .isEqualTo(new FencingTokens.StoredLease(1700000000000001L * 1000 + 7, "0123456789abcdef"));
    assertThat(FencingTokens.parseLease("1700000000000001k@0@0123456789abcdef"))
        .isEqualTo(new FencingTokens.StoredLease(1700000000000001L * 1000, "0123456789abcdef"));
  }

  @Test
  void aLeaseFromBeforeHoldersOrAnotherProgramsValueGivesNone() {
    assertThat(FencingTokens.parseLease("1700000000000001")).isEqualTo(new FencingTokens.StoredLease(0, null));
    assertThat(FencingTokens.parseLease("1700000000000001k")).isEqualTo(new FencingTokens.StoredLease(0, null));
    assertThat(FencingTokens.parseLease(null)).isNull();
    assertThat(FencingTokens.parseLease("")).isNull();
    assertThat(FencingTokens.parseLease("garbage")).isNull();
    assertThat(FencingTokens.parseLease("12@x@h")).isNull();
    assertThat(FencingTokens.parseLease("12@1000@h")).isNull();
    assertThat(FencingTokens.parseLease("12@3")).isNull();
  }
}
