package io.delayq.internal;

import io.delayq.AdoptionReport;
import io.delayq.InvalidRequestException;
import io.delayq.QueueConfigurationException;
import io.delayq.RedisCommandException;
import io.delayq.SortedSetAdoption;
import io.delayq.SortedSetAdoption.Mode;
import io.delayq.SortedSetAdoption.ScoreUnit;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.cluster.SlotHash;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Moves the members of another program's sorted-set delay queue into one delayq queue, in passes
 * of bounded batches (see {@code lua/adopt.lua}). Java reads a batch and works out each member's
 * id, partition and due time; one script per batch removes each member from the source and writes
 * its job, so a member is either still in the source or a job, and an old consumer that removed it
 * first keeps it. Used by a bridge, one pass per poll interval, and by a one-shot import.
 */
final class Adoption {
  /** Scores from here (2001-09-09 as seconds) up to {@link #AMBIGUOUS_FROM} are seconds. */
  static final double SECONDS_FROM = 1e9;
  /** Scores from here to {@link #MILLIS_FROM}: after the year 5138 as seconds, 1973 to 2001 as ms. */
  static final double AMBIGUOUS_FROM = 1e11;
  /** Scores from here (2001-09-09 as milliseconds) up to the latest due time are milliseconds. */
  static final double MILLIS_FROM = 1e12;
  /** Payload bytes per script call, as for scheduling: large members go in smaller calls. */
  private static final int BYTES_PER_CALL = 1 << 20;
  private static final int KEYS_PER_PARTITION = 11;
  private static final int MAX_IMPORT_PASSES = 10;

  private final QueueContext queue;
  private final DelayqClient client;
  private final SortedSetAdoption options;
  private final String sourceName;
  private final byte[] source;
  private final MemberIds ids;
  private final AtomicLong moved = new AtomicLong();
  private final AtomicLong merged = new AtomicLong();
  private final AtomicLong taken = new AtomicLong();
  private final AtomicLong hashed = new AtomicLong();
  private volatile ScoreUnit unit;
  private volatile boolean stopped;
  private volatile PassEnd lastPass = new PassEnd(0, 0, null, 0);

  /** What the last pass left in the source. */
  private record PassEnd(long heldBack, long rejected, String firstRejection, long remaining) {}

  /** One member on its way: what the script needs, and what its answer is counted as. */
  private record Item(byte[] member, double score, MemberIds.Derived derived, long dueMs, int partition) {}

  private Adoption(QueueContext queue, SortedSetAdoption options) {
    this.queue = queue;
    this.client = queue.client;
    this.options = options;
    this.sourceName = options.source();
    this.source = Keys.bytes(sourceName);
    this.ids = new MemberIds(options.idField().orElse(null));
    this.unit = options.scoreUnit() == ScoreUnit.DETECT ? null : options.scoreUnit();
  }

  /** Checks that the source can be moved safely into {@code queue}: refuses with the reason if not. */
  static Adoption open(QueueContext queue, SortedSetAdoption options) {
    Adoption a = new Adoption(queue, options);
    a.checkTopology();
    a.checkType();
    a.checkUnit();
    return a;
  }

  String source() {
    return sourceName;
  }

  String queueName() {
    return queue.name;
  }

  SortedSetAdoption options() {
    return options;
  }

  /** Ends the pass under way after its current batch: a bridge being closed need not wait for a backlog. */
  void stop() {
    stopped = true;
  }

  /** Passes until one removes nothing from the source, at most {@link #MAX_IMPORT_PASSES}. */
  AdoptionReport importAll() {
    for (int i = 0; i < MAX_IMPORT_PASSES; i++) {
      if (pass() == 0) {
        break;
      }
    }
    return report();
  }

  AdoptionReport report() {
    PassEnd end = lastPass;
    return new AdoptionReport(
        sourceName, queue.name, unit, moved.get(), merged.get(), taken.get(), hashed.get(), end.heldBack,
        end.rejected, end.firstRejection, end.remaining);
  }

  private void checkTopology() {
    if (!client.connector().isCluster()) {
      return;
    }
    int slot = SlotHash.getSlot(source);
    for (int p = 0; p < queue.partitionCount(); p++) {
      int partitionSlot = SlotHash.getSlot(queue.partition(p).scheduled());
      if (partitionSlot != slot) {
        throw new QueueConfigurationException(
            "cannot adopt '" + sourceName + "' into queue '" + queue.name + "' on this Redis Cluster: the source is"
                + " in slot " + slot + " and partition " + p + " of the queue in slot " + partitionSlot + ". A"
                + " member must leave the source in the same script that writes its job (that is what keeps an"
                + " old consumer and delayq from both taking it), and one script cannot touch keys in two"
                + " slots, so nothing was moved. Adopt it on a single Redis; or have the producers write to a"
                + " key in the queue's slot: with one partition, a key starting with the hash tag {dq:"
                + queue.name + ":0}, such as '{dq:" + queue.name + ":0}:legacy'");
      }
    }
  }

