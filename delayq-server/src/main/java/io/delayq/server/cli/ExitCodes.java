package io.delayq.server.cli;

/** The exit codes of the {@code delayq} command line, as API.md lists them. */
public final class ExitCodes {
  /** Done. */
  public static final int OK = 0;
  /** Failed: server or Redis unreachable, or an unexpected error. */
  public static final int FAILED = 1;
  /** A usage error: an unknown option, a bad value, an invalid request. */
  public static final int USAGE = 2;
  /** No such job or queue. */
  public static final int NOT_FOUND = 3;
  /** A conflict: the job is active, the lease is gone, or the change was refused. */
  public static final int CONFLICT = 4;
  /** The server wants a token, or refused the one given. */
  public static final int UNAUTHORIZED = 5;
  /**
   * Outcome unknown: Redis (or the server) did not answer in time, or the link dropped mid-call, so
   * the change may or may not have been made. Look before repeating it; an enqueue made with
   * {@code --keep} may be repeated as it was.
   */
  public static final int OUTCOME_UNKNOWN = 6;

  private ExitCodes() {}
}
