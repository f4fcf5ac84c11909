/**
 * Runs a real {@code redis-server} as a child process of the JVM, for tests that need to crash and restart
 * Redis (SIGKILL, AOF recovery, same port and data dir) — something an in-process fake cannot do.
 *
 * <p>Entry point: {@link io.delayq.embedded.RedisServerProcess#builder()}.
 */
package io.delayq.embedded;
