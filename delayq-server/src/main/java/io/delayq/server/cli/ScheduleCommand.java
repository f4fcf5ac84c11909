package io.delayq.server.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import io.delayq.InvalidRequestException;
import io.delayq.Misfire;
import io.delayq.Overlap;
import io.delayq.Schedule;
import io.delayq.ScheduleInfo;
import io.delayq.ScheduledJob;
import io.delayq.internal.Recurrence;
import io.delayq.server.http.ScheduleJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

/** {@code delayq schedule ls|set|rm|pause|resume|run-now}: a queue's recurring schedules. */
@Command(
    name = "schedule",
    mixinStandardHelpOptions = true,
    description = {
      "Lists, stores, removes, pauses, resumes or runs a queue's recurring schedules.",
      "A schedule creates one job per occurrence of a cron expression or a fixed interval, with the id"
          + " <name>@<due instant>; any worker of the queue runs it. See docs/SCHEDULES.md."
    },
    subcommands = {
      ScheduleCommand.ListSchedules.class,
      ScheduleCommand.SetSchedule.class,
      ScheduleCommand.RemoveSchedule.class,
      ScheduleCommand.PauseSchedule.class,
      ScheduleCommand.ResumeSchedule.class,
      ScheduleCommand.RunNow.class
    },
    footer = {
      "",
      "Examples:",
      "  delayq schedule set reports daily-digest --cron '0 9 * * *' --zone Europe/Amsterdam --payload '{\"kind\":\"digest\"}'",
      "  delayq schedule set hooks heartbeat --every 5m --misfire run-once",
      "  delayq schedule ls reports",
      "  delayq schedule pause reports daily-digest"
    })
public final class ScheduleCommand {
  private ScheduleCommand() {}

  /** {@code delayq schedule ls <queue>}. */
  @Command(
      name = "ls",
      aliases = "list",
      mixinStandardHelpOptions = true,
      description = {
        "Lists all of a queue's schedules, by name, reading them page by page.",
        "Columns: name, when (cron expression and zone, or interval), next run, last run, occurrences handed to"
            + " workers, occurrences skipped (misfire or overlap), state (active, paused, or ended: past its end)."
            + " Exit code 3 when there is no such queue."
      },
      footer = {"", "Examples:", "  delayq schedule ls reports",
        "  delayq schedule ls reports --json | jq -r '.schedules[] | .name + \" \" + .nextRun'"})
  public static final class ListSchedules extends BackendCommand {
    /** Schedules asked for per call; a server may answer fewer, to keep its answer near 1 MiB. */
    static final int PAGE = 100;
    private static final List<String> HEADER = List.of("NAME", "WHEN", "NEXT RUN", "LAST RUN", "FIRED", "SKIPPED", "STATE");

    @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue.")
    String queue;

    @Option(names = "--json",
        description = "Print {\"schedules\":[…]} with the HTTP API's schedule views (instants in ISO-8601 UTC).")
    boolean json;

    @Override
    int run(Backend backend) {
      if (json) {
        printJson(backend);
        return ExitCodes.OK;
      }
      Instant now = Instant.now();
      List<List<String>> cells = new ArrayList<>();
      // why: a page's definitions, payloads included, are dropped once its rows are made
      pages(backend, page -> page.schedules().forEach(info -> cells.add(row(info, now))));
      if (cells.isEmpty()) {
        out().println("no schedules in queue " + queue + "; `delayq schedule set " + queue + " NAME --every 5m` stores one");
      } else {
        out().print(Format.table(HEADER, cells, 4, 5));
      }
      return ExitCodes.OK;
    }

