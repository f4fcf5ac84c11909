// delayq dashboard charts: draws every <script type="application/json" data-chart="..."> block with
// uPlot. The blocks are data, never run: this file reads them with JSON.parse. No eval, no inline
// script, no inline style (the page's CSP allows script-src 'self' only).
//
// A block holds {"kind": "throughput"|"lateness"|"sparkline", "title", "unit", "labels": [...],
// "data": [[x epoch seconds...], [series...]...]}; the chart is drawn into the block's parent element.
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

  function widthOf(box, sparkline) {
    if (sparkline) {
      return 120;
    }
    return Math.max(240, box.clientWidth || 640);
  }

  function options(spec, box) {
    var sparkline = spec.kind === "sparkline";
    var series = [{}];
    (spec.labels || []).forEach(function (label, i) {
      series.push({
        label: label,
        stroke: colorOf(spec, label, i),
        width: sparkline ? 1 : 1.5,
        spanGaps: false,
        // a sparkline's second series (p99 lateness) has its own scale
        scale: sparkline && i === 1 ? "ms" : spec.kind === "lateness" ? "ms" : "y"
      });
    });
    if (sparkline) {
      var axes = [{ show: false }, { show: false }];
      var scales = { x: { time: true }, y: { auto: true } };
      if (series.length > 2) {
        axes.push({ show: false, scale: "ms" });
        scales.ms = { auto: true };
      }
      return {
        width: widthOf(box, true),
        height: 28,
        series: series,
        legend: { show: false },
        cursor: { show: false },
        select: { show: false },
        axes: axes,
        scales: scales
      };
    }
    return {
      title: spec.title + (spec.unit ? " (" + spec.unit + ")" : ""),
      width: widthOf(box, false),
      height: 240,
      series: series,
      scales: { x: { time: true } },
      axes: [{}, { scale: spec.kind === "lateness" ? "ms" : "y", size: 60 }]
    };
  }

  function draw(block, box, sparkline) {
    if (!block || !box || box.getAttribute("data-chart-drawn") === "true" || typeof uPlot === "undefined") {
      return;
    }
    var spec;
    try {
      spec = normalized(JSON.parse(block.textContent), sparkline);
    } catch (e) {
      return;
    }
    if (!spec || !Array.isArray(spec.data)) {
      return;
    }
    box.setAttribute("data-chart-drawn", "true");
    var chart = new uPlot(options(spec, box), spec.data, box);
    charts.push({ chart: chart, box: box, sparkline: spec.kind === "sparkline" });
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
      entry.chart.setSize({ width: widthOf(entry.box, entry.sparkline), height: entry.chart.height });
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
    // fragments that htmx swaps in (a new range, a refreshed table) bring new blocks
    document.body.addEventListener("htmx:afterSettle", function (event) {
      drawAll(event.target);
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
