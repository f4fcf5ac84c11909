package io.delayq.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
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

    /** Every file and directory under {@code dir} (relative name to mode), {@code dir} itself as ".". */
    static Map<String, String> tree(Path dir) {
        Map<String, String> modes = new TreeMap<>();
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.forEach(p -> modes.put(p.equals(dir) ? "." : dir.relativize(p).toString(), of(p)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return modes;
    }

    static boolean isRoot() {
        return CurrentUser.uid() == 0;
    }
}
