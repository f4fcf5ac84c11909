package io.delayq.server.web;

import io.delayq.Delayq;
import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** The Workers page ({@code /workers}): the worker processes alive now, from their heartbeats. */
final class WorkerPages {
  private final Delayq delayq;
  private final Clock clock;

  WorkerPages(Delayq delayq, Clock clock) {
    this.delayq = delayq;
    this.clock = clock;
  }

  /** {@code GET /workers}. */
  WebResponse list(WebRequest request, PageContext page) {
    Instant now = clock.instant();
    List<WorkerRow> rows = delayq.workerProcesses().stream()
        .map(process -> WorkerRow.of(process, now))
        .sorted(Comparator.comparing(WorkerRow::host).thenComparing(WorkerRow::id))
        .toList();
    return page.page("workers.jte", Map.of("rows", rows));
  }
}
