package io.delayq.internal;

import io.delayq.DelayqException;
import io.delayq.JobActiveException;
import io.delayq.JobNotFoundException;
import io.delayq.LeaseExpiredException;
import io.delayq.OutcomeUnknownException;
import io.delayq.RedisCommandException;
import io.delayq.RedisUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.time.Duration;

/**
 * Turns what Redis and Lettuce throw into delayq's exceptions, in one place. Scripts signal refusals
 * with error replies that start with a {@code DQ_} code; nothing else parses Redis strings.
 */
public final class Errors {
  private Errors() {}

  /** Waits for {@code future} and maps its failure. */
  static <T> T await(
      CompletableFuture<T> future,
      Duration timeout,
      String redisUri,
      String queue,
      String id,
      long token) {
    try {
      return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw noAnswer(redisUri, timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw interrupted(redisUri, e);
    } catch (ExecutionException | CompletionException | CancellationException e) {
      throw translate(e, redisUri, queue, id, token);
    }
  }

  /** A call Redis did not answer within {@code timeout}. */
  static OutcomeUnknownException noAnswer(String redisUri, Duration timeout, Throwable cause) {
    return new OutcomeUnknownException(
        "Redis at " + redisUri + " did not answer within " + timeout + ", so the call may or may not"
            + " have taken effect (the command may still run once the link recovers). Check that Redis"
            + " is running and not overloaded, or raise commandTimeout",
        cause);
  }

  /** A call whose caller was interrupted while it waited for the answer. */
  static OutcomeUnknownException interrupted(String redisUri, Throwable cause) {
    return new OutcomeUnknownException(
        "interrupted while waiting for Redis at " + redisUri + "; the call may or may not have taken effect", cause);
  }

  public static RuntimeException translate(
      Throwable error, String redisUri, String queue, String id, long token) {
    Throwable cause = unwrap(error);
    if (cause instanceof DelayqException d) {
      return d;
    }
    if (cause instanceof RedisCommandExecutionException && cause.getMessage() != null) {
      String message = cause.getMessage();
      if (message.contains("DQ_LEASE_EXPIRED")) {
        return new LeaseExpiredException(queue, id, token);
      }
      if (message.contains("DQ_ACTIVE")) {
        return new JobActiveException(queue, id, textAfterCode(message, "DQ_ACTIVE"));
      }
      if (message.contains("DQ_NOT_FOUND")) {
        return new JobNotFoundException(queue, id, textAfterCode(message, "DQ_NOT_FOUND"));
      }
      if (isTransient(message)) {
        return new RedisUnavailableException(
            "Redis at " + redisUri + " cannot serve this call right now (" + message
                + "); a failover, resharding or restart is under way. Retry shortly",
            cause);
      }
      return new RedisCommandException(
          "Redis at " + redisUri + " refused a delayq command: " + message
              + (message.startsWith("OOM")
                  ? ". Redis is out of memory: raise maxmemory or drain queues"
                  : message.startsWith("WRONGTYPE")
                      ? ". Another program wrote a key under delayq's 'dq' prefix"
                      : ""),
          cause);
    }
    if (cause instanceof TimeoutException) {
      return new OutcomeUnknownException(
          "Redis at " + redisUri + " did not answer in time, so the call may or may not have taken effect", cause);
    }
    if (cause instanceof RedisCommandTimeoutException) {
      return new OutcomeUnknownException(
          "Redis at " + redisUri + " did not answer in time (" + cause.getMessage()
              + "), so the call may or may not have taken effect; check that it is running and not"
              + " overloaded, or raise commandTimeout",
          cause);
    }
    if (cause instanceof RedisException && !(cause instanceof RedisConnectionException) && !isRefusedUnsent(cause)) {
      // why: the command was written and the link dropped before its reply; Redis may have run it
      return new OutcomeUnknownException(
          "the connection to Redis at " + redisUri + " dropped while the call was in flight ("
              + cause.getMessage() + "), so it may or may not have taken effect",
          cause);
    }
    if (cause instanceof RedisConnectionException || cause instanceof RedisException) {
      return new RedisUnavailableException(
          "Redis at " + redisUri + " is unreachable (" + cause.getMessage()
              + "); check that it is running and that the URL is right",
          cause);
    }
    if (cause instanceof RuntimeException r) {
      return r;
    }
    return new RedisUnavailableException("unexpected failure talking to " + redisUri, cause);
  }

  /**
   * Lettuce refuses a command without sending it while the connection is down (the client rejects
   * commands when disconnected), so such a call did nothing.
   */
  private static boolean isRefusedUnsent(Throwable cause) {
    String message = cause.getMessage();
    return message != null && (message.contains("not connected") || message.contains("Connection is closed"));
  }

  /** Replies of a Redis or cluster that is changing hands: the same call succeeds a moment later. */
  static boolean isTransient(String message) {
    for (String code : TRANSIENT_CODES) {
      if (message.startsWith(code)) {
        return true;
      }
    }
    return false;
  }

  private static final String[] TRANSIENT_CODES = {
    "MOVED", "ASK", "CLUSTERDOWN", "TRYAGAIN", "LOADING", "MASTERDOWN", "READONLY"
  };

  public static Throwable unwrap(Throwable error) {
    Throwable t = error;
    while ((t instanceof ExecutionException || t instanceof CompletionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  private static String textAfterCode(String message, String code) {
    int at = message.indexOf(code);
    return message.substring(at + code.length()).trim();
  }
}
