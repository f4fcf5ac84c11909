package io.delayq.internal;

/**
 * Fencing tokens. Each claim script call on a partition takes a fresh claim number (see
 * {@code lua/_lease.lua}); the token of the n-th job it leased (from 0) is the claim number times
 * {@value #PER_CLAIM} plus n, so every delivery has its own token and none is reused. The scripts
 * compare only the claim number; the place and the claiming process stored after it (see {@code
 * lua/_lease.lua}) are read back for {@code JobInfo}.
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

  /**
   * A lease as stored in the leases hash, {@code <claim>[k][@<place>@<holder>]}: its delivery's
   * token and holder, or {@code null} when the value is not one (absent, or written by another
   * program). A value from before 0.4.0 has no place nor holder: token 0, holder null.
   */
  static StoredLease parseLease(String value) {
    if (value == null || value.isEmpty()) {
      return null;
    }
    int digits = 0;
    while (digits < value.length() && Character.isDigit(value.charAt(digits))) {
      digits++;
    }
    if (digits == 0 || digits > 16) {
      return null;
    }
    int at = value.indexOf('@', digits);
    if (at < 0) {
      return new StoredLease(0, null);
    }
    int second = value.indexOf('@', at + 1);
    if (second < 0) {
      return null;
    }
    try {
      long claim = Long.parseLong(value.substring(0, digits));
      int place = Integer.parseInt(value.substring(at + 1, second));
      if (place < 0 || place >= PER_CLAIM) {
        return null;
      }
      String holder = value.substring(second + 1);
      return new StoredLease(of(claim, place), holder.isEmpty() ? null : holder);
    } catch (NumberFormatException | ArithmeticException e) {
      return null;
    }
  }

  /** A delivery's token and the process id of its claimer, as read back from Redis. */
  record StoredLease(long token, String holder) {}
}