    private void printJson(Backend backend) {
      try (JsonGenerator out = JobJson.generator(out())) {
        out.writeStartObject();
        out.writeArrayFieldStart("schedules");
        pages(backend, page -> page.schedules().forEach(info -> {
          try {
            out.writeTree(ScheduleJson.view(info));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }));
        out.writeEndArray();
        out.writeEndObject();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      out().println();
    }

    /** Hands {@code sink} every page of the queue's schedules, following the cursors to the last. */
    private void pages(Backend backend, Consumer<Backend.SchedulePage> sink) {
      String cursor = null;
      do {
        Backend.SchedulePage page = backend.listSchedules(queue, cursor, PAGE);
        sink.accept(page);
        if (page.nextCursor() != null && page.nextCursor().equals(cursor)) {
          // why: a server that hands back the cursor it was given would keep this loop going forever
          throw new CliException(ExitCodes.FAILED, "the schedule listing returned the same cursor '" + cursor
              + "' twice; stopped rather than list the same page forever. Please report it");
        }
        cursor = page.nextCursor();
      } while (cursor != null);
    }

    static String table(List<ScheduleInfo> schedules, Instant now) {
      List<List<String>> rows = new ArrayList<>();
      for (ScheduleInfo info : schedules) {
        rows.add(row(info, now));
      }
      return Format.table(HEADER, rows, 4, 5);
    }

    private static List<String> row(ScheduleInfo info, Instant now) {
      return List.of(info.name(), when(info.schedule()), Format.instant(info.nextRun(), now),
          Format.instant(info.lastRun()), Long.toString(info.fired()), Long.toString(info.skipped()), state(info));
    }
  }

  /** {@code delayq schedule set <queue> <name> --cron EXPR | --every DURATION [options]}. */
  @Command(
      name = "set",
      mixinStandardHelpOptions = true,
      description = {
        "Stores a schedule, or replaces the one with this name. Creates the queue on first use.",
        "The options are the whole definition: one left out takes its default, not the value stored before"
            + " (set it again with --paused to keep a paused schedule paused). A replaced schedule keeps its place"
            + " in time: no occurrence runs twice and none is lost. Prints the next runs."
      },
      footer = {
        "",
        "Examples:",
        "  delayq schedule set reports daily-digest --cron '0 9 * * *' --zone Europe/Amsterdam --payload '{\"kind\":\"digest\"}'",
        "  delayq schedule set reports weekly --cron '@weekly' --payload-file weekly.json --overlap skip",
        "  delayq schedule set hooks heartbeat --every 30s --misfire skip --grace 10s",
        "  delayq schedule set billing month-end --cron '0 0 1 * *' --misfire run-up-to=3 --max-attempts 10",
        "  delayq schedule set promo hourly --every 1h --start 2026-12-01T00:00:00Z --end 2026-12-24T00:00:00Z"
      })
  public static final class SetSchedule extends BackendCommand {
    @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue (1-128 of letters, digits, . _ - :).")
    String queue;

    @Parameters(index = "1", paramLabel = "NAME", description = "The schedule's name, unique in the queue (1-128 of"
        + " letters, digits, . _ - :).")
    String name;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Timing timing;

    static final class Timing {
      @Option(names = "--cron", required = true, paramLabel = "EXPR",
          description = "A cron expression: 5 fields (minute hour day-of-month month day-of-week), 6 with seconds"
              + " first, or a macro such as @daily; read in --zone.")
      String cron;

      @Option(names = "--every", required = true, paramLabel = "DURATION", converter = Converters.IntervalConverter.class,
          description = "A fixed interval of elapsed time, 1s to 1000d: 30s, 5m, 1h, 1d, 1h30m or ISO-8601 PT5M.")
      Duration every;
    }

    @Option(names = "--zone", paramLabel = "ZONE", defaultValue = "UTC",
        description = "The time zone the cron expression is read in: Europe/Amsterdam, UTC (the default), +01:00.")
    String zone;

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    PayloadSource payload;

    static final class PayloadSource {
      @Option(names = "--payload", required = true, paramLabel = "TEXT",
          description = "The payload of every occurrence's job, as typed (default: empty).")
      String text;

      @Option(names = "--payload-file", required = true, paramLabel = "PATH",
          description = "Read the payload from a file (- for stdin); one trailing newline of text is dropped.")
      String file;
    }

    @Option(names = "--misfire", paramLabel = "POLICY", converter = MisfireConverter.class,
        description = "What happens to occurrences missed while no worker ran or the queue was paused: skip (the"
            + " default), run-once (the first of them runs), run-up-to=N (up to N run, oldest first).")
    Misfire misfire;

    @Option(names = "--grace", paramLabel = "DURATION", converter = Converters.IntervalConverter.class,
        description = "How late an occurrence may start and still count as on time (default 1m).")
    Duration grace;

    @Option(names = "--overlap", paramLabel = "allow|skip", converter = OverlapConverter.class,
        description = "allow (the default): every occurrence runs at its time; skip: skip one while the one before"
            + " is still held by a worker or waiting for a retry.")
    Overlap overlap;

    @Option(names = "--start", paramLabel = "INSTANT", converter = Converters.InstantConverter.class,
        description = "No occurrence before this ISO-8601 instant; an interval counts from it.")
    Instant start;

    @Option(names = "--end", paramLabel = "INSTANT", converter = Converters.InstantConverter.class,
        description = "No occurrence after this ISO-8601 instant.")
    Instant end;

    @Option(names = "--paused", description = "Store it paused: no occurrence until `delayq schedule resume`.")
    boolean paused;

    @Option(names = "--max-attempts", paramLabel = "N",
        description = "Attempts of each occurrence's job; default: the queue's default (5 unless configured).")
    Integer maxAttempts;

    @Option(names = "--json", description = "Print the stored schedule as the HTTP API's schedule view.")
    boolean json;

    private Schedule schedule;

    @Override
    void prepare() {
      byte[] bytes = payload == null ? new byte[0]
          : payload.file != null ? readFile(payload.file) : payload.text.getBytes(StandardCharsets.UTF_8);
      if (start != null && end != null && !end.isAfter(start)) {
        throw CliException.usage("--end " + end + " is not after --start " + start + "; the schedule would never fire."
            + " Give an --end later than --start");
      }
      try {
        Schedule s = timing.cron != null ? Schedule.cron(name, timing.cron) : Schedule.every(name, timing.every);
        ZoneId zoneId = ScheduleJson.zone(zone);
        Misfire policy = misfire == null ? Misfire.skip() : misfire;
        s = s.inZone(zoneId)
            .withPayload(bytes)
            .startingAt(start)
            .endingAt(end)
            .withMisfire(grace == null ? policy : policy.withGrace(grace))
            .withOverlap(overlap == null ? Overlap.ALLOW : overlap)
            .withPaused(paused);
        schedule = maxAttempts == null ? s : s.withMaxAttempts(maxAttempts);
        // why: checked here, with this machine's clock, so that a schedule the store would refuse
        // (an --end in the past, no occurrence left) creates no queue, whichever the backend
        Recurrence.checkFires(schedule, System.currentTimeMillis());
      } catch (InvalidRequestException e) {
        throw CliException.usage(optionName(e.field()) + " " + ruleOf(e));
      }
      if (bytes.length > EnqueueCommand.MAX_PAYLOAD_BYTES) {
        throw CliException.usage(String.format(Locale.ROOT, "the payload is %,d bytes, more than the limit of %,d;"
            + " store the body elsewhere and put its key in the payload", bytes.length, EnqueueCommand.MAX_PAYLOAD_BYTES));
      }
    }

    @Override
    int run(Backend backend) {
      ScheduleInfo stored = backend.setSchedule(queue, schedule, maxAttempts != null);
      if (json) {
        out().println(JobJson.pretty(ScheduleJson.view(stored)));
        return ExitCodes.OK;
      }
      out().println((stored.version() == 1 ? "created" : "replaced") + " schedule " + stored.name() + " in queue "
          + queue + ": " + when(stored.schedule()) + ", " + nextRuns(stored));
      return ExitCodes.OK;
    }

    private static byte[] readFile(String path) {
      if (path.equals("-")) {
        try (InputStream in = System.in) {
          return EnqueueCommand.withoutTrailingNewline(in.readNBytes(EnqueueCommand.MAX_PAYLOAD_BYTES + 3));
        } catch (IOException e) {
          throw new CliException(ExitCodes.FAILED, "cannot read the payload from stdin: " + e.getMessage(), e);
        }
      }
      Path file = Path.of(path);
      try (InputStream in = Files.newInputStream(file)) {
        return EnqueueCommand.withoutTrailingNewline(in.readNBytes(EnqueueCommand.MAX_PAYLOAD_BYTES + 3));
      } catch (NoSuchFileException e) {
        throw CliException.usage("--payload-file " + file + " does not exist");
      } catch (IOException e) {
        throw CliException.usage("cannot read --payload-file " + file + ": " + e.getMessage());
      }
    }

    /** The option a core refusal is about, as the command line names it. */
    static String optionName(String field) {
      return switch (field) {
        case "cron" -> "--cron";
        case "every" -> "--every";
        case "zone" -> "--zone";
        case "payload" -> "--payload";
        case "startAt" -> "--start";
        case "endAt" -> "--end";
        case "misfire.grace" -> "--grace";
        case "misfire.maxRuns" -> "--misfire";
        case "maxAttempts" -> "--max-attempts";
        case "name" -> "NAME";
        case "cron/every" -> "--cron/--every";
        default -> field;
      };
    }

    /** The rule a core refusal states, with the fields it names spelt as the options are typed. */
    private static String ruleOf(InvalidRequestException e) {
      String message = e.getMessage();
      String rule = message.startsWith(e.field() + ": ") ? message.substring(e.field().length() + 2) : message;
      return rule.replace("startAt", "--start").replace("endAt", "--end");
    }
  }

  /** The commands that act on one schedule: {@code <queue> <name>}, then their own options. */
  abstract static class OneScheduleCommand extends BackendCommand {
    @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue.")
    String queue;

    @Parameters(index = "1", paramLabel = "NAME", description = "The schedule.")
    String name;
  }

  /** {@code delayq schedule rm <queue> <name>}. */
  @Command(
      name = "rm",
      aliases = "remove",
      mixinStandardHelpOptions = true,
      description = {
        "Removes a schedule and its pending occurrence; an occurrence a worker holds now runs to its end.",
        "Exit code 3 when there is no such schedule or queue."
      },
      footer = {"", "Examples:", "  delayq schedule rm reports daily-digest"})
  public static final class RemoveSchedule extends OneScheduleCommand {
    @Override
    int run(Backend backend) {
      backend.removeSchedule(queue, name);
      out().println("removed schedule " + name + " from queue " + queue);
      return ExitCodes.OK;
    }
  }

  /** {@code delayq schedule pause <queue> <name>}. */
  @Command(
      name = "pause",
      mixinStandardHelpOptions = true,
      description = {
        "Stops a schedule creating occurrences: its pending one is removed (one a worker holds runs to its end).",
        "`delayq schedule resume` starts it again. Exit code 3 when there is no such schedule or queue."
      },
      footer = {"", "Examples:", "  delayq schedule pause reports daily-digest"})
  public static final class PauseSchedule extends OneScheduleCommand {
    @Override
    int run(Backend backend) {
      backend.pauseSchedule(queue, name);
      out().println("paused schedule " + name + " in queue " + queue + ": no occurrence until `delayq schedule resume "
          + queue + " " + name + "`");
      return ExitCodes.OK;
    }
  }

  /** {@code delayq schedule resume <queue> <name>}. */
  @Command(
      name = "resume",
      mixinStandardHelpOptions = true,
      description = {
        "Starts a paused schedule again, from its first occurrence after now: those that fell in the pause do not run.",
        "Exit code 3 when there is no such schedule or queue."
      },
      footer = {"", "Examples:", "  delayq schedule resume reports daily-digest"})
  public static final class ResumeSchedule extends OneScheduleCommand {
    @Override
    int run(Backend backend) {
      ScheduleInfo info = backend.resumeSchedule(queue, name);
      out().println("resumed schedule " + name + " in queue " + queue + ": " + nextRuns(info));
      return ExitCodes.OK;
    }
  }

  /** {@code delayq schedule run-now <queue> <name>}. */
  @Command(
      name = "run-now",
      mixinStandardHelpOptions = true,
      description = {
        "Creates one extra job of a schedule, due now, with its payload: outside its sequence, so the pending"
            + " occurrence stays as it is and the overlap policy does not apply.",
        "Prints the job's id and due time. Exit code 3 when there is no such schedule or queue."
      },
      footer = {"", "Examples:", "  delayq schedule run-now reports daily-digest",
        "  delayq get reports \"$(delayq schedule run-now reports daily-digest -q)\""})
  public static final class RunNow extends OneScheduleCommand {
    @Option(names = {"-q", "--quiet"}, description = "Print only the job's id.")
    boolean quiet;

    @Override
    int run(Backend backend) {
      ScheduledJob job = backend.runScheduleNow(queue, name);
      out().println(quiet ? job.id() : job.id() + " due " + Format.instant(job.runAt(), Instant.now()) + ", created");
      return ExitCodes.OK;
    }
  }

  /** {@code cron '0 9 * * *' in Europe/Amsterdam} or {@code every 5m 0s}. */
  static String when(Schedule schedule) {
    return schedule.cron() != null
        ? "cron '" + schedule.cron() + "' in " + ScheduleJson.zoneName(schedule.zone())
        : "every " + Format.duration(schedule.every());
  }

  static String state(ScheduleInfo info) {
    return info.schedule().paused() ? "paused" : info.nextRun() == null ? "ended" : "active";
  }

  /** {@code next runs 2026-…Z (in 5m 0s), 2026-…Z, 2026-…Z}, or why there is none. */
  static String nextRuns(ScheduleInfo info) {
    if (info.schedule().paused()) {
      return "paused";
    }
    List<Instant> upcoming = info.upcoming(3);
    if (upcoming.isEmpty()) {
      return "no more runs: it is past its end";
    }
    List<String> shown = new ArrayList<>();
    shown.add(Format.instant(upcoming.get(0), Instant.now()));
    upcoming.subList(1, upcoming.size()).forEach(at -> shown.add(Format.instant(at)));
    return "next runs " + String.join(", ", shown);
  }

  /** {@code skip}, {@code run-once}, {@code run-up-to=N}. */
  static final class MisfireConverter implements ITypeConverter<Misfire> {
    private static final Pattern UP_TO = Pattern.compile("run-up-to=(\\d{1,9})");

    @Override
    public Misfire convert(String value) {
      String text = value.strip().toLowerCase(Locale.ROOT);
      if (text.equals("skip")) {
        return Misfire.skip();
      }
      if (text.equals("run-once")) {
        return Misfire.runOnce();
      }
      Matcher upTo = UP_TO.matcher(text);
      if (upTo.matches()) {
        int n = Integer.parseInt(upTo.group(1));
        if (n >= 1 && n <= Misfire.MAX_RUNS_LIMIT) {
          return Misfire.runUpTo(n);
        }
        throw new TypeConversionException("run-up-to needs N from 1 to " + Misfire.MAX_RUNS_LIMIT + "; got " + n);
      }
      throw new TypeConversionException("'" + value + "' is not a misfire policy; write skip, run-once or run-up-to=N");
    }
  }

  static final class OverlapConverter implements ITypeConverter<Overlap> {
    @Override
    public Overlap convert(String value) {
      return switch (value.strip().toLowerCase(Locale.ROOT)) {
        case "allow" -> Overlap.ALLOW;
        case "skip" -> Overlap.SKIP;
        default -> throw new TypeConversionException("'" + value + "' is not an overlap policy; write allow or skip");
      };
    }
  }
}
