package io.delayq.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToLongFunction;

/**
 * One benchmark job: its index, which is also its id (as decimal text), and its due time. Every job
 * carries the same {@value #PAYLOAD_BYTES}-byte payload, so that contenders store and move the same
 * amount of data; the index lets {@link Deliveries} count each job's deliveries.
 *
 * @param index the job's number in its scenario, from 0
 * @param dueMillis when it is due, epoch milliseconds
 */
public record Job(int index, long dueMillis) {
  /** Payload size of every job. */
  public static final int PAYLOAD_BYTES = 100;

  /** The payload as text: printable ASCII, so every contender's codec stores it byte for byte. */
  public static final String PAYLOAD_TEXT = payloadText();

  /** The payload as bytes (shared: never modified). */
  static final byte[] PAYLOAD = PAYLOAD_TEXT.getBytes(StandardCharsets.US_ASCII);

  /** The id under which contenders that take ids store the job. */
  public String id() {
    return Integer.toString(index);
  }

  /** Jobs {@code from} to {@code from + count - 1}, each due when {@code dueOf} says for its index. */
  static List<Job> range(int from, int count, IntToLongFunction dueOf) {
    List<Job> jobs = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      jobs.add(new Job(from + i, dueOf.applyAsLong(from + i)));
    }
    return jobs;
  }

  private static String payloadText() {
    char[] chars = new char[PAYLOAD_BYTES];
    // why: not all one letter, so that no codec could shrink it to a run-length and look cheaper
    for (int i = 0; i < chars.length; i++) {
      chars[i] = (char) ('a' + (i * 7) % 26);
    }
    return new String(chars);
  }
}
