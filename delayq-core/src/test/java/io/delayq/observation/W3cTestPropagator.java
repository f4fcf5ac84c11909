package io.delayq.observation;

import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleTraceContext;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.util.List;

/**
 * W3C {@code traceparent} for Micrometer's {@link SimpleTracer}, which comes without a propagator;
 * and a {@code baggage} header of the test's choosing, to try large carriers.
 */
final class W3cTestPropagator implements Propagator {
  private final SimpleTracer tracer;
  volatile String baggage;

  W3cTestPropagator(SimpleTracer tracer) {
    this.tracer = tracer;
  }

  @Override
  public List<String> fields() {
    return List.of("traceparent", "baggage");
  }

  @Override
  public <C> void inject(TraceContext context, C carrier, Setter<C> setter) {
    setter.set(carrier, "traceparent", "00-" + context.traceId() + "-" + context.spanId() + "-01");
    if (baggage != null) {
      setter.set(carrier, "baggage", baggage);
    }
  }

  @Override
  public <C> Span.Builder extract(C carrier, Getter<C> getter) {
    String header = getter.get(carrier, "traceparent");
    String[] parts = header == null ? new String[0] : header.split("-");
    if (parts.length != 4) {
      return tracer.spanBuilder();
    }
    SimpleTraceContext remote = new SimpleTraceContext();
    remote.setTraceId(parts[1]);
    remote.setSpanId(parts[2]);
    remote.setSampled(parts[3].equals("01"));
    return tracer.spanBuilder().setParent(remote);
  }
}
