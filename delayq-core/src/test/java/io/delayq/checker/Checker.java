package io.delayq.checker;

import io.delayq.JobState;
import io.delayq.checker.History.Delivered;
import io.delayq.checker.History.Final;
import io.delayq.checker.History.Op;
import io.delayq.checker.History.Outcome;
import io.delayq.checker.History.Pool;
import io.delayq.checker.Violation.Kind;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks a {@link History} against the promises of DESIGN.md. Pure: it reads the history and
 * nothing else, so the negative control can feed it a mutated copy.
 *
 * <p>Every check is written so that it cannot fire on a correct delayq, whatever the scheduling
 * of threads, the order of calls in one millisecond, or the outcome of calls that timed out. The
 * facts it builds on:
 *
 * <ul>
 *   <li>Tokens of one partition only grow, so the token order of two deliveries of one id is the
 *       order in which Redis ran their claims.
 *   <li>Redis times of one partition come from one clock: the claim's ({@code leaseUntil - lease}),
 *       a delayed schedule's or reschedule's ({@code runAt - delay}), an extension's ({@code until -
 *       lease}). Ties within a millisecond are treated as either order.
 *   <li>A call's effect lies between its local start and end; one that ended before another started
 *       ran first. An UNKNOWN call may take effect at any time after its start, or never (Lettuce
 *       may even send it again after a reconnect); so may a FAILED one, as far as the other checks go.
 *   <li>Every payload is written by exactly one schedule call, so a delivery names the scheduling
 *       it belongs to.
 *   <li>Only where nothing else will do, local times are mapped to the Redis clock ({@link
 *       ClockMap}) with {@link #SLACK_MS} of slack on top of the measured bounds.
 * </ul>
 *
 * Deliveries the history cannot see (a worker pool claims jobs it hands back unstarted) only ever
 * make a check skip, never fire: each check needs positive evidence of the wrong thing.
 */
final class Checker {
  /** Slack added to every bound obtained by mapping a local instant to the Redis clock. */
  static final long SLACK_MS = 10;
  /**
   * A closing pool's lease keeper must keep a running handler's lease when the pool started closing
   * at least this long before the lease would end: its tick is 50 ms and one extension is a round trip.
   */
  static final long KEEPER_MARGIN_MS = 150;

  /** What a check run found, with counts for the report line. */
  record Report(
      String label,
      long seed,
      List<Violation> violations,
      int operations,
      int deliveries,
      Map<String, Integer> opCounts,
      Map<History.Source, Integer> deliveryCounts,
      int clockObservations,
      int skippedForUnknown,
      Map<String, Integer> evaluated) {

    String summaryLine() {
      return "PROMISES CHECKED: " + operations + " operations, " + deliveries + " deliveries, " + violations.size()
          + " violations";
    }

    String details() {
      StringBuilder s = new StringBuilder();
      s.append("  run ").append(label).append(" seed=").append(seed).append('\n');
      s.append("  operations by kind and outcome: ").append(opCounts).append('\n');
      s.append("  deliveries by receiver: ").append(deliveryCounts).append('\n');
      s.append("  clock observations: ").append(clockObservations).append(", checks skipped for unknown outcomes: ")
          .append(skippedForUnknown).append('\n');
      s.append("  checks that had the evidence to fire: ").append(evaluated).append('\n');
      Map<Kind, Integer> byKind = new EnumMap<>(Kind.class);
      violations.forEach(v -> byKind.merge(v.kind(), 1, Integer::sum));
      s.append("  violations by kind: ").append(byKind);
      return s.toString();
    }

    String violationList(int limit) {
      StringBuilder s = new StringBuilder();
      int n = 0;
      for (Violation v : violations) {
        if (n++ >= limit) {
          s.append("\n  … and ").append(violations.size() - limit).append(" more");
          break;
        }
        s.append("\n  ").append(n).append(". ").append(v);
      }
      return s.toString();
    }
  }

  /** What the history says about one delivery, gathered once. */
  private static final class Info {
    final Delivered d;
    final List<Op> okExtends = new ArrayList<>();
    final List<Op> unknownExtends = new ArrayList<>();
    /** ACK, NACK and RELEASE that were accepted or may have been. */
    final List<Op> settles = new ArrayList<>();
    final List<Op> okSettles = new ArrayList<>();
    final List<Op> all = new ArrayList<>();
    long earliestSettleStart = Long.MAX_VALUE;
    boolean possiblyAcked;
    boolean possiblyReleased;
    Op okAck;
    Op deadNack;
    Pool pool;

    Info(Delivered d) {
      this.d = d;
    }
  }

  private final History history;
  private final List<Op> ops;
  private final List<Delivered> deliveries;
  private final Map<Integer, Pool> pools = new HashMap<>();
  private final Map<String, Final> finals;
  private final Map<Integer, Info> infos = new HashMap<>();
  private final Map<String, List<Delivered>> byId = new TreeMap<>();
  private final Map<String, List<Delivered>> byPayload = new HashMap<>();
  private final Map<String, Op> originOf = new HashMap<>();
  private final Map<String, List<Op>> schedulesOf = new HashMap<>();
  private final Map<String, List<Op>> reschedulesOf = new HashMap<>();
  private final Map<String, List<Op>> cancelsOf = new HashMap<>();
  private final ClockMap clock = new ClockMap();
  private final List<Violation> found = new ArrayList<>();
  private int skippedForUnknown;
  private final Map<String, Integer> evaluated = new TreeMap<>();

  private void evaluated(String check) {
    evaluated.merge(check, 1, Integer::sum);
  }

  private Checker(History history) {
    this.history = history;
    this.ops = history.ops();
    this.deliveries = history.deliveries();
    this.finals = history.finals();
    history.pools().forEach(p -> pools.put(p.seq, p));
  }

  static Report check(History history) {
    return new Checker(history).run();
  }

  private Report run() {
    index();
    for (Delivered d : deliveries) {
      checkDeliveryItself(infos.get(d.seq));
      checkNotEarly(infos.get(d.seq));
      checkSettlesOfDelivery(infos.get(d.seq));
    }
    for (List<Delivered> ofId : byId.values()) {
      checkHolders(ofId);
    }
    countKeptLeases();
    for (List<Delivered> ofPayload : byPayload.values()) {
      checkScheduling(ofPayload);
    }
    checkCancelled();
    checkFailedSchedules();
    Set<String> ids = new java.util.TreeSet<>(byId.keySet());
    ids.addAll(schedulesOf.keySet());
    ids.addAll(finals.keySet());
    for (String id : ids) {
      checkNothingLost(id);
      checkFinal(id);
    }
    found.sort(Comparator.comparing((Violation v) -> v.kind()).thenComparing(Violation::id));
    Map<String, Integer> opCounts = new TreeMap<>();
    for (Op o : ops) {
      opCounts.merge(o.kind + "/" + o.outcome, 1, Integer::sum);
    }
    Map<History.Source, Integer> deliveryCounts = new EnumMap<>(History.Source.class);
    for (Delivered d : deliveries) {
      deliveryCounts.merge(d.source, 1, Integer::sum);
    }
    return new Report(history.label, history.seed, List.copyOf(found), ops.size(), deliveries.size(), opCounts,
        deliveryCounts, clock.size(), skippedForUnknown, evaluated);
  }

  // ---- indexing ----

  private void index() {
    for (Delivered d : deliveries) {
      Info info = new Info(d);
      info.pool = d.pool >= 0 ? pools.get(d.pool) : null;
      infos.put(d.seq, info);
      byId.computeIfAbsent(d.id, k -> new ArrayList<>()).add(d);
      byPayload.computeIfAbsent(d.payload, k -> new ArrayList<>()).add(d);
      if (d.source == History.Source.PULL) {
        clock.observe(d.claimStart, d.claimEnd, d.claimMs);
      }
    }
    byId.values().forEach(l -> l.sort(Comparator.comparingLong(d -> d.token)));
    byPayload.values().forEach(l -> l.sort(Comparator.comparingLong(d -> d.token)));
    for (Op o : ops) {
      switch (o.kind) {
        case SCHEDULE -> {
          schedulesOf.computeIfAbsent(o.id, k -> new ArrayList<>()).add(o);
          originOf.put(o.payload, o);
          if (o.wrote() && o.delayMs >= 0) {
            clock.observe(o.start, o.end, o.execMs());
          }
        }
        case RESCHEDULE -> {
          reschedulesOf.computeIfAbsent(o.id, k -> new ArrayList<>()).add(o);
          if (o.outcome == Outcome.OK) {
            clock.observe(o.start, o.end, o.execMs());
          }
        }
        case CANCEL -> {
          if (o.outcome != Outcome.REFUSED) {
            cancelsOf.computeIfAbsent(o.id, k -> new ArrayList<>()).add(o);
          }
        }
        case ACK, NACK, RELEASE, EXTEND -> {
          Info info = infos.get(o.delivery);
          if (info == null) {
            continue;
          }
          info.all.add(o);
          if (o.kind == History.Kind.EXTEND) {
            if (o.outcome == Outcome.OK) {
              info.okExtends.add(o);
              clock.observe(o.start, o.end, o.untilMs - o.leaseMs);
            } else if (o.mayHaveRun()) {
              info.unknownExtends.add(o);
            }
            continue;
          }
          if (o.outcome == Outcome.REFUSED) {
            continue;
          }
          info.settles.add(o);
          info.earliestSettleStart = Math.min(info.earliestSettleStart, o.start);
          if (o.outcome == Outcome.OK) {
            info.okSettles.add(o);
          }
          if (o.kind == History.Kind.ACK) {
            info.possiblyAcked = true;
            if (o.outcome == Outcome.OK && info.okAck == null) {
              info.okAck = o;
            }
          }
          if (o.kind == History.Kind.RELEASE) {
            info.possiblyReleased = true;
          }
          if (o.kind == History.Kind.NACK && o.outcome == Outcome.OK && o.nackState == JobState.DEAD) {
            info.deadNack = o;
          }
        }
        default -> {}
      }
    }
    for (Info info : infos.values()) {
      info.okExtends.sort(Comparator.comparingLong(o -> o.untilMs - o.leaseMs));
      Delivered d = info.d;
      if (d.isHandler()) {
        // why: a handler's job is acked or nacked only after the handler returns
        info.earliestSettleStart = Math.min(info.earliestSettleStart, d.handlerEnd);
        if (!d.handlerThrew && d.handlerEnd != Long.MAX_VALUE) {
          info.possiblyAcked = true;
        }
      }
    }
  }

  /**
   * When the lease of {@code info} ends if nobody settles it, counting the accepted extensions that
   * ran before Redis ms {@code asOf}: each sets the deadline to its own time plus its lease, as
   * long as it ran while the lease was live (one after the end revives nothing).
   */
  private static long leaseEndAsOf(Info info, long asOf) {
    long deadline = info.d.claimMs + info.d.leaseMs;
    for (Op ext : info.okExtends) {
      long e = ext.untilMs - ext.leaseMs;
      if (e >= asOf || e >= deadline) {
        break;
      }
      deadline = ext.untilMs;
    }
    return deadline;
  }

  /** Whether an extension of this delivery with no known outcome started before local {@code before}. */
  private static boolean extensionMayHaveRunUnseen(Info info, long before) {
    for (Op u : info.unknownExtends) {
      if (u.start < before) {
        return true;
      }
    }
    return false;
  }

  private static boolean extendAt(Info info, long redisMs) {
    for (Op ext : info.okExtends) {
      if (ext.untilMs - ext.leaseMs == redisMs) {
        return true;
      }
    }
    return false;
  }

  private void report(Kind kind, String id, String message, List<Object> records) {
    Set<Integer> refs = new LinkedHashSet<>();
    List<String> evidence = new ArrayList<>();
    for (Object r : records) {
      if (r == null) {
        continue;
      }
      if (r instanceof Op o) {
        refs.add(o.seq);
      } else if (r instanceof Delivered d) {
        refs.add(d.seq);
      } else if (r instanceof Pool p) {
        refs.add(p.seq);
      }
      evidence.add(r.toString());
    }
    found.add(new Violation(kind, id, message, refs, evidence));
  }

  // ---- one delivery ----

  private void checkDeliveryItself(Info info) {
    Delivered d = info.d;
    if (d.claimMs < d.runAtMs) {
      // why: a claim time read after a keeper extension is later than the true one, so this holds for those too
      report(Kind.EARLY, d.id, "claimed at Redis ms " + d.claimMs + ", " + (d.runAtMs - d.claimMs)
          + " ms before the due time " + d.runAtMs + " the delivery itself carries", List.of(d));
    }
    if (d.attempt < 1 || d.attempt > d.maxAttempts) {
      report(Kind.ATTEMPTS, d.id, "delivered on attempt " + d.attempt + " of " + d.maxAttempts, List.of(d));
    }
    Op origin = originOf.get(d.payload);
    if (origin == null) {
      report(Kind.PHANTOM, d.id, "delivered payload '" + d.payload + "' that no schedule call wrote", List.of(d));
    } else if (origin.outcome == Outcome.REFUSED || (origin.outcome == Outcome.OK && !origin.wrote())) {
      report(Kind.PHANTOM, d.id, "delivered payload '" + d.payload + "' of a schedule Redis answered "
          + (origin.outcome == Outcome.REFUSED ? "with a refusal" : "KEPT (left the earlier job as it was)"),
          List.of(origin, d));
    } else if (origin.outcome == Outcome.OK && origin.maxAttempts != d.maxAttempts) {
      report(Kind.PHANTOM, d.id, "delivered with maxAttempts " + d.maxAttempts + " but scheduled with "
          + origin.maxAttempts, List.of(origin, d));
    }
    for (Op o : info.all) {
      if (o.kind == History.Kind.NACK && o.outcome == Outcome.OK) {
        boolean last = d.attempt >= d.maxAttempts;
        if ((o.nackState == JobState.DEAD) != last) {
          report(Kind.ATTEMPTS, d.id, "nack of attempt " + d.attempt + "/" + d.maxAttempts + " answered "
              + o.nackState, List.of(d, o));
        }
      }
    }
  }

  /**
   * (4) Never early, against the schedule: the scheduling's own due time, or an earlier one set by
   * an accepted reschedule that ran in between, is a lower bound of every claim of it. Releases,
   * nacks and recovered leases set due times after a claim, so they only raise it.
   */
  private void checkNotEarly(Info info) {
    Delivered d = info.d;
    Op w = originOf.get(d.payload);
    if (w == null || !w.wrote() || w.delayMs < 0) {
      return;
    }
    long due = w.runAtMs;
    Op lowering = null;
    for (Op r : reschedulesOf.getOrDefault(d.id, List.of())) {
      if (r.outcome == Outcome.OK) {
        long e = r.execMs();
        if (e >= w.execMs() && e <= d.claimMs && r.runAtMs < due) {
          due = r.runAtMs;
          lowering = r;
        }
      } else if (r.mayHaveRun() && !(r.start > d.claimEnd)) {
        // why: a call that timed out may run at any time after it started; if it moved this scheduling,
        // it ran after the schedule (and after its own start), so the due time it set is no earlier than
        // that plus its delay
        long ranAfter = w.execMs();
        OptionalLong started = clock.redisAtLeast(r.start, SLACK_MS);
        if (started.isPresent()) {
          ranAfter = Math.max(ranAfter, started.getAsLong());
        }
        if (ranAfter + r.delayMs < due) {
          due = ranAfter + r.delayMs;
          lowering = r;
        }
      }
    }
    evaluated("(4) due time of a delivery against its schedule");
    if (d.claimMs < due) {
      report(Kind.EARLY, d.id, "claimed at Redis ms " + d.claimMs + ", " + (due - d.claimMs) + " ms before its due time "
          + due, lowering == null ? List.of(w, d) : List.of(w, lowering, d));
    }
  }

  /** (3) The calls carrying this delivery's token: accepted only while it held a live lease, settled once. */
  private void checkSettlesOfDelivery(Info info) {
    Delivered d = info.d;
    List<Delivered> ofId = byId.get(d.id);
    // A later delivery of the job was claimed before the call started: the token was stale.
    for (Op o : info.all) {
      if (o.outcome != Outcome.OK) {
        continue;
      }
      for (Delivered later : ofId) {
        if (later.token <= d.token) {
          continue;
        }
        evaluated("(3) accepted call against a later delivery's claim");
        boolean after = later.claimEnd < o.start;
        if (!after && o.kind == History.Kind.EXTEND) {
          // why: an extension's Redis time is exact; the later claim's, if uncertain, is an upper bound
          after = o.untilMs - o.leaseMs > later.claimMs;
        }
        if (after) {
          report(Kind.STALE_ACCEPTED, d.id, o.kind + " with token " + d.token + " was accepted after the delivery with"
              + " token " + later.token + " had been claimed", List.of(d, later, o));
          break;
        }
      }
    }
    // Settled once: after an accepted ack, nack or release, the token never holds the job again.
    if (info.okSettles.size() > 1) {
      List<Object> records = new ArrayList<>();
      records.add(d);
      records.addAll(info.okSettles);
      report(Kind.SETTLED_TWICE, d.id, "one delivery was settled " + info.okSettles.size() + " times", records);
    }
    for (Op settle : info.okSettles) {
      for (Op ext : info.okExtends) {
        if (ext.start > settle.end) {
          report(Kind.SETTLED_TWICE, d.id, "an extension was accepted after the delivery was settled by " + settle.kind,
              List.of(d, settle, ext));
        }
      }
    }
    boolean keeperMayHaveExtended = info.pool != null && info.pool.closeStart != Long.MAX_VALUE;
    // An extension accepted after the lease had ended. Both times are the partition's own clock, the
    // one extend-lease.lua judged by, so this is exact as far as the history knows every extension
    // that ran before.
    long deadline = d.claimMs + d.leaseMs;
    long previous = Long.MIN_VALUE;
    for (Op ext : info.okExtends) {
      long e = ext.untilMs - ext.leaseMs;
      if (keeperMayHaveExtended && info.pool.closeStart < ext.end) {
        break;
      }
      if (d.claimTimeUncertain) {
        break;
      }
      // why: an extension whose answer was lost (a timeout) or that failed may have run at any time
      // after it started and moved the deadline to its own time plus its lease, unseen. Under load the
      // clients that wait 1 to 6 ms for Redis lose many answers; the next accepted extension then
      // looked late by up to the lost one's lease (EXTEND_AFTER_LEASE_END on a correct delayq).
      if (extensionMayHaveRunUnseen(info, ext.end)) {
        skippedForUnknown++;
        break;
      }
      evaluated("(3) accepted extension against the lease end");
      if (e >= deadline) {
        report(Kind.EXTEND_AFTER_LEASE_END, d.id, "extension ran at Redis ms " + e + ", " + (e - deadline)
            + " ms after the lease had ended at " + deadline, List.of(d, ext));
        break;
      }
      // why: two extensions in one Redis ms may have run in either order, so the later of their
      // deadlines is the one the next extension may have met
      deadline = e == previous ? Math.max(deadline, ext.untilMs) : ext.untilMs;
      previous = e;
    }
    if (d.isHandler() || d.claimTimeUncertain || !info.unknownExtends.isEmpty()) {
      return;
    }
    // An ack, nack or release accepted although, by the Redis clock, the lease had ended before it was sent.
    for (Op o : info.okSettles) {
      OptionalLong earliest = clock.redisAtLeast(o.start, SLACK_MS);
      if (earliest.isEmpty()) {
        continue;
      }
      long end = leaseEndAsOf(info, earliest.getAsLong());
      evaluated("(3) accepted settle against the lease end");
      if (end <= earliest.getAsLong()) {
        report(Kind.ACCEPTED_AFTER_LEASE_END, d.id, o.kind + " was accepted though the lease ended at Redis ms " + end
            + " and the call started no earlier than " + earliest.getAsLong() + " (" + SLACK_MS + " ms slack included)",
            List.of(d, o));
      }
    }
    // Known outcomes: a call refused while the delivery certainly still held a live lease.
    for (Op o : info.all) {
      if (o.outcome != Outcome.REFUSED || o.start <= d.claimEnd || o.end >= info.earliestSettleStart) {
        continue;
      }
      OptionalLong low = clock.redisAtLeast(o.start, SLACK_MS);
      OptionalLong high = clock.redisAtMost(o.end, SLACK_MS);
      if (low.isEmpty() || high.isEmpty()) {
        continue;
      }
      boolean extendInside = false;
      for (Op ext : info.okExtends) {
        long e = ext.untilMs - ext.leaseMs;
        extendInside |= e >= low.getAsLong() && e <= high.getAsLong();
      }
      if (extendInside) {
        continue;
      }
      long end = leaseEndAsOf(info, low.getAsLong());
      evaluated("refusal against a live lease");
      if (end > high.getAsLong()) {
        report(Kind.WRONGLY_REFUSED, d.id, o.kind + " was refused though the lease ran to Redis ms " + end
            + " and the call had ended by " + high.getAsLong() + " (" + SLACK_MS + " ms slack included), with no settle"
            + " before it", List.of(d, o));
      }
    }
  }

  // ---- holders of one id ----

  /**
   * (2) Exactly one owner per lease, and (2') a closing pool keeps the leases of its running
   * handlers. For deliveries D1 before D2 (by token): D2's claim may not fall inside D1's lease
   * while D1 was certainly not yet settled, i.e. every call that could have settled D1 started
   * after D2's claim had returned (a handler's settle comes after it returns).
   */
  private void checkHolders(List<Delivered> ofId) {
    for (int j = 1; j < ofId.size(); j++) {
      Delivered second = ofId.get(j);
      if (second.claimTimeUncertain) {
        continue;
      }
      long c2 = second.claimMs;
      for (int i = j - 1; i >= 0; i--) {
        Delivered first = ofId.get(i);
        if (c2 - first.claimMs > 600_000L) {
          break;
        }
        if (first.claimTimeUncertain || first.token == second.token) {
          continue;
        }
        Info info = infos.get(first.seq);
        if (info.earliestSettleStart <= second.claimEnd) {
          continue;
        }
        boolean unknownBefore = false;
        for (Op u : info.unknownExtends) {
          unknownBefore |= u.start < second.claimEnd;
        }
        if (unknownBefore) {
          skippedForUnknown++;
          continue;
        }
        if (extendAt(info, c2)) {
          continue;
        }
        long end = leaseEndAsOf(info, c2);
        evaluated("(2) claim against an unsettled earlier holder");
        if (c2 < end) {
          report(Kind.OVERLAP, second.id, "token " + second.token + " was claimed at Redis ms " + c2 + ", while token "
              + first.token + " still held its lease until " + end + " and had not been settled (its first possible"
              + " settle started after the second claim returned)", withSettles(List.of(first, second), info));
          continue;
        }
        Pool pool = info.pool;
        // why: a client whose links keep dropping may fail to extend in time; a lease cannot promise more than its link
        if (pool != null && !pool.impatient && first.isHandler() && pool.closeStart != Long.MAX_VALUE
            && pool.closeStart < first.handlerEnd && first.handlerEnd > second.claimEnd) {
          OptionalLong closeBy = clock.redisAtMost(pool.closeStart, SLACK_MS);
          if (closeBy.isEmpty()) {
            continue;
          }
          long natural = leaseEndAsOf(info, closeBy.getAsLong());
          evaluated("(2) claim against a closing pool's running handler");
          if (natural >= closeBy.getAsLong() + KEEPER_MARGIN_MS) {
            report(Kind.KEEPER_LOST_LEASE, second.id, "token " + second.token + " was claimed at Redis ms " + c2
                + " while the handler of token " + first.token + " was still running in a pool that had begun closing"
                + " by Redis ms " + closeBy.getAsLong() + ", " + (natural - closeBy.getAsLong()) + " ms before that lease"
                + " would have ended (" + natural + "): the keeper let it lapse", List.of(first, pool, second));
          }
        }
      }
    }
  }

  /** How many handlers were running, with lease time to spare, when their pool began to close: the keeper's tests. */
  private void countKeptLeases() {
    for (Info info : infos.values()) {
      Delivered d = info.d;
      Pool pool = info.pool;
      if (pool == null || pool.impatient || d.claimTimeUncertain || pool.closeStart == Long.MAX_VALUE
          || pool.closeStart <= d.claimEnd || pool.closeStart >= d.handlerEnd) {
        continue;
      }
      OptionalLong closeBy = clock.redisAtMost(pool.closeStart, SLACK_MS);
      if (closeBy.isPresent() && leaseEndAsOf(info, closeBy.getAsLong()) >= closeBy.getAsLong() + KEEPER_MARGIN_MS) {
        evaluated("(2) handler running on a live lease when its pool began to close");
      }
    }
  }

  private static List<Object> withSettles(List<Object> base, Info info) {
    List<Object> out = new ArrayList<>(base);
    out.addAll(info.all);
    return out;
  }

  // ---- one scheduling (payload) ----

  /**
   * (6) A scheduling is delivered again only after its lease ended, it was released or it was
   * nacked; never after an accepted ack, a burial, or a replacement. And attempts only grow: by one
   * after anything but a release.
   */
  private void checkScheduling(List<Delivered> ofPayload) {
    for (int i = 0; i < ofPayload.size(); i++) {
      Delivered d = ofPayload.get(i);
      Info info = infos.get(d.seq);
      Op ender = info.okAck != null ? info.okAck : info.deadNack;
      if (ender != null) {
        evaluated("(6) scheduling ended by an ack or burial");
        for (int j = i + 1; j < ofPayload.size(); j++) {
          Delivered again = ofPayload.get(j);
          report(Kind.DUPLICATE, d.id, "the scheduling '" + d.payload + "' was delivered again (token " + again.token
              + ") after token " + d.token + "'s " + ender.kind + (ender.kind == History.Kind.NACK ? " buried it" : " was accepted"),
              List.of(d, ender, again));
          break;
        }
      }
      if (i + 1 < ofPayload.size()) {
        Delivered next = ofPayload.get(i + 1);
        int least = d.attempt + (info.possiblyReleased ? 0 : 1);
        if (next.attempt < least) {
          report(Kind.ATTEMPTS, d.id, "attempt went from " + d.attempt + " (token " + d.token + ", "
              + (info.possiblyReleased ? "released" : "not released") + ") to " + next.attempt + " (token " + next.token
              + "); at least " + least + " expected", List.of(d, next));
        }
      }
    }
    // Replaced: once a later schedule of the id was written, this payload is gone.
    Delivered any = ofPayload.get(0);
    Op w = originOf.get(any.payload);
    if (w == null || !w.wrote()) {
      return;
    }
    for (Op w2 : schedulesOf.getOrDefault(any.id, List.of())) {
      if (w2 == w || !w2.wrote() || w2.execMs() <= w.execMs()) {
        continue;
      }
      for (Delivered d : ofPayload) {
        if (!d.claimTimeUncertain && d.claimMs > w2.execMs()) {
          report(Kind.DUPLICATE, d.id, "the scheduling '" + d.payload + "' was delivered at Redis ms " + d.claimMs
              + ", after the schedule of '" + w2.payload + "' (" + w2.scheduled + " at " + w2.execMs() + ") had replaced it",
              List.of(w, w2, d));
          break;
        }
      }
    }
  }

  /** (6) After an accepted cancel, nothing scheduled before it is delivered. */
  private void checkCancelled() {
    for (Map.Entry<String, List<Op>> e : cancelsOf.entrySet()) {
      for (Op cancel : e.getValue()) {
        if (cancel.outcome != Outcome.OK) {
          continue;
        }
        OptionalLong by = clock.redisAtMost(cancel.end, SLACK_MS);
        for (Delivered d : byId.getOrDefault(e.getKey(), List.of())) {
          Op w = originOf.get(d.payload);
          if (w == null || !w.wrote() || !(w.end < cancel.start)) {
            continue;
          }
          boolean after = d.claimStart != Long.MIN_VALUE && d.claimStart > cancel.end;
          if (!after && by.isPresent() && !d.claimTimeUncertain) {
            after = d.claimMs > by.getAsLong();
          }
          if (after) {
            report(Kind.DUPLICATE, d.id, "the scheduling '" + d.payload + "' was delivered after an accepted cancel that"
                + " started after it was scheduled", List.of(w, cancel, d));
          }
        }
      }
    }
  }

  /** Known outcomes: a schedule delayq reported as failed without effect wrote nothing that is ever seen. */
  private void checkFailedSchedules() {
    for (List<Op> schedules : schedulesOf.values()) {
      for (Op w : schedules) {
        if (w.outcome != Outcome.FAILED) {
          continue;
        }
        evaluated("known outcome of a schedule that failed without effect");
        List<Delivered> seen = byPayload.getOrDefault(w.payload, List.of());
        Final f = finals.get(w.id);
        if (!seen.isEmpty() || (f != null && w.payload.equals(f.payload))) {
          List<Object> records = new ArrayList<>();
          records.add(w);
          records.addAll(seen);
          records.add(f != null && w.payload.equals(f.payload) ? f : null);
          report(Kind.KNOWN_OUTCOME, w.id, "the schedule of '" + w.payload + "' failed with " + w.detail
              + ", which says it had no effect, yet its payload was " + (seen.isEmpty() ? "there at the end" : "delivered"),
              records);
        }
      }
    }
  }

  // ---- the end ----

  /**
   * (5) Nothing acknowledged is lost: a schedule Redis answered CREATED or REPLACED that nothing can
   * have superseded (no later write of the id, no cancel or unknown schedule that may have run after
   * it) was delivered and possibly acked, or is still there at the end.
   */
  private void checkNothingLost(String id) {
    if (!history.drained) {
      return;
    }
    List<Op> schedules = schedulesOf.getOrDefault(id, List.of());
    Final fin = finals.get(id);
    for (Op w : schedules) {
      if (!w.wrote()) {
        continue;
      }
      if (possiblySuperseded(w, schedules)) {
        continue;
      }
      List<Delivered> delivered = byPayload.getOrDefault(w.payload, List.of());
      boolean finished = delivered.stream().anyMatch(d -> infos.get(d.seq).possiblyAcked);
      boolean present = fin != null && Objects.equals(fin.payload, w.payload);
      evaluated("(5) acknowledged schedule never superseded");
      if (finished || present) {
        continue;
      }
      List<Object> records = new ArrayList<>();
      records.add(w);
      records.addAll(delivered);
      records.add(fin);
      report(Kind.LOST, id, delivered.isEmpty()
          ? "the schedule of '" + w.payload + "' was answered " + w.scheduled + ", was never superseded, never delivered,"
              + " and is not there at the end"
          : "the schedule of '" + w.payload + "' was answered " + w.scheduled + ", delivered " + delivered.size()
              + " time(s), never acked, and is not there at the end", records);
    }
  }

  private boolean possiblySuperseded(Op w, List<Op> schedules) {
    for (Op w2 : schedules) {
      if (w2 == w) {
        continue;
      }
      if (w2.wrote() && w2.execMs() >= w.execMs()) {
        return true;
      }
      // why: a call that timed out may still run at any time after it started, so after w too; but
      // one with KEEP leaves an existing job (scheduled, held, dead or just finished) as it is
      if (w2.mayHaveRun() && w2.policy != io.delayq.DuplicatePolicy.KEEP) {
        return true;
      }
    }
    for (Op c : cancelsOf.getOrDefault(w.id, List.of())) {
      if (c.mayHaveRun() || !(c.end < w.start)) {
        return true;
      }
    }
    return false;
  }

  /** The record that certainly ended the scheduling {@code w}: a later write, a cancel after it, an accepted ack; or null. */
  private Op definitelySuperseded(Op w, List<Op> schedules) {
    for (Op w2 : schedules) {
      if (w2 != w && w2.wrote() && w2.execMs() > w.execMs()) {
        return w2;
      }
    }
    for (Op c : cancelsOf.getOrDefault(w.id, List.of())) {
      if (c.outcome == Outcome.OK && c.start > w.end) {
        return c;
      }
    }
    for (Delivered d : byPayload.getOrDefault(w.payload, List.of())) {
      if (infos.get(d.seq).okAck != null) {
        return infos.get(d.seq).okAck;
      }
    }
    return null;
  }

  /** (1) Exactly one state at the end, as Redis holds it and as get() reports it, agreeing with the model. */
  private void checkFinal(String id) {
    if (!history.drained) {
      return;
    }
    Final f = finals.get(id);
    if (f == null) {
      return;
    }
    int states = f.inScheduled + f.inActive + f.inDead;
    evaluated("(1) end state of an id");
    if (states > 1) {
      report(Kind.FINAL_STATE, id, "the id is in " + states + " state sets at once", List.of(f));
    }
    if (f.records != (states >= 1 ? 1 : 0)) {
      report(Kind.FINAL_STATE, id, f.records == 0 ? "in a state set without a job record" : "a job record in no state set",
          List.of(f));
    }
    if (f.leaseEntries != f.inActive) {
      report(Kind.FINAL_STATE, id, "lease entries (" + f.leaseEntries + ") do not match active membership (" + f.inActive + ")",
          List.of(f));
    }
    for (int p : f.partitionsWithTraces) {
      if (p != f.homePartition) {
        report(Kind.FINAL_STATE, id, "keys of the id in partition " + p + ", but its hash names " + f.homePartition,
            List.of(f));
      }
    }
    if (f.state == null) {
      if (states > 0 || f.records > 0) {
        report(Kind.FINAL_STATE, id, "get() answered empty but Redis holds the job", List.of(f));
      }
      return;
    }
    if (f.state != JobState.DEAD) {
      report(Kind.STUCK, id, "still " + f.state + " after the drain (healthy workers, no faults, until the queue"
          + " counted nothing scheduled or held)", List.of(f));
    }
    if (f.state == JobState.DEAD && f.inDead != 1) {
      report(Kind.FINAL_STATE, id, "get() answered DEAD but the id is not in the dead set", List.of(f));
    }
    if (f.state == JobState.DEAD && f.attempts < f.maxAttempts) {
      report(Kind.FINAL_STATE, id, "dead after " + f.attempts + " of " + f.maxAttempts + " attempts", List.of(f));
    }
    Op w = originOf.get(f.payload);
    if (w == null || w.outcome == Outcome.REFUSED || (w.outcome == Outcome.OK && !w.wrote())) {
      report(Kind.PHANTOM, id, "at the end the job holds payload '" + f.payload + "', which no acknowledged or unknown"
          + " schedule wrote", w == null ? List.of(f) : List.of(w, f));
      return;
    }
    if (w.outcome == Outcome.OK) {
      if (w.maxAttempts != f.maxAttempts) {
        report(Kind.FINAL_STATE, id, "maxAttempts " + f.maxAttempts + " at the end, " + w.maxAttempts + " when scheduled",
            List.of(w, f));
      }
      Op ender = definitelySuperseded(w, schedulesOf.getOrDefault(id, List.of()));
      if (ender != null) {
        report(Kind.FINAL_STATE, id, "at the end the job holds '" + f.payload + "', which " + ender.kind + " #" + ender.seq
            + " had ended", List.of(w, ender, f));
      }
    }
  }
}
