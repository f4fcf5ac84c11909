package io.delayq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class LatenessTest {
  private static final int BUCKETS = Lateness.BUCKET_BOUNDS.size() + 1;

  private static long[] one(int bucket, long count) {
    long[] counts = new long[BUCKETS];
    counts[bucket] = count;
    return counts;
  }

  @Test
  void boundsAreTheDocumentedOnes() {
    assertThat(Lateness.BUCKET_BOUNDS).containsExactly(
        Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10),
        Duration.ofMillis(20), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(200),
        Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5),
        Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofMinutes(1), Duration.ofMinutes(5),
        Duration.ofMinutes(15));
    assertThatThrownBy(() -> Lateness.BUCKET_BOUNDS.add(Duration.ZERO)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void aDeliveryFallsInTheFirstBucketWhoseBoundHoldsIt() {
    assertThat(Lateness.bucketOf(-5_000)).as("early or on time").isZero();
    assertThat(Lateness.bucketOf(0)).isZero();
    assertThat(Lateness.bucketOf(1_000)).as("exactly 1 ms: the bound is inclusive").isZero();
    assertThat(Lateness.bucketOf(1_001)).isEqualTo(1);
    assertThat(Lateness.bucketOf(3_000_000)).isEqualTo(Lateness.BUCKET_BOUNDS.indexOf(Duration.ofSeconds(5)));
    assertThat(Lateness.bucketOf(Duration.ofMinutes(15).toNanos() / 1000)).isEqualTo(BUCKETS - 2);
    assertThat(Lateness.bucketOf(Duration.ofMinutes(15).toNanos() / 1000 + 1)).as("overflow").isEqualTo(BUCKETS - 1);
    assertThat(Lateness.bucketOf(Long.MAX_VALUE)).isEqualTo(BUCKETS - 1);
  }

  @Test
  void percentileAnswersTheBoundOfTheBucketHoldingThatRank() {
    long[] counts = new long[BUCKETS];
    counts[0] = 90; // <= 1 ms
    counts[9] = 9; // <= 1 s
    counts[BUCKETS - 1] = 1; // overflow
    Lateness lateness = Lateness.of(counts);
    assertThat(lateness.count()).isEqualTo(100);
    assertThat(lateness.percentile(0.5)).contains(Duration.ofMillis(1));
    assertThat(lateness.percentile(0.9)).as("rank 90 is the last of the first bucket").contains(Duration.ofMillis(1));
    assertThat(lateness.percentile(0.91)).contains(Duration.ofSeconds(1));
    assertThat(lateness.percentile(0.99)).contains(Duration.ofSeconds(1));
    assertThat(lateness.percentile(1.0)).as("the overflow answers the last bound").contains(Duration.ofMinutes(15));
    assertThat(Lateness.of(one(3, 1)).percentile(0.0001)).contains(Duration.ofMillis(10));
  }

  @Test
  void percentileOfNothingIsEmptyAndAnOutOfRangeQuantileIsRefused() {
    assertThat(Lateness.NONE.percentile(0.5)).isEmpty();
    assertThat(Lateness.NONE.count()).isZero();
    for (double q : new double[] {0, -0.1, 1.0001, Double.NaN}) {
      assertThatThrownBy(() -> Lateness.NONE.percentile(q)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("more than 0 and at most 1");
    }
  }

  @Test
  void plusAddsBucketByBucketAndLeavesBothAsTheyWere() {
    Lateness a = Lateness.of(one(2, 3));
    Lateness b = Lateness.of(one(2, 4)).plus(Lateness.of(one(BUCKETS - 1, 1)));
    Lateness sum = a.plus(b);
    assertThat(sum.counts()[2]).isEqualTo(7);
    assertThat(sum.counts()[BUCKETS - 1]).isEqualTo(1);
    assertThat(sum.count()).isEqualTo(8);
    assertThat(a.count()).isEqualTo(3);
    assertThat(sum).isEqualTo(b.plus(a)).hasSameHashCodeAs(b.plus(a));
    assertThat(a.plus(Lateness.NONE)).isEqualTo(a);
  }

  @Test
  void countsAreCopiesAndBadCountsAreRefused() {
    long[] counts = one(0, 5);
    Lateness lateness = Lateness.of(counts);
    counts[0] = 99;
    lateness.counts()[0] = 99;
    assertThat(lateness.counts()[0]).isEqualTo(5);
    assertThat(lateness.counts()).hasSize(BUCKETS);
    assertThatThrownBy(() -> Lateness.of(new long[3])).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("18 entries");
    assertThatThrownBy(() -> Lateness.of(one(1, -1))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("counts[1]");
  }
}
