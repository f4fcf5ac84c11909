package io.delayq.server.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.delayq.server.http.HttpSettings;
import io.delayq.server.web.DashboardServer.Answer;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's security model, against in-process servers: sessions from the full and the
 * read-only token, cookie attributes, forged and foreign cookies, CSRF checks, security headers,
 * assets, prefixes, and the API left as it was.
 */
class DashboardSecurityIT {
  private static final String TOKEN = "full-" + UUID.randomUUID();
  private static final String READ_ONLY = "ro-" + UUID.randomUUID();
  private static final String OTHER = "other-" + UUID.randomUUID();
  private static DashboardServer server;
  private static DashboardServer twin;
  private static DashboardServer other;
  private static DashboardServer open;
  private static DashboardServer prefixed;
  @TempDir static Path dir;

  @BeforeAll
  static void start() {
    HttpSettings settings = HttpSettings.of("127.0.0.1", 0, TOKEN).withReadOnlyToken(READ_ONLY);
    server = DashboardServer.start(settings);
    twin = DashboardServer.start(settings);
    other = DashboardServer.start(HttpSettings.of("127.0.0.1", 0, OTHER));
    open = DashboardServer.start(HttpSettings.of("127.0.0.1", 0, null));
    prefixed = DashboardServer.start(settings.withBasePath("/delayq"));
  }

  @AfterAll
  static void stop() {
    for (DashboardServer s : new DashboardServer[] {server, twin, other, open, prefixed}) {
      if (s != null) {
        s.close();
      }
    }
  }

  @Test
  void theFullTokenLogsInWithAStrictCookieAndLeadsBackToNext() {
    Answer login = server.action("/login", null, Map.of("token", TOKEN, "next", "/queues/q?state=dead"));
    assertThat(login.status()).isEqualTo(200);
    assertThat(login.body()).contains("data-flash=\"ok\"");
    assertThat(login.header("HX-Redirect")).isEqualTo("/queues/q?state=dead");
    String cookie = login.header("Set-Cookie");
    assertThat(cookie).startsWith("delayq_session=").contains("; HttpOnly").contains("; SameSite=Strict")
        .contains("; Path=/;").contains("; Max-Age=43200").doesNotContain("Secure");
    Answer page = server.get("/", login.sessionCookie());
    assertThat(page.status()).as(page.toString()).isEqualTo(200);
    assertThat(page.body()).contains("data-page=\"queues\"", "data-action=\"logout\"", "data-role=\"full\"")
        .doesNotContain("read-only</span>");
  }

  @Test
  void aNextOutsideTheDashboardLeadsToItsRoot() {
    for (String next : List.of("//evil.example/", "https://evil.example/", "/\\evil.example", "javascript:alert(1)")) {
      Answer login = server.action("/login", null, Map.of("token", TOKEN, "next", next));
      assertThat(login.header("HX-Redirect")).as(next).isEqualTo("/");
    }
    assertThat(server.get("/login?next=//evil.example").body()).contains("name=\"next\" value=\"/\"");
  }

  @Test
  void aWrongOrMissingTokenGetsNoCookie() {
    for (String token : List.of("wrong", TOKEN + "x", "", " ")) {
      Answer login = server.action("/login", null, Map.of("token", token));
      assertThat(login.status()).as(token).isEqualTo(401);
      assertThat(login.header("Set-Cookie")).isNull();
      assertThat(login.body()).contains("data-flash=\"error\"");
    }
    assertThat(server.action("/login", null, Map.of("token", TOKEN.replace("full", "FULL"))).status()).isEqualTo(401);
  }

