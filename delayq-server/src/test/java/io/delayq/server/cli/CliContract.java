package io.delayq.server.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every job command, run as the real jar, against one backend: {@link CliDirectIT} talks to Redis
 * with {@code --redis}, {@link CliServerIT} to a running {@code delayq serve} with {@code --server}.
 * The same commands must print the same things and end with the same exit codes in both.
 */
abstract class CliContract {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern DUE = Pattern.compile(" due (\\S+Z) \\((in [^)]*|[^)]* ago)\\)");

  @TempDir Path tmp;
  String queue;

  /** The options that point the CLI at the backend under test. */
  abstract List<String> connection();

  /** Schedules a job with the core API or the HTTP API, bypassing the CLI. */
  abstract void seed(String queue, String id, Duration delay);

  /** Claims the queue's one due job with a long lease, so it is active. */
  abstract void claimOne(String queue);

  /** Claims the queue's one due job with a 100 ms lease and never settles it, so that it expires. */
  abstract void claimAndAbandon(String queue);

  /** Leaves a job with this id and last error in the dead-letter set (max attempts 1, claimed, nacked). */
  abstract void makeDead(String queue, String id, String error);

  /** The queue names the backend knows. */
  abstract List<String> queueNames();

  /** Stores {@code count} schedules named {@code s000}, {@code s001}, ... (every hour), bypassing the CLI. */
  abstract void seedSchedules(String queue, int count);

  @BeforeEach
  void freshQueue() {
    queue = "cli-it-" + UUID.randomUUID().toString().substring(0, 8);
  }

  Cli.Result delayq(String... args) {
    return delayq(null, args);
  }

  Cli.Result delayq(byte[] stdin, String... args) {
    List<String> all = new ArrayList<>(Arrays.asList(args));
    all.addAll(connection());
    return Cli.run(all, stdin, Map.of());
  }

  static Instant dueIn(Cli.Result result) {
    Matcher m = DUE.matcher(result.out());
    assertThat(m.find()).as("a due time in %s", result).isTrue();
    return Instant.parse(m.group(1));
  }

  static void assertExit(Cli.Result result, int code) {
    assertThat(result.exitCode()).as("%s", result).isEqualTo(code);
    if (code != 0) {
      assertThat(result.err().lines()).as("one line on stderr: %s", result).hasSize(1);
      assertThat(result.err()).as("%s", result).containsPattern("^delayq[ :]");
    }
  }

  @Test
  void enqueueThenGetRescheduleAndCancel() throws Exception {
    Instant before = Instant.now();
    Cli.Result enqueued = delayq("enqueue", queue, "{\"order\":42}", "--id", "order-42", "--delay", "1h",
        "--max-attempts", "3");
    assertExit(enqueued, 0);
    assertThat(enqueued.out()).matches("order-42 due \\S+Z \\(in 59m \\d+s\\), created\\R");
    Instant due = dueIn(enqueued);
    assertThat(due).isBetween(before.plus(Duration.ofMinutes(60)).minusSeconds(5),
        Instant.now().plus(Duration.ofMinutes(60)).plusSeconds(5));

    Cli.Result got = delayq("get", queue, "order-42");
    assertExit(got, 0);
    assertThat(got.outLines()).containsExactly(
        "queue       " + queue,
        "id          order-42",
        "state       scheduled",
        got.outLines().get(3),
        "attempts    0 of 3",
        got.outLines().get(5),
        "payload     {\"order\":42}");
    assertThat(got.outLines().get(3)).startsWith("due         " + due.truncatedTo(ChronoUnit.MILLIS) + " (in 59m ");
    assertThat(got.outLines().get(5)).startsWith("created     ").endsWith(" ago)");

    JsonNode json = JSON.readTree(delayqOk("get", queue, "order-42", "--json").out());
    assertThat(json.get("id").asText()).isEqualTo("order-42");
    assertThat(json.get("state").asText()).isEqualTo("scheduled");
    assertThat(json.get("runAt").asLong()).isEqualTo(due.toEpochMilli());
    assertThat(json.get("attempts").asInt()).isZero();
    assertThat(json.get("maxAttempts").asInt()).isEqualTo(3);
    assertThat(json.get("payload").asText()).isEqualTo("{\"order\":42}");
    assertThat(json.get("createdAt").asLong()).isCloseTo(before.toEpochMilli(), within(10_000L));

    Instant beforeMove = Instant.now();
    Cli.Result moved = delayqOk("reschedule", queue, "order-42", "--delay", "5m");
    assertThat(moved.out()).startsWith("order-42 due ");
    assertThat(dueIn(moved)).isBetween(beforeMove.plus(Duration.ofMinutes(5)).minusSeconds(5),
        Instant.now().plus(Duration.ofMinutes(5)).plusSeconds(5));

    assertThat(delayqOk("cancel", queue, "order-42").out()).isEqualToIgnoringNewLines(
        "cancelled order-42 in queue " + queue);

    Cli.Result again = delayq("cancel", queue, "order-42");
    assertExit(again, 3);
    assertThat(again.err()).startsWith("delayq cancel: ").contains("order-42");
    Cli.Result gone = delayq("get", queue, "order-42");
    assertExit(gone, 3);
    assertThat(gone.err()).startsWith("delayq get: ").contains("order-42");
  }

