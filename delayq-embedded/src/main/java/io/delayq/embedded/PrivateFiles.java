package io.delayq.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Directories and files that only this user may read or write: created with owner-only modes, and refused when they
 * already exist in a state another user could have used to plant something (owned by someone else, writable by group
 * or others, a symbolic link where none belongs). On a file system without POSIX permissions (Windows) the checks are
 * skipped: the bundled binaries do not run there anyway.
 */
final class PrivateFiles {

    private static final Logger LOG = LoggerFactory.getLogger(PrivateFiles.class);

    static final Set<PosixFilePermission> OWNER_ONLY_DIR = PosixFilePermissions.fromString("rwx------");
    static final Set<PosixFilePermission> OWNER_ONLY_FILE = PosixFilePermissions.fromString("rw-------");
    static final Set<PosixFilePermission> OWNER_ONLY_EXECUTABLE = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> GROUP_OR_OTHERS_WRITE =
            EnumSet.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);
    /** appendonlydir/ of Redis 7 is one level below the data dir; nothing Redis writes is deeper. */
    private static final int TIGHTEN_DEPTH = 2;

    private static final boolean POSIX = Path.of("").getFileSystem().supportedFileAttributeViews().contains("posix");

    private PrivateFiles() {
    }

    static boolean posix() {
        return POSIX;
    }

    /**
     * Creates {@code dir} (and missing parents) with mode 0700, or checks the one that is there: it must be a
     * directory owned by this user that neither group nor others may write. Group or other read and execute bits on
     * a directory this user owns are removed (older versions created it 0755).
     *
     * @param what what the directory is for, for messages, e.g. "redis-server binary cache dir"
     * @param followLinks whether {@code dir} may be a symbolic link to a directory (a data dir chosen by the user may;
     *     a fixed name in a shared temp dir may not)
     * @throws IllegalStateException saying what is wrong and what to do, when it is not safe to use
     */
    static Path ensurePrivateDir(Path dir, String what, boolean followLinks) {
        Path absolute = dir.toAbsolutePath().normalize();
        try {
            if (!Files.exists(absolute, LinkOption.NOFOLLOW_LINKS)) {
                Path parent = absolute.getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                try {
                    // why: created with the mode in one step; a chmod after mkdir would leave a window with 0755
                    Files.createDirectory(absolute, POSIX ? new FileAttribute<?>[] {
                        PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR)} : new FileAttribute<?>[0]);
                } catch (FileAlreadyExistsException raced) {
                    // another process created it between our check and mkdir: check what it made, below
                }
            }
            if (!POSIX) {
                return absolute;
            }
            if (Files.isSymbolicLink(absolute) && !followLinks) {
                throw new IllegalStateException("Refusing to use the " + what + " " + absolute + ": it is a symbolic"
                        + " link (to " + Files.readSymbolicLink(absolute) + "), which another user may have placed"
                        + " there. Remove it (rm " + absolute + ") and start again");
            }
            Path real = absolute.toRealPath();
            PosixFileAttributes attributes = Files.readAttributes(real, PosixFileAttributes.class);
            if (!attributes.isDirectory()) {
                throw new IllegalStateException("The " + what + " " + absolute + " is not a directory; remove it or"
                        + " choose another path");
            }
            requireOwnedByUs(real, what, "directory");
            Set<PosixFilePermission> permissions = attributes.permissions();
            if (!Collections.disjoint(permissions, GROUP_OR_OTHERS_WRITE)) {
                throw new IllegalStateException("Refusing to use the " + what + " " + absolute + ": its mode is "
                        + mode(permissions) + ", so other users may write into it and plant files there. Make it"
                        + " private (chmod 700 " + absolute + ") after checking its content, or remove it");
            }
            if (!permissions.equals(OWNER_ONLY_DIR)) {
                Files.setPosixFilePermissions(real, OWNER_ONLY_DIR);
                LOG.warn("Made the {} {} private: mode {} -> 0700", what, absolute, mode(permissions));
            }
            return absolute;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create or check the " + what + " " + absolute, e);
        }
    }

    /**
     * Refuses {@code file} unless it is a regular file (not a link) owned by this user that neither group nor others
     * may write.
     */
    static void requirePrivateRegularFile(Path file, String what) throws IOException {
        if (!POSIX) {
            return;
        }
        PosixFileAttributes attributes = Files.readAttributes(file, PosixFileAttributes.class,
                LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isRegularFile()) {
            throw new IllegalStateException("Refusing to run the " + what + " " + file + ": it is not a regular file"
                    + (attributes.isSymbolicLink() ? " but a symbolic link" : "") + ". Remove it (rm " + file
                    + ") and start again");
        }
        requireOwnedByUs(file, what, "file");
        if (!Collections.disjoint(attributes.permissions(), GROUP_OR_OTHERS_WRITE)) {
            throw new IllegalStateException("Refusing to run the " + what + " " + file + ": its mode is "
                    + mode(attributes.permissions()) + ", so other users may have replaced it. Remove it (rm " + file
                    + ") and start again");
        }
    }

    private static void requireOwnedByUs(Path path, String what, String kind) throws IOException {
        int owner = (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        int us = CurrentUser.uid();
        if (owner != us) {
            throw new IllegalStateException("Refusing to use the " + what + " " + path + ": the " + kind
                    + " is owned by uid " + owner + " (" + Files.getOwner(path, LinkOption.NOFOLLOW_LINKS).getName()
                    + "), not by this user (uid " + us + "), so someone else controls what is in it. Remove it or"
                    + " choose another path");
        }
    }

    /**
     * Removes group and other permissions from every file and directory this user owns in {@code dir} (two levels
     * deep), so that data written by an older version with mode 0644 is private too.
     */
    static void tightenContents(Path dir) {
        if (!POSIX) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir, TIGHTEN_DEPTH)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                if (!path.equals(dir)) {
                    tighten(path);
                }
            }
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("Cannot make the files in {} private", dir, e);
        }
    }

    /** Removes group and other permissions from {@code path} if it exists, is no link and is ours. */
    static void tighten(Path path) {
        if (!POSIX) {
            return;
        }
        try {
            PosixFileAttributes attributes = Files.readAttributes(path, PosixFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            if (attributes.isSymbolicLink()
                    || (Integer) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS) != CurrentUser.uid()) {
                return;
            }
            Set<PosixFilePermission> wanted = EnumSet.noneOf(PosixFilePermission.class);
            for (PosixFilePermission p : attributes.permissions()) {
                if (p.name().startsWith("OWNER_")) {
                    wanted.add(p);
                }
            }
            if (!wanted.equals(attributes.permissions())) {
                Files.setPosixFilePermissions(path, wanted);
                LOG.warn("Made {} private: mode {} -> {}", path, mode(attributes.permissions()), mode(wanted));
            }
        } catch (NoSuchFileException gone) {
            // nothing to tighten
        } catch (IOException e) {
            LOG.warn("Cannot make {} private", path, e);
        }
    }

    /** Creates {@code file} empty with mode 0600 if it does not exist yet. */
    static void createPrivateFile(Path file) throws IOException {
        try {
            Files.createFile(file, POSIX ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE)}
                    : new FileAttribute<?>[0]);
        } catch (FileAlreadyExistsException exists) {
            tighten(file);
        }
    }

    /**
     * Replaces {@code file} with {@code text}, readable by this user only from the first byte on: written to a 0600
     * temp file beside it, then renamed into place.
     */
    static void writePrivate(Path file, String text) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Path tmp = POSIX
                ? Files.createTempFile(dir, "." + file.getFileName(), ".tmp",
                        PosixFilePermissions.asFileAttribute(OWNER_ONLY_FILE))
                : Files.createTempFile(dir, "." + file.getFileName(), ".tmp");
        try {
            try (SeekableByteChannel out = Files.newByteChannel(tmp, StandardOpenOption.WRITE)) {
                out.write(ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8)));
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    static String mode(Set<PosixFilePermission> permissions) {
        int mode = 0;
        for (PosixFilePermission p : permissions) {
            mode |= 1 << (8 - p.ordinal());
        }
        return String.format("0%o", mode);
    }
}
