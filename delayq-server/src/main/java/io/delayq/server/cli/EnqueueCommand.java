package io.delayq.server.cli;

import io.delayq.ScheduledJob;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
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
      "Prints its id and due time. Creates the queue on first use."
    },
    footer = {
      "",
      "Examples:",
      "  delayq enqueue orders '{\"order\":42}' --id order-42 --delay 30m",
      "  delayq enqueue calls 'call Ann' --at 2026-12-01T09:00:00Z --max-attempts 3",
      "  echo '{\"order\":43}' | delayq enqueue orders - --id order-43 --delay 1h --keep",
      "  ID=$(delayq enqueue -q hooks @body.json --delay 5s --redis redis://db:6379)"
    })
public final class EnqueueCommand extends BackendCommand {
  @Parameters(index = "0", paramLabel = "QUEUE", description = "The queue (1-128 of letters, digits, . _ - :).")
  String queue;

  @Parameters(index = "1", paramLabel = "PAYLOAD",
      description = "The payload text; - reads it from stdin, @path from a file (both as bytes).")
  String payload;

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
    bytes = readPayload();
  }

  @Override
  int run(Backend backend) {
    ScheduledJob job = backend.schedule(queue,
        new Backend.Enqueue(id, bytes, when == null ? null : when.delay, when == null ? null : when.at, maxAttempts, keep));
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
        return in.readAllBytes();
      } catch (IOException e) {
        throw new CliException(ExitCodes.FAILED, "cannot read the payload from stdin: " + e.getMessage(), e);
      }
    }
    if (payload.startsWith("@")) {
      Path file = Path.of(payload.substring(1));
      try {
        return Files.readAllBytes(file);
      } catch (NoSuchFileException e) {
        throw CliException.usage("payload file " + file + " does not exist; give @path of a file,"
            + " or pipe text starting with @ through - (stdin)");
      } catch (IOException e) {
        throw CliException.usage("cannot read payload file " + file + ": " + e.getMessage());
      }
    }
    return payload.getBytes(StandardCharsets.UTF_8);
  }
}
