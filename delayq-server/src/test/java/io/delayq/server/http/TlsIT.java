package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.server.testing.ServerProcess;
import java.io.FileInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --tls-cert} and {@code --tls-key} serve the API over HTTPS, and nothing over plain HTTP. */
class TlsIT {
  @TempDir Path dir;

  @Test
  void servesHttpsWithTheGivenCertificate() throws Exception {
    KeyStore store = selfSigned();
    Path cert = dir.resolve("cert.pem");
    Path key = dir.resolve("key.pem");
    Certificate certificate = store.getCertificate("delayq");
    PrivateKey privateKey = (PrivateKey) store.getKey("delayq", "changeit".toCharArray());
    Files.writeString(cert, pem("CERTIFICATE", certificate.getEncoded()));
    Files.writeString(key, pem("PRIVATE KEY", privateKey.getEncoded()));

    try (ServerProcess server = ServerProcess.start("--tls-cert", cert.toString(), "--tls-key", key.toString())) {
      assertThat(server.baseUrl()).startsWith("https://");
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      KeyStore trusted = KeyStore.getInstance("PKCS12");
      trusted.load(null, null);
      trusted.setCertificateEntry("delayq", certificate);
      trust.init(trusted);
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(null, trust.getTrustManagers(), null);
      HttpClient client = HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(5)).build();
      String base = server.baseUrl().replace("127.0.0.1", "localhost");
      HttpResponse<String> health = client.send(
          HttpRequest.newBuilder(URI.create(base + "/health")).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).contains("\"status\":\"up\"");

      // a client that does not trust the certificate is refused by its own TLS stack
      HttpClient untrusting = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      try {
        untrusting.send(HttpRequest.newBuilder(URI.create(base + "/health")).build(), HttpResponse.BodyHandlers.ofString());
        throw new AssertionError("an untrusted certificate was accepted");
      } catch (SSLHandshakeException expected) {
        // the server presented the certificate it was given
      }
      // plain HTTP on the TLS port gets no API answer
      HttpResponse<String> plain;
      try {
        plain = untrusting.send(HttpRequest.newBuilder(URI.create(base.replace("https://", "http://") + "/health"))
            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(plain.body()).doesNotContain("\"redis\":\"up\"");
      } catch (java.io.IOException expected) {
        // closed: the bytes were not a TLS handshake
      }
    }
  }

  @Test
  void aKeyWithoutItsCertificateIsAUsageError() throws Exception {
    ServerProcess.Exited exited = ServerProcess.runToExit(Duration.ofSeconds(60), "serve", "--port", "0",
        "--redis", "redis://127.0.0.1:1", "--tls-key", dir.resolve("key.pem").toString());
    assertThat(exited.exitCode()).isEqualTo(2);
    assertThat(exited.output()).contains("--tls-cert (DELAYQ_TLS_CERT) and --tls-key (DELAYQ_TLS_KEY) go together");
  }

  /** A self-signed certificate for localhost, made with the JDK's own keytool. */
  private KeyStore selfSigned() throws Exception {
    Path store = dir.resolve("server.p12");
    Process keytool = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
        "-genkeypair", "-alias", "delayq", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
        "-dname", "CN=localhost", "-ext", "san=dns:localhost,ip:127.0.0.1",
        "-keystore", store.toString(), "-storetype", "PKCS12", "-storepass", "changeit", "-keypass", "changeit")
        .redirectErrorStream(true).start();
    String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(keytool.exitValue()).as(output).isZero();
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = new FileInputStream(store.toFile())) {
      keys.load(in, "changeit".toCharArray());
    }
    return keys;
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
        .encodeToString(der) + "\n-----END " + type + "-----\n";
  }
}
