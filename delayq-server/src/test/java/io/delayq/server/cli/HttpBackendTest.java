package io.delayq.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HttpBackendTest {
  @Test
  void theNextPageIsTakenFromTheLinkHeader() {
    assertThat(HttpBackend.nextPage("</v1/queues?cursor=AbC_-9&limit=1000>; rel=\"next\""))
        .isEqualTo("/v1/queues?cursor=AbC_-9&limit=1000");
    assertThat(HttpBackend.nextPage("</v1/queues?cursor=x&limit=2>;rel=next")).isEqualTo("/v1/queues?cursor=x&limit=2");
    assertThat(HttpBackend.nextPage(null)).isNull();
    assertThat(HttpBackend.nextPage("</v1/queues?cursor=x>; rel=\"prev\"")).isNull();
    // only a path on the same server is followed, never another host
    assertThat(HttpBackend.nextPage("<http://elsewhere/v1/queues>; rel=\"next\"")).isNull();
  }
}
