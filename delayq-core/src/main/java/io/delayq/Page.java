package io.delayq;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One page of a listing, and where the next one starts.
 *
 * <pre>{@code
 * String cursor = null;
 * do {
 *   Page<JobInfo> page = queue.admin().listJobs(JobFilter.DEAD, cursor, 100);
 *   page.items().forEach(job -> System.out.println(job.id() + ": " + job.lastError()));
 *   cursor = page.nextCursor().orElse(null);
 * } while (cursor != null);
 * }</pre>
 *
 * @param items this page's items, in the listing's order
 * @param nextCursor where the next page starts, to pass to the same listing as it is; empty on the
 *     last page. It is an opaque string (URL-safe), checked when it comes back, and stays valid
 *     while the items around it come and go: the next page starts after this page's last item,
 *     whether or not that item still exists.
 * @param <T> what is listed
 * @since 0.2.0
 */
public record Page<T>(List<T> items, Optional<String> nextCursor) {
  public Page {
    items = List.copyOf(items);
    Objects.requireNonNull(nextCursor, "nextCursor");
  }
}