  @Test
  void enqueueReadsStdinAndFilesAndKeepsAnExistingJob() throws Exception {
    Instant at = Instant.now().plus(Duration.ofDays(1)).truncatedTo(ChronoUnit.SECONDS);
    byte[] fromStdin = "from stdin\nline 2\n".getBytes(StandardCharsets.UTF_8);
    Cli.Result first = delayq(fromStdin, "enqueue", queue, "-", "--id", "j1", "--at", at.toString());
    assertExit(first, 0);
    assertThat(dueIn(first)).isEqualTo(at);

    Path file = Files.writeString(tmp.resolve("body.json"), "{\"from\":\"file\"}");
    Cli.Result kept = delayqOk("enqueue", queue, "@" + file, "--id", "j1", "--keep");
    assertThat(kept.out()).startsWith("j1 due " + at).contains("kept");

    JsonNode json = JSON.readTree(delayqOk("get", queue, "j1", "--json").out());
    assertThat(json.get("payload").asText()).as("one trailing newline dropped").isEqualTo("from stdin\nline 2");
    assertThat(json.get("runAt").asLong()).isEqualTo(at.toEpochMilli());

    Cli.Result generated = delayqOk("enqueue", queue, "@" + file, "-q");
    assertThat(generated.outLines()).hasSize(1);
    String id = generated.outLines().get(0);
    assertThat(id).isNotBlank().doesNotContain(" ");
    assertThat(delayqOk("get", queue, id).out()).contains("payload     {\"from\":\"file\"}");
  }

  @Test
  void aTextPayloadFromStdinOrAFileLosesOneTrailingNewlineUnlessRaw() throws Exception {
    delayqOk(bytes("two newlines\n\n"), "enqueue", queue, "-", "--id", "stdin");
    delayqOk(bytes("exact\n"), "enqueue", queue, "-", "--id", "raw", "--raw");
    Path crlf = Files.writeString(tmp.resolve("crlf.txt"), "windows line\r\n");
    delayqOk("enqueue", queue, "@" + crlf, "--id", "crlf");
    Path binary = Files.write(tmp.resolve("blob.bin"), new byte[] {(byte) 0xff, (byte) 0xfe, '\n'});
    delayqOk("enqueue", queue, "@" + binary, "--id", "binary");
    delayqOk("enqueue", queue, "typed\n", "--id", "typed");

    assertThat(payloadOf("stdin")).isEqualTo("two newlines\n");
    assertThat(payloadOf("raw")).isEqualTo("exact\n");
    assertThat(payloadOf("crlf")).isEqualTo("windows line");
    assertThat(payloadOf("typed")).as("an argument is taken as typed").isEqualTo("typed\n");
    JsonNode blob = JSON.readTree(delayqOk("get", queue, "binary", "--json").out());
    assertThat(blob.get("payloadBase64").asText()).as("bytes that are not text are kept whole").isEqualTo("//4K");
  }

