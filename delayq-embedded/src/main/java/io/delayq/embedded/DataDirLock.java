package io.delayq.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An exclusive lock on a data dir ({@link FileChannel#tryLock()} on {@code redis.lock} in it), held from the first
 * start of a server until it is closed, so that no two servers, in this JVM or any other, ever run on one AOF. The
 * operating system releases it when the holding JVM dies, however it dies. The file holds the holder's pid, for the
 * message of whoever is refused.
 */
final class DataDirLock implements AutoCloseable {

    static final String FILE_NAME = "redis.lock";

    /**
     * why: POSIX record locks belong to the process, and closing any channel on the file in this JVM would drop a lock
     * another instance here holds. So a second instance in this JVM is refused from this set, before it opens the file.
     */
    private static final Set<Path> HELD_IN_THIS_JVM = ConcurrentHashMap.newKeySet();

    private final Path key;
    private final FileChannel channel;
    private final FileLock lock;

    private DataDirLock(Path key, FileChannel channel, FileLock lock) {
        this.key = key;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Locks {@code dataDir}.
     *
     * @throws DataDirInUseException when another process or instance holds it
     */
    static DataDirLock acquire(Path dataDir) {
        Path lockFile = dataDir.resolve(FILE_NAME);
        Path key;
        try {
            key = dataDir.toRealPath();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot resolve the data dir " + dataDir, e);
        }
        if (!HELD_IN_THIS_JVM.add(key)) {
            throw new DataDirInUseException(dataDir, lockFile, ProcessHandle.current().pid());
        }
        FileChannel channel = null;
        try {
            PrivateFiles.createPrivateFile(lockFile);
            channel = FileChannel.open(lockFile, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                long holder = readPid(lockFile);
                throw new DataDirInUseException(dataDir, lockFile, holder);
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)),
                    0);
            channel.force(false);
            return new DataDirLock(key, channel, lock);
        } catch (IOException | RuntimeException e) {
            closeQuietly(channel);
            HELD_IN_THIS_JVM.remove(key);
            if (e instanceof IOException io) {
                throw new UncheckedIOException("Cannot lock the data dir " + dataDir + " (" + lockFile + ")", io);
            }
            throw (RuntimeException) e;
        }
    }

    private static long readPid(Path lockFile) {
        try {
            String text = Files.readString(lockFile, StandardCharsets.US_ASCII).trim();
            return text.isEmpty() ? -1 : Long.parseLong(text);
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /** Releases the lock; the file stays (deleting it would race with a process about to lock it). */
    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException e) {
            // closing the channel below releases it too
        } finally {
            closeQuietly(channel);
            HELD_IN_THIS_JVM.remove(key);
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing left to release
            }
        }
    }
}
