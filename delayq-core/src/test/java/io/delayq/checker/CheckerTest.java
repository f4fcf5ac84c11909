package io.delayq.checker;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.checker.History.Delivered;
import io.delayq.checker.History.Kind;
import io.delayq.checker.History.Op;
import io.delayq.checker.History.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The checker's verdict on extensions, on histories written out by hand after ones the promises
 * checker recorded under load: every time is the Redis clock's (the claim's and the extensions'
 * own), so the check can be exact, and the only doubt is which extensions ran at all.
 */
class CheckerTest {
  /** Local nanos are Redis ms minus this, times a million: one clock map for the whole history. */
  private static final long OFFSET_MS = 1_000_000;
  private static final long CLAIMED_MS = 1_796_192_210_519L;
  private static final long LEASE_MS = 333;

  private final History history = new History("unit", 1);
  private final Delivered delivery = pullDelivery();

  @Test
  void anExtensionAcceptedAfterTheClaimsDeadlineIsReported() {
    accepted(CLAIMED_MS + 462, 318);

    assertThat(extendsAfterLeaseEnd()).singleElement()
        .satisfies(v -> assertThat(v.message()).contains("129 ms after the lease had ended at " + (CLAIMED_MS + LEASE_MS)));
  }

  @Test
  void anExtensionThatTimedOutBeforeMayHaveMovedTheDeadline() {
    // why: as recorded: a client waiting 1 ms for Redis timed out on this extension; Redis ran it all
    // the same (nothing else could have let the next one in), at about CLAIMED_MS + 250. The next
    // accepted one ran past the claim's deadline and inside the one the lost answer would have shown
    mayHaveRun(Outcome.UNKNOWN, CLAIMED_MS + 240, CLAIMED_MS + 260, 422);
    accepted(CLAIMED_MS + 462, 318);
    accepted(CLAIMED_MS + 492, 574);

    assertThat(extendsAfterLeaseEnd()).isEmpty();
  }

  @Test
  void anExtensionThatFailedBeforeMayHaveMovedTheDeadline() {
    mayHaveRun(Outcome.FAILED, CLAIMED_MS + 240, CLAIMED_MS + 260, 422);
    accepted(CLAIMED_MS + 462, 318);

    assertThat(extendsAfterLeaseEnd()).isEmpty();
  }

  @Test
  void anExtensionWithUnknownOutcomeSentOnlyAfterwardsExcusesNothing() {
    accepted(CLAIMED_MS + 462, 318);
    mayHaveRun(Outcome.UNKNOWN, CLAIMED_MS + 500, CLAIMED_MS + 510, 422);

    assertThat(extendsAfterLeaseEnd()).hasSize(1);
  }

  @Test
  void twoExtensionsInOneMillisecondMayHaveRunInEitherOrder() {
    accepted(CLAIMED_MS + 100, 800);
    accepted(CLAIMED_MS + 100, 200);
    accepted(CLAIMED_MS + 600, 300);

    assertThat(extendsAfterLeaseEnd()).isEmpty();
  }

  @Test
  void anExtensionAfterTheLaterOfTwoSameMillisecondDeadlinesIsReported() {
    accepted(CLAIMED_MS + 100, 800);
    accepted(CLAIMED_MS + 100, 200);
    accepted(CLAIMED_MS + 900, 300);

    assertThat(extendsAfterLeaseEnd()).hasSize(1);
  }

  private List<Violation> extendsAfterLeaseEnd() {
    return Checker.check(history).violations().stream()
        .filter(v -> v.kind() == Violation.Kind.EXTEND_AFTER_LEASE_END)
        .toList();
  }

  private Delivered pullDelivery() {
    Delivered d = new Delivered();
    d.seq = history.nextSeq();
    d.source = History.Source.PULL;
    d.client = 1;
    d.id = "j8";
    d.token = 1_796_192_210_519_327_000L;
    d.attempt = 1;
    d.maxAttempts = 2;
    d.payload = "unit-p4";
    d.runAtMs = CLAIMED_MS - 28;
    d.claimMs = CLAIMED_MS;
    d.leaseMs = LEASE_MS;
    d.claimStart = local(CLAIMED_MS - 10);
    d.claimEnd = local(CLAIMED_MS + 10);
    history.add(d);
    return d;
  }

  private void accepted(long ranAtMs, long leaseMs) {
    Op op = extension(ranAtMs - 5, ranAtMs + 5, leaseMs);
    op.outcome = Outcome.OK;
    op.untilMs = ranAtMs + leaseMs;
    history.add(op);
  }

  private void mayHaveRun(Outcome outcome, long startMs, long endMs, long leaseMs) {
    Op op = extension(startMs, endMs, leaseMs);
    op.outcome = outcome;
    op.detail = "did not answer within 1 ms";
    history.add(op);
  }

  private Op extension(long startMs, long endMs, long leaseMs) {
    Op op = history.begin(Kind.EXTEND, 0);
    op.id = delivery.id;
    op.token = delivery.token;
    op.delivery = delivery.seq;
    op.leaseMs = leaseMs;
    op.start = local(startMs);
    op.end = local(endMs);
    return op;
  }

  private static long local(long redisMs) {
    return (redisMs - OFFSET_MS) * 1_000_000L;
  }
}
