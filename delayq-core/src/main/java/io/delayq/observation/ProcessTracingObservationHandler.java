package io.delayq.observation;

import io.micrometer.observation.Observation;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.TracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import java.util.Map;
import java.util.Objects;

/**
 * Starts the span of each {@code delayq.process} observation as a consumer span that <em>links</em>
 * to the span that scheduled the job, rather than being its child: a job runs minutes to days after
 * it was scheduled, and a child would stretch the producer's trace over all that time (and its
 * retries). The span's parent is the observation's parent (none, on delayq's own worker threads),
 * so the processing starts a trace of its own.
 *
 * <p>Register it ahead of Micrometer Tracing's {@code DefaultTracingObservationHandler}, with the
 * same tracer and the propagator that wrote the headers, for example in a {@code
 * FirstMatchingCompositeObservationHandler}; Spring Boot does that for a {@code
 * TracingObservationHandler} bean ordered before its own.
 *
 * <pre>{@code
 * registry.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
 *     new ProcessTracingObservationHandler(tracer, propagator),
 *     new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
 *     new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
 *     new DefaultTracingObservationHandler(tracer)));
 * }</pre>
 *
 * <p>Needs micrometer-tracing, which delayq-core depends on optionally.
 *
 * @since 0.2.0
 */
public class ProcessTracingObservationHandler implements TracingObservationHandler<ProcessObservationContext> {
  private final Tracer tracer;
  private final Propagator propagator;

  public ProcessTracingObservationHandler(Tracer tracer, Propagator propagator) {
    this.tracer = Objects.requireNonNull(tracer, "tracer");
    this.propagator = Objects.requireNonNull(propagator, "propagator");
  }

  @Override
  public void onStart(ProcessObservationContext context) {
    Span.Builder builder = tracer.spanBuilder();
    Span parent = getParentSpan(context);
    if (parent != null) {
      builder.setParent(parent.context());
    } else {
      builder.setNoParent();
    }
    TraceContext producer = producerContext(context.getTraceHeaders());
    if (producer != null) {
      builder.addLink(new Link(producer));
    }
    builder.kind(Span.Kind.CONSUMER).name(getSpanName(context));
    getTracingContext(context).setSpan(builder.start());
  }

  @Override
  public void onError(ProcessObservationContext context) {
    Throwable error = context.getError();
    if (error != null) {
      getRequiredSpan(context).error(error);
    }
  }

  @Override
  public void onStop(ProcessObservationContext context) {
    Span span = getRequiredSpan(context);
    tagSpan(context, span);
    span.name(getSpanName(context));
    endSpan(context, span);
  }

  @Override
  public boolean supportsContext(Observation.Context context) {
    return context instanceof ProcessObservationContext;
  }

  @Override
  public Tracer getTracer() {
    return tracer;
  }

  /**
   * The context of the span that wrote {@code headers}, or null when they hold none. Propagators
   * only extract into a span builder, so this starts a child of that context, reads its parent and
   * abandons it; an abandoned span is never reported.
   */
  TraceContext producerContext(Map<String, String> headers) {
    if (headers == null || headers.isEmpty()) {
      return null;
    }
    Span probe = propagator.extract(headers, Map::get).start();
    try {
      TraceContext child = probe.context();
      if (child.parentId() == null || child.parentId().isEmpty()) {
        return null;
      }
      return tracer.traceContextBuilder()
          .traceId(child.traceId())
          .spanId(child.parentId())
          .sampled(child.sampled())
          .build();
    } finally {
      probe.abandon();
    }
  }
}
