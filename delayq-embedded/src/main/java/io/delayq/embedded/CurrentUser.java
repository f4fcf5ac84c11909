package io.delayq.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The user this JVM runs as, by uid: what owner checks compare against (user names can be spoofed or missing). */
final class CurrentUser {

    private static volatile Integer uid;

    private CurrentUser() {
    }

    static int uid() {
        Integer known = uid;
        if (known == null) {
            known = readUid();
            uid = known;
        }
        return known;
    }

    /**
     * Linux: the owner of {@code /proc/self}, which is this process's effective uid. Elsewhere: the owner of a file
     * this process has just created, which is the same thing.
     */
    private static int readUid() {
        try {
            Path self = Path.of("/proc/self");
            if (Files.isDirectory(self)) {
                return (Integer) Files.getAttribute(self, "unix:uid");
            }
            Path probe = Files.createTempFile("delayq-uid-", ".probe");
            try {
                return (Integer) Files.getAttribute(probe, "unix:uid");
            } finally {
                Files.deleteIfExists(probe);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot find out which uid this process runs as", e);
        }
    }
}
