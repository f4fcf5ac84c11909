package io.delayq.server.cli;

import io.delayq.AdoptionReport;
import io.delayq.InvalidRequestException;
import io.delayq.SortedSetAdoption;
import io.delayq.SortedSetBridge;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code delayq adopt <source> --queue Q}: moves a hand-rolled sorted-set delay queue's members
 * into a delayq queue, once ({@code --once}) or until stopped.
 */
@Command(
    name = "adopt",
    mixinStandardHelpOptions = true,
    description = {
      "Takes over a hand-rolled delay queue: a sorted set whose producers write ZADD key <due> <payload>, the due"
          + " time in seconds or milliseconds. Each member becomes one delayq job (same payload, due at its score) in"
          + " the same script that removes it from the sorted set, so old consumers still running on it never get"
          + " one twice. Producers need not change. Runs until stopped (Ctrl-C), or with --once moves what is there"
          + " and exits. Needs --redis (REDIS_URL): the sorted set is on that Redis. See docs/ADOPTING.md."
    },
    footer = {"", "Examples:",
      "  delayq adopt delayed:orders --queue orders --unit seconds --id-field orderId --redis redis://127.0.0.1:6379",
      "  delayq adopt delay_queue --queue reminders --mode all --once --redis redis://127.0.0.1:6379"})
public final class AdoptCommand extends BackendCommand {
  @Parameters(index = "0", paramLabel = "SOURCE", description = "The sorted set's key.")
  String source;

  @Option(names = {"--queue", "-q"}, required = true, paramLabel = "QUEUE", description = "The delayq queue to fill.")
  String queue;

  @Option(names = "--unit", paramLabel = "seconds|milliseconds|detect", defaultValue = "detect",
      description = "What the scores count (default: ${DEFAULT-VALUE}, decided from the scores, refused when unclear).")
  String unit;

  @Option(names = "--id-field", paramLabel = "FIELD",
      description = "Take each job's id from this top-level field of the JSON member (e.g. orderId). Default: a"
          + " SHA-256 of the member, so identical members stay one job.")
  String idField;

  @Option(names = "--mode", paramLabel = "due|all", defaultValue = "due",
      description = "due: move members as they come due, the future stays in the sorted set (default); all: move"
          + " every member now, each still runs at its time.")
  String mode;

  @Option(names = "--batch", paramLabel = "N", defaultValue = "" + SortedSetAdoption.DEFAULT_BATCH,
      description = "Most members moved per script call (default ${DEFAULT-VALUE}).")
  int batch;

  @Option(names = "--once", description = "Move what is there now (due members, or all with --mode all) and exit.")
  boolean once;

  private SortedSetAdoption options;

  @Override
  void prepare() {
    try {
      SortedSetAdoption.Builder builder = SortedSetAdoption.from(source)
          .scoreUnit(SortedSetAdoption.ScoreUnit.of(unit))
          .moving(SortedSetAdoption.Mode.of(mode))
          .batch(batch);
      if (idField != null) {
        builder.jobIdFromJsonField(idField);
      } else {
        builder.jobIdFromMemberHash();
      }
      options = builder.build();
    } catch (InvalidRequestException e) {
      throw new CliException(ExitCodes.USAGE, optionName(e.field()) + ": " + e.getMessage()
          .substring(Math.min(e.getMessage().length(), e.field().length() + 2)));
    }
  }

  @Override
  int run(Backend backend) {
    if (once) {
      out().println(describe(backend.importSortedSet(queue, options)));
      return ExitCodes.OK;
    }
    SortedSetBridge bridge = backend.adopt(queue, options);
    out().println("adopting " + source + " into queue " + queue + " (" + options + "); Ctrl-C stops");
    out().flush();
    CountDownLatch stopped = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      bridge.close();
      out().println("stopped: " + describe(bridge.status().totals()));
      out().flush();
      stopped.countDown();
    }, "delayq-adopt-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    String last = "";
    while (true) {
      try {
        if (stopped.await(10, java.util.concurrent.TimeUnit.SECONDS)) {
          return ExitCodes.OK;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return ExitCodes.FAILED;
      }
      SortedSetBridge.Status status = bridge.status();
      String line = status.state() + ": " + describe(status.totals())
          + (status.lastError() == null ? "" : "; last error: " + status.lastError());
      if (!line.equals(last)) {
        out().println(line);
        out().flush();
        last = line;
      }
    }
  }

  static String describe(AdoptionReport report) {
    StringBuilder text = new StringBuilder()
        .append("moved ").append(report.moved())
        .append(", merged ").append(report.merged())
        .append(", taken by other consumers ").append(report.takenByOthers())
        .append(", remaining in ").append(report.source()).append(' ').append(report.remaining());
    if (report.unit() != null) {
      text.append(" (scores in ").append(report.unit().name().toLowerCase(java.util.Locale.ROOT)).append(')');
    }
    if (report.hashedIds() > 0) {
      text.append("; ").append(report.hashedIds()).append(" without a usable id field got the member hash");
    }
    if (report.heldBack() > 0) {
      text.append("; ").append(report.heldBack()).append(" held back (a job with their id is running or dead)");
    }
    if (report.rejected() > 0) {
      text.append("; ").append(report.rejected()).append(" rejected, left in the source: ").append(report.firstRejection());
    }
    return text.toString();
  }

  private static String optionName(String field) {
    return switch (field) {
      case "scoreUnit" -> "--unit";
      case "mode" -> "--mode";
      case "batch" -> "--batch";
      case "idField", "jobIdFromJsonField" -> "--id-field";
      case "source", "sourceKey" -> "SOURCE";
      default -> field;
    };
  }
}