  private void checkType() {
    String type = await(client.async().type(source).toCompletableFuture());
    if (!"zset".equals(type) && !"none".equals(type)) {
      throw wrongType(type);
    }
  }

  private InvalidRequestException wrongType(String type) {
    return new InvalidRequestException(
        "source",
        "key '" + sourceName + "' holds a " + type + ", not a sorted set, so nothing was moved and the key is"
            + " unchanged; name the sorted set the producers write with ZADD");
  }

  /**
   * The unit to read scores in: the one set, or for DETECT the one the scores decide (checked
   * again on each call: a producer of the other unit may have started since); {@code null} while
   * no score decides it.
   */
  private ScoreUnit checkUnit() {
    if (options.scoreUnit() != ScoreUnit.DETECT) {
      return unit;
    }
    List<ScoredValue<byte[]>> lowest = await(
        client.async().zrangebyscoreWithScores(source, text(SECONDS_FROM), text(Rules.MAX_DUE_MILLIS), 0, 1)
            .toCompletableFuture());
    if (lowest.isEmpty()) {
      return unit;
    }
    List<ScoredValue<byte[]>> highest = await(
        client.async().zrevrangebyscoreWithScores(source, text(Rules.MAX_DUE_MILLIS), text(SECONDS_FROM), 0, 1)
            .toCompletableFuture());
    double low = lowest.get(0).getScore();
    double high = highest.isEmpty() ? low : highest.get(0).getScore();
    ScoreUnit found = decide(low, high);
    if (unit != null && found != unit) {
      throw mixed(unit, found == ScoreUnit.SECONDS ? low : high);
    }
    unit = found;
    return found;
  }

  /** The unit of a source whose decisive scores run from {@code low} to {@code high}. */
  static ScoreUnit decide(double low, double high) {
    ScoreUnit a = classify(low);
    ScoreUnit b = classify(high);
    if (a == ScoreUnit.DETECT || b == ScoreUnit.DETECT) {
      throw ambiguous(a == ScoreUnit.DETECT ? low : high);
    }
    if (a != b) {
      throw new InvalidRequestException(
          "scoreUnit",
          "DETECT found scores of both units in the source: " + plain(low) + " (seconds) and " + plain(high)
              + " (milliseconds). Moving them with one unit would run some jobs decades early or never;"
              + " split the producers' keys, or set the unit and accept what that does to the others");
    }
    return a;
  }

  /**
   * SECONDS or MILLISECONDS for a score that decides the unit, DETECT for one that cannot be read
   * safely in either, {@code null} for one that means the same in both (long past, or after 9999).
   */
  static ScoreUnit classify(double score) {
    if (!(score >= SECONDS_FROM) || score > Rules.MAX_DUE_MILLIS) {
      return null;
    }
    if (score < AMBIGUOUS_FROM) {
      return ScoreUnit.SECONDS;
    }
    return score < MILLIS_FROM ? ScoreUnit.DETECT : ScoreUnit.MILLISECONDS;
  }

  private static InvalidRequestException ambiguous(double score) {
    return new InvalidRequestException(
        "scoreUnit",
        "DETECT cannot tell the unit of score " + plain(score) + ": as seconds it is after the year 5138, as"
            + " milliseconds between 1973 and 2001. Set SECONDS or MILLISECONDS, or remove that member");
  }

  private InvalidRequestException mixed(ScoreUnit detected, double other) {
    return new InvalidRequestException(
        "scoreUnit",
        "the source's scores were detected as " + detected + ", and now it also holds "
            + (classify(other) == ScoreUnit.DETECT ? "a score of no clear unit" : "a score in the other unit")
            + " (" + plain(other) + "); nothing more is moved until the data or the unit is fixed");
  }

  /**
   * The due time in epoch ms of a score read in {@code unit}, never before the time the producer
   * meant (rounded up); 0 for a score before 1970; -1 for one after the latest due time.
   */
  static long dueMillis(double score, ScoreUnit unit) {
    if (!(score > 0)) {
      return 0;
    }
    double ms = unit == ScoreUnit.SECONDS ? score * 1000 : score;
    if (!(ms <= Rules.MAX_DUE_MILLIS)) {
      return -1;
    }
    BigDecimal exact = BigDecimal.valueOf(score);
    if (unit == ScoreUnit.SECONDS) {
      exact = exact.movePointRight(3);
    }
    return Math.min(Rules.MAX_DUE_MILLIS, exact.setScale(0, RoundingMode.CEILING).longValueExact());
  }

