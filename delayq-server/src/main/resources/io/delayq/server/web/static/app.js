// delayq dashboard: htmx hooks. No inline scripts anywhere (the CSP forbids them); this file and
// charts.js are all the JavaScript the pages run.
(function () {
  'use strict';

  function flashArea() {
    return document.getElementById('flash');
  }

  function flash(kind, text) {
    var area = flashArea();
    if (!area) {
      return;
    }
    var div = document.createElement('div');
    div.className = 'flash ' + kind;
    div.setAttribute('data-flash', kind);
    div.setAttribute('role', 'status');
    div.textContent = text;
    area.replaceChildren(div);
  }

  // Refusals and failures (4xx, 5xx) come as HTML flash messages: show them in the flash area,
  // whatever the element's own target, instead of htmx's default of dropping them.
  document.addEventListener('htmx:beforeSwap', function (evt) {
    var xhr = evt.detail.xhr;
    if (xhr.status >= 400) {
      var type = xhr.getResponseHeader('Content-Type') || '';
      if (type.indexOf('text/html') === 0) {
        evt.detail.shouldSwap = true;
        evt.detail.isError = false;
        evt.detail.target = flashArea();
      }
    }
  });

  // After an action (any POST) succeeded, reload the page's <main> so that it shows the new state;
  // the flash message (outside <main>) stays. An element inside [data-no-reload] (the count of a
  // bulk action, whose answer is the confirmation form) keeps the page as it is.
  document.addEventListener('htmx:afterRequest', function (evt) {
    var elt = evt.detail.elt;
    var xhr = evt.detail.xhr;
    var verb = ((evt.detail.requestConfig || {}).verb || '').toLowerCase();
    if (!evt.detail.successful || verb === 'get' || !elt || !elt.closest || elt.closest('[data-no-reload]')
        || (xhr && xhr.getResponseHeader('HX-Redirect'))) {
      return;
    }
    htmx.ajax('GET', window.location.href, { target: 'main', select: 'main', swap: 'outerHTML' });
  });

  document.addEventListener('htmx:sendError', function () {
    flash('error', 'the server did not answer; check that it is running and reload the page');
  });
  document.addEventListener('htmx:timeout', function () {
    flash('error', 'the server took too long to answer; reload the page to see the current state');
  });
})();
