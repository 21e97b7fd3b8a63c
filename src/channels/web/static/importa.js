/* Console: follows a catalog import started from the articles page, polling its state every half second and moving
   the progress bar. Without this script the page still shows the state when it is loaded (and a link to reload).
   No inline code: the Content-Security-Policy allows scripts from this service only. */
/* global document, window, fetch */
(function () {
  'use strict';
  var box = document.getElementById('importazione');
  if (!box) return;
  var bar = document.getElementById('avanzamento');
  var out = document.getElementById('esito');
  var url = box.getAttribute('data-stato');

  function show(s) {
    bar.value = s.percent;
    bar.textContent = s.percent + '%';
    out.textContent = s.message;
    out.className = 'notice ' + (s.state === 'done' ? 'ok' : s.state === 'failed' ? 'err' : 'info');
    box.setAttribute('data-fatto', s.state);
  }

  function poll() {
    fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' })
      .then(function (r) { return r.ok ? r.json() : Promise.reject(new Error(String(r.status))); })
      .then(function (s) {
        show(s);
        if (s.state === 'running') window.setTimeout(poll, 500);
      })
      .catch(function () {
        out.textContent = 'Impossibile leggere lo stato dell\'importazione: ricaricare la pagina.';
      });
  }

  if (box.getAttribute('data-fatto') === 'running') window.setTimeout(poll, 500);
})();