  @Test
  void forwardSetsShowsAndRemovesAQueuesForwardingAndRefusesBadOptions() throws Exception {
    delayqOk("enqueue", queue, "x", "--id", "a", "--delay", "1h");
    assertThat(delayqOk("forward", queue).out()).contains("is not forwarded");

    Cli.Result set = delayqOk("forward", queue, "--list", "ready-" + queue, "--format", "envelope");
    assertThat(set.out()).contains("is forwarded").contains("ready-" + queue);
    JsonNode shown = JSON.readTree(delayqOk("forward", queue).out());
    assertThat(shown.path("type").asText()).isEqualTo("list");
    assertThat(shown.path("list").asText()).isEqualTo("ready-" + queue);
    assertThat(shown.path("format").asText()).isEqualTo("envelope");

    delayqOk("forward", queue, "--rabbitmq-exchange", "orders", "--routing-key", "order.cancel");
    shown = JSON.readTree(delayqOk("forward", queue).out());
    assertThat(shown.path("type").asText()).isEqualTo("rabbitmq");
    assertThat(shown.path("exchange").asText()).isEqualTo("orders");
    assertThat(shown.path("routingKey").asText()).isEqualTo("order.cancel");

    Cli.Result badFormat = delayq("forward", queue, "--list", "l", "--format", "xml");
    assertExit(badFormat, 2);
    assertThat(badFormat.err()).startsWith("delayq forward: --format").contains("raw");
    Cli.Result emptyExchange = delayq("forward", queue, "--rabbitmq-exchange", "");
    assertExit(emptyExchange, 2);
    assertThat(emptyExchange.err()).startsWith("delayq forward: --rabbitmq-exchange");
    Cli.Result emptyList = delayq("forward", queue, "--list", "");
    assertExit(emptyList, 2);
    assertThat(emptyList.err()).startsWith("delayq forward: --list is empty");
    Cli.Result both = delayq("forward", queue, "--list", "l", "--off");
    assertThat(both.exitCode()).as("%s", both).isEqualTo(2);
    // the refused calls changed nothing
    assertThat(JSON.readTree(delayqOk("forward", queue).out()).path("exchange").asText()).isEqualTo("orders");

    delayqOk("forward", queue, "--off");
    assertThat(delayqOk("forward", queue).out()).contains("is not forwarded");
    assertExit(delayq("forward", "no-such-" + queue), 3);
  }

  @Test
  void enqueueWithPartitionsCreatesTheQueueWithThatManyAndRefusesAnotherCount() {
    delayqOk("enqueue", queue, "x", "--id", "a", "--partitions", "4");
    assertThat(rowOf(delayqOk("stats", queue).outLines(), queue).split(" +")[1]).isEqualTo("4");

    delayqOk("enqueue", queue, "y", "--id", "b", "--partitions", "4");
    delayqOk("enqueue", queue, "z", "--id", "c");
    Cli.Result other = delayq("enqueue", queue, "w", "--id", "d", "--partitions", "2");
    assertExit(other, 4);
    assertThat(other.err()).startsWith("delayq enqueue: ").contains("partition");
    assertThat(rowOf(delayqOk("stats", queue).outLines(), queue).split(" +")).startsWith(queue, "4", "3");
  }

