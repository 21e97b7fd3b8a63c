/* Order forms (the portal's order form, the console's correction): catalog suggestions as the person types, and
   "Aggiungi riga" adding a line in place. Everything works without this script (suggestions rendered with the page,
   the button sending the form back with one more line); it only makes both quicker. No inline code: the
   Content-Security-Policy allows scripts from this service only. */
/* global document, window, fetch */
(function () {
  'use strict';
  var list = document.getElementById('catalogo');
  var source = list && list.getAttribute('data-source');
  var timer;

  function suggest(field) {
    window.clearTimeout(timer);
    var q = field.value.trim();
    timer = window.setTimeout(function () {
      fetch(source + '?q=' + encodeURIComponent(q), { headers: { accept: 'application/json' }, credentials: 'same-origin' })
        .then(function (r) { return r.ok ? r.json() : []; })
        .then(function (rows) {
          list.replaceChildren.apply(list, rows.map(function (a) {
            var o = document.createElement('option');
            o.value = a.codice;
            o.textContent = a.descrizione + ' (' + a.unita + ')';
            return o;
          }));
        })
        .catch(function () { /* suggestions are a convenience: keep the ones shown */ });
    }, 200);
  }

  // Delegated, so the lines added below get suggestions too.
  if (list && source) {
    document.addEventListener('input', function (e) {
      var t = e.target;
      if (t && t.getAttribute && t.getAttribute('list') === 'catalogo') suggest(t);
    });
  }

  var lines = document.getElementById('righe');
  var add = document.getElementById('aggiungi-riga');
  if (lines && add) {
    var max = Number(lines.getAttribute('data-max')) || 200;
    add.addEventListener('click', function (e) {
      var all = lines.querySelectorAll('.line');
      var last = all[all.length - 1];
      if (!last) return; // nothing to copy: let the form go back to the server, which adds the line
      e.preventDefault();
      if (all.length >= max) return;
      // A copy of the last line, emptied and numbered next: the same fields the server renders, in the same order.
      var n = all.length;
      var line = last.cloneNode(true);
      line.querySelectorAll('input').forEach(function (input) {
        input.value = '';
        input.removeAttribute('autofocus');
        input.id = input.id.replace(/\d+$/, String(n));
      });
      line.querySelectorAll('label').forEach(function (label) {
        label.setAttribute('for', label.getAttribute('for').replace(/\d+$/, String(n)));
        label.textContent = label.textContent.replace(/^Riga \d+/, 'Riga ' + (n + 1));
      });
      lines.appendChild(line);
      line.querySelector('input').focus();
      if (n + 1 >= max) add.hidden = true;
    });
  }
})();
