package io.delayq.embedded;

/** Run in a child JVM by the tests: starts a server, prints its pid and data dir, and exits without closing it. */
public final class LeakyMain {

    private LeakyMain() {
    }

    public static void main(String[] args) {
        RedisServerProcess redis = RedisServerProcess.builder().start();
        System.out.println(redis.pid());
        System.out.println(redis.dataDir());
        System.out.flush();
        System.exit(0);
    }
}
