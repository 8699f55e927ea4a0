// The page's few interactions: sorting and filtering the ranking table,
// showing a row's combination, reading a heatmap's cells, choosing a
// diffNLR. Everything it shows is already in the page.
(function () {
  'use strict';
  function $(s, r) { return (r || document).querySelector(s); }
  function $$(s, r) { return Array.prototype.slice.call((r || document).querySelectorAll(s)); }

  var table = $('#rows');
  var tbody = table ? table.tBodies[0] : null;
  var total = table ? table.getAttribute('data-rows') : 0;

  // Sorting: a click on a heading sorts by its column, a second click
  // the other way; equal values keep the ranking's order.
  if (table) {
    $$('th[data-sort]', table).forEach(function (th) {
      th.addEventListener('click', function () {
        var col = th.cellIndex, numeric = th.getAttribute('data-sort') === 'num';
        var dir = th.getAttribute('aria-sort') === 'ascending' ? 'descending' : 'ascending';
        $$('th', table).forEach(function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', dir);
        var key = function (tr) {
          var td = tr.cells[col];
          var v = td.hasAttribute('data-value') ? td.getAttribute('data-value') : td.textContent;
          return numeric ? parseFloat(v) : v;
        };
        var rows = $$('tr', tbody);
        rows.sort(function (a, b) {
          var x = key(a), y = key(b), c;
          if (numeric) { c = (isNaN(x) ? Infinity : x) - (isNaN(y) ? Infinity : y); } else { c = x < y ? -1 : x > y ? 1 : 0; }
          if (c === 0) { c = a.getAttribute('data-row') - b.getAttribute('data-row'); return c; }
          return dir === 'ascending' ? c : -c;
        });
        rows.forEach(function (r) { tbody.appendChild(r); });
      });
    });

    // Filtering by the parameters and by a suspect.
    var selects = $$('.rowfilter');
    var suspect = $('#f-suspect');
    var apply = function () {
      var want = suspect.value.trim(), shown = 0;
      $$('tr', tbody).forEach(function (tr) {
        var ok = selects.every(function (s) { return !s.value || tr.getAttribute('data-' + s.getAttribute('data-col')) === s.value; });
        if (ok && want) {
          var ids = (tr.getAttribute('data-threads') + ', ' + tr.getAttribute('data-processes')).split(', ');
          ok = ids.indexOf(want) >= 0;
        }
        tr.hidden = !ok;
        if (ok) { shown++; }
      });
      $('#rowcount').textContent = shown + ' of ' + total + ' rows shown';
    };
    selects.forEach(function (s) { s.addEventListener('change', apply); });
    suspect.addEventListener('input', apply);

    tbody.addEventListener('click', function (e) {
      var tr = e.target.closest('tr');
      if (tr) { choose(tr); }
    });
    tbody.addEventListener('keydown', function (e) {
      if (e.key === 'Enter' || e.key === ' ') {
        var tr = e.target.closest('tr');
        if (tr) { e.preventDefault(); choose(tr); }
      }
    });
  }

  // choose shows the combination of a row: its matrices, dendrograms and
  // lattices when precomputed, else the commands that draw them.
  function choose(tr) {
    $$('tr.selected', tbody).forEach(function (r) { r.classList.remove('selected'); });
    tr.classList.add('selected');
    var combo = tr.getAttribute('data-combo');
    var head = $('.per-combo[data-combo="' + combo + '"]');
    var view = head ? head.getAttribute('data-view') : '-1';
    $$('.per-combo').forEach(function (el) { el.hidden = el.getAttribute('data-combo') !== combo; });
    $$('.per-view').forEach(function (el) { el.hidden = el.getAttribute('data-view') !== view; });
    var none = $('#combo-none');
    none.hidden = combo !== '-1';
    var title = 'row ' + (+tr.getAttribute('data-row') + 1) + ': filter ' + tr.getAttribute('data-filter') + ', K ' + tr.getAttribute('data-k') + ', ' +
      tr.getAttribute('data-attrs') + ', ' + tr.getAttribute('data-linkage') + ' linkage';
    if (head) { title = head.getAttribute('data-title'); }
    if (combo === '-1') { $('#combo-none-cmd').textContent = tr.getAttribute('data-cmd'); }
    $('#combo-title').textContent = title;
    $('#combination').setAttribute('data-shown', combo);
  }
  if (tbody) {
    var first = $('tr[data-combo]:not([data-combo="-1"])', tbody) || $('tr', tbody);
    if (first) { choose(first); }
  }

  // Heatmaps: the cell under the pointer, named by its traces.
  var tip = document.createElement('div');
  tip.className = 'tip';
  tip.hidden = true;
  document.body.appendChild(tip);
  $$('svg.heatmap').forEach(function (svg) {
    var side = +svg.getAttribute('data-side');
    var labels = svg.getAttribute('data-labels').split('|');
    var values = svg.hasAttribute('data-values') ? svg.getAttribute('data-values').split(',') : null;
    var img = $('image', svg);
    svg.addEventListener('mousemove', function (e) {
      var r = img.getBoundingClientRect();
      var i = Math.floor((e.clientY - r.top) / r.height * side), j = Math.floor((e.clientX - r.left) / r.width * side);
      if (i < 0 || j < 0 || i >= side || j >= side) { tip.hidden = true; return; }
      tip.textContent = labels[i] + ' × ' + labels[j] + (values ? ': ' + values[i * side + j] : '');
      tip.style.left = (e.pageX + 12) + 'px';
      tip.style.top = (e.pageY + 12) + 'px';
      tip.hidden = false;
    });
    svg.addEventListener('mouseleave', function () { tip.hidden = true; });
  });

  // diffNLR: one trace at a time.
  var pick = $('#diff-select');
  var showDiff = function (i) {
    $$('.diff').forEach(function (d) { d.hidden = d.getAttribute('data-diff') !== String(i); });
    if (pick) { pick.value = String(i); }
  };
  if (pick) {
    pick.addEventListener('change', function () { showDiff(pick.value); });
    $$('a.todiff').forEach(function (a) { a.addEventListener('click', function () { showDiff(a.getAttribute('data-diff')); }); });
    var loops = function (open) {
      return function () { $$('.diff:not([hidden]) details.loop').forEach(function (d) { d.open = open; }); };
    };
    $('#loops-open').addEventListener('click', loops(true));
    $('#loops-close').addEventListener('click', loops(false));
  }
}());
