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
})();
