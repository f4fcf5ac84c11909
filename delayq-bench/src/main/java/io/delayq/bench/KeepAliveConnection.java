package io.delayq.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * One HTTP/1.1 keep-alive connection over a plain socket, one request at a time: exactly one TCP
 * connection per instance, for as long as the server keeps it open. The HTTP scenario counts its
 * connections, so it does not use {@code java.net.http.HttpClient}, whose pool opens and closes
 * connections as it sees fit. Not thread-safe: one thread uses an instance.
 */
final class KeepAliveConnection implements AutoCloseable {
  private static final byte[] CRLF = {'\r', '\n'};
  /** A status line or header longer than this is not from delayq-server. */
  private static final int MAX_LINE = 16 * 1024;

  private final String host;
  private final int port;
  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private boolean closedByServer;

  /**
   * Connects to {@code host:port}.
   *
   * @param readTimeout longest wait for an answer's next bytes (a long poll's wait included)
   */
  KeepAliveConnection(String host, int port, Duration readTimeout) throws IOException {
    this.host = host;
    this.port = port;
    this.socket = new Socket();
    try {
      socket.setTcpNoDelay(true);
      socket.setSoTimeout((int) readTimeout.toMillis());
      socket.connect(new InetSocketAddress(host, port), 10_000);
      this.in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
      this.out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  /**
   * An answer.
   *
   * @param status the HTTP status
   * @param body the whole body
   */
  record Answer(int status, byte[] body) {
    String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /** Sends one request (a JSON body, or none when {@code body} is null) and reads its whole answer. */
  Answer send(String method, String target, byte[] body) throws IOException {
    if (closedByServer) {
      throw new EOFException("the server closed this connection after its previous answer");
    }
    StringBuilder head = new StringBuilder(160)
        .append(method).append(' ').append(target).append(" HTTP/1.1\r\n")
        .append("Host: ").append(host).append(':').append(port).append("\r\n");
    if (body != null) {
      head.append("Content-Type: application/json\r\n");
    }
    head.append("Content-Length: ").append(body == null ? 0 : body.length).append("\r\n\r\n");
    out.write(head.toString().getBytes(StandardCharsets.US_ASCII));
    if (body != null) {
      out.write(body);
    }
    out.flush();
    return read();
  }

  private Answer read() throws IOException {
    String statusLine = line();
    // "HTTP/1.1 200 OK"
    int firstSpace = statusLine.indexOf(' ');
    if (!statusLine.startsWith("HTTP/1.") || firstSpace < 0 || statusLine.length() < firstSpace + 4) {
      throw new IOException("not an HTTP status line: '" + statusLine + "'");
    }
    int status = Integer.parseInt(statusLine.substring(firstSpace + 1, firstSpace + 4));
    long length = -1;
    boolean chunked = false;
    for (String header = line(); !header.isEmpty(); header = line()) {
      int colon = header.indexOf(':');
      if (colon <= 0) {
        continue;
      }
      String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = header.substring(colon + 1).trim();
      switch (name) {
        case "content-length" -> length = Long.parseLong(value);
        case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
        case "connection" -> closedByServer = value.equalsIgnoreCase("close");
        default -> { }
      }
    }
    byte[] body;
    if (status == 204 || status == 304) {
      // why: these answers have no body, whatever their headers say (RFC 9112, section 6.3)
      body = new byte[0];
    } else if (chunked) {
      body = chunkedBody();
    } else if (length >= 0) {
      body = in.readNBytes((int) length);
      if (body.length < length) {
        throw new EOFException("the answer ended after " + body.length + " of " + length + " body bytes");
      }
    } else {
      // why: without a length or chunking, the body runs to the end of the connection
      body = in.readAllBytes();
      closedByServer = true;
    }
    return new Answer(status, body);
  }

  private byte[] chunkedBody() throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    while (true) {
      String sizeLine = line();
      int semicolon = sizeLine.indexOf(';');
      int size = Integer.parseInt((semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim(), 16);
      if (size == 0) {
        for (String trailer = line(); !trailer.isEmpty(); trailer = line()) {
          // trailers are not used
        }
        return body.toByteArray();
      }
      byte[] chunk = in.readNBytes(size);
      if (chunk.length < size) {
        throw new EOFException("the answer ended inside a chunk");
      }
      body.write(chunk);
      line();
    }
  }

  /** One line without its CRLF; EOF before any byte means the server closed the connection. */
  private String line() throws IOException {
    StringBuilder line = new StringBuilder(64);
    while (true) {
      int b = in.read();
      if (b < 0) {
        closedByServer = true;
        throw new EOFException(line.length() == 0 ? "the server closed the connection"
            : "the server closed the connection mid-line: '" + line + "'");
      }
      if (b == '\n') {
        int end = line.length();
        if (end > 0 && line.charAt(end - 1) == CRLF[0]) {
          line.setLength(end - 1);
        }
        return line.toString();
      }
      if (line.length() >= MAX_LINE) {
        throw new IOException("a status or header line longer than " + MAX_LINE + " bytes");
      }
      line.append((char) b);
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // nothing to do: the connection is gone either way
    }
  }
}
