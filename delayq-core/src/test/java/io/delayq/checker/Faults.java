package io.delayq.checker;

import io.delayq.checker.History.Delivered;
import io.delayq.checker.History.Kind;
import io.delayq.checker.History.Op;
import io.delayq.checker.History.Outcome;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Faults injected into a copy of a real history, for the negative control: each one is what a
 * broken delayq would have produced, and each returns the sequence numbers of the records it made
 * or changed, so that the control can tell the violations it caused from any others.
 */
final class Faults {
  private Faults() {}

  /** One fault: its name, the check that must catch it, and how to inject it (empty when the history offers no place). */
  record Fault(String name, Violation.Kind expected, Function<History, Optional<Set<Integer>>> inject) {}

  static List<Fault> all() {
    return List.of(
        new Fault("a second holder: a copy of a pull delivery, claimed in the same millisecond under the next token",
            Violation.Kind.OVERLAP, Faults::secondHolder),
        new Fault("a stale token's ack recorded as accepted after the job's next delivery was claimed",
            Violation.Kind.STALE_ACCEPTED, Faults::staleAckAccepted),
        new Fault("a delivery moved to 5 ms before its due time", Violation.Kind.EARLY, Faults::early),
        new Fault("every delivery of the last acknowledged schedule of an id dropped from the record",
            Violation.Kind.LOST, Faults::lost));
  }

  private static Set<Long> tokens(History h) {
    return h.deliveries().stream().map(d -> d.token).collect(Collectors.toSet());
  }

  private static Optional<Set<Integer>> secondHolder(History h) {
    Set<Long> used = tokens(h);
    Set<Integer> withUnknown = h.ops().stream()
        .filter(o -> o.kind == Kind.EXTEND && o.mayHaveRun())
        .map(o -> o.delivery)
        .collect(Collectors.toSet());
    for (Delivered d : h.deliveries()) {
      if (d.source != History.Source.PULL || d.claimTimeUncertain || withUnknown.contains(d.seq)
          || used.contains(d.token + 1)) {
        continue;
      }
      Delivered twin = d.copy();
      twin.seq = h.nextSeq();
      twin.token = d.token + 1;
      twin.claimOp = -1;
      h.add(twin);
      return Optional.of(Set.of(twin.seq));
    }
    return Optional.empty();
  }

  private static Optional<Set<Integer>> staleAckAccepted(History h) {
    Map<String, List<Delivered>> byId = h.deliveries().stream()
        .collect(Collectors.groupingBy(d -> d.id));
    byId.values().forEach(l -> l.sort(Comparator.comparingLong(d -> d.token)));
    List<Op> ops = h.ops();
    // A real stale call that delayq refused, flipped to accepted: the most honest fault.
    for (Op o : ops) {
      if ((o.kind != Kind.ACK && o.kind != Kind.RELEASE) || o.outcome != Outcome.REFUSED) {
        continue;
      }
      for (Delivered later : byId.getOrDefault(o.id, List.of())) {
        if (later.token > o.token && later.claimEnd < o.start) {
          o.outcome = Outcome.OK;
          o.detail = "INJECTED: refused in reality";
          return Optional.of(Set.of(o.seq));
        }
      }
    }
    // None in this history: make one, an ack with the previous delivery's token just after the next claim.
    for (List<Delivered> ofId : byId.values()) {
      for (int i = 1; i < ofId.size(); i++) {
        Delivered first = ofId.get(i - 1);
        Delivered second = ofId.get(i);
        Op ack = new Op();
        ack.seq = h.nextSeq();
        ack.kind = Kind.ACK;
        ack.client = 0;
        ack.thread = "injected";
        ack.id = first.id;
        ack.token = first.token;
        ack.delivery = first.seq;
        ack.start = second.claimEnd + 1_000;
        ack.end = ack.start + 200_000;
        ack.outcome = Outcome.OK;
        ack.detail = "INJECTED";
        h.add(ack);
        return Optional.of(Set.of(ack.seq));
      }
    }
    return Optional.empty();
  }

  private static Optional<Set<Integer>> early(History h) {
    Map<String, Op> origin = h.ops().stream()
        .filter(o -> o.kind == Kind.SCHEDULE)
        .collect(Collectors.toMap(o -> o.payload, o -> o, (a, b) -> a));
    // why: a handler's delivery is no clock observation, so moving it leaves the clock map as it was
    List<Delivered> candidates = h.deliveries().stream()
        .sorted(Comparator.comparing((Delivered d) -> d.source == History.Source.PULL))
        .toList();
    for (Delivered d : candidates) {
      Op w = origin.get(d.payload);
      if (w == null || !w.wrote() || w.delayMs < 20) {
        continue;
      }
      long due = Math.min(w.runAtMs, d.runAtMs);
      d.claimMs = due - 5;
      return Optional.of(Set.of(d.seq));
    }
    return Optional.empty();
  }

  private static Optional<Set<Integer>> lost(History h) {
    List<Op> ops = h.ops();
    Map<String, History.Final> finals = h.finals();
    Map<String, List<Op>> byId = ops.stream()
        .filter(o -> o.kind == Kind.SCHEDULE || o.kind == Kind.CANCEL)
        .collect(Collectors.groupingBy(o -> o.id));
    for (Map.Entry<String, List<Op>> e : byId.entrySet()) {
      List<Op> mine = e.getValue();
      if (mine.stream().anyMatch(Op::mayHaveRun)) {
        continue;
      }
      Op last = mine.stream().filter(Op::wrote).max(Comparator.comparingLong(Op::execMs)).orElse(null);
      if (last == null) {
        continue;
      }
      boolean tie = mine.stream().anyMatch(o -> o != last && o.wrote() && o.execMs() == last.execMs());
      boolean cancelAfter = mine.stream().anyMatch(o -> o.kind == Kind.CANCEL && !(o.end < last.start));
      History.Final f = finals.get(e.getKey());
      boolean present = f != null && last.payload.equals(f.payload);
      if (tie || cancelAfter || present) {
        continue;
      }
      Set<Integer> gone = new HashSet<>();
      for (Delivered d : h.deliveries()) {
        if (d.payload.equals(last.payload)) {
          gone.add(d.seq);
        }
      }
      if (gone.isEmpty()) {
        continue;
      }
      for (Op o : ops) {
        if (gone.contains(o.delivery)) {
          gone.add(o.seq);
        }
      }
      h.removeIf(gone::contains);
      return Optional.of(Set.of(last.seq));
    }
    return Optional.empty();
  }
}
