/**
 * Runs a real {@code redis-server} as a child process of the JVM, for tests that need to crash and restart
 * Redis (SIGKILL, AOF recovery, same port and data dir) — something an in-process fake cannot do.
 *
 * <p>Entry points: {@link io.delayq.embedded.RedisServerProcess#builder()} for one server, and
 * {@link io.delayq.embedded.RedisClusterProcesses#builder()} for a Redis Cluster of them that can lose a master
 * and fail over.
 */
package io.delayq.embedded;
