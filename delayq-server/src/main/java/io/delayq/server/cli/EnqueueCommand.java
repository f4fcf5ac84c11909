package io.delayq.server.cli;

import io.delayq.ScheduledJob;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code delayq enqueue <queue> <payload>}: schedules one job. */
@Command(
    name = "enqueue",
    mixinStandardHelpOptions = true,
    description = {
      "Schedules a job: due now, after --delay, or --at an instant.",
      "Prints its id and due time. Creates the queue on first use (with --partitions N partitions).",
      "A payload read from stdin (-) or a file (@path) loses one trailing newline (\\n or \\r\\n) if it is"
          + " text, as $(cat file) would; --raw keeps every byte. A payload is at most 1,048,576 bytes."
    },
    footer = {
      "",
      "Examples:",
      "  delayq enqueue orders '{\"order\":42}' --id order-42 --delay 30m",
      "  delayq enqueue calls 'call Ann' --at 2026-12-01T09:00:00Z --max-attempts 3",
      "  echo '{\"order\":43}' | delayq enqueue orders - --id order-43 --delay 1h --keep",
      "  delayq enqueue images @thumbnail.png --raw --partitions 8",
      "  ID=$(delayq enqueue -q hooks @body.json --delay 5s --redis redis://db:6379)"
    })
public final class EnqueueCommand extends BackendCommand {
  /** The largest payload: delayq-core's default, which the server uses too. */
  static final int MAX_PAYLOAD_BYTES = io.delayq.Delayq.Builder.DEFAULT_MAX_PAYLOAD_BYTES;
  static final int MAX_PARTITIONS = 1024;

  @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue (1-128 of letters, digits, . _ - :).")
  String queue;

  @Parameters(index = "1", paramLabel = "PAYLOAD",
      description = "The payload text; - reads it from stdin, @path from a file (see --raw).")
  String payload;

  @Option(names = "--raw",
      description = "Keep a payload from stdin or a file exactly as it is, trailing newline included.")
  boolean raw;

  @Option(names = "--partitions", paramLabel = "N",
      description = "Partitions of the queue if this creates it (1-1024, default 1). A queue that exists keeps"
          + " its count: another one is refused (exit code 4).")
  Integer partitions;

  @Option(names = "--id", paramLabel = "ID",
      description = "The job's id (at most 256 UTF-8 bytes); generated when left out.")
  String id;

  @ArgGroup(exclusive = true, multiplicity = "0..1")
  When when = new When();

  @Option(names = "--max-attempts", paramLabel = "N",
      description = "Deliveries before the job goes dead; default: the queue's default (5 unless configured).")
  Integer maxAttempts;

  @Option(names = "--keep",
      description = "If a job with this id exists, keep it as it is (default: replace its payload and time).")
  boolean keep;

  @Option(names = {"-q", "--quiet"}, description = "Print only the id.")
  boolean quiet;

  private byte[] bytes;

  @Override
  void prepare() {
    if (partitions != null && (partitions < 1 || partitions > MAX_PARTITIONS)) {
      throw CliException.usage("--partitions must be from 1 to " + MAX_PARTITIONS + "; got " + partitions);
    }
    bytes = readPayload();
  }

  @Override
  int run(Backend backend) {
    ScheduledJob job = backend.schedule(queue,
        new Backend.Enqueue(id, bytes, when == null ? null : when.delay, when == null ? null : when.at, maxAttempts, keep,
            partitions));
    if (quiet) {
      out().println(job.id());
    } else if (job.runAt() == null) {
      out().println(job.id() + " kept: a job with this id already exists and is not waiting (it is active or dead);"
          + " nothing changed");
    } else {
      String outcome = switch (job.outcome()) {
        case CREATED -> "created";
        case REPLACED -> "replaced the job that had this id";
        case KEPT -> "kept: a job with this id already existed; nothing changed";
      };
      out().println(job.id() + " due " + Format.instant(job.runAt(), Instant.now()) + ", " + outcome);
    }
    return ExitCodes.OK;
  }

  private byte[] readPayload() {
    if (payload.equals("-")) {
      try (InputStream in = System.in) {
        return fromStream(in, "on stdin");
      } catch (IOException e) {
        throw new CliException(ExitCodes.FAILED, "cannot read the payload from stdin: " + e.getMessage(), e);
      }
    }
    if (payload.startsWith("@")) {
      Path file = Path.of(payload.substring(1));
      try (InputStream in = Files.newInputStream(file)) {
        return fromStream(in, "in " + file);
      } catch (NoSuchFileException e) {
        throw CliException.usage("payload file " + file + " does not exist; give @path of a file,"
            + " or pipe text starting with @ through - (stdin)");
      } catch (IOException e) {
        throw CliException.usage("cannot read payload file " + file + ": " + e.getMessage());
      }
    }
    byte[] typed = payload.getBytes(StandardCharsets.UTF_8);
    if (typed.length > MAX_PAYLOAD_BYTES) {
      throw tooLarge("given", typed.length + " bytes, more than the limit of " + String.format(Locale.ROOT, "%,d", MAX_PAYLOAD_BYTES));
    }
    return typed;
  }

  /**
   * Reads at most the limit and a line end more, so that an endless source ({@code /dev/zero}, a
   * pipe that never closes its end aside) is refused at the limit instead of filling the heap.
   */
  private byte[] fromStream(InputStream in, String where) throws IOException {
    byte[] read = in.readNBytes(MAX_PAYLOAD_BYTES + 2 + 1);
    byte[] kept = raw ? read : withoutTrailingNewline(read);
    if (kept.length > MAX_PAYLOAD_BYTES) {
      throw tooLarge(where, "larger than the limit of " + String.format(Locale.ROOT, "%,d", MAX_PAYLOAD_BYTES) + " bytes");
    }
    return kept;
  }

  private static CliException tooLarge(String where, String size) {
    return CliException.usage("the payload " + where + " is " + size
        + "; store the body elsewhere (a file store, a database) and enqueue its key instead");
  }

  /**
   * Text without one trailing {@code \n} or {@code \r\n}: what {@code echo} and editors add. Bytes that
   * are not UTF-8 text are kept whole, since a last 0x0A there is data.
   */
  static byte[] withoutTrailingNewline(byte[] bytes) {
    int n = bytes.length;
    if (n == 0 || bytes[n - 1] != '\n' || HttpBackend.utf8(bytes) == null) {
      return bytes;
    }
    int end = n >= 2 && bytes[n - 2] == '\r' ? n - 2 : n - 1;
    return Arrays.copyOf(bytes, end);
  }
}
