package io.delayq.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.delayq.InvalidRequestException;
import java.util.List;
import org.junit.jupiter.api.Test;

class RouterTest {
  private static final Route.Handler NONE = request -> Response.noContent();
  private final Router router =
      new Router(
          List.of(
              new Route("POST", "/v1/queues/{queue}/jobs", NONE, false),
              new Route("POST", "/v1/queues/{queue}/jobs:batch", NONE, false),
              new Route("GET", "/v1/queues/{queue}/jobs/{id}", NONE, false),
              new Route("DELETE", "/v1/queues/{queue}/jobs/{id}", NONE, false),
              new Route("GET", "/health", NONE, true)));

  @Test
  void capturesAndDecodesPathParameters() {
    Router.Match match = router.match("GET", "/v1/queues/orders/jobs/a%2Fb%20c+d%C3%A9");
    assertThat(match.found()).isTrue();
    assertThat(match.label()).isEqualTo("/v1/queues/{queue}/jobs/{id}");
    Request request = Request.ofPath(match.params());
    assertThat(request.path("queue")).isEqualTo("orders");
    assertThat(request.path("id")).isEqualTo("a/b c+dé");
  }

  @Test
  void batchIsItsOwnLiteralSegment() {
    assertThat(router.match("POST", "/v1/queues/orders/jobs:batch").label()).isEqualTo("/v1/queues/{queue}/jobs:batch");
    assertThat(router.match("POST", "/v1/queues/orders/jobs").label()).isEqualTo("/v1/queues/{queue}/jobs");
  }

  @Test
  void otherMethodsOfAKnownPathAreListedForA405() {
    Router.Match match = router.match("PUT", "/v1/queues/orders/jobs/42");
    assertThat(match.found()).isFalse();
    assertThat(match.allowedMethods()).containsExactly("DELETE", "GET");
    assertThat(match.pathOpen()).isFalse();
    assertThat(router.match("POST", "/health").pathOpen()).isTrue();
  }

  @Test
  void unknownPathsMatchNothing() {
    for (String path : List.of("/", "/v1", "/v1/queues/orders/jobs/42/extra", "/v1/queues//jobs", "/v2/queues/q/jobs")) {
      Router.Match match = router.match("GET", path);
      assertThat(match.found()).as(path).isFalse();
      assertThat(match.allowedMethods()).as(path).isEmpty();
      assertThat(match.label()).isEqualTo(Router.UNMATCHED);
    }
  }

  @Test
  void refusesSegmentsThatAreNotPercentEncodedUtf8WhenTheHandlerReadsThem() {
    // matching never decodes: that happens after the token check, when a handler reads the value
    assertThat(router.match("GET", "/v1/queues/orders/jobs/%C3%28").found()).isTrue();
    assertThatThrownBy(() -> Request.ofPath(router.match("GET", "/v1/queues/orders/jobs/%C3%28").params()).path("id"))
        .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("id"))
        .hasMessageContaining("UTF-8");
    assertThatThrownBy(() -> Request.ofPath(router.match("GET", "/v1/queues/orders/jobs/%G1").params()).path("id"))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("malformed percent escape");
  }

  @Test
  void aRouteTakesOnlyTheQueryParametersItDeclares() {
    Route claim = new Route("POST", "/v1/queues/{queue}/claim", NONE, false).reading("max", "waitMs");
    Route put = new Route("PUT", "/v1/queues/{queue}/schedules/{name}", NONE, false);

    request(claim, "max=5&waitMs=0").checkQuery();
    request(put, null).checkQuery();
    request(put, "").checkQuery();
    assertThat(request(claim, "max=5").queryInteger("max", 1, 10, 1)).isEqualTo(5);
    assertThat(request(claim, "max=5").hasQuery("waitMs")).isFalse();
    assertThatThrownBy(() -> request(put, "dryRun=true").checkQuery())
        .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("dryRun"))
        .hasMessageContaining("takes none");
    assertThatThrownBy(() -> request(claim, "max=5&wait=5").checkQuery())
        .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("wait"))
        .hasMessageContaining("max, waitMs");
    assertThatThrownBy(() -> request(claim, "max=5&max=6").checkQuery())
        .isInstanceOfSatisfying(InvalidRequestException.class, e -> assertThat(e.field()).isEqualTo("max"));
    // why: a handler reading a parameter its route does not declare is a bug of the route table
    assertThatThrownBy(() -> request(put, null).query("dryRun")).isInstanceOf(IllegalStateException.class);
  }

  private static Request request(Route route, String rawQuery) {
    return new Request(route.method(), rawQuery, io.netty.handler.codec.http.EmptyHttpHeaders.INSTANCE, new byte[0],
        java.util.Map.of(), route.query(), new java.util.concurrent.CompletableFuture<>());
  }

  @Test
  void encodesSegmentsForLocations() {
    assertThat(PathCodec.encodeSegment("a/b c+dé:1")).isEqualTo("a%2Fb%20c%2Bd%C3%A9:1");
    assertThat(PathCodec.decodeSegment("id", PathCodec.encodeSegment("a/b c+dé:1"))).isEqualTo("a/b c+dé:1");
  }
}