  @Test
  void controlCharactersInPayloadsAndErrorsArePrintedEscaped() throws Exception {
    String hostile = "\u001b[2J\u001b]0;owned\u0007red\rover\u202egnp.exe\u009b1m\u007f\ttab\nline 2";
    delayqOk(bytes(hostile), "enqueue", queue, "-", "--id", "hostile", "--raw", "--delay", "1h");

    Cli.Result got = delayqOk("get", queue, "hostile");
    assertThat(got.out()).contains("payload     \\u001b[2J\\u001b]0;owned\\u0007red\\u000dover\\u202egnp.exe"
        + "\\u009b1m\\u007f\ttab\n" + " ".repeat(12) + "line 2");
    assertNoTerminalControls(got.out());
    Cli.Result json = delayqOk("get", queue, "hostile", "--json");
    assertNoTerminalControls(json.out());
    assertThat(JSON.readTree(json.out()).get("payload").asText()).as("--json is exact").isEqualTo(hostile);

    makeDead(queue, "dead-hostile", "boom \u001b[31mred\u001b[0m");
    Cli.Result dead = delayqOk("dead", "list", queue);
    assertThat(rowOf(dead.outLines(), "dead-hostile")).endsWith("boom \\u001b[31mred\\u001b[0m");
    assertNoTerminalControls(dead.out());

    Cli.Result badId = delayq("enqueue", queue, "x", "--id", "a\u001b[2Jb");
    assertExit(badId, 2);
    assertThat(badId.err()).contains("a\\u001b[2Jb");
    assertNoTerminalControls(badId.err());
  }

  @Test
  void statsOfAKnownAndAMissingQueueShowsTheKnownOneAndExits3() throws Exception {
    seed(queue, "later", Duration.ofHours(1));
    String missing = queue + "-missing";

    Cli.Result table = delayq("stats", queue, missing);
    assertExit(table, 3);
    assertThat(table.outLines()).hasSize(2);
    assertThat(rowOf(table.outLines(), queue).split(" +")).containsExactly(queue, "1", "1", "0", "0", "0", "0", "no");
    assertThat(table.err()).startsWith("delayq stats: ").contains("'" + missing + "'");

    Cli.Result json = delayq("stats", missing, queue, "--json");
    assertExit(json, 3);
    JsonNode stats = JSON.readTree(json.out());
    assertThat(stats).hasSize(1);
    assertThat(stats.get(0).get("queue").asText()).isEqualTo(queue);
  }

  @Test
  void statsIsATableOfEveryQueueAndShowsPause() {
    String other = queue + "-b";
    makeDead(queue, "dead-1", "boom");
    seed(queue, "due-now", Duration.ZERO);
    seed(queue, "later", Duration.ofHours(1));
    seed(other, "later", Duration.ofHours(1));

    assertThat(delayqOk("pause", queue).out()).startsWith("paused queue " + queue);
    Cli.Result stats = delayqOk("stats");
    List<String> lines = stats.outLines();
    String header = lines.get(0);
    assertThat(header).matches("QUEUE +PARTITIONS +SCHEDULED +DUE +ACTIVE +EXPIRED +DEAD +PAUSED");
    String row = rowOf(lines, queue);
    String otherRow = rowOf(lines, other);
    assertThat(row.split(" +")).containsExactly(queue, "1", "2", "1", "0", "0", "1", "yes");
    assertThat(otherRow.split(" +")).containsExactly(other, "1", "1", "0", "0", "0", "0", "no");
    // aligned: PAUSED values start under the header, numbers end under the end of theirs
    int partitionsEnd = header.indexOf("PARTITIONS") + "PARTITIONS".length();
    int deadEnd = header.indexOf("DEAD") + "DEAD".length();
    for (String r : List.of(row, otherRow)) {
      assertThat(r.substring(header.indexOf("PAUSED"))).isIn("yes", "no");
      assertThat(r.substring(0, partitionsEnd)).endsWith(" 1");
      assertThat(r.substring(0, deadEnd)).matches(".* [01]");
    }

    assertThat(delayqOk("resume", queue).out()).startsWith("resumed queue " + queue);
    List<String> named = delayqOk("stats", queue, other).outLines();
    assertThat(named).hasSize(3);
    assertThat(named.get(1).split(" +")).containsExactly(queue, "1", "2", "1", "0", "0", "1", "no");
    assertThat(named.get(2)).startsWith(other + " ");
  }