  @Test
  void theReadOnlyTokenLooksButCannotAct() {
    String queue = DashboardServer.newQueue("dash-ro");
    String cookie = server.login(READ_ONLY);
    Answer page = server.get("/", cookie);
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.body()).contains("data-role=\"read-only\"").doesNotContain("data-action=\"pause\"")
        .doesNotContain("data-action=\"resume\"");
    Answer pause = server.action("/queues/" + queue + "/pause", cookie);
    assertThat(pause.status()).isEqualTo(403);
    assertThat(pause.body()).contains("data-flash=\"error\"", "read-only");
    assertThat(DashboardServer.delayq().queue(queue).admin().stats().paused()).isFalse();

    String full = server.login(TOKEN);
    assertThat(server.action("/queues/" + queue + "/pause", full).status()).isEqualTo(200);
    assertThat(DashboardServer.delayq().queue(queue).admin().stats().paused()).isTrue();
    assertThat(server.action("/queues/" + queue + "/resume", cookie).status()).isEqualTo(403);
    assertThat(DashboardServer.delayq().queue(queue).admin().stats().paused()).isTrue();
  }

  @Test
  void theCookieIsSecureOverHttpsAtAProxy() {
    Answer login = server.send("POST", "/login", Map.of("token", TOKEN),
        merged(DashboardServer.FROM_DASHBOARD, Map.of("X-Forwarded-Proto", "https")));
    assertThat(login.header("Set-Cookie")).contains("; Secure");
    Answer logout = server.send("POST", "/logout", Map.of(),
        merged(DashboardServer.FROM_DASHBOARD, Map.of("X-Forwarded-Proto", "https")));
    assertThat(logout.header("Set-Cookie")).startsWith("delayq_session=;").contains("Max-Age=0", "; Secure");
  }

  @Test
  void theCookieIsSecureOverTls() throws Exception {
    KeyStore store = selfSigned();
    Path cert = dir.resolve("cert.pem");
    Path key = dir.resolve("key.pem");
    Certificate certificate = store.getCertificate("delayq");
    Files.writeString(cert, pem("CERTIFICATE", certificate.getEncoded()));
    Files.writeString(key, pem("PRIVATE KEY", ((PrivateKey) store.getKey("delayq", "changeit".toCharArray())).getEncoded()));
    TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    KeyStore trusted = KeyStore.getInstance("PKCS12");
    trusted.load(null, null);
    trusted.setCertificateEntry("delayq", certificate);
    trust.init(trusted);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(null, trust.getTrustManagers(), null);
    HttpSettings settings = new HttpSettings("127.0.0.1", 0, TOKEN, 100, HttpSettings.DEFAULT_HEADER_TIMEOUT,
        HttpSettings.DEFAULT_BODY_TIMEOUT, HttpSettings.DEFAULT_IDLE_TIMEOUT, HttpSettings.DEFAULT_WRITE_TIMEOUT, cert,
        key, List.of());
    try (DashboardServer https = DashboardServer.start(settings, tls)) {
      Answer login = https.action("/login", null, Map.of("token", TOKEN));
      assertThat(login.status()).isEqualTo(200);
      assertThat(login.header("Set-Cookie")).contains("; Secure", "; HttpOnly", "; SameSite=Strict");
      assertThat(https.get("/", login.sessionCookie()).status()).isEqualTo(200);
    }
  }

  @Test
  void forgedAlteredExpiredAndForeignCookiesAreRefused() throws Exception {
    String cookie = server.login(TOKEN);
    String value = cookie.substring("delayq_session=".length());
    int dot = value.indexOf('.');
    String payload = new String(Base64.getUrlDecoder().decode(value.substring(0, dot)), StandardCharsets.UTF_8);
    assertThat(payload).startsWith("v1|rw|");

    String flippedSignature = value.substring(0, value.length() - 2)
        + (value.charAt(value.length() - 2) == 'A' ? 'B' : 'A') + value.charAt(value.length() - 1);
    String readOnlyPayload = payload.replace("v1|rw|", "v1|ro|");
    String alteredRole = b64(readOnlyPayload.getBytes(StandardCharsets.UTF_8)) + value.substring(dot);
    long now = Instant.now().getEpochSecond();
    String[] fields = payload.split("\\|");
    String expired = forge(TOKEN, "v1|rw|" + (now - 13 * 3600) + "|" + (now - 3600) + "|" + fields[4]);
    String tooLong = forge(TOKEN, "v1|rw|" + now + "|" + (now + 30 * 24 * 3600) + "|" + fields[4]);
    // signed right, but its fingerprint is not of the read-only token
    String wrongFingerprint = forge(TOKEN, "v1|ro|" + now + "|" + (now + 3600) + "|" + fields[4]);
    String validForged = forge(TOKEN, "v1|rw|" + now + "|" + (now + 3600) + "|" + fields[4]);
    String otherServers = other.login(OTHER);

    for (String bad : List.of("garbage", "", value + "x", flippedSignature, alteredRole, expired, tooLong,
        wrongFingerprint, "a.b.c", otherServers.substring("delayq_session=".length()))) {
      Answer page = server.get("/", "delayq_session=" + bad);
      assertThat(page.status()).as(bad).isEqualTo(303);
      assertThat(page.header("Location")).isEqualTo("/login?next=%2F");
    }
    // the format is the documented one (docs/DASHBOARD.md): a cookie made from it by the token alone is accepted
    assertThat(server.get("/", "delayq_session=" + validForged).status()).isEqualTo(200);
    assertThat(twin.get("/", cookie).status()).as("another instance with the same token").isEqualTo(200);
    assertThat(other.get("/", cookie).status()).as("a server with another token").isEqualTo(303);
    // one bad cookie of the name beside a good one (another path) still lets in
    assertThat(server.get("/", "delayq_session=garbage; " + cookie).status()).isEqualTo(200);
  }

  @Test
  void withoutASessionPagesLeadToTheLoginAndActionsAre401() {
    String queue = DashboardServer.newQueue("dash-anon");
    Answer page = server.get("/?cursor=x%2Fy");
    assertThat(page.status()).isEqualTo(303);
    assertThat(page.header("Location")).isEqualTo("/login?next=%2F%3Fcursor%3Dx%252Fy");
    Answer detail = server.get("/queues/" + queue + "?state=dead");
    assertThat(detail.status()).isEqualTo(303);
    assertThat(detail.header("Location")).isEqualTo("/login?next=%2Fqueues%2F" + queue + "%3Fstate%3Ddead");
    Answer htmx = server.get("/", Map.of("HX-Request", "true"));
    assertThat(htmx.status()).isEqualTo(401);
    assertThat(htmx.header("HX-Redirect")).isEqualTo("/login");
    Answer pause = server.action("/queues/" + queue + "/pause", null);
    assertThat(pause.status()).isEqualTo(401);
    assertThat(pause.body()).contains("data-flash=\"error\"", "log in");
    assertThat(DashboardServer.delayq().queue(queue).admin().stats().paused()).isFalse();
    Answer login = server.get("/login?next=%2Fqueues");
    assertThat(login.status()).isEqualTo(200);
    assertThat(login.body()).contains("data-page=\"login\"", "name=\"next\" value=\"/queues\"")
        .doesNotContain("data-action=\"logout\"");
  }

  @Test
  void actionsFromAnotherSiteOrWithoutTheDashboardHeaderAreRefusedAndChangeNothing() {
    String queue = DashboardServer.newQueue("dash-csrf");
    String cookie = server.login(TOKEN);
    String pause = "/queues/" + queue + "/pause";
    List<Map<String, String>> hostile = List.of(
        Map.of("Cookie", cookie, "X-Delayq-Request", "dashboard", "Sec-Fetch-Site", "cross-site"),
        Map.of("Cookie", cookie, "X-Delayq-Request", "dashboard", "Sec-Fetch-Site", "same-site"),
        Map.of("Cookie", cookie, "X-Delayq-Request", "dashboard", "Sec-Fetch-Site", "none"),
        Map.of("Cookie", cookie, "X-Delayq-Request", "dashboard", "Origin", "http://evil.example"),
        Map.of("Cookie", cookie, "X-Delayq-Request", "dashboard", "Origin", "null"),
        Map.of("Cookie", cookie, "Sec-Fetch-Site", "same-origin"),
        Map.of("Cookie", cookie, "X-Delayq-Request", "other", "Sec-Fetch-Site", "same-origin"),
        Map.of("Cookie", cookie));
    for (Map<String, String> headers : hostile) {
      Answer refused = server.send("POST", pause, Map.of(), headers);
      assertThat(refused.status()).as(headers.toString()).isEqualTo(403);
      assertThat(refused.header("Set-Cookie")).isNull();
    }
    assertThat(DashboardServer.delayq().queue(queue).admin().stats().paused()).isFalse();
    // a login from another site gets no session either
    Answer login = server.send("POST", "/login", Map.of("token", TOKEN),
        Map.of("X-Delayq-Request", "dashboard", "Sec-Fetch-Site", "cross-site"));
    assertThat(login.status()).isEqualTo(403);
    assertThat(login.header("Set-Cookie")).isNull();
    // the own origin, with or without Sec-Fetch-Site, is accepted
    Answer sameOrigin = server.send("POST", pause, Map.of(), Map.of("Cookie", cookie, "X-Delayq-Request", "dashboard",
        "Origin", server.baseUrl()));
    assertThat(sameOrigin.status()).as(sameOrigin.toString()).isEqualTo(200);
    assertThat(DashboardServer.delayq().queue(queue).admin().stats().paused()).isTrue();
  }

  @Test
  void everyDashboardAnswerHasTheSecurityHeadersAndNoneHasCors() {
    String cookie = server.login(TOKEN);
    Answer page = server.get("/", cookie);
    String htmx = page.links().stream().filter(l -> l.contains("htmx.min.js")).findFirst().orElseThrow();
    List<Answer> answers = List.of(page, server.get("/login"), server.get("/"), server.get("/no-such-page", cookie),
        server.get(htmx), server.action("/queues/no-such-queue-" + UUID.randomUUID() + "/pause", cookie),
        server.action("/login", null, Map.of("token", "wrong")), server.send("POST", "/", Map.of(), Map.of()),
        server.send("OPTIONS", "/", null, Map.of("Origin", "http://evil.example",
            "Access-Control-Request-Method", "POST")));
    for (Answer answer : answers) {
      assertThat(answer.header("Content-Security-Policy")).as(answer.toString()).isEqualTo(
          "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self';"
              + " frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
      assertThat(answer.header("X-Content-Type-Options")).isEqualTo("nosniff");
      assertThat(answer.header("X-Frame-Options")).isEqualTo("DENY");
      assertThat(answer.header("Referrer-Policy")).isEqualTo("same-origin");
      assertThat(answer.headers().map().keySet()).noneMatch(h -> h.toLowerCase().startsWith("access-control-"));
    }
    assertThat(page.header("Cache-Control")).isEqualTo("no-store");
    assertThat(server.get("/no-such-page", cookie).status()).isEqualTo(404);
    assertThat(server.get("/no-such-page", cookie).body()).contains("data-flash=\"error\"", "no page /no-such-page");
    Answer options = server.send("OPTIONS", "/v1/queues", null, Map.of("Origin", "http://evil.example",
        "Access-Control-Request-Method", "GET"));
    assertThat(options.headers().map().keySet()).noneMatch(h -> h.toLowerCase().startsWith("access-control-"));
    assertThat(page.body()).doesNotContain("<script>").doesNotContain(" style=");
  }

  @Test
  void assetsAreServedImmutableWithTheirTypesAndNothingElse() {
    Answer page = open.get("/");
    List<String> assets = page.links().stream().filter(l -> l.startsWith("/assets/")).toList();
    assertThat(assets).anyMatch(l -> l.equals("/assets/htmx.org/2.0.8/dist/htmx.min.js"))
        .anyMatch(l -> l.matches("/assets/delayq/[0-9a-f]{16}/delayq\\.css"))
        .anyMatch(l -> l.matches("/assets/delayq/[0-9a-f]{16}/app\\.js"))
        .anyMatch(l -> l.matches("/assets/delayq/[0-9a-f]{16}/favicon\\.svg"));
    for (String asset : assets) {
      Answer answer = open.get(asset);
      assertThat(answer.status()).as(asset).isEqualTo(200);
      assertThat(answer.header("Cache-Control")).isEqualTo("public, max-age=31536000, immutable");
      assertThat(answer.header("Content-Type")).isEqualTo(asset.endsWith(".css") ? "text/css; charset=utf-8"
          : asset.endsWith(".svg") ? "image/svg+xml" : "text/javascript; charset=utf-8");
      assertThat(answer.header("X-Content-Type-Options")).isEqualTo("nosniff");
    }
    String css = assets.stream().filter(l -> l.endsWith("delayq.css")).findFirst().orElseThrow();
    assertThat(open.get(css).body()).contains("table.grid");
    assertThat(open.get("/assets/uplot/1.6.30/dist/uPlot.iife.min.js").status()).isEqualTo(200);
    assertThat(open.get("/assets/uplot/1.6.30/dist/uPlot.min.css").header("Content-Type"))
        .isEqualTo("text/css; charset=utf-8");
    // the assets need no session
    assertThat(server.get("/assets/uplot/1.6.30/dist/uPlot.min.css").status()).isEqualTo(200);
    String hash = css.split("/")[3];
    for (String bad : List.of("/assets/delayq/0000000000000000/delayq.css", "/assets/delayq/" + hash + "/nope.css",
        "/assets/delayq/" + hash + "/%2E%2E%2Fdelayq.css", "/assets/delayq/" + hash + "/..%2Fapp.js",
        "/assets/htmx.org/2.0.8/dist/%2E%2E/package.json", "/assets/htmx.org/2.0.8/dist/..%2F..%2F..%2Fpom.xml",
        "/assets/htmx.org/2.0.8/package.json", "/assets/htmx.org/2.0.8/dist/", "/assets/htmx.org/2.0.8/dist",
        "/assets/htmx.org/9.9.9/dist/htmx.min.js", "/assets/jquery/3.7.1/jquery.min.js", "/assets/htmx.org/2.0.8/",
        "/assets/htmx.org/2.0.8/dist/htmx.min.js.gz", "/assets/htmx.org/2.0.8/dist/%2Fetc%2Fpasswd.js",
        "/assets/delayq/", "/assets/",
        // in the webjars, but linked by no page
        "/assets/htmx.org/2.0.8/dist/htmx.js", "/assets/htmx.org/2.0.8/dist/ext/debug.js",
        "/assets/uplot/1.6.30/dist/uPlot.esm.js", "/assets/uplot/1.6.30/dist/uPlot.iife.js")) {
      Answer answer = open.get(bad);
      assertThat(answer.status()).as(bad).isEqualTo(404);
      if (bad.endsWith("/dist/ext/debug.js") || bad.endsWith("/uPlot.esm.js")) {
        assertThat(getClass().getResource("/META-INF/resources/webjars" + bad.substring("/assets".length())))
            .as("%s is in its webjar: the 404 is the allow-list's", bad).isNotNull();
      }
      assertThat(answer.header("Cache-Control")).as(bad).isEqualTo("no-store");
    }
  }

  @Test
  void everyLinkStartsWithTheBasePathWhetherTheProxyStripsItOrNot() {
    String queue = DashboardServer.newQueue("dash-prefix");
    Answer login = prefixed.action("/delayq/login", null, Map.of("token", TOKEN, "next", "/"));
    assertThat(login.header("Set-Cookie")).contains("; Path=/delayq/;");
    assertThat(login.header("HX-Redirect")).isEqualTo("/delayq/");
    String cookie = login.sessionCookie();
    for (String path : List.of("/delayq/", "/", "/delayq")) {
      Answer page = prefixed.get(path, cookie);
      assertThat(page.status()).as(path).isEqualTo(200);
      assertLinksStartWith(page, "/delayq/");
    }
    assertThat(prefixed.get("/delayq/login").links()).allMatch(l -> l.startsWith("/delayq/"));
    assertThat(prefixed.get("/delayq/?cursor=x").header("Location")).startsWith("/delayq/login?next=");
    assertThat(prefixed.action("/delayq/queues/" + queue + "/pause", cookie).status()).isEqualTo(200);
    assertThat(DashboardServer.delayq().queue(queue).admin().stats().paused()).isTrue();
    // the API is reachable under the prefix too
    assertThat(prefixed.get("/delayq/health").status()).isEqualTo(200);
  }

  @Test
  void aValidForwardedPrefixIsUsedAndAnInvalidOneIgnored() {
    String cookie = server.login(TOKEN);
    Answer proxied = server.get("/", Map.of("Cookie", cookie, "X-Forwarded-Prefix", "/ops/delayq"));
    assertLinksStartWith(proxied, "/ops/delayq/");
    assertThat(server.get("/?cursor=x", Map.of("X-Forwarded-Prefix", "/ops/delayq")).header("Location"))
        .startsWith("/ops/delayq/login?next=");
    for (String invalid : List.of("//evil.example", "/a b", "/..", "/ok/../x", "delayq", "/delayq/",
        "/\"><script>alert(1)</script>", "https://evil.example", "/%2e%2e")) {
      Answer page = server.get("/", Map.of("Cookie", cookie, "X-Forwarded-Prefix", invalid));
      assertThat(page.status()).as(invalid).isEqualTo(200);
      assertLinksStartWith(page, "/");
      assertThat(page.links()).as(invalid).noneMatch(l -> l.startsWith("//") || l.contains("evil") || l.contains(".."));
      assertThat(page.body()).doesNotContain("<script>alert");
    }
  }

  @Test
  void withoutATokenPagesNeedNoLoginButOnlyLoopbackNamesAreServed() throws Exception {
    String queue = DashboardServer.newQueue("dash-open");
    Answer page = open.get("/");
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.body()).contains("data-role=\"open\"").doesNotContain("data-action=\"logout\"");
    assertThat(open.get("/login").status()).isEqualTo(303);
    assertThat(open.get("/login").header("Location")).isEqualTo("/");
    assertThat(open.action("/queues/" + queue + "/pause", null).status()).isEqualTo(200);
    assertThat(DashboardServer.delayq().queue(queue).admin().stats().paused()).isTrue();
    assertThat(open.send("POST", "/queues/" + queue + "/resume", Map.of(), Map.of("Sec-Fetch-Site", "cross-site"))
        .status()).isEqualTo(403);
    assertThat(DashboardServer.delayq().queue(queue).admin().stats().paused()).isTrue();
    String rebound = raw(open.port(), "GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n");
    assertThat(rebound).startsWith("HTTP/1.1 403").contains("Content-Security-Policy").contains("is not this server");
    String loopback = raw(open.port(), "GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    assertThat(loopback).startsWith("HTTP/1.1 200");
  }

  @Test
  void theApiKeepsItsBearerTokenAndTakesTheReadOnlyOneForReadsOnly() {
    String queue = DashboardServer.newQueue("dash-api");
    String cookie = server.login(TOKEN);
    assertThat(server.get("/v1/queues/" + queue, cookie).status()).as("a cookie never authorizes /v1").isEqualTo(401);
    assertThat(server.get("/v1/queues/" + queue, Map.of("Authorization", "Bearer " + READ_ONLY)).status()).isEqualTo(200);
    assertThat(server.get("/metrics", Map.of("Authorization", "Bearer " + READ_ONLY)).status()).isEqualTo(200);
    Answer pause = server.send("POST", "/v1/queues/" + queue + "/pause", null,
        Map.of("Authorization", "Bearer " + READ_ONLY));
    assertThat(pause.status()).isEqualTo(403);
    assertThat(pause.header("Content-Type")).startsWith("application/json");
    assertThat(pause.body()).contains("read-only");
    assertThat(DashboardServer.delayq().queue(queue).admin().stats().paused()).isFalse();
    assertThat(server.send("DELETE", "/v1/queues/" + queue + "/jobs/seed", null,
        Map.of("Authorization", "Bearer " + READ_ONLY)).status()).isEqualTo(403);
    assertThat(DashboardServer.delayq().queue(queue).get("seed")).isPresent();
    assertThat(server.send("POST", "/v1/queues/" + queue + "/pause", null, Map.of("Authorization", "Bearer " + TOKEN))
        .status()).isEqualTo(204);
    Answer apiMissing = server.get("/v1/nope", Map.of("Authorization", "Bearer " + TOKEN));
    assertThat(apiMissing.status()).isEqualTo(404);
    assertThat(apiMissing.header("Content-Type")).startsWith("application/json");
    // the security headers go on every answer, so also on those made before a path is classified
    assertThat(apiMissing.header("Content-Security-Policy"))
        .isEqualTo(Dashboard.SECURITY_HEADERS.get("Content-Security-Policy"));
    assertThat(apiMissing.headers().map().keySet())
        .noneMatch(h -> h.toLowerCase(java.util.Locale.ROOT).startsWith("access-control-"));
    assertThat(server.get("/v1/queues").status()).isEqualTo(401);
  }

  @Test
  void settingsRefuseAReadOnlyTokenAloneOrEqualToTheFullOneAndBadBasePaths() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> HttpSettings.of("127.0.0.1", 0, null).withReadOnlyToken("x"))
        .hasMessageContaining("needs a full token");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> HttpSettings.of("127.0.0.1", 0, "t").withReadOnlyToken("t"))
        .hasMessageContaining("equals the full token");
    for (String bad : List.of("/", "delayq", "/delayq/", "/a b", "/..", "/a/./b", "//x")) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> HttpSettings.of("127.0.0.1", 0, null).withBasePath(bad))
          .as(bad).hasMessageContaining("is not a path prefix");
    }
    assertThat(HttpSettings.of("127.0.0.1", 0, null).withBasePath("/ops/delay-q_1.x~").basePath())
        .isEqualTo("/ops/delay-q_1.x~");
  }

  private static void assertLinksStartWith(Answer page, String prefix) {
    assertThat(page.links()).isNotEmpty();
    assertThat(page.links()).as(page.body()).allMatch(l -> l.startsWith(prefix), "starts with " + prefix);
  }

  private static String raw(int port, String request) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static Map<String, String> merged(Map<String, String> a, Map<String, String> b) {
    Map<String, String> all = new java.util.HashMap<>(a);
    all.putAll(b);
    return all;
  }

  /** A cookie value made as docs/DASHBOARD.md says, from the token alone. */
  static String forge(String token, String payload) throws Exception {
    byte[] key = hmac(token.getBytes(StandardCharsets.UTF_8), "delayq dashboard session v1".getBytes(StandardCharsets.UTF_8));
    byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
    return b64(bytes) + "." + b64(hmac(key, bytes));
  }

  private static byte[] hmac(byte[] key, byte[] message) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(key, "HmacSHA256"));
    return mac.doFinal(message);
  }

  private static String b64(byte[] bytes) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static KeyStore selfSigned() throws Exception {
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
    try (InputStream in = Files.newInputStream(store)) {
      keys.load(in, "changeit".toCharArray());
    }
    return keys;
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
        .encodeToString(der) + "\n-----END " + type + "-----\n";
  }
}
