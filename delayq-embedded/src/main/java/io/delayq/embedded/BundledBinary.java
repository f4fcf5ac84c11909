package io.delayq.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The redis-server binaries shipped as classpath resources inside {@code com.github.codemonstur:embedded-redis}.
 * A binary cannot be executed from inside a jar, so it is copied to a cache directory once per JVM.
 */
final class BundledBinary {

    private static final Map<Path, Path> EXTRACTED = new ConcurrentHashMap<>();

    private BundledBinary() {
    }

    static Path defaultCacheDir() {
        return Path.of(System.getProperty("java.io.tmpdir"), "delayq-embedded-" + System.getProperty("user.name"));
    }

    /** Extracts (at most once per JVM and cache dir) the binary for this platform and returns its path. */
    static Path extract(Path cacheDir) {
        return EXTRACTED.computeIfAbsent(cacheDir.toAbsolutePath().normalize(), dir -> {
            try {
                return extract(dir, resourceName(System.getProperty("os.name"), System.getProperty("os.arch")));
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot extract the bundled redis-server into " + dir, e);
            }
        });
    }

    static String resourceName(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        String arch = osArch.toLowerCase(Locale.ROOT);
        boolean amd64 = arch.equals("amd64") || arch.equals("x86_64");
        boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
        if (os.contains("linux") && amd64) {
            return "redis-server-6.2.6-v5-linux-amd64";
        }
        if (os.contains("linux") && arm64) {
            return "redis-server-6.2.7-linux-arm64";
        }
        if ((os.contains("mac") || os.contains("darwin")) && amd64) {
            return "redis-server-6.2.6-v5-darwin-amd64";
        }
        if ((os.contains("mac") || os.contains("darwin")) && arm64) {
            return "redis-server-6.2.6-v5-darwin-arm64";
        }
        throw new IllegalStateException("No bundled redis-server for os.name=" + osName + ", os.arch=" + osArch
                + "; supported: Linux and macOS on amd64/arm64. Pass RedisServerProcess.builder().binary(path), "
                + "e.g. RedisServerProcess.machineBinary().orElseThrow()");
    }

    /**
     * Concurrent JVMs may share the cache dir: each writes its own temp file and atomically renames it into place,
     * so nobody ever executes a half-written file. An already-present copy of the right size is reused, which also
     * avoids rewriting a file another JVM may be about to exec.
     */
    private static Path extract(Path dir, String resource) throws IOException {
        URL url = BundledBinary.class.getClassLoader().getResource(resource);
        if (url == null) {
            throw new IllegalStateException("Resource " + resource + " not found; is "
                    + "com.github.codemonstur:embedded-redis on the classpath?");
        }
        URLConnection connection = url.openConnection();
        long size = connection.getContentLengthLong();
        Path target = dir.resolve(resource);
        if (size >= 0 && Files.isExecutable(target) && Files.size(target) == size) {
            return target;
        }
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, resource + ".", ".tmp");
        try {
            try (InputStream in = connection.getInputStream()) {
                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            }
            makeExecutable(tmp);
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return target;
    }

    private static void makeExecutable(Path file) throws IOException {
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (UnsupportedOperationException e) {
            if (!file.toFile().setExecutable(true)) {
                throw new IOException("Cannot make " + file + " executable", e);
            }
        }
    }
}
