package io.delayq.server.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** What a test sees of a server's embedded Redis from outside: its processes, files and raw replies. */
public final class EmbeddedRedisFiles {
  private EmbeddedRedisFiles() {}

  /** The pids of the redis-server processes whose working directory is {@code dir} (from /proc). */
  public static List<Long> redisServersIn(Path dir) throws IOException {
    Path real = dir.toRealPath();
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      return procs.filter(p -> p.getFileName().toString().matches("\\d+"))
          .filter(p -> {
            try {
              return Files.readSymbolicLink(p.resolve("cwd")).equals(real)
                  && Files.readSymbolicLink(p.resolve("exe")).getFileName().toString().startsWith("redis-server");
            } catch (IOException e) {
              return false;
            }
          })
          .map(p -> Long.parseLong(p.getFileName().toString()))
          .sorted()
          .toList();
    }
  }

  /** Everything in the AOF files under {@code redisDir} (Redis 6: appendonly.aof; 7: appendonlydir/). */
  public static String aof(Path redisDir) throws IOException {
    StringBuilder aof = new StringBuilder();
    try (Stream<Path> files = Files.walk(redisDir)) {
      for (Path file : files.filter(f -> f.getFileName().toString().startsWith("appendonly")).toList()) {
        if (Files.isRegularFile(file)) {
          aof.append(Files.readString(file, StandardCharsets.ISO_8859_1));
        }
      }
    }
    return aof.toString();
  }

  /** Every file and directory under {@code dir} (relative name to mode as {@code ls -l} shows it), {@code dir} as ".". */
  public static Map<String, String> modes(Path dir) throws IOException {
    Map<String, String> modes = new TreeMap<>();
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.toList()) {
        modes.put(p.equals(dir) ? "." : dir.relativize(p).toString(),
            PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS)));
      }
    }
    return modes;
  }

  /** The port of a {@code redis://[:password@]127.0.0.1:port} URL. */
  public static int port(String redisUrl) {
    return URI.create(redisUrl).getPort();
  }

  /** The password of a {@code redis://:password@host:port} URL. */
  public static String password(String redisUrl) {
    String userInfo = URI.create(redisUrl).getUserInfo();
    return userInfo.substring(userInfo.indexOf(':') + 1);
  }

  /**
   * Sends each command (space-separated words) on one fresh connection, in order, and returns the
   * first line of each reply: what any local process could do, with no client library.
   */
  public static List<String> rawCommands(int port, String... commands) {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(5_000);
      OutputStream out = socket.getOutputStream();
      InputStream in = socket.getInputStream();
      return Stream.of(commands).map(command -> {
        try {
          String[] words = command.split(" ");
          StringBuilder resp = new StringBuilder("*" + words.length + "\r\n");
          for (String word : words) {
            resp.append('$').append(word.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(word)
                .append("\r\n");
          }
          out.write(resp.toString().getBytes(StandardCharsets.UTF_8));
          out.flush();
          String line = readLine(in);
          if (line.startsWith("$") && !line.equals("$-1")) {
            byte[] bulk = in.readNBytes(Integer.parseInt(line.substring(1)) + 2);
            return new String(bulk, 0, bulk.length - 2, StandardCharsets.UTF_8);
          }
          return line;
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    int b;
    while ((b = in.read()) != '\n') {
      if (b == -1) {
        throw new IOException("connection closed after " + line);
      }
      if (b != '\r') {
        line.append((char) b);
      }
    }
    return line.toString();
  }
}