  @Test
  void deadListRequeueAndDelete() {
    makeDead(queue, "d1", "java.lang.IllegalStateException: payment service said no\n\tat Shop.pay(Shop.java:42)");
    makeDead(queue, "d2", "x".repeat(200));

    List<String> lines = delayqOk("dead", "list", queue).outLines();
    assertThat(lines.get(0)).matches("ID +ATTEMPTS +DEAD AT +LAST ERROR");
    assertThat(lines).hasSize(3);
    assertThat(rowOf(lines, "d1"))
        .matches("d1 +1/1  \\d{4}-\\d\\d-\\d\\dT\\S+Z  java.lang.IllegalStateException: payment service said no\\.\\.\\.");
    assertThat(rowOf(lines, "d2")).endsWith("  " + "x".repeat(57) + "...");

    assertThat(delayqOk("dead", "requeue", queue, "d1").out()).startsWith("requeued d1 in queue " + queue);
    assertThat(delayqOk("dead", "delete", queue, "d2").out()).startsWith("deleted dead job d2");
    Cli.Result again = delayq("dead", "delete", queue, "d2");
    assertExit(again, 3);
    assertThat(again.err()).startsWith("delayq dead delete: ").contains("d2");

    Cli.Result requeued = delayqOk("get", queue, "d1");
    assertThat(requeued.out()).contains("state       scheduled").contains("attempts    0 of 1");
  }

  @Test
  void anActiveJobCannotBeRescheduledOrCancelled() {
    seed(queue, "busy", Duration.ZERO);
    claimOne(queue);

    Cli.Result moved = delayq("reschedule", queue, "busy", "--delay", "1m");
    assertExit(moved, 4);
    assertThat(moved.err()).startsWith("delayq reschedule: ").contains("busy").contains("wait for that attempt to end");
    Cli.Result cancelled = delayq("cancel", queue, "busy");
    assertExit(cancelled, 4);
    assertThat(cancelled.err()).startsWith("delayq cancel: ").contains("busy");

    Cli.Result got = delayqOk("get", queue, "busy");
    assertThat(got.out()).contains("state       active").contains("lease until ").contains("attempts    1 of ");
  }

  @Test
  void aLeaseThatEndedWithoutAnAckShowsAsExpiredInGetAndStats() throws Exception {
    seed(queue, "abandoned", Duration.ZERO);
    claimAndAbandon(queue);
    Thread.sleep(300);

    Cli.Result got = delayqOk("get", queue, "abandoned");
    assertThat(got.out()).contains("state       expired").contains("lease ended ").contains(" ago)")
        .contains("attempts    1 of ");
    JsonNode json = JSON.readTree(delayqOk("get", queue, "abandoned", "--json").out());
    assertThat(json.get("state").asText()).isEqualTo("expired");
    assertThat(json.get("leaseUntil").asLong()).isLessThan(System.currentTimeMillis());

    List<String> lines = delayqOk("stats", queue).outLines();
    assertThat(rowOf(lines, queue).split(" +")).containsExactly(queue, "1", "0", "0", "0", "1", "0", "no");
    JsonNode stats = JSON.readTree(delayqOk("stats", queue, "--json").out());
    assertThat(stats.get(0).get("active").asLong()).isZero();
    assertThat(stats.get(0).get("expired").asLong()).isEqualTo(1);
  }

  @Test
  void anUnknownQueueIsNotFoundAndNotCreated() {
    // why: four independent launches; side by side they take the time of about two
    List<CompletableFuture<Cli.Result>> runs = Stream.of(
            new String[] {"get", queue, "x"},
            new String[] {"pause", queue},
            new String[] {"stats", queue},
            new String[] {"dead", "list", queue},
            new String[] {"cancel", queue, "x"},
            new String[] {"dead", "requeue", queue, "x"})
        .map(args -> CompletableFuture.supplyAsync(() -> delayq(args)))
        .toList();
    for (CompletableFuture<Cli.Result> run : runs) {
      Cli.Result result = run.join();
      assertExit(result, 3);
      // the way out is said in CLI terms, not as an HTTP call
      assertThat(result.err()).as("%s", result).contains("no queue '" + queue + "'")
          .contains("`delayq enqueue " + queue + " PAYLOAD` creates it").contains("--partitions")
          .doesNotContain("/v1/");
    }
    assertThat(queueNames()).doesNotContain(queue);
  }

