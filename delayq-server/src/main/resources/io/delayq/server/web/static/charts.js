// delayq dashboard charts: draws every <script type="application/json" data-chart="..."> block with
// uPlot. The blocks are data, never run: this file reads them with JSON.parse. No eval, no inline
// script, no inline style (the page's CSP allows script-src 'self' only).
//
// A block holds {"kind": "throughput"|"lateness"|"sparkline", "title", "unit", "labels": [...],
// "data": [[x epoch seconds...], [series...]...]}; the chart is drawn into the block's parent element.
// A block with the attribute data-chart-empty is not drawn: the page says in words that there is no data.
// Also read: an element <div data-chart-source="ID"> (class "sparkline" for a small one) drawn from
// <script type="application/json" id="ID">{"x": [...], "series": [{"label", "values", "color"?}]}.
(function () {
  "use strict";

  var COLORS = {
    scheduled: "#6b7280",
    delivered: "#2563eb",
    acked: "#16a34a",
    retried: "#d97706",
    dead: "#dc2626",
    p50: "#2563eb",
    p99: "#dc2626"
  };
  var FALLBACK = ["#2563eb", "#16a34a", "#d97706", "#dc2626", "#7c3aed", "#6b7280"];
  var QUIET = "#d0d7de";
  var SPARK_WIDTH = 120;
  var SPARK_HEIGHT = 24;
  var MINUTE_MS = 60 * 1000;
  // Lateness is stored in buckets with these upper bounds (ms); the log axis puts its ticks on them.
  var LATENESS_TICKS = [1, 10, 100, 1000, 10 * 1000, MINUTE_MS, 15 * MINUTE_MS, 60 * MINUTE_MS];

  function colorOf(spec, label, i) {
    return (spec.colors && spec.colors[i]) || COLORS[label] || FALLBACK[i % FALLBACK.length];
  }

  // the {"x", "series"} form, as the column form
  function normalized(spec, sparkline) {
    if (!spec || Array.isArray(spec.data) || !Array.isArray(spec.x) || !Array.isArray(spec.series)) {
      return spec;
    }
    return {
      kind: sparkline ? "sparkline" : spec.kind || "throughput",
      title: spec.title || "",
      unit: spec.unit || "",
      labels: spec.series.map(function (s) { return s.label; }),
      colors: spec.series.map(function (s) { return s.color; }),
      data: [spec.x].concat(spec.series.map(function (s) { return s.values; }))
    };
  }

  function trimmed(value) {
    return value >= 10 ? String(Math.round(value)) : String(Math.round(value * 10) / 10);
  }

  /** A count as people read it on an axis: 950, 12k, 1.2M. */
  function compactCount(value) {
    if (value == null) {
      return "–";
    }
    var size = Math.abs(value);
    if (size >= 1e9) {
      return trimmed(value / 1e9) + "G";
    }
    if (size >= 1e6) {
      return trimmed(value / 1e6) + "M";
    }
    if (size >= 1e3) {
      return trimmed(value / 1e3) + "k";
    }
    return trimmed(value);
  }

  /** Milliseconds in the unit that suits them: 5 ms, 1.5 s, 15 min, 2 h. */
  function duration(ms) {
    if (ms == null) {
      return "–";
    }
    if (ms < 1000) {
      return trimmed(ms) + " ms";
    }
    if (ms < MINUTE_MS) {
      return trimmed(ms / 1000) + " s";
    }
    if (ms < 60 * MINUTE_MS) {
      return trimmed(ms / MINUTE_MS) + " min";
    }
    return trimmed(ms / (60 * MINUTE_MS)) + " h";
  }

  function replaceAll(text, what, by) {
    return text.split(what).join(by);
  }

  // uPlot's date templates are American (5:25am, 12/2/26); the rest of the dashboard writes 24-hour ISO dates
  function isoDates(template) {
    var t = replaceAll(template, "{M}/{D}/{YY}", "{YYYY}-{MM}-{DD}");
    t = replaceAll(t, "{M}/{D}", "{MM}-{DD}");
    t = replaceAll(t, "{h}:{mm}{aa}", "{HH}:{mm}");
    t = replaceAll(t, "{h}{aa}", "{HH}:00");
    return uPlot.fmtDate(t);
  }

  // the pages give every other time in UTC; so do the charts, whatever the browser's zone
  function inUtc(seconds) {
    return uPlot.tzDate(new Date(seconds * 1000), "Etc/UTC");
  }

  // a sparkline's box: 0 at the bottom edge, so a quiet hour draws as a flat base line
  function fromZero(u, min, max) {
    return [0, Math.max(1, max || 0)];
  }

  function allZero(values) {
    for (var i = 0; i < values.length; i++) {
      if (values[i]) {
        return false;
      }
    }
    return true;
  }

  function translucent(hex) {
    return hex.length === 7 ? hex + "33" : hex;
  }

  function sparklineOptions(spec) {
    var label = (spec.labels || [])[0];
    var values = spec.data[1] || [];
    var color = allZero(values) ? QUIET : colorOf(spec, label, 0);
    return {
      width: SPARK_WIDTH,
      height: SPARK_HEIGHT,
      padding: [2, 1, 1, 1],
      tzDate: inUtc,
      series: [{}, {
        label: label,
        stroke: color,
        fill: translucent(color),
        width: 1,
        points: { show: false }
      }],
      legend: { show: false },
      cursor: { show: false },
      select: { show: false },
      axes: [{ show: false }, { show: false }],
      scales: { x: { time: true }, y: { range: fromZero } }
    };
  }

  function latenessRange(u, min, max) {
    var top = LATENESS_TICKS[LATENESS_TICKS.length - 1];
    for (var i = 0; i < LATENESS_TICKS.length; i++) {
      if (LATENESS_TICKS[i] >= (max || 1) * 1.5) {
        top = LATENESS_TICKS[i];
        break;
      }
    }
    return [1, Math.max(10, top)];
  }

  function latenessSplits(u, axisIdx, min, max) {
    return LATENESS_TICKS.filter(function (tick) { return tick >= min && tick <= max; });
  }

  // lateness is at least the first bucket bound; a zero (or less) has no place on a log scale
  function positive(column) {
    return column.map(function (v) { return v == null || v <= 0 ? null : v; });
  }

  function chartOptions(spec, width) {
    var lateness = spec.kind === "lateness";
    var series = [{ label: "UTC" }];
    (spec.labels || []).forEach(function (label, i) {
      series.push({
        label: label,
        stroke: colorOf(spec, label, i),
        width: 1.5,
        spanGaps: false,
        scale: lateness ? "ms" : "y",
        // lateness has gaps (nothing delivered), where a lone minute is only visible as a point
        points: lateness ? { size: 6 } : { show: false },
        value: function (u, v) { return lateness ? duration(v) : compactCount(v); }
      });
    });
    var scales = { x: { time: true } };
    var valueAxis;
    if (lateness) {
      scales.ms = { distr: 3, log: 10, range: latenessRange };
      valueAxis = {
        scale: "ms",
        size: 64,
        splits: latenessSplits,
        // uPlot's log axis keeps only powers of ten; these ticks are the bucket bounds people know
        filter: function (u, splits) { return splits; },
        values: function (u, ticks) { return ticks.map(duration); }
      };
    } else {
      scales.y = { range: function (u, min, max) { return [0, Math.max(4, Math.ceil((max || 0) * 1.1))]; } };
      valueAxis = {
        scale: "y",
        size: 56,
        // counts are whole
        incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 1e8, 1e9],
        values: function (u, ticks) { return ticks.map(compactCount); }
      };
    }
    return {
      width: width,
      height: 240,
      tzDate: inUtc,
      fmtDate: isoDates,
      series: series,
      scales: scales,
      axes: [{}, valueAxis]
    };
  }

  function plotBox(figure) {
    var box = figure.querySelector(".chart-plot");
    if (!box) {
      box = document.createElement("div");
      box.className = "chart-plot";
      figure.appendChild(box);
    }
    return box;
  }

  function plotWidth(box) {
    return Math.max(240, box.clientWidth || 640);
  }

  function draw(block, target, sparkline) {
    if (!block || !target || target.getAttribute("data-chart-drawn") === "true" || typeof uPlot === "undefined"
        || block.hasAttribute("data-chart-empty")) {
      return;
    }
    var spec;
    try {
      spec = normalized(JSON.parse(block.textContent), sparkline);
    } catch (e) {
      return;
    }
    if (!spec || !Array.isArray(spec.data) || !Array.isArray(spec.data[0])) {
      return;
    }
    target.setAttribute("data-chart-drawn", "true");
    if (spec.kind === "sparkline") {
      if (target.classList.contains("lateness") && !(spec.colors && spec.colors[0])) {
        spec.colors = [COLORS.retried];
      }
      charts.push({ chart: new uPlot(sparklineOptions(spec), spec.data, target), box: target, sparkline: true });
      return;
    }
    var data = spec.kind === "lateness" ? [spec.data[0]].concat(spec.data.slice(1).map(positive)) : spec.data;
    var box = plotBox(target);
    charts.push({ chart: new uPlot(chartOptions(spec, plotWidth(box)), data, box), box: box, sparkline: false });
  }

  var charts = [];

  function drawAll(root) {
    var blocks = (root || document).querySelectorAll('script[type="application/json"][data-chart]');
    for (var i = 0; i < blocks.length; i++) {
      draw(blocks[i], blocks[i].parentElement, false);
    }
    var boxes = (root || document).querySelectorAll("[data-chart-source]");
    for (var j = 0; j < boxes.length; j++) {
      var box = boxes[j];
      draw(document.getElementById(box.getAttribute("data-chart-source")), box, box.classList.contains("sparkline"));
    }
  }

  function resizeAll() {
    charts = charts.filter(function (entry) {
      return document.body.contains(entry.box);
    });
    charts.forEach(function (entry) {
      if (!entry.sparkline) {
        entry.chart.setSize({ width: plotWidth(entry.box), height: entry.chart.height });
      }
    });
  }

  var pending = null;
  window.addEventListener("resize", function () {
    if (pending) {
      clearTimeout(pending);
    }
    pending = setTimeout(resizeAll, 150);
  });

  function start() {
    drawAll(document);
    // fragments that htmx swaps in (a new range, the <main> reloaded after an action) bring new blocks;
    // after an outerHTML swap the event's target is the element swapped out, so look at the whole page
    // (boxes already drawn are skipped)
    document.body.addEventListener("htmx:afterSettle", function () {
      drawAll(document);
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
