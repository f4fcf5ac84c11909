package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RouteTableTest {
  private static final List<Route> ROUTES =
      Routes.table(
          new JobEndpoints(null, null),
          new WorkerEndpoints(null, null, null),
          new QueueEndpoints(null, 64, null),
          new ScheduleEndpoints(null, null),
          new SystemEndpoints(null, null, () -> false, null));

  @Test
  void everyRouteIsInTheOpenApiDocumentWithItsMethod() throws Exception {
    JsonNode paths = openApi().path("paths");
    for (Route route : ROUTES) {
      assertThat(paths.has(route.pattern())).as("openapi.json has path %s", route.pattern()).isTrue();
      assertThat(paths.path(route.pattern()).has(route.method().toLowerCase(Locale.ROOT)))
          .as("openapi.json has %s %s", route.method(), route.pattern())
          .isTrue();
    }
  }

  @Test
  void theOpenApiDocumentDescribesNoRouteTheServerLacks() throws Exception {
    Set<String> routes = new HashSet<>();
    ROUTES.forEach(route -> routes.add(route.method().toLowerCase(Locale.ROOT) + " " + route.pattern()));
    JsonNode paths = openApi().path("paths");
    paths.fieldNames().forEachRemaining(path ->
        paths.path(path).fieldNames().forEachRemaining(key -> {
          if (!key.equals("parameters")) {
            assertThat(routes).contains(key + " " + path);
          }
        }));
  }

  @Test
  void everyPathParameterIsDeclaredAndOnlyTheHealthChecksAreOpen() throws Exception {
    JsonNode doc = openApi();
    assertThat(doc.path("openapi").asText()).startsWith("3.0");
    assertThat(doc.at("/components/securitySchemes/bearerAuth/scheme").asText()).isEqualTo("bearer");
    for (Route route : ROUTES) {
      JsonNode path = doc.path("paths").path(route.pattern());
      for (String segment : route.segments()) {
        if (segment.startsWith("{")) {
          String name = segment.substring(1, segment.length() - 1);
          assertThat(path.path("parameters").toString()).as("%s declares {%s}", route.pattern(), name)
              .contains("#/components/parameters/" + name);
        }
      }
      JsonNode operation = path.path(route.method().toLowerCase(Locale.ROOT));
      boolean open = operation.has("security") && operation.path("security").isEmpty();
      assertThat(open).as("%s %s is open", route.method(), route.pattern()).isEqualTo(route.open());
    }
    assertThat(ROUTES).filteredOn(Route::open).extracting(Route::pattern)
        .containsExactly("/health", "/health/live", "/health/ready");
  }

  /** The query parameters a route reads, and refuses all others, are those the document gives it. */
  @Test
  void everyRouteTakesExactlyTheQueryParametersTheOpenApiDocumentDeclares() throws Exception {
    JsonNode paths = openApi().path("paths");
    for (Route route : ROUTES) {
      if (route.query().contains(Route.ANY_QUERY)) {
        continue;
      }
      JsonNode path = paths.path(route.pattern());
      Set<String> documented = new HashSet<>();
      for (JsonNode parameters : List.of(path.path("parameters"), path.path(route.method().toLowerCase(Locale.ROOT))
          .path("parameters"))) {
        parameters.forEach(p -> {
          if (p.path("in").asText().equals("query")) {
            documented.add(p.path("name").asText());
          }
        });
      }
      assertThat(route.query()).as("query parameters of %s %s", route.method(), route.pattern())
          .containsExactlyInAnyOrderElementsOf(documented);
    }
    assertThat(ROUTES).filteredOn(r -> r.query().contains(Route.ANY_QUERY)).extracting(Route::pattern)
        .containsExactlyInAnyOrder("/health", "/health/live", "/health/ready", "/metrics");
    assertThat(ROUTES).filteredOn(r -> r.pattern().equals("/v1/queues/{queue}/schedules"))
        .singleElement().satisfies(r -> assertThat(r.query()).containsExactlyInAnyOrder("limit", "cursor"));
  }

  @Test
  void noTwoRoutesShareMethodAndPattern() {
    Set<String> seen = new HashSet<>();
    for (Route route : ROUTES) {
      assertThat(seen.add(route.method() + " " + route.pattern())).as("duplicate %s %s", route.method(), route.pattern()).isTrue();
    }
  }

  private static JsonNode openApi() throws Exception {
    try (InputStream in = RouteTableTest.class.getResourceAsStream(SystemEndpoints.OPENAPI_RESOURCE)) {
      assertThat(in).as("openapi.json resource").isNotNull();
      return new ObjectMapper().readTree(in);
    }
  }
}