  @Test
  void scheduleSetListPauseResumeRunNowAndRemove() throws Exception {
    Cli.Result noQueue = delayq("schedule", "ls", queue);
    assertExit(noQueue, 3);
    assertThat(noQueue.err()).startsWith("delayq schedule ls: no queue '" + queue + "'");

    Cli.Result created = delayqOk("schedule", "set", queue, "tick", "--every", "1h", "--payload", "hi",
        "--max-attempts", "3");
    assertThat(created.out()).startsWith("created schedule tick in queue " + queue + ": every 1h 0m, next runs ");
    Cli.Result replaced = delayqOk("schedule", "set", queue, "tick", "--cron", "0 9 * * *", "--zone",
        "Europe/Amsterdam", "--payload", "hi", "--misfire", "run-up-to=3", "--grace", "2m", "--overlap", "skip");
    assertThat(replaced.out()).startsWith(
        "replaced schedule tick in queue " + queue + ": cron '0 9 * * *' in Europe/Amsterdam, next runs ");

    List<String> table = delayqOk("schedule", "ls", queue).outLines();
    assertThat(table.get(0)).matches("NAME +WHEN +NEXT RUN +LAST RUN +FIRED +SKIPPED +STATE");
    assertThat(rowOf(table, "tick")).contains("cron '0 9 * * *' in Europe/Amsterdam").endsWith(" active");

    JsonNode view = JSON.readTree(delayqOk("schedule", "ls", queue, "--json").out()).path("schedules").get(0);
    assertThat(view.path("name").asText()).isEqualTo("tick");
    assertThat(view.path("zone").asText()).isEqualTo("Europe/Amsterdam");
    assertThat(view.path("payload").asText()).isEqualTo("hi");
    assertThat(view.path("misfire").path("policy").asText()).isEqualTo("runUpTo");
    assertThat(view.path("misfire").path("maxRuns").asInt()).isEqualTo(3);
    assertThat(view.path("misfire").path("graceMs").asLong()).isEqualTo(120_000L);
    assertThat(view.path("overlap").asText()).isEqualTo("skip");
    assertThat(view.path("maxAttempts").asInt()).as("left out: the queue's default").isEqualTo(5);
    assertThat(view.path("version").asLong()).isEqualTo(2);
    assertThat(view.path("upcomingLocal")).hasSize(5);
    view.path("upcomingLocal").forEach(at ->
        assertThat(java.time.OffsetDateTime.parse(at.asText()).toLocalTime()).isEqualTo(java.time.LocalTime.of(9, 0)));

    assertThat(delayqOk("schedule", "pause", queue, "tick").out()).startsWith("paused schedule tick in queue " + queue);
    assertThat(delayqOk("schedule", "resume", queue, "tick").out())
        .startsWith("resumed schedule tick in queue " + queue + ": next runs ");

    String id = delayqOk("schedule", "run-now", queue, "tick", "-q").out().strip();
    assertThat(id).startsWith("tick@");
    assertThat(payloadOf(id)).isEqualTo("hi");

    assertThat(delayqOk("schedule", "rm", queue, "tick").out()).isEqualToIgnoringNewLines(
        "removed schedule tick from queue " + queue);
    for (String command : List.of("rm", "pause")) {
      Cli.Result missing = delayq("schedule", command, queue, "tick");
      assertExit(missing, 3);
      assertThat(missing.err()).startsWith("delayq schedule " + command + ": queue '" + queue
          + "' has no schedule named 'tick'");
    }
    assertThat(delayqOk("schedule", "ls", queue).out()).startsWith("no schedules in queue " + queue);
  }

