package io.delayq.internal;

/**
 * Fencing tokens. Each claim script call on a partition takes a fresh claim number (see
 * {@code lua/_lease.lua}); the token of the n-th job it leased (from 0) is the claim number times
 * {@value #PER_CLAIM} plus n, so every delivery has its own token and none is reused. Redis keeps
 * only the claim number beside each lease and the scripts compare that: one number per claim
 * instead of one formatted per job.
 */
final class FencingTokens {
  /** More than the most jobs one claim call takes (1000, like {@code PullConsumer.claim}'s max). */
  static final long PER_CLAIM = 1000;

  private FencingTokens() {}

  static long of(long claim, int place) {
    // why: the scripts keep claim numbers below 9 * 10^15, so this fits; if it ever did not, a
    // wrapped token would be refused at every ack, so it fails here, loudly
    return Math.addExact(Math.multiplyExact(claim, PER_CLAIM), place);
  }

  /** What the scripts check: the claim number, as text. A token nobody issued matches no lease. */
  static byte[] claimOf(long token) {
    return QueueContext.number(Math.floorDiv(token, PER_CLAIM));
  }
}
