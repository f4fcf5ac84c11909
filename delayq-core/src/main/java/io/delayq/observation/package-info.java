/**
 * What delayq reports through Micrometer's Observation API, given {@code
 * Delayq.builder().observationRegistry(..)}: a {@code delayq.schedule} observation per schedule
 * call ({@link io.delayq.observation.ScheduleObservationContext}, a sender context whose carrier is
 * stored with the jobs) and a {@code delayq.process} observation per handler run ({@link
 * io.delayq.observation.ProcessObservationContext}). {@link
 * io.delayq.observation.ProcessTracingObservationHandler} makes each processing span a new trace
 * that links to the span that scheduled the job. Names and keys: docs/METRICS.md.
 *
 * <p>These types need micrometer-observation on the classpath (and the handler micrometer-tracing);
 * delayq itself runs without either.
 *
 * @since 0.2.0
 */
package io.delayq.observation;
