package io.delayq.server.cli;

/**
 * Ends a command with an exit code from {@link ExitCodes} and a one-line message for stderr that
 * says what was wrong and what to do.
 */
final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int exitCode;

  CliException(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  CliException(int exitCode, String message, Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }

  static CliException notFound(String message) {
    return new CliException(ExitCodes.NOT_FOUND, message);
  }

  static CliException usage(String message) {
    return new CliException(ExitCodes.USAGE, message);
  }
}
