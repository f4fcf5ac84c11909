package io.delayq.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The HTTP scenario's client connection, against a socket that answers with canned bytes. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class KeepAliveConnectionTest {
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private final List<Integer> accepted = new CopyOnWriteArrayList<>();
  private ServerSocket server;
  private Thread serving;

  @AfterEach
  void stop() throws Exception {
    if (server != null) {
      server.close();
      serving.join(5_000);
    }
  }

  /** Answers the n-th request read on any connection with {@code answers[n]}, closing after the last. */
  private void serve(String... answers) throws IOException {
    server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
    serving = new Thread(() -> {
      int next = 0;
      try (Socket socket = server.accept()) {
        accepted.add(socket.getPort());
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        while (next < answers.length) {
          requests.add(readRequest(in));
          out.write(answers[next++].getBytes(StandardCharsets.US_ASCII));
          out.flush();
        }
      } catch (IOException e) {
        // the test closed the socket
      }
    }, "canned-http");
    serving.start();
  }

  /** The request head, and the body by its Content-Length. */
  private static String readRequest(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException();
      }
      head.append((char) b);
    }
    int length = 0;
    for (String line : head.toString().split("\r\n")) {
      if (line.toLowerCase().startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).trim());
      }
    }
    return head + new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }

  private KeepAliveConnection connect() throws IOException {
    return new KeepAliveConnection("127.0.0.1", server.getLocalPort(), Duration.ofSeconds(5));
  }

  @Test
  void aNoContentAnswerWithoutALengthEndsAtItsHeaders() throws IOException {
    serve("HTTP/1.1 204 No Content\r\n\r\n", "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n[]");
    try (KeepAliveConnection connection = connect()) {
      KeepAliveConnection.Answer ack = connection.send("POST", "/v1/queues/q/jobs/1/ack",
          "{\"token\":\"7\"}".getBytes(StandardCharsets.US_ASCII));
      assertThat(ack.status()).isEqualTo(204);
      assertThat(ack.body()).isEmpty();
      KeepAliveConnection.Answer next = connection.send("POST", "/v1/queues/q/claim?max=1", null);
      assertThat(next.status()).isEqualTo(200);
      assertThat(next.text()).isEqualTo("[]");
    }
    assertThat(accepted).as("connections the server accepted").hasSize(1);
    assertThat(requests.get(0)).startsWith("POST /v1/queues/q/jobs/1/ack HTTP/1.1\r\n")
        .contains("\r\nHost: 127.0.0.1:" + server.getLocalPort() + "\r\n")
        .contains("\r\nContent-Type: application/json\r\n").contains("\r\nContent-Length: 13\r\n")
        .endsWith("\r\n\r\n{\"token\":\"7\"}");
    assertThat(requests.get(1)).contains("\r\nContent-Length: 0\r\n").doesNotContain("Content-Type");
  }

  @Test
  void readsAChunkedBody() throws IOException {
    serve("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n[{}\r\n1;x=y\r\n]\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx");
    try (KeepAliveConnection connection = connect()) {
      assertThat(connection.send("GET", "/health", null).text()).isEqualTo("[{}]");
      assertThat(connection.send("GET", "/health", null).text()).isEqualTo("x");
    }
  }

  @Test
  void anAnswerThatClosesTheConnectionRefusesTheNextRequestWithoutSendingIt() throws IOException {
    serve("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}");
    try (KeepAliveConnection connection = connect()) {
      assertThat(connection.send("GET", "/health", null).status()).isEqualTo(400);
      assertThatThrownBy(() -> connection.send("GET", "/health", null)).isInstanceOf(EOFException.class)
          .hasMessageContaining("closed this connection");
    }
    assertThat(requests).hasSize(1);
  }

  @Test
  void aServerThatHangsUpMidAnswerIsAnError() throws IOException {
    serve("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n[1,2");
    try (KeepAliveConnection connection = connect()) {
      assertThatThrownBy(() -> connection.send("GET", "/health", null)).isInstanceOf(EOFException.class)
          .hasMessageContaining("4 of 10 body bytes");
    }
  }
}
