package io.delayq.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The redis-server binaries shipped as classpath resources inside {@code com.github.codemonstur:embedded-redis}.
 * A binary cannot be executed from inside a jar, so it is copied to a cache directory.
 *
 * <p>The cache directory is created by this process with mode 0700; an existing one must be owned by this user and
 * writable by nobody else, or it is refused. The copy is named after its content ({@code redis-server-<first 16 hex
 * digits of its SHA-256>}), and its SHA-256 is checked against the one pinned here when it is extracted or reused and
 * again before every start ({@link #verify}): a file that does not match is refused as planted, never run.
 */
final class BundledBinary {

    /**
     * SHA-256 of each bundled resource, pinned from embedded-redis 1.4.3. why: pinned rather than hashed from the jar
     * at run time, so that a swapped embedded-redis version or a tampered jar fails loudly instead of being trusted.
     */
    private static final Map<String, String> SHA256 = Map.of(
            "redis-server-6.2.6-v5-linux-amd64", "1f716094e08a25faee2bc7626feb9e13464ed89018ac5c376c5e9cff06bdcf52",
            "redis-server-6.2.7-linux-arm64", "036a23aa65bfb31d2a048aa96c170b38c2fbd4f1de68ef0f9c3133dd4b1474cd",
            "redis-server-6.2.6-v5-darwin-amd64", "7a4eb450d90a6ce9a2c651cfc4a0613b980a270c6426cbb6fa42d6c3beec9ce8",
            "redis-server-6.2.6-v5-darwin-arm64", "c523aec5a9b6f565cff0271ef67f5c51fa83e1180e3e954ab5251b3cf6282b76");

    private static final String WHAT = "redis-server binary cache dir";
    private static final int BUFFER = 1 << 16;

    /** Cache dir to the binary extracted there, at most once per JVM. */
    private static final Map<Path, Path> EXTRACTED = new ConcurrentHashMap<>();
    /** Every binary this class handed out, to the resource it must still equal. */
    private static final Map<Path, String> RESOURCE_OF = new ConcurrentHashMap<>();

    private BundledBinary() {
    }

    static Path defaultCacheDir() {
        return Path.of(System.getProperty("java.io.tmpdir"), "delayq-embedded-" + System.getProperty("user.name"));
    }

    /** Extracts (at most once per JVM and cache dir) the binary for this platform and returns its path. */
    static Path extract(Path cacheDir) {
        Path dir = cacheDir.toAbsolutePath().normalize();
        return EXTRACTED.computeIfAbsent(dir, d -> {
            String resource = resourceName(System.getProperty("os.name"), System.getProperty("os.arch"));
            Path binary = install(d, resource);
            RESOURCE_OF.put(binary, resource);
            return binary;
        });
    }

    /** The SHA-256 {@code binary} must have, if it is a bundled binary this class extracted. */
    static Optional<String> expectedSha256(Path binary) {
        return Optional.ofNullable(RESOURCE_OF.get(binary.toAbsolutePath().normalize())).map(SHA256::get);
    }

    /**
     * Before each start of a bundled binary: checks its directory and that its SHA-256 is still the pinned one
     * (extracting it again if it was deleted, e.g. by a temp-dir cleaner). Does nothing for other binaries.
     *
     * @throws IllegalStateException if it was replaced or its directory is no longer private
     */
    static void verify(Path binary) {
        Path normalized = binary.toAbsolutePath().normalize();
        String resource = RESOURCE_OF.get(normalized);
        if (resource != null) {
            install(normalized.getParent(), resource);
        }
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

    /** The name the binary of {@code resource} gets in the cache dir: by content, since resource names mislabel versions. */
    static String fileName(String resource) {
        return "redis-server-" + pinnedSha256(resource).substring(0, 16);
    }

    /**
     * Returns the verified binary of {@code resource} in {@code dir}, extracting it when absent. Concurrent JVMs may
     * share the dir: each writes its own private temp file and atomically renames it into place, so nobody ever
     * executes a half-written file; they all write the same bytes.
     */
    private static Path install(Path dir, String resource) {
        PrivateFiles.ensurePrivateDir(dir, WHAT, false);
        String expected = pinnedSha256(resource);
        Path target = dir.resolve(fileName(resource));
        try {
            if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
                requireUntouched(target, expected);
                return target;
            }
            Path tmp = Files.createTempFile(dir, target.getFileName() + ".", ".tmp");
            try {
                String actual = copyResource(resource, tmp);
                if (!actual.equals(expected)) {
                    throw new IllegalStateException("The bundled resource " + resource + " has SHA-256 " + actual
                            + ", not the pinned " + expected + ": the embedded-redis jar on the classpath is not the"
                            + " one this delayq-embedded was built with");
                }
                if (PrivateFiles.posix()) {
                    Files.setPosixFilePermissions(tmp, PrivateFiles.OWNER_ONLY_EXECUTABLE);
                } else if (!tmp.toFile().setExecutable(true, true)) {
                    throw new IOException("Cannot make " + tmp + " executable");
                }
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(tmp);
            }
            requireUntouched(target, expected);
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot extract the bundled redis-server into " + dir, e);
        }
    }

    private static void requireUntouched(Path binary, String expected) throws IOException {
        PrivateFiles.requirePrivateRegularFile(binary, "bundled redis-server");
        String actual;
        try (InputStream in = Files.newInputStream(binary, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            actual = sha256(in, OutputStream.nullOutputStream());
        } catch (NoSuchFileException e) {
            throw new IllegalStateException("The bundled redis-server " + binary + " vanished while it was checked;"
                    + " start again", e);
        }
        if (!actual.equals(expected)) {
            throw new IllegalStateException("Refusing to run " + binary + ": its SHA-256 is " + actual + ", not the "
                    + expected + " of the bundled redis-server, so something replaced it (a planted program?). Check"
                    + " who could write there, then remove it (rm " + binary + ") to have it extracted again");
        }
    }

    private static String copyResource(String resource, Path to) throws IOException {
        try (InputStream in = BundledBinary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Resource " + resource + " not found; is "
                        + "com.github.codemonstur:embedded-redis on the classpath?");
            }
            try (OutputStream out = Files.newOutputStream(to, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE)) {
                return sha256(in, out);
            }
        }
    }

    /** Copies {@code in} to {@code out} and returns the SHA-256 of what went through, in hex. */
    private static String sha256(InputStream in, OutputStream out) throws IOException {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform has SHA-256", e);
        }
        try (DigestInputStream digesting = new DigestInputStream(in, digest)) {
            byte[] buffer = new byte[BUFFER];
            int n;
            while ((n = digesting.read(buffer)) != -1) {
                out.write(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    static String pinnedSha256(String resource) {
        String sha = SHA256.get(resource);
        if (sha == null) {
            throw new IllegalStateException("No SHA-256 pinned for the bundled resource " + resource);
        }
        return sha;
    }
}
