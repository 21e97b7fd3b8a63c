/* Portal: drag-and-drop onto the upload form, and catalog suggestions as the customer types. Everything works
   without this script (file picker, server-rendered suggestions); it only makes both nicer. No inline code: the
   Content-Security-Policy allows scripts from this service only. */
/* global document, window, fetch, DataTransfer */
(function () {
  'use strict';
  var drop = document.getElementById('drop');
  var input = document.getElementById('files');
  var chosen = document.getElementById('chosen');
  var form = document.getElementById('upload');

  function showChosen() {
    if (!chosen || !input) return;
    var names = [];
    for (var i = 0; i < input.files.length; i++) names.push(input.files[i].name);
    chosen.textContent = names.length ? 'File scelti: ' + names.join(', ') : '';
  }

  if (drop && input && form) {
    input.addEventListener('change', showChosen);
    ['dragenter', 'dragover'].forEach(function (type) {
      drop.addEventListener(type, function (e) { e.preventDefault(); drop.classList.add('over'); });
    });
    ['dragleave', 'drop'].forEach(function (type) {
      drop.addEventListener(type, function () { drop.classList.remove('over'); });
    });
    drop.addEventListener('drop', function (e) {
      e.preventDefault();
      if (!e.dataTransfer || e.dataTransfer.files.length === 0) return;
      // Dropped files go into the ordinary file input, and the ordinary form is sent: one code path on the server.
      var dt = new DataTransfer();
      for (var i = 0; i < e.dataTransfer.files.length; i++) dt.items.add(e.dataTransfer.files[i]);
      input.files = dt.files;
      showChosen();
      form.requestSubmit();
    });
  }

  var list = document.getElementById('catalogo');
  if (list) {
    var timer;
    document.querySelectorAll('input[list="catalogo"]').forEach(function (field) {
      field.addEventListener('input', function () {
        window.clearTimeout(timer);
        var q = field.value.trim();
        timer = window.setTimeout(function () {
          fetch('/portale/articoli?q=' + encodeURIComponent(q), { headers: { accept: 'application/json' }, credentials: 'same-origin' })
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
      });
    });
  }
})();
