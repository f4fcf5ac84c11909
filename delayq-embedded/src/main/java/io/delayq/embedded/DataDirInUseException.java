package io.delayq.embedded;

import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Thrown by {@link RedisServerProcess#start()} when another process (or another {@code RedisServerProcess} in this
 * JVM) holds the lock on the same data dir: two Redis servers appending to one AOF would corrupt it.
 *
 * @since 0.2.0
 */
public final class DataDirInUseException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final transient Path dataDir;
    private final long holderPid;

    DataDirInUseException(Path dataDir, Path lockFile, long holderPid) {
        super("The Redis data dir " + dataDir + " is in use by "
                + (holderPid > 0 ? "process " + holderPid : "another process (pid unknown)")
                + (holderPid == ProcessHandle.current().pid() ? " (this JVM)" : "") + ", which holds " + lockFile
                + ": two Redis servers on one AOF would corrupt it. Stop that process, or use another data dir");
        this.dataDir = dataDir;
        this.holderPid = holderPid;
    }

    /** The data dir that is in use. */
    public Path dataDir() {
        return dataDir;
    }

    /** The pid of the process holding the lock, when it wrote one into the lock file. */
    public OptionalLong holderPid() {
        return holderPid > 0 ? OptionalLong.of(holderPid) : OptionalLong.empty();
    }
}
