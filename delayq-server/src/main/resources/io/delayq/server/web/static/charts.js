// delayq dashboard: charts drawn with uPlot from data embedded as
// <script type="application/json" data-chart="..."> (not executed; the CSP allows no inline script).
// Each chart element: <div class="chart" data-chart-source="ID"></div> next to
// <script type="application/json" id="ID">{"x":[epoch s...],"series":[{"label":"...","values":[...]}]}</script>
(function () {
  'use strict';

  function draw(root) {
    if (typeof uPlot === 'undefined') {
      return;
    }
    root.querySelectorAll('[data-chart-source]').forEach(function (el) {
      if (el.getAttribute('data-drawn') === 'true') {
        return;
      }
      var source = document.getElementById(el.getAttribute('data-chart-source'));
      if (!source) {
        return;
      }
      var data;
      try {
        data = JSON.parse(source.textContent);
      } catch (e) {
        return;
      }
      var spark = el.classList.contains('sparkline');
      var series = [{}].concat(data.series.map(function (s) {
        return { label: s.label, stroke: s.color || '#0969da', width: spark ? 1 : 1.5 };
      }));
      var opts = {
        width: spark ? 120 : Math.max(320, el.clientWidth || 640),
        height: spark ? 28 : 220,
        series: series,
        legend: { show: !spark },
        cursor: { show: !spark },
        axes: spark ? [{ show: false }, { show: false }] : [{}, {}]
      };
      new uPlot(opts, [data.x].concat(data.series.map(function (s) { return s.values; })), el);
      el.setAttribute('data-drawn', 'true');
    });
  }

  document.addEventListener('DOMContentLoaded', function () { draw(document); });
  document.addEventListener('htmx:afterSettle', function (evt) { draw(evt.detail.elt || document); });
})();
