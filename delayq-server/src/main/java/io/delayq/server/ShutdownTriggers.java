package io.delayq.server;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the server's ordered shutdown on SIGTERM and SIGINT, and from a shutdown hook for every
 * other way the JVM may end.
 *
 * <p>why: a shutdown hook alone is not enough. The JVM runs all hooks at once, in no order, and the
 * embedded Redis's own hook (in delayq-embedded) stops redis-server right away, while requests are
 * still draining. Handling the signals ourselves runs the whole ordered shutdown first (HTTP, then
 * the client, then Redis with SHUTDOWN) and only then lets the JVM exit, when the other hooks find
 * nothing left to do.
 */
final class ShutdownTriggers {
  private static final Logger log = LoggerFactory.getLogger(ShutdownTriggers.class);

  private ShutdownTriggers() {}

  static void install(DelayqServer server) {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> server.shutdown("JVM shutting down"), "delayq-shutdown-hook"));
    for (String signal : List.of("TERM", "INT")) {
      try {
        sun.misc.Signal.handle(new sun.misc.Signal(signal), received -> {
          Thread stopper = new Thread(() -> server.shutdown("SIG" + signal + " received"), "delayq-shutdown");
          stopper.start();
        });
      } catch (IllegalArgumentException | LinkageError e) {
        log.debug("cannot handle SIG{} here ({}); the shutdown hook will stop the server", signal, e.toString());
      }
    }
  }
}
