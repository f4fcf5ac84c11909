package io.delayq.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.delayq.JobInfo;
import io.delayq.JobState;
import io.delayq.server.cli.Backend.JobPage;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Paging of {@code delayq jobs ls}, and the page as the HTTP API writes it. */
class JobsCommandTest {
  private static JobInfo job(String id) {
    return new JobInfo(id, JobState.SCHEDULED, Instant.EPOCH, null, null, 0, 5, null,
        id.getBytes(StandardCharsets.UTF_8), null);
  }

  /** Pages keyed by the cursor that starts them; the first by "". */
  private static Function<String, JobPage> pages(Map<String, JobPage> byCursor, List<String> asked) {
    return cursor -> {
      asked.add(cursor);
      return byCursor.get(cursor == null ? "" : cursor);
    };
  }

  private static final Map<String, JobPage> THREE_PAGES = Map.of(
      "", new JobPage(List.of(job("a"), job("b")), "c1"),
      "c1", new JobPage(List.of(), "c2"),
      "c2", new JobPage(List.of(job("c")), null));

  @Test
  void withoutAllOnlyTheFirstPageIsFetchedAndItsCursorReturned() {
    List<String> asked = new ArrayList<>();
    List<JobPage> seen = new ArrayList<>();
    String next = JobsCommand.pages(pages(THREE_PAGES, asked), false, seen::add);
    assertThat(asked).containsExactly((String) null);
    assertThat(seen).hasSize(1);
    assertThat(next).isEqualTo("c1");
  }

  @Test
  void withAllEveryCursorIsFollowedThroughEmptyPagesToTheEnd() {
    List<String> asked = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    String next = JobsCommand.pages(pages(THREE_PAGES, asked), true,
        page -> page.jobs().forEach(job -> ids.add(job.id())));
    assertThat(asked).containsExactly(null, "c1", "c2");
    assertThat(ids).containsExactly("a", "b", "c");
    assertThat(next).isNull();
  }

  @Test
  void aCursorThatComesBackUnchangedStopsTheListing() {
    Map<String, JobPage> stuck = Map.of("", new JobPage(List.of(job("a")), "same"),
        "same", new JobPage(List.of(job("a")), "same"));
    assertThatThrownBy(() -> JobsCommand.pages(pages(stuck, new ArrayList<>()), true, page -> {}))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("same cursor 'same' twice");
  }

  @Test
  void readsThePageTheHttpApiWrites() throws Exception {
    JobPage page = HttpBackend.jobPage(new ObjectMapper().readTree("""
        {"jobs": [
          {"id":"a","state":"scheduled","runAt":1000,"attempts":0,"maxAttempts":5,"payload":"{\\"x\\":1}"},
          {"id":"b","state":"due","runAt":2000,"attempts":1,"maxAttempts":3,"payload":"text"},
          {"id":"c","state":"active","runAt":3000,"attempts":2,"maxAttempts":5,"payloadBase64":"/w==","leaseUntil":9000}
        ], "nextCursor": "opaque+/="}"""));
    assertThat(page.nextCursor()).isEqualTo("opaque+/=");
    assertThat(page.jobs()).extracting(JobInfo::id).containsExactly("a", "b", "c");
    JobInfo a = page.jobs().get(0);
    assertThat(a.payloadAsString()).isEqualTo("{\"x\":1}");
    assertThat(a.runAt()).isEqualTo(Instant.ofEpochMilli(1000));
    assertThat(a.maxAttempts()).isEqualTo(5);
    assertThat(page.jobs().get(1).state()).as("due is a scheduled job whose time has come").isEqualTo(JobState.SCHEDULED);
    JobInfo c = page.jobs().get(2);
    assertThat(c.state()).isEqualTo(JobState.ACTIVE);
    assertThat(c.payload()).containsExactly(0xff);
    assertThat(c.leaseUntil()).isEqualTo(Instant.ofEpochMilli(9000));
    assertThat(c.attempts()).isEqualTo(2);

    assertThat(HttpBackend.jobPage(new ObjectMapper().readTree("{\"jobs\":[],\"nextCursor\":null}")).nextCursor())
        .isNull();
    assertThatThrownBy(() -> HttpBackend.jobPage(new ObjectMapper().readTree("[]")))
        .hasMessageContaining("\"jobs\"");
  }
}
