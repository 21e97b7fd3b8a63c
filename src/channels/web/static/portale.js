/* Portal: drag-and-drop onto the upload form. Everything works without this script (the file picker); it only makes
   it nicer (the order form's script is modulo.js). No inline code: the
   Content-Security-Policy allows scripts from this service only. */
/* global document, DataTransfer */
(function () {
  'use strict';
  var drop = document.getElementById('drop');
  var input = document.getElementById('files');
  var chosen = document.getElementById('chosen');
  var form = document.getElementById('upload');

  var max = input ? Number(input.getAttribute('data-max')) || 0 : 0;

  function tooMany() {
    return max > 0 && input.files.length > max;
  }

  function showChosen() {
    if (!chosen || !input) return;
    var names = [];
    for (var i = 0; i < input.files.length; i++) names.push(input.files[i].name);
    chosen.textContent = tooMany()
      ? 'Troppi file: al massimo ' + max + ' per invio (scelti ' + names.length + '). Inviarli in più volte.'
      : names.length ? 'File scelti: ' + names.join(', ') : '';
  }

  if (drop && input && form) {
    input.addEventListener('change', showChosen);
    // The service refuses the whole upload anyway (nothing registered); said here before the files are sent.
    form.addEventListener('submit', function (e) {
      if (tooMany()) { e.preventDefault(); showChosen(); }
    });
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
      if (!tooMany()) form.requestSubmit();
    });
  }
})();
