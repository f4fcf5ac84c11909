package io.delayq.internal.cron;

import java.time.Instant;
import java.time.ZoneId;

/** Placeholder until the parser lands. */
public final class Cron {
  private final String expression;

  private Cron(String expression) {
    this.expression = expression;
  }

  public static Cron parse(String expression) {
    return new Cron(expression.trim());
  }

  public Instant nextAfter(Instant after, ZoneId zone) {
    throw new UnsupportedOperationException("cron");
  }

  public boolean isSubHourly() {
    return false;
  }

  public String expression() {
    return expression;
  }
}