  @Test
  void scheduleLsFollowsTheCursorsToTheLastSchedule() throws Exception {
    int count = ScheduleCommand.ListSchedules.PAGE * 2 + 3;
    seedSchedules(queue, count);

    List<String> table = delayqOk("schedule", "ls", queue).outLines();
    JsonNode json = JSON.readTree(delayqOk("schedule", "ls", queue, "--json").out());

    assertThat(table).hasSize(count + 1);
    assertThat(table.get(count)).startsWith(String.format("s%03d ", count - 1));
    List<String> names = new ArrayList<>();
    json.path("schedules").forEach(view -> names.add(view.path("name").asText()));
    assertThat(names).hasSize(count).doesNotHaveDuplicates().isSorted();
  }

  @Test
  void aScheduleSetTheStoreWouldRefuseCreatesNoQueue() {
    Cli.Result past = delayq("schedule", "set", queue, "s", "--every", "1h", "--end", "2020-01-01T00:00:00Z");
    Cli.Result none = delayq("schedule", "set", queue, "s", "--cron", "0 0 * * *", "--start", "2030-01-01T00:00:01Z",
        "--end", "2030-01-01T23:59:59Z");

    assertThat(past.exitCode()).as("%s", past).isEqualTo(ExitCodes.USAGE);
    assertThat(past.err()).as("%s", past).contains("--end").doesNotContain("endAt");
    assertThat(none.exitCode()).as("%s", none).isEqualTo(ExitCodes.USAGE);
    assertThat(none.err()).as("%s", none).contains("--cron").doesNotContain("startAt").doesNotContain("endAt");
    assertThat(queueNames()).doesNotContain(queue);
  }

  @Test
  void scheduleSetReadsAPayloadFileAndStoresAPausedScheduleBetweenItsStartAndEnd() throws Exception {
    Path body = Files.writeString(tmp.resolve("digest.json"), "{\"kind\":\"digest\"}\n");
    Instant start = Instant.now().plus(Duration.ofDays(1)).truncatedTo(ChronoUnit.SECONDS);
    Cli.Result set = delayqOk("schedule", "set", queue, "digest", "--every", "30m", "--payload-file", body.toString(),
        "--start", start.toString(), "--end", start.plus(Duration.ofDays(7)).toString(), "--paused", "--json");
    JsonNode view = JSON.readTree(set.out());
    assertThat(view.path("payload").asText()).isEqualTo("{\"kind\":\"digest\"}");
    assertThat(view.path("every").asText()).isEqualTo("PT30M");
    assertThat(view.path("startAt").asText()).isEqualTo(start.toString());
    assertThat(view.path("endAt").asText()).isEqualTo(start.plus(Duration.ofDays(7)).toString());
    assertThat(view.path("paused").asBoolean()).isTrue();
    assertThat(view.path("nextRun").isNull()).isTrue();
    assertThat(view.path("upcoming").get(0).asText()).isEqualTo(start.toString());

    Cli.Result refused = delayq("schedule", "set", queue + "-new", "s", "--cron", "61 * * * *");
    assertExit(refused, 2);
    assertThat(refused.err()).startsWith("delayq schedule set: --cron ");
    assertExit(delayq("stats", queue + "-new"), 3);
  }

  Cli.Result delayqOk(String... args) {
    return delayqOk(null, args);
  }

  Cli.Result delayqOk(byte[] stdin, String... args) {
    Cli.Result result = delayq(stdin, args);
    assertExit(result, 0);
    assertThat(result.err()).as("%s", result).isEmpty();
    return result;
  }

  String payloadOf(String id) throws Exception {
    return JSON.readTree(delayqOk("get", queue, id, "--json").out()).get("payload").asText();
  }

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** Nothing that moves the cursor, recolours, retitles the terminal or reorders the text is printed raw. */
  static void assertNoTerminalControls(String printed) {
    for (int i = 0; i < printed.length(); i++) {
      char c = printed.charAt(i);
      boolean control = (c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7f && c <= 0x9f)
          || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
      assertThat(control).as("U+%04X at index %d of:\n%s", (int) c, i, printed).isFalse();
    }
  }

  static String rowOf(List<String> lines, String first) {
    return lines.stream().filter(l -> l.startsWith(first + " ")).findFirst()
        .orElseThrow(() -> new AssertionError("no row for " + first + " in\n" + String.join("\n", lines)));
  }
}
