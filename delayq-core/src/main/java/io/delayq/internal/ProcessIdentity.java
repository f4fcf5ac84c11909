package io.delayq.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Properties;

/**
 * Who a client is, for its heartbeat and the leases its claims take: a random id made when the
 * client is built (16 hex digits), the host name, the pid, the delayq version and the start time.
 *
 * @param id 16 lowercase hex digits; never contains the separators the lease values use
 */
record ProcessIdentity(String id, String host, long pid, String version, Instant startedAt) {
  private static final SecureRandom RANDOM = new SecureRandom();

  static ProcessIdentity create() {
    byte[] bytes = new byte[8];
    RANDOM.nextBytes(bytes);
    return new ProcessIdentity(HexFormat.of().formatHex(bytes), hostName(), currentPid(), currentVersion(), Instant.now());
  }

  private static String hostName() {
    String fromEnv = System.getenv("HOSTNAME");
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException | RuntimeException e) {
      return fromEnv == null || fromEnv.isBlank() ? "unknown" : fromEnv;
    }
  }

  private static long currentPid() {
    try {
      return ProcessHandle.current().pid();
    } catch (UnsupportedOperationException | SecurityException e) {
      return -1;
    }
  }

  static String currentVersion() {
    try (InputStream in = ProcessIdentity.class.getResourceAsStream("version.properties")) {
      if (in != null) {
        Properties properties = new Properties();
        properties.load(in);
        String version = properties.getProperty("version");
        // why: an unfiltered copy (an IDE that skips the build's filtering) still holds the placeholder
        if (version != null && !version.isBlank() && !version.startsWith("${")) {
          return version.strip();
        }
      }
    } catch (IOException e) {
      // fall through to the manifest
    }
    String fromManifest = ProcessIdentity.class.getPackage().getImplementationVersion();
    return fromManifest == null ? "unknown" : fromManifest;
  }
}
