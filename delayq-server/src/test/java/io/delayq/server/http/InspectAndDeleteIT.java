package io.delayq.server.http;

import static io.delayq.server.http.HttpApiIT.assertError;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.delayq.server.testing.ApiClient;
import io.delayq.server.testing.ApiClient.Reply;
import io.delayq.server.testing.SharedServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Looking inside queues (jobs by state, the paged queue list) and deleting them, against the real jar. */
class InspectAndDeleteIT {
  @RegisterExtension static final SharedServer server = new SharedServer();
  private static final Pattern NEXT = Pattern.compile("^<(/v1/queues\\?cursor=[A-Za-z0-9_-]+&limit=(\\d+))>; rel=\"next\"$");
  private static final long FAR = 4_102_444_800_000L; // 2100-01-01

  private ApiClient api;
  private String queue;

  @BeforeEach
  void setUp(TestInfo test) {
    api = server.api();
    queue = "it-" + test.getTestMethod().orElseThrow().getName() + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private String path() {
    return "/v1/queues/" + queue;
  }

  private void schedule(Map<String, Object> job) {
    Reply created = api.post(path() + "/jobs", job);
    assertThat(created.status()).as(created.toString()).isEqualTo(201);
  }

  /** Every job of a state, page by page, each page checked to be a 200 of at most {@code limit}. */
  private List<JsonNode> listAll(String state, int limit) {
    List<JsonNode> jobs = new ArrayList<>();
    String cursor = null;
    do {
      Reply page = api.get(path() + "/jobs?state=" + state + "&limit=" + limit + (cursor == null ? "" : "&cursor=" + cursor));
      assertThat(page.status()).as(page.toString()).isEqualTo(200);
      assertThat(page.json().path("jobs").size()).isBetween(0, limit);
      page.json().path("jobs").forEach(jobs::add);
      JsonNode next = page.json().path("nextCursor");
      assertThat(page.json().has("nextCursor")).isTrue();
      cursor = next.isNull() ? null : next.asText();
    } while (cursor != null);
    return jobs;
  }

  private static List<String> ids(List<JsonNode> jobs) {
    return jobs.stream().map(job -> job.path("id").asText()).toList();
  }

  @Test
  void scheduledJobsArePagedByDueTimeEachShownAsItsOwnUrlShowsIt() {
    api.put(path(), Map.of("partitions", 3));
    for (int i = 0; i < 25; i++) {
      schedule(Map.of("id", String.format("job-%02d", i), "payload", "p" + i, "runAt", FAR + i / 5, "maxAttempts", 4));
    }

    Reply first = api.get(path() + "/jobs?state=scheduled&limit=10");
    List<JsonNode> all = listAll("scheduled", 10);

    assertThat(first.json().path("jobs").size()).isEqualTo(10);
    assertThat(first.json().path("nextCursor").asText()).matches("[A-Za-z0-9_-]+");
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      expected.add(String.format("job-%02d", i));
    }
    assertThat(ids(all)).containsExactlyElementsOf(expected);
    for (JsonNode job : List.of(all.get(0), all.get(24))) {
      assertThat(job).isEqualTo(api.get(path() + "/jobs/" + job.path("id").asText()).json());
    }
    assertThat(all.get(7).path("state").asText()).isEqualTo("scheduled");
    assertThat(all.get(7).path("runAt").asLong()).isEqualTo(FAR + 1);
    assertThat(all.get(7).path("payload").asText()).isEqualTo("p7");
    assertThat(all.get(7).path("maxAttempts").asInt()).isEqualTo(4);
  }

  @Test
  void dueActiveAndDeadJobsAreListedWithTheirTimesAndLastError() {
    for (int i = 0; i < 4; i++) {
      schedule(Map.of("id", "now-" + i, "payload", "x", "maxAttempts", 1));
    }
    schedule(Map.of("id", "later", "payload", "x", "delayMs", 3_600_000));
    Reply claimed = api.post(path() + "/claim?max=2&leaseMs=60000");
    assertThat(claimed.json().size()).isEqualTo(2);
    JsonNode held = claimed.json().get(0);
    JsonNode failing = claimed.json().get(1);
    assertThat(api.post(path() + "/jobs/" + failing.path("id").asText() + "/nack",
        Map.of("token", failing.path("token").asText(), "error", "card declined")).status()).isEqualTo(204);

    List<JsonNode> active = listAll("active", 5);
    assertThat(active).hasSize(1);
    assertThat(active.get(0).path("id").asText()).isEqualTo(held.path("id").asText());
    assertThat(active.get(0).path("state").asText()).isEqualTo("active");
    assertThat(active.get(0).path("leaseUntil").asLong()).isEqualTo(held.path("leaseUntil").asLong());
    assertThat(active.get(0).path("attempts").asInt()).isEqualTo(1);

    List<JsonNode> dead = listAll("dead", 5);
    assertThat(ids(dead)).containsExactly(failing.path("id").asText());
    assertThat(dead.get(0).path("lastError").asText()).isEqualTo("card declined");
    assertThat(dead.get(0).has("deadAt")).isTrue();

    assertThat(ids(listAll("due", 1))).hasSize(2).allMatch(id -> id.startsWith("now-"));
    assertThat(ids(listAll("scheduled", 1))).hasSize(3).contains("later");
    assertThat(listAll("expired", 5)).isEmpty();
  }

