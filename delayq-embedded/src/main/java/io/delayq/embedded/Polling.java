package io.delayq.embedded;

import java.time.Duration;

/**
 * Waiting for a group of processes to reach a state (a cluster formed, a failover done): a probe is
 * asked again every 50 ms until it answers instead of saying {@link NotYet}, and a timeout says what
 * the probe saw last, which is what one needs to know when a cluster never forms.
 */
final class Polling {
    private static final long POLL_MILLIS = 50;

    private Polling() {}

    /** A look at the processes: the state when it is reached, else {@link NotYet} saying what it saw. */
    @FunctionalInterface
    interface Probe<T> {
        T get() throws NotYet;
    }

    /** The state is not reached yet; the message says what was seen instead. */
    static final class NotYet extends Exception {
        private static final long serialVersionUID = 1L;

        NotYet(String message) {
            super(message, null, false, false);
        }
    }

    /** Calls {@code probe} until it returns instead of throwing {@link NotYet}; on timeout, says what it saw last. */
    static <T> T await(String what, Duration timeout, Probe<T> probe) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                return probe.get();
            } catch (NotYet e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("No " + what + " within " + timeout + "; last seen: "
                            + e.getMessage());
                }
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for " + what, e);
            }
        }
    }
}
