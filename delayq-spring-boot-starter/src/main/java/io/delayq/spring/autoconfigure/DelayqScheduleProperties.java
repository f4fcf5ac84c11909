package io.delayq.spring.autoconfigure;

import io.delayq.JobRequest;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Recurring schedules, under {@code delayq.schedules.*}: the queue of {@code @DelayqScheduled}
 * methods that name none, and schedules declared without code, one per name, e.g. {@code
 * delayq.schedules.nightly-report.cron=0 2 * * *} (the settings of each are those of {@link
 * Definition}, listed in docs/SPRING-BOOT.md). A schedule of the properties is run by the
 * {@code @DelayqListener} (or forwarder) of its queue.
 *
 * @since 0.4.0
 */
@ConfigurationProperties("delayq.schedules")
public class DelayqScheduleProperties {
  /** The queue of @DelayqScheduled methods and delayq.schedules.<name> entries that name none. */
  private String defaultQueue = "schedules";

  public String getDefaultQueue() {
    return defaultQueue;
  }

  public void setDefaultQueue(String defaultQueue) {
    this.defaultQueue = defaultQueue;
  }

  /**
   * One schedule of the properties, {@code delayq.schedules.<name>.*}; bound apart, as a map by
   * name without {@code default-queue}, which shares the names' level.
   */
  public static class Definition {
    private String queue;
    private String cron;
    private Duration every;
    private String zone;
    private String payload;
    private String jsonPayload;
    private String misfire;
    private Duration grace;
    private String overlap;
    private boolean paused;
    private int maxAttempts = JobRequest.DEFAULT_MAX_ATTEMPTS;
    private String start;
    private String end;

    public String getQueue() {
      return queue;
    }

    public void setQueue(String queue) {
      this.queue = queue;
    }

    public String getCron() {
      return cron;
    }

    public void setCron(String cron) {
      this.cron = cron;
    }

    public Duration getEvery() {
      return every;
    }

    public void setEvery(Duration every) {
      this.every = every;
    }

    public String getZone() {
      return zone;
    }

    public void setZone(String zone) {
      this.zone = zone;
    }

    public String getPayload() {
      return payload;
    }

    public void setPayload(String payload) {
      this.payload = payload;
    }

    public String getJsonPayload() {
      return jsonPayload;
    }

    public void setJsonPayload(String jsonPayload) {
      this.jsonPayload = jsonPayload;
    }

    public String getMisfire() {
      return misfire;
    }

    public void setMisfire(String misfire) {
      this.misfire = misfire;
    }

    public Duration getGrace() {
      return grace;
    }

    public void setGrace(Duration grace) {
      this.grace = grace;
    }

    public String getOverlap() {
      return overlap;
    }

    public void setOverlap(String overlap) {
      this.overlap = overlap;
    }

    public boolean isPaused() {
      return paused;
    }

    public void setPaused(boolean paused) {
      this.paused = paused;
    }

    public int getMaxAttempts() {
      return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    public String getStart() {
      return start;
    }

    public void setStart(String start) {
      this.start = start;
    }

    public String getEnd() {
      return end;
    }

    public void setEnd(String end) {
      this.end = end;
    }
  }
}
