package io.delayq.internal;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The trace propagation headers that a schedule call's observation stored with its jobs (W3C
 * {@code traceparent}, {@code tracestate}, {@code baggage}, or whatever the tracer's propagator
 * writes), in the form a job record holds them: form-encoded ({@code name=value&name=value}), so the
 * text never holds the record's separator {@code |}. At most {@link #MAX_BYTES} encoded: a larger
 * set is dropped whole, since a cut trace context is worse than none.
 */
public final class TraceHeaders {
  /** Most bytes of encoded headers stored with a job. */
  public static final int MAX_BYTES = 1024;
  public static final TraceHeaders NONE = new TraceHeaders(Map.of(), new byte[0]);

  private static final Logger log = LoggerFactory.getLogger(TraceHeaders.class);
  private static final AtomicBoolean warnedTooLarge = new AtomicBoolean();

  private final Map<String, String> headers;
  private final byte[] encoded;

  private TraceHeaders(Map<String, String> headers, byte[] encoded) {
    this.headers = headers;
    this.encoded = encoded;
  }

  /** The headers a propagator wrote, encoded once; {@link #NONE} when empty or over {@link #MAX_BYTES}. */
  public static TraceHeaders of(Map<String, String> headers) {
    if (headers == null || headers.isEmpty()) {
      return NONE;
    }
    Map<String, String> kept = new LinkedHashMap<>();
    StringBuilder text = new StringBuilder();
    headers.forEach((name, value) -> {
      if (name == null || name.isEmpty() || value == null) {
        return;
      }
      if (text.length() > 0) {
        text.append('&');
      }
      text.append(URLEncoder.encode(name, StandardCharsets.UTF_8)).append('=')
          .append(URLEncoder.encode(value, StandardCharsets.UTF_8));
      kept.put(name, value);
    });
    if (kept.isEmpty()) {
      return NONE;
    }
    byte[] bytes = text.toString().getBytes(StandardCharsets.US_ASCII);
    if (bytes.length > MAX_BYTES) {
      String message = "trace headers " + kept.keySet() + " take " + bytes.length + " bytes encoded, more than the "
          + MAX_BYTES + " stored with a job; these jobs are scheduled without them, so their processing is not"
          + " linked to this trace. Keep baggage small";
      if (warnedTooLarge.compareAndSet(false, true)) {
        log.warn("{} (said once; later cases are logged at debug)", message);
      } else {
        log.debug(message);
      }
      return NONE;
    }
    return new TraceHeaders(Collections.unmodifiableMap(kept), bytes);
  }

  /**
   * Reads headers stored as {@link #encoded()} from {@code stored[from, to)}. Lenient: text that
   * does not decode yields {@link #NONE}, so a damaged trace never stops a job from running.
   */
  static TraceHeaders decode(byte[] stored, int from, int to) {
    if (to <= from) {
      return NONE;
    }
    String text = new String(stored, from, to - from, StandardCharsets.US_ASCII);
    Map<String, String> headers = new LinkedHashMap<>();
    try {
      for (String pair : text.split("&")) {
        int eq = pair.indexOf('=');
        if (eq <= 0) {
          return NONE;
        }
        headers.put(
            URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    } catch (IllegalArgumentException e) {
      return NONE;
    }
    return new TraceHeaders(Collections.unmodifiableMap(headers), Arrays.copyOfRange(stored, from, to));
  }

  public boolean isEmpty() {
    return headers.isEmpty();
  }

  /** The headers by name, in the order the propagator wrote them; unmodifiable. */
  public Map<String, String> asMap() {
    return headers;
  }

  /** The stored form; empty for {@link #NONE}. */
  byte[] encoded() {
    return encoded;
  }

  @Override
  public String toString() {
    return headers.toString();
  }
}
