package io.delayq.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** File modes for assertions, as {@code ls -l} shows them. */
final class Modes {

    private Modes() {
    }

    static String of(Path path) {
        try {
            return PosixFilePermissions.toString(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Every file and directory under {@code dir} (relative name to mode), {@code dir} itself as ".".
     * A file that is gone by the time its mode is read (Redis renames its AOF rewrite's temp file
     * into place) is left out: it was never there to be read by anyone else either.
     */
    static Map<String, String> tree(Path dir) {
        for (int attempt = 1; ; attempt++) {
            try {
                return walk(dir);
            } catch (UncheckedIOException e) {
                // why: the walk itself reads each entry's attributes, and fails on one that vanished
                if (!(e.getCause() instanceof NoSuchFileException) || attempt == 5) {
                    throw e;
                }
            }
        }
    }

    private static Map<String, String> walk(Path dir) {
        Map<String, String> modes = new TreeMap<>();
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.forEach(p -> {
                try {
                    String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
                    modes.put(p.equals(dir) ? "." : dir.relativize(p).toString(), mode);
                } catch (NoSuchFileException vanished) {
                    // renamed or deleted since the walk listed it
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return modes;
    }

    static boolean isRoot() {
        return CurrentUser.uid() == 0;
    }
}