  @Test
  void aPageHoldsAboutOneMebibyteOfPayloadsAtMost() {
    String large = "a".repeat(600_000);
    for (int i = 0; i < 3; i++) {
      schedule(Map.of("id", "large-" + i, "payload", large, "runAt", FAR + i));
    }
    Reply page = api.get(path() + "/jobs?state=scheduled&limit=1000");
    assertThat(page.json().path("jobs").size()).isEqualTo(1);
    assertThat(ids(listAll("scheduled", 1000))).containsExactly("large-0", "large-1", "large-2");
  }

  @Test
  void aListingOfAnUnknownQueueOrWithABadStateCursorOrLimitIsRefused() {
    assertError(api.get(path() + "/jobs?state=due"), 404, "not_found", null);
    schedule(Map.of("id", "a", "payload", "x"));
    schedule(Map.of("id", "b", "payload", "x"));

    Reply badState = api.get(path() + "/jobs?state=waiting");
    assertError(badState, 400, "invalid_request", "state");
    assertThat(badState.json().path("detail").asText()).contains("scheduled, due, active, expired or dead").contains("'waiting'");
    assertError(api.get(path() + "/jobs"), 400, "invalid_request", "state");
    assertError(api.get(path() + "/jobs?state=due&limit=0"), 400, "invalid_request", "limit");
    assertError(api.get(path() + "/jobs?state=due&limit=1001"), 400, "invalid_request", "limit");
    assertError(api.get(path() + "/jobs?state=due&sort=asc"), 400, "invalid_request", "sort");

    String cursor = api.get(path() + "/jobs?state=due&limit=1").json().path("nextCursor").asText();
    assertThat(api.get(path() + "/jobs?state=due&limit=1&cursor=" + cursor).json().path("jobs").get(0).path("id").asText())
        .isEqualTo("b");
    String altered = (cursor.charAt(3) == 'A' ? "B" : "A");
    altered = cursor.substring(0, 3) + altered + cursor.substring(4);
    for (String bad : List.of(altered, "garbage", cursor.substring(1))) {
      Reply refused = api.get(path() + "/jobs?state=due&cursor=" + bad);
      assertError(refused, 400, "invalid_request", "cursor");
      assertThat(refused.json().path("detail").asText()).contains("nextCursor of the previous page");
    }
    assertError(api.get(path() + "/jobs?state=scheduled&cursor=" + cursor), 400, "invalid_request", "cursor");
  }

  @Test
  void deletingAQueueRemovesItsJobsAndItsName() {
    api.put(path(), Map.of("partitions", 2, "maxAttempts", 9));
    for (int i = 0; i < 30; i++) {
      schedule(Map.of("id", "job-" + i, "payload", "x", "delayMs", i < 10 ? 0 : 3_600_000));
    }

    Reply deleted = api.delete(path());

    assertThat(deleted.status()).as(deleted.toString()).isEqualTo(200);
    assertThat(deleted.json()).isEqualTo(ApiClient.JSON.valueToTree(Map.of("queue", queue, "deletedJobs", 30)));
    assertError(api.get(path()), 404, "not_found", null);
    assertError(api.get(path() + "/jobs?state=scheduled"), 404, "not_found", null);
    assertError(api.get(path() + "/jobs/job-1"), 404, "not_found", null);
    assertError(api.delete(path()), 404, "not_found", null);
    assertThat(allQueueNames()).doesNotContain(queue);
    // The name is free again, with any partition count and the default settings.
    Reply again = api.put(path(), Map.of("partitions", 4));
    assertThat(again.json().path("partitions").asInt()).isEqualTo(4);
    assertThat(again.json().path("maxAttempts").asInt()).isNotEqualTo(9);
  }

