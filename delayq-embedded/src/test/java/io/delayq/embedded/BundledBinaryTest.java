package io.delayq.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bundled redis-server is extracted into a directory only this user controls, and a binary that is not the bundled
 * one byte for byte is never run: not when it is found at extraction, and not when it is swapped in later.
 */
class BundledBinaryTest {

    private static final String LINUX_AMD64 = "redis-server-6.2.6-v5-linux-amd64";

    @TempDir Path dir;

    @Test
    void extractsIntoADirItCreatesWithMode0700AFileNamedByItsContent() {
        Path cache = dir.resolve("not-yet").resolve("cache");

        Path binary = RedisServerProcess.bundledBinary(cache);

        assertThat(Modes.of(cache)).isEqualTo("rwx------");
        assertThat(Modes.of(binary)).isEqualTo("rwx------");
        assertThat(binary.getFileName().toString()).matches("redis-server-[0-9a-f]{16}")
                .doesNotContain("6.2.6").as("the file name claims no version: the binary is 6.2.11");
        assertThat(RedisServerProcess.version(binary)).startsWith("Redis server v=6.2");
        assertThat(cache.toFile().list()).containsExactly(binary.getFileName().toString());
    }

    @Test
    void aPlantedFileWhereTheBinaryGoesIsRefusedAndNeverRun() throws Exception {
        Path cache = Files.createDirectory(dir.resolve("cache"));
        Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rwx------"));
        Path marker = dir.resolve("planted-program-ran");
        Path planted = cache.resolve(BundledBinary.fileName(BundledBinary.resourceName(
                System.getProperty("os.name"), System.getProperty("os.arch"))));
        plantScript(planted, marker, 9_701_528);

        assertThatThrownBy(() -> RedisServerProcess.bundledBinary(cache))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Refusing to run " + planted)
                .hasMessageContaining("SHA-256")
                .hasMessageContaining("rm " + planted);
        assertThat(marker).doesNotExist();
    }

    @Test
    void aBinarySwappedAfterExtractionIsRefusedAtTheNextStart() throws Exception {
        Path cache = dir.resolve("cache");
        Path binary = RedisServerProcess.bundledBinary(cache);
        Path marker = dir.resolve("planted-program-ran");
        try (RedisServerProcess redis = RedisServerProcess.builder().binary(binary).build()) {
            redis.start();
            redis.stop();
            plantScript(binary, marker, Files.size(binary));

            assertThatThrownBy(redis::start)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Refusing to run " + binary)
                    .hasMessageContaining("not the 1f716094e08a25faee2bc7626feb9e13464ed89018ac5c376c5e9cff06bdcf52");
            assertThat(redis.isAlive()).isFalse();
        }
        assertThat(marker).doesNotExist();
    }

    @Test
    void aBinaryDeletedAfterExtractionIsExtractedAgain() throws Exception {
        Path cache = dir.resolve("cache");
        Path binary = RedisServerProcess.bundledBinary(cache);
        Files.delete(binary);
        try (RedisServerProcess redis = RedisServerProcess.builder().binary(binary).start()) {
            assertThat(RawRedis.call(redis.port(), "PING")).isEqualTo("+PONG");
        }
        assertThat(binary).isExecutable();
    }

    @Test
    void aCacheDirOthersMayWriteIsRefused() throws Exception {
        Path cache = Files.createDirectory(dir.resolve("cache"));
        Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rwxrwxrwx"));

        assertThatThrownBy(() -> RedisServerProcess.bundledBinary(cache))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("redis-server binary cache dir " + cache)
                .hasMessageContaining("mode is 0777")
                .hasMessageContaining("chmod 700 " + cache);
        assertThat(cache.toFile().list()).isEmpty();
    }

    @Test
    void aCacheDirOfAnotherUserIsRefused() throws Exception {
        assumeThat(Modes.isRoot()).as("only root can make a directory another user owns").isTrue();
        Path cache = Files.createDirectory(dir.resolve("cache"));
        Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rwx------"));
        Files.setAttribute(cache, "unix:uid", 65534);

        assertThatThrownBy(() -> RedisServerProcess.bundledBinary(cache))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("owned by uid 65534")
                .hasMessageContaining("not by this user (uid 0)");
        assertThat(cache.toFile().list()).isEmpty();
    }

    @Test
    void aSymbolicLinkInPlaceOfTheCacheDirIsRefused() throws Exception {
        Path target = Files.createDirectory(dir.resolve("elsewhere"));
        Path cache = Files.createSymbolicLink(dir.resolve("cache"), target);

        assertThatThrownBy(() -> RedisServerProcess.bundledBinary(cache))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("symbolic link");
        assertThat(target.toFile().list()).isEmpty();
    }

    @Test
    void aCacheDirOfThisUserThatOthersMayOnlyReadIsMadePrivate() throws Exception {
        Path cache = Files.createDirectory(dir.resolve("cache"));
        Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rwxr-xr-x"));

        RedisServerProcess.bundledBinary(cache);

        assertThat(Modes.of(cache)).isEqualTo("rwx------");
    }

    @Test
    void everyPinnedHashIsThatOfTheResource() throws Exception {
        assertThat(BundledBinary.fileName(LINUX_AMD64)).isEqualTo("redis-server-1f716094e08a25fa");
        for (String resource : new String[] {LINUX_AMD64, "redis-server-6.2.7-linux-arm64",
            "redis-server-6.2.6-v5-darwin-amd64", "redis-server-6.2.6-v5-darwin-arm64"}) {
            try (InputStream in = BundledBinary.class.getClassLoader().getResourceAsStream(resource)) {
                assertThat(in).as(resource).isNotNull();
                String actual = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(in.readAllBytes()));
                assertThat(BundledBinary.pinnedSha256(resource)).as(resource).isEqualTo(actual);
            }
        }
    }

    /** A shell script that leaves {@code marker} behind if run, padded to {@code size} bytes. */
    private static void plantScript(Path file, Path marker, long size) throws IOException {
        byte[] script = ("#!/bin/sh\ntouch '" + marker + "'\nexit 1\n").getBytes(StandardCharsets.UTF_8);
        byte[] padded = Arrays.copyOf(script, (int) size);
        Arrays.fill(padded, script.length, padded.length, (byte) '#');
        Files.write(file, padded);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
    }
}
