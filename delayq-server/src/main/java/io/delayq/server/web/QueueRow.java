package io.delayq.server.web;

import io.delayq.QueueStats;

/**
 * One line of the queues page.
 *
 * @param name the queue
 * @param stats its counts, or null when they could not be read
 * @param forward where its due jobs are forwarded, described, or null
 * @param error why its counts could not be read, or null
 * @param throughput the last 60 minutes' delivered jobs per minute, as chart JSON for charts.js, or null
 * @param lateness the last 60 minutes' p99 lateness in ms, as chart JSON, or null
 */
public record QueueRow(String name, QueueStats stats, String forward, String error, String throughput,
    String lateness) {}
