package io.delayq.embedded;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Run in a child JVM by the tests: starts a server with an AOF ({@code appendfsync always}) on the data dir given as
 * the only argument, writes {@code k=v}, prints {@code CHILD redis-pid <pid>} and {@code CHILD port <port>}, then waits
 * for standard input to close and closes the server. The tests kill it with SIGKILL before that, or refuse it.
 */
public final class ChildServerMain {

    private ChildServerMain() {
    }

    public static void main(String[] args) throws IOException {
        try (RedisServerProcess redis = RedisServerProcess.builder()
                .dataDir(Path.of(args[0]))
                .appendOnly(true)
                .appendFsync("always")
                .start()) {
            RawRedis.call(redis.port(), "SET", "k", "v");
            System.out.println("CHILD redis-pid " + redis.pid());
            System.out.println("CHILD port " + redis.port());
            System.out.flush();
            System.in.readAllBytes();
        } catch (DataDirInUseException e) {
            System.out.println("CHILD refused " + e.getMessage());
            System.out.flush();
            System.exit(3);
        }
    }
}
