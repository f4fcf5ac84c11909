package io.delayq.observation;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProcessTracingObservationHandlerTest {
  private final SimpleTracer tracer = new RootIdsTracer();
  private final ProcessTracingObservationHandler handler =
      new ProcessTracingObservationHandler(tracer, new W3cTestPropagator(tracer));

  @Test
  void readsTheContextThatWroteTheHeadersAndReportsNothingDoingSo() {
    TraceContext producer = handler.producerContext(Map.of("traceparent", "00-0af7651916cd43dd-b7ad6b7169203331-01"));
    assertThat(producer.traceId()).isEqualTo("0af7651916cd43dd");
    assertThat(producer.spanId()).isEqualTo("b7ad6b7169203331");
    assertThat(producer.sampled()).isTrue();
    // the probe it extracted through is abandoned, never ended
    assertThat(tracer.getSpans()).hasSize(1).allSatisfy(probe -> {
      assertThat(probe.getParentId()).isEqualTo("b7ad6b7169203331");
      assertThat(ended(probe)).isFalse();
    });
  }

  private static boolean ended(SimpleSpan span) {
    return span.getEndTimestamp() != null && span.getEndTimestamp().isAfter(Instant.EPOCH);
  }

  @Test
  void headersWithoutATraceContextGiveNoLink() {
    assertThat(handler.producerContext(Map.of())).isNull();
    assertThat(handler.producerContext(Map.of("traceparent", "not a trace context"))).isNull();
    assertThat(handler.producerContext(Map.of("baggage", "k=v"))).isNull();
  }
}
