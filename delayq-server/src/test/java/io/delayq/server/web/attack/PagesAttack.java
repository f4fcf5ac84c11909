package io.delayq.server.web.attack;

import io.delayq.JobFilter;
import io.delayq.JobInfo;
import io.delayq.JobQueue;
import io.delayq.JobRequest;
import io.delayq.LeasedJob;
import io.delayq.Page;
import io.delayq.server.http.HttpSettings;
import io.delayq.server.web.attack.AttackServer.Answer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What the Pages*IT attacks share: a server without a token (loopback, full access) and dashboard POSTs. */
final class PagesAttack {
  static final Map<String, String> FROM_DASHBOARD =
      Map.of("X-Delayq-Request", "dashboard", "Sec-Fetch-Site", "same-origin", "HX-Request", "true");
  private static final Pattern FLASH = Pattern.compile("data-flash=\"(ok|error)\"[^>]*>([^<]*)<");

  private PagesAttack() {}

  static AttackServer open() {
    return AttackServer.start(HttpSettings.of("127.0.0.1", 0, null));
  }

  static Answer post(AttackServer server, String path, Map<String, String> form) {
    return server.send("POST", path, form, FROM_DASHBOARD);
  }

  static Answer get(AttackServer server, String path) {
    return server.get(path, Map.of());
  }

  static String flash(Answer answer) {
    Matcher m = FLASH.matcher(answer.body());
    return m.find() ? m.group(1) + ": " + m.group(2) : "(no flash)";
  }

  static String hidden(String html, String name) {
    Matcher m = Pattern.compile("name=\"" + name + "\" value=\"([^\"]*)\"").matcher(html);
    if (!m.find()) {
      throw new AssertionError("no hidden field " + name + " in " + html);
    }
    return m.group(1);
  }

  /** Makes each of {@code ids} a dead job of {@code queue} with {@code error}, in order of death. */
  static void kill(JobQueue queue, List<String> ids, String error) {
    List<JobRequest> requests = new ArrayList<>();
    for (String id : ids) {
      requests.add(JobRequest.of("d-" + id).withId(id).withMaxAttempts(1));
    }
    queue.scheduleAll(requests);
    int buried = 0;
    for (int round = 0; round < 10_000 && buried < ids.size(); round++) {
      for (LeasedJob job : queue.pull().claim(500, Duration.ofMinutes(5))) {
        queue.pull().bury(job.id(), job.token(), error);
        buried++;
      }
    }
    if (buried < ids.size()) {
      throw new AssertionError("only " + buried + " of " + ids.size() + " jobs became dead");
    }
  }

  static List<JobInfo> all(JobQueue queue, JobFilter filter) {
    List<JobInfo> out = new ArrayList<>();
    String cursor = null;
    do {
      Page<JobInfo> page = queue.admin().listJobs(filter, cursor, 1000);
      out.addAll(page.items());
      cursor = page.nextCursor().orElse(null);
    } while (cursor != null);
    return out;
  }
}
