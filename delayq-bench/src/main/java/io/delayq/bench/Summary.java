package io.delayq.bench;

import java.util.Locale;

/** The one-line progress summary of a scenario result. */
final class Summary {
  private Summary() {}

  static String of(Object result) {
    if (result instanceof Results.EnqueueResult r) {
      return String.format(Locale.ROOT, "sync %s jobs/s, bulk %s jobs/s%s%s", Fmt.rate(r.syncPerSecond()),
          Fmt.rate(r.bulkPerSecond()), integrity(r.integrity()), note(r.note()));
    }
    if (result instanceof Results.DrainResult r) {
      return String.format(Locale.ROOT, "%s jobs/s%s%s", Fmt.rate(r.perSecond()), integrity(r.integrity()),
          note(r.note()));
    }
    if (result instanceof Results.ClusterResult r) {
      return String.format(Locale.ROOT, "%s jobs/s%s%s%s", Fmt.rate(r.perSecond()), integrity(r.integrity()),
          r.partitionsPerMaster().isEmpty() ? "" : "; partitions per master " + r.partitionsPerMaster(),
          note(r.note()));
    }
    if (result instanceof Results.RabbitResult r) {
      return String.format(Locale.ROOT, "%s: %s messages/s%s%s", r.publisher(), Fmt.rate(r.perSecond()),
          integrity(r.integrity()), note(r.note()));
    }
    if (result instanceof Results.DurableResult r) {
      return String.format(Locale.ROOT, "one at a time %s jobs/s, scheduleAll %s jobs/s%s%s",
          Fmt.rate(r.onePerSecond()), Fmt.rate(r.bulkPerSecond()), integrity(r.integrity()), note(r.note()));
    }
    if (result instanceof Results.HttpResult r) {
      if (r.lateness() == null) {
        return r.settling() + note(r.note());
      }
      return String.format(Locale.ROOT, "%s: schedule %s jobs/s, drain %s jobs/s; steady lateness p50 %s ms,"
              + " p99 %s ms, p99.9 %s ms, max %s ms, early %d; server connections %s, idle open at end %d,"
              + " settle errors %d%s%s",
          r.settling(), Fmt.rate(r.schedulePerSecond()), Fmt.rate(r.drainPerSecond()), Fmt.ms(r.lateness().p50Micros()),
          Fmt.ms(r.lateness().p99Micros()), Fmt.ms(r.lateness().p999Micros()), Fmt.ms(r.lateness().maxMicros()),
          r.lateness().early(), r.serverConnections() < 0 ? "not counted" : Integer.toString(r.serverConnections()),
          r.idleOpenAtEnd(), r.settleErrors(), integrity(r.integrity()), note(r.note()));
    }
    if (result instanceof Results.SteadyResult r) {
      if (r.lateness() == null) {
        return note(r.note());
      }
      return String.format(Locale.ROOT, "lateness p50 %s ms, p99 %s ms, p99.9 %s ms, max %s ms, early %d,"
              + " %s commands/job, %s jobs/s offered%s%s",
          Fmt.ms(r.lateness().p50Micros()), Fmt.ms(r.lateness().p99Micros()), Fmt.ms(r.lateness().p999Micros()),
          Fmt.ms(r.lateness().maxMicros()), r.lateness().early(), Fmt.decimal(r.commandsPerJob(), 2),
          Fmt.rate(r.achievedRate()), integrity(r.integrity()), note(r.note()));
    }
    if (result instanceof Results.IdleResult r) {
      return String.format(Locale.ROOT, "%s commands/s, JVM CPU %s%% of a core%s%s",
          Fmt.decimal(r.commandsPerSecond(), 1), Fmt.decimal(r.cpuPercentOfCore(), 1), integrity(r.integrity()),
          note(r.note()));
    }
    if (result instanceof Results.MemoryResult r) {
      return String.format(Locale.ROOT, "%s bytes/job%s%s", Fmt.decimal(r.bytesPerJob(), 0),
          integrity(r.integrity()), note(r.note()));
    }
    if (result instanceof Results.IdempotencyResult r) {
      return String.format(Locale.ROOT, "idempotency window: %s bytes per finished id (done sets: %s bytes per id)%s%s",
          Fmt.decimal(r.bytesPerFinishedId(), 1), Fmt.decimal(r.doneSetBytesPerId(), 1),
          r.on() == null || r.off() == null ? "" : integrity(r.on().integrity().plus(r.off().integrity())),
          note(r.note()));
    }
    return String.valueOf(result);
  }

  private static String integrity(Integrity i) {
    if (i == null) {
      return "";
    }
    return String.format(Locale.ROOT, "; lost %d, duplicates %d%s", i.lost(), i.duplicates(),
        i.unexpected() > 0 ? ", unexpected " + i.unexpected() : "");
  }

  private static String note(String note) {
    return note == null || note.isEmpty() ? "" : " (" + note + ")";
  }
}