  @Test
  void aQueueWhoseWorkersHoldJobsIsDeletedOnlyWithForce() {
    for (int i = 0; i < 5; i++) {
      schedule(Map.of("id", "job-" + i, "payload", "x"));
    }
    JsonNode held = api.post(path() + "/claim?max=2&leaseMs=60000").json();
    assertThat(held.size()).isEqualTo(2);

    Reply refused = api.delete(path() + "?force=false");
    assertError(refused, 409, "conflict", null);
    assertThat(refused.json().path("detail").asText())
        .contains("workers hold 2 of its jobs")
        .contains("DELETE " + path() + "?force=true");
    assertThat(api.get(path()).json().path("scheduled").asInt()).isEqualTo(3);
    assertThat(api.get(path()).json().path("paused").asBoolean()).isFalse();
    assertError(api.delete(path() + "?force=yes"), 400, "invalid_request", "force");

    Reply forced = api.delete(path() + "?force=true");
    assertThat(forced.status()).as(forced.toString()).isEqualTo(200);
    assertThat(forced.json().path("deletedJobs").asLong()).isEqualTo(5);
    JsonNode job = held.get(0);
    // the queue is gone, and with it the lease: a worker's ack finds no such queue
    assertError(api.post(path() + "/jobs/" + job.path("id").asText() + "/ack", Map.of("token", job.path("token").asText())),
        404, "not_found", null);
  }

  /** Every queue name, following the list's Link headers, each page checked. */
  private List<String> allQueueNames() {
    List<String> names = new ArrayList<>();
    String page = "/v1/queues?limit=500";
    while (page != null) {
      Reply reply = api.get(page);
      assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
      assertThat(reply.json().isArray()).isTrue();
      reply.json().forEach(stats -> names.add(stats.path("queue").asText()));
      String link = reply.header("Link");
      page = null;
      if (link != null) {
        Matcher next = NEXT.matcher(link);
        assertThat(next.matches()).as(link).isTrue();
        page = next.group(1);
      }
    }
    return names;
  }

  @Test
  void theQueueListIsPagedWithLinkHeadersAndStaysABareArray() {
    List<String> mine = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      String name = queue + "-" + i;
      mine.add(name);
      assertThat(api.put("/v1/queues/" + name, Map.of()).status()).isEqualTo(200);
    }

    Reply first = api.get("/v1/queues?limit=2");
    assertThat(first.json().isArray()).isTrue();
    assertThat(first.json().size()).isEqualTo(2);
    Matcher next = NEXT.matcher(first.header("Link"));
    assertThat(next.matches()).as(first.header("Link")).isTrue();
    assertThat(next.group(2)).isEqualTo("2");
    assertThat(first.json().get(0).has("scheduled")).isTrue();

    List<String> names = new ArrayList<>();
    String page = "/v1/queues?limit=2";
    while (page != null) {
      Reply reply = api.get(page);
      assertThat(reply.json().size()).isBetween(0, 2);
      reply.json().forEach(stats -> names.add(stats.path("queue").asText()));
      Matcher link = reply.header("Link") == null ? null : NEXT.matcher(reply.header("Link"));
      page = link != null && link.matches() ? link.group(1) : null;
    }
    assertThat(names).isSorted().doesNotHaveDuplicates().containsAll(mine);
    assertThat(allQueueNames()).containsAll(mine);

    assertError(api.get("/v1/queues?limit=0"), 400, "invalid_request", "limit");
    assertError(api.get("/v1/queues?limit=1001"), 400, "invalid_request", "limit");
    assertError(api.get("/v1/queues?cursor=garbage"), 400, "invalid_request", "cursor");
    assertError(api.get("/v1/queues?page=2"), 400, "invalid_request", "page");
  }

  @Test
  void readsOfAnUnknownQueueNeverCreateIt() {
    assertError(api.get(path()), 404, "not_found", null);
    assertError(api.get(path() + "/jobs?state=scheduled"), 404, "not_found", null);
    assertError(api.get(path() + "/dead"), 404, "not_found", null);
    assertError(api.get(path() + "/jobs/some-id"), 404, "not_found", null);
    assertError(api.post(path() + "/pause"), 404, "not_found", null);
    assertThat(api.get("/metrics").status()).isEqualTo(200);

    assertError(api.get(path()), 404, "not_found", null);
    assertThat(allQueueNames()).doesNotContain(queue);
  }
}
