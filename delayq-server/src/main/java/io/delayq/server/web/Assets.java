package io.delayq.server.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The dashboard's static files: its own ({@value #OWN}) at {@code <prefix>/assets/delayq/<content
 * hash>/<file>}, and the files the pages link of the bundled webjars ({@link #WEBJARS}) at {@code
 * <prefix>/assets/<webjar>/<version>/<path>}, read from the jar's {@code META-INF/resources/webjars/}.
 * Each URL names exactly one content, so
 * it is cached for a year as immutable; anything else is a 404 (no listing, no {@code ..}).
 */
final class Assets {
  /** The folder of the dashboard's own files, on the class path. */
  static final String OWN = "/io/delayq/server/web/static/";
  /** The dashboard's own files; a new one is added here. */
  static final List<String> OWN_FILES = List.of("delayq.css", "app.js", "charts.js", "pages.css");
  /**
   * The webjars served, by name, and of each the only files served: those the pages link. A
   * webjar holds much more (sources, other builds, test pages); none of it is served.
   */
  static final Map<String, Set<String>> WEBJARS = Map.of(
      "htmx.org", Set.of("dist/htmx.min.js"),
      "uplot", Set.of("dist/uPlot.iife.min.js", "dist/uPlot.min.css"));
  static final String IMMUTABLE = "public, max-age=31536000, immutable";
  private static final Map<String, String> TYPES = Map.of(
      "js", "text/javascript; charset=utf-8",
      "css", "text/css; charset=utf-8",
      "map", "application/json; charset=utf-8",
      "svg", "image/svg+xml",
      "png", "image/png",
      "woff2", "font/woff2");

  private record Asset(byte[] bytes, String contentType) {}

  private final Map<String, Asset> own = new LinkedHashMap<>();
  private final Map<String, String> ownHash = new LinkedHashMap<>();
  private final Map<String, String> webjarVersions = new LinkedHashMap<>();
  private final Map<String, Asset> webjarFiles = new ConcurrentHashMap<>();

  Assets() {
    for (String file : OWN_FILES) {
      byte[] bytes = read(OWN + file);
      if (bytes == null) {
        throw new IllegalStateException("the dashboard's " + file + " is missing from the class path (" + OWN + ")");
      }
      own.put(file, new Asset(bytes, typeOf(file)));
      ownHash.put(file, hash(bytes));
    }
    for (String name : WEBJARS.keySet()) {
      webjarVersions.put(name, webjarVersion(name));
    }
  }

  String ownUrl(String prefix, String file) {
    String hash = ownHash.get(file);
    if (hash == null) {
      throw new IllegalArgumentException("no such dashboard asset: " + file + "; list it in Assets.OWN_FILES");
    }
    return prefix + "/assets/delayq/" + hash + "/" + file;
  }

  String webjarUrl(String prefix, String name, String file) {
    String version = webjarVersions.get(name);
    if (version == null || !WEBJARS.get(name).contains(file)) {
      throw new IllegalArgumentException("no such webjar file: " + name + " " + file + "; list it in Assets.WEBJARS");
    }
    return prefix + "/assets/" + name + "/" + version + "/" + file;
  }

  /** {@code GET /assets/delayq/{hash}/{file}}. */
  WebResponse own(String hash, String file) {
    Asset asset = own.get(file);
    if (asset == null || !ownHash.get(file).equals(hash)) {
      throw notFound();
    }
    return answer(asset);
  }

  /** {@code GET /assets/{webjar}/{version}/{path+}}. */
  WebResponse webjar(String name, String version, String path) {
    String known = webjarVersions.get(name);
    if (known == null || !known.equals(version) || !WEBJARS.get(name).contains(path)) {
      throw notFound();
    }
    String type = typeOf(path);
    if (type == null) {
      throw notFound();
    }
    String resource = "/META-INF/resources/webjars/" + name + "/" + version + "/" + path;
    Asset asset = webjarFiles.get(resource);
    if (asset == null) {
      byte[] bytes = read(resource);
      if (bytes == null) {
        throw notFound();
      }
      asset = new Asset(bytes, type);
      webjarFiles.put(resource, asset);
    }
    return answer(asset);
  }

  private static WebResponse answer(Asset asset) {
    return new WebResponse(200, asset.contentType(), asset.bytes(), Map.of("Cache-Control", IMMUTABLE));
  }

  private static WebException notFound() {
    return WebException.notFound("no such asset; the dashboard's pages link the files it serves");
  }

  private static String typeOf(String file) {
    int dot = file.lastIndexOf('.');
    return dot < 0 ? null : TYPES.get(file.substring(dot + 1).toLowerCase(Locale.ROOT));
  }

  private static String webjarVersion(String name) {
    String resource = "/META-INF/maven/org.webjars.npm/" + name + "/pom.properties";
    try (InputStream in = Assets.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("the webjar " + name + " is missing from the class path (" + resource + ")");
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] read(String resource) {
    try (InputStream in = Assets.class.getResourceAsStream(resource)) {
      return in == null ? null : in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String hash(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