  /**
   * One pass over the source, in batches, until a batch comes back short. Members that stay (held
   * back, rejected) are stepped over with the read offset, so that they cannot block the ones
   * behind them. Returns how many members this pass removed from the source.
   */
  long pass() {
    queue.checkOpen("adopt '" + sourceName + "'");
    ScoreUnit readAs = checkUnit();
    String max = options.mode() == Mode.ALL ? "+inf" : dueLimit(readAs);
    Set<ByteBuffer> stayed = new HashSet<>();
    long removedBefore = moved.get() + merged.get() + taken.get();
    long offset = 0;
    long held = 0;
    long rejected = 0;
    String firstRejection = null;
    while (true) {
      List<ScoredValue<byte[]>> batch = readBatch(max, offset);
      if (batch.isEmpty()) {
        break;
      }
      List<Item> items = new ArrayList<>(batch.size());
      int stayedHere = 0;
      for (ScoredValue<byte[]> entry : batch) {
        byte[] member = entry.getValue();
        double score = entry.getScore();
        ScoreUnit kind = classify(score);
        if (options.scoreUnit() == ScoreUnit.DETECT && kind != null) {
          if (kind == ScoreUnit.DETECT) {
            throw ambiguous(score);
          }
          if (readAs == null) {
            readAs = checkUnit();
            if (readAs == null) {
              // why: the members that decided it were taken meanwhile; this one decides
              readAs = kind;
              unit = kind;
            }
          }
          if (kind != readAs) {
            throw mixed(readAs, score);
          }
        }
        // why: a score that decides nothing means the same in both units (long past, or after 9999)
        long due = dueMillis(score, readAs == null ? ScoreUnit.MILLISECONDS : readAs);
        String rejection = null;
        if (member.length > client.settings().maxPayloadBytes()) {
          rejection = String.format(
              "a member of %,d bytes (score %s) is over maxPayloadBytes (%,d); it stays in the source. Raise"
                  + " maxPayloadBytes, or let an old consumer take it",
              member.length, plain(score), client.settings().maxPayloadBytes());
        } else if (due < 0) {
          rejection = "a member's score " + plain(score) + " read as " + (readAs == null ? "milliseconds" : readAs)
              + " is after 9999-12-31, the latest due time; it stays in the source";
        }
        if (rejection != null) {
          stayedHere++;
          if (stayed.add(ByteBuffer.wrap(member))) {
            rejected++;
            firstRejection = firstRejection == null ? rejection : firstRejection;
          }
          continue;
        }
        MemberIds.Derived derived = ids.derive(member);
        items.add(new Item(member, score, derived, due, queue.partitionOf(derived.id())));
      }
      for (Item item : move(items)) {
        stayedHere++;
        if (stayed.add(ByteBuffer.wrap(item.member))) {
          held++;
        }
      }
      offset += stayedHere;
      if (batch.size() < options.batch() || stopped) {
        break;
      }
    }
    long remaining = await(client.async().zcard(source).toCompletableFuture());
    lastPass = new PassEnd(held, rejected, firstRejection, remaining);
    return moved.get() + merged.get() + taken.get() - removedBefore;
  }

  /** The highest score due by the end of the next poll interval, by the Redis clock, in the source's unit. */
  private String dueLimit(ScoreUnit readAs) {
    if (readAs == null) {
      // why: only scores that mean "past" in both units can be read before the unit is known
      return "(" + text(SECONDS_FROM);
    }
    List<byte[]> time = await(client.async().time().toCompletableFuture());
    long nowMs = Long.parseLong(new String(time.get(0), StandardCharsets.US_ASCII)) * 1000
        + Long.parseLong(new String(time.get(1), StandardCharsets.US_ASCII)) / 1000;
    long limitMs = nowMs + options.pollInterval().toMillis();
    return readAs == ScoreUnit.SECONDS ? BigDecimal.valueOf(limitMs).movePointLeft(3).toPlainString() : text(limitMs);
  }

  private List<ScoredValue<byte[]>> readBatch(String max, long offset) {
    return await(
        client.async().zrangebyscoreWithScores(source, "-inf", max, offset, options.batch()).toCompletableFuture());
  }

