package io.delayq.observation;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleSpanBuilder;
import io.micrometer.tracing.test.simple.SimpleTraceContext;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@link SimpleTracer}, whose span builder leaves a span without a parent with no ids at all, with
 * new ids for such a root span, as Brave and OpenTelemetry give it.
 */
final class RootIdsTracer extends SimpleTracer {
  @Override
  public SimpleSpanBuilder spanBuilder() {
    return new SimpleSpanBuilder(this) {
      @Override
      public Span start() {
        SimpleSpan span = (SimpleSpan) super.start();
        SimpleTraceContext context = span.context();
        if (context.traceId() == null || context.traceId().isEmpty()) {
          context.setTraceId(newId());
          context.setSpanId(newId());
        }
        return span;
      }
    };
  }

  private static String newId() {
    return HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
  }
}