  /**
   * Moves the items in script calls of at most a batch and about {@link #BYTES_PER_CALL} each;
   * returns those held back in the source.
   */
  private List<Item> move(List<Item> items) {
    List<Item> heldBack = new ArrayList<>();
    List<Item> call = new ArrayList<>();
    int bytes = 0;
    for (Item item : items) {
      if (!call.isEmpty() && bytes + item.member.length > BYTES_PER_CALL) {
        heldBack.addAll(run(call));
        call.clear();
        bytes = 0;
      }
      call.add(item);
      bytes += item.member.length;
    }
    if (!call.isEmpty()) {
      heldBack.addAll(run(call));
    }
    return heldBack;
  }

  private List<Item> run(List<Item> call) {
    Map<Integer, List<Item>> groups = new LinkedHashMap<>();
    for (Item item : call) {
      groups.computeIfAbsent(item.partition, p -> new ArrayList<>()).add(item);
    }
    byte[] header = new JobRecord(options.maxAttempts(), System.currentTimeMillis(), false, new byte[0], false).encode();
    byte[] jsonHeader = new JobRecord(options.maxAttempts(), System.currentTimeMillis(), false, new byte[0], true).encode();
    byte[][] keys = new byte[groups.size() * KEYS_PER_PARTITION + 1][];
    byte[][] args = new byte[1 + 2 * groups.size() + 6 * call.size()][];
    List<Item> ordered = new ArrayList<>(call.size());
    args[0] = QueueContext.number(groups.size());
    int g = 0;
    int at = 1 + 2 * groups.size();
    for (Map.Entry<Integer, List<Item>> group : groups.entrySet()) {
      System.arraycopy(queue.partition(group.getKey()).keys(), 0, keys, g * KEYS_PER_PARTITION, KEYS_PER_PARTITION);
      args[1 + 2 * g] = QueueContext.number(group.getKey());
      args[2 + 2 * g] = QueueContext.number(group.getValue().size());
      for (Item item : group.getValue()) {
        args[at++] = item.member;
        args[at++] = Keys.bytes(item.derived.id());
        args[at++] = item.derived.json() ? jsonHeader : header;
        args[at++] = QueueContext.number(item.dueMs);
        args[at++] = Keys.bytes(plain(item.score));
        // why: a hash id names the member's bytes, so a job with it is this very member of the old
        // set, written again: it takes the new score, as ZADD would have given the member
        args[at++] = QueueContext.number(options.idField().isEmpty() || item.derived.hashed() ? 1 : 0);
        ordered.add(item);
      }
      g++;
    }
    keys[keys.length - 1] = source;
    List<Object> reply;
    try {
      reply = queue.await(queue.runAcross(client.scripts(), Script.ADOPT, keys, args), ordered.get(0).derived.id());
    } catch (RedisCommandException e) {
      if (String.valueOf(e.getMessage()).contains("DQ_WRONGTYPE source")) {
        throw wrongType(await(client.async().type(source).toCompletableFuture()));
      }
      throw e;
    }
    List<Item> heldBack = new ArrayList<>();
    int created = 0;
    int kept = 0;
    for (int i = 0; i < ordered.size(); i++) {
      Item item = ordered.get(i);
      long outcome = (Long) reply.get(i);
      if (outcome == 1 || outcome == 0) {
        if (outcome == 1) {
          created++;
        } else {
          kept++;
        }
        if (item.derived.hashed()) {
          hashed.incrementAndGet();
        }
      } else if (outcome == -1) {
        taken.incrementAndGet();
      } else if (outcome == -2) {
        heldBack.add(item);
      }
    }
    moved.addAndGet(created);
    merged.addAndGet(kept);
    queue.meters().scheduled(created, 0, kept);
    return heldBack;
  }

  /** Waits for a read of the source; a source that turned into another type is refused by name. */
  private <T> T await(CompletableFuture<T> future) {
    try {
      return client.await(future, queue.name, null, 0);
    } catch (RedisCommandException e) {
      if (String.valueOf(e.getMessage()).contains("WRONGTYPE")) {
        throw wrongType(client.await(client.async().type(source).toCompletableFuture(), queue.name, null, 0));
      }
      throw e;
    }
  }

  private static String text(double score) {
    return plain(score);
  }

  private static String text(long n) {
    return Long.toString(n);
  }

  /** A score as Redis reads it back and people read it: no exponent. */
  static String plain(double score) {
    if (Double.isInfinite(score)) {
      return score > 0 ? "+inf" : "-inf";
    }
    if (Math.abs(score) >= 1e16) {
      return Double.toString(score);
    }
    return BigDecimal.valueOf(score).stripTrailingZeros().toPlainString();
  }
}
