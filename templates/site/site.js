// benchledger archive browser: charts, the runs table (filter, sort, pick
// two to compare) and the client-side diff of two runs. No framework, no
// network: every file it reads sits beside the page (file:// works).
(function () {
  'use strict';
  var lang = document.documentElement.lang || 'en';
  var nf = new Intl.NumberFormat(lang, {maximumFractionDigits: 6});

  function jsonOf(id) {
    var el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : null;
  }

  // Charts: each <script type="application/json" id="option-X"> draws into
  // #chart-X. window.__chartsReady tells a headless browser all have drawn.
  function charts() {
    var sources = document.querySelectorAll('script[type="application/json"][id^="option-"]');
    var pending = 0, drawn = [];
    function done() { pending--; if (pending <= 0) { window.__chartsReady = true; } }
    if (sources.length === 0 || typeof echarts === 'undefined') { window.__chartsReady = true; return; }
    sources.forEach(function (s) {
      var el = document.getElementById('chart-' + s.id.slice(7));
      if (!el) { return; }
      var option = JSON.parse(s.textContent);
      option.animation = false;
      ['xAxis', 'yAxis'].forEach(function (k) {
        var axes = option[k];
        if (!axes) { return; }
        (Array.isArray(axes) ? axes : [axes]).forEach(function (a) {
          if (a.type === 'value') {
            a.axisLabel = a.axisLabel || {};
            if (a.axisLabel.formatter === undefined) { a.axisLabel.formatter = function (v) { return nf.format(v); }; }
          }
        });
      });
      var c = echarts.init(el, null, {renderer: 'svg'});
      pending++;
      c.on('finished', function once() { c.off('finished', once); done(); });
      c.setOption(option);
      drawn.push(c);
    });
    if (pending === 0) { window.__chartsReady = true; }
    window.addEventListener('resize', function () { drawn.forEach(function (c) { c.resize(); }); });
  }

  // The runs table. Filters live in the location hash (#campaign=x&gpu=y)
  // so a link can open the table filtered.
  function runsTable() {
    var table = document.getElementById('runs');
    var form = document.getElementById('filters');
    if (!table || !form) { return; }
    var tbody = table.tBodies[0];
    var rows = Array.prototype.slice.call(tbody.rows);
    var inputs = Array.prototype.slice.call(form.querySelectorAll('[data-filter]'));
    var shown = document.getElementById('shown');
    var compare = document.getElementById('compare');
    var built = jsonOf('built-comparisons') || {};

    function readHash() {
      var h = location.hash.replace(/^#/, '');
      if (!h) { return; }
      h.split('&').forEach(function (kv) {
        var i = kv.indexOf('=');
        if (i < 0) { return; }
        var k = decodeURIComponent(kv.slice(0, i)), v = decodeURIComponent(kv.slice(i + 1));
        inputs.forEach(function (inp) { if (inp.name === k) { inp.value = v; } });
      });
    }
    function writeHash() {
      var parts = [];
      inputs.forEach(function (inp) { if (inp.value) { parts.push(encodeURIComponent(inp.name) + '=' + encodeURIComponent(inp.value)); } });
      var h = parts.length ? '#' + parts.join('&') : '';
      if (location.hash !== h) { history.replaceState(null, '', h || location.pathname); }
    }
    function apply() {
      var n = 0;
      var tests = inputs.filter(function (inp) { return inp.value !== ''; }).map(function (inp) {
        var key = inp.getAttribute('data-filter'), v = inp.value.trim().toLowerCase();
        var bound = inp.getAttribute('data-bound'), exact = inp.hasAttribute('data-exact');
        return function (tr) {
          var cell = (tr.getAttribute('data-' + key) || '').toLowerCase();
          if (bound === 'from') { return cell !== '' && cell.slice(0, v.length) >= v; }
          if (bound === 'to') { return cell !== '' && cell.slice(0, v.length) <= v; }
          return exact ? cell === v : cell.indexOf(v) >= 0;
        };
      });
      rows.forEach(function (tr) {
        var ok = tests.every(function (t) { return t(tr); });
        tr.hidden = !ok;
        if (ok) { n++; }
      });
      if (shown) {
        shown.textContent = shown.getAttribute('data-pattern').replace('{shown}', nf.format(n)).replace('{total}', nf.format(rows.length));
      }
    }
    function sortBy(th) {
      var key = th.getAttribute('data-key'), numeric = th.getAttribute('data-type') === 'number';
      var dir = th.getAttribute('aria-sort') === 'ascending' ? -1 : 1;
      table.querySelectorAll('th[data-key]').forEach(function (o) { o.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', dir === 1 ? 'ascending' : 'descending');
      var val = function (tr) {
        var v = tr.getAttribute('data-' + key) || '';
        if (!numeric) { return v.toLowerCase(); }
        var f = parseFloat(v);
        return isNaN(f) ? -Infinity : f;
      };
      rows.sort(function (a, b) {
        var x = val(a), y = val(b);
        return (x < y ? -1 : x > y ? 1 : 0) * dir;
      });
      var frag = document.createDocumentFragment();
      rows.forEach(function (tr) { frag.appendChild(tr); });
      tbody.appendChild(frag);
    }
    function picked() {
      return Array.prototype.slice.call(tbody.querySelectorAll('input.pick:checked')).map(function (c) { return c.value; });
    }
    function updateCompare() { if (compare) { compare.disabled = picked().length !== 2; } }

    readHash();
    apply();
    form.addEventListener('input', function () { apply(); writeHash(); });
    form.addEventListener('change', function () { apply(); writeHash(); });
    form.addEventListener('reset', function () { setTimeout(function () { apply(); writeHash(); }, 0); });
    window.addEventListener('hashchange', function () { inputs.forEach(function (i) { i.value = ''; }); readHash(); apply(); });
    table.querySelectorAll('th[data-key]').forEach(function (th) {
      th.tabIndex = 0;
      th.addEventListener('click', function () { sortBy(th); });
      th.addEventListener('keydown', function (e) { if (e.key === 'Enter') { sortBy(th); } });
    });
    tbody.addEventListener('change', updateCompare);
    updateCompare();
    if (compare) {
      compare.addEventListener('click', function () {
        var p = picked();
        if (p.length !== 2) { return; }
        var page = built[p[0] + ' ' + p[1]];
        location.href = page ? page : 'diff.html#a=' + encodeURIComponent(p[0]) + '&b=' + encodeURIComponent(p[1]);
      });
    }
  }

  // The runs table's column chooser: a ticked box shows its column. The
  // reader's choice is kept in localStorage (this browser only, nothing
  // sent anywhere), by column key.
  function columnChooser() {
    var table = document.getElementById('runs');
    var box = document.getElementById('columns');
    if (!table || !box) { return; }
    var store = 'benchledger.runs.hidden';
    var boxes = Array.prototype.slice.call(box.querySelectorAll('input[data-col]'));
    var saved = null;
    try { saved = JSON.parse(window.localStorage.getItem(store) || 'null'); } catch (e) { saved = null; }
    if (Array.isArray(saved)) {
      boxes.forEach(function (b) { b.checked = saved.indexOf(b.value) < 0; });
    }
    function apply() {
      boxes.forEach(function (b) { table.classList.toggle('hide-' + b.getAttribute('data-col'), !b.checked); });
    }
    apply();
    box.addEventListener('change', function () {
      apply();
      var hidden = boxes.filter(function (b) { return !b.checked; }).map(function (b) { return b.value; });
      try { window.localStorage.setItem(store, JSON.stringify(hidden)); } catch (e) { /* storage refused: the choice lasts this page */ }
    });
  }

  // The diff of two runs: each run's data file calls benchledgerRun.
  function diffPage() {
    var table = document.getElementById('diff');
    if (!table) { return; }
    var labels = jsonOf('diff-labels') || {};
    var err = document.getElementById('diff-error');
    var only = document.getElementById('only-differences');
    var params = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
      var i = kv.indexOf('=');
      if (i > 0) { params[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); }
    });
    var ids = [params.a, params.b];
    if (!ids[0] || !ids[1]) { window.__diffReady = true; return; }
    var runs = {};
    function fail(id) {
      err.hidden = false;
      err.textContent = (labels.missing || '{id}').replace('{id}', id);
      window.__diffReady = true;
    }
    window.benchledgerRun = function (r) { runs[r.id] = r; };
    // Runs live in shard files named by the id's first two characters.
    var shards = [];
    for (var i = 0; i < ids.length; i++) {
      if (!/^[A-Za-z0-9._-]+$/.test(ids[i])) { fail(ids[i]); return; }
      var shard = ids[i].slice(0, 2);
      if (shards.indexOf(shard) < 0) { shards.push(shard); }
    }
    var pending = shards.length;
    shards.forEach(function (shard) {
      var s = document.createElement('script');
      s.src = '../data/runs-' + shard + '.js';
      s.onload = function () { if (--pending === 0) { draw(); } };
      s.onerror = function () { fail(ids[0].slice(0, 2) === shard ? ids[0] : ids[1]); };
      document.body.appendChild(s);
    });
    // A row of figures is written in one unit: seconds as ms when both
    // values are below one second.
    function rowUnit(vals, unit) {
      if (unit !== 's') { return unit; }
      return vals.every(function (v) { return v === null || v === undefined || Math.abs(v) < 1; }) ? 'ms' : 's';
    }
    // A number with its unit in the page's language (labels unit:X).
    function withUnit(n, unit) {
      var p = labels['unit:' + unit];
      return p ? p.replace('{n}', n) : n + ' ' + unit;
    }
    function fmt(v, unit, shown) {
      if (v === null || v === undefined) { return '–'; }
      if (shown === 'ms') { return withUnit(nf.format(Math.round(v * 1e5) / 100), 'ms'); }
      if (unit === 's') { return withUnit(nf.format(Math.round(v * 1000) / 1000), 's'); }
      return withUnit(nf.format(Math.abs(v) >= 100 ? Math.round(v) : Math.round(v * 100) / 100), unit);
    }
    // The change from the first run to the second: the difference in the
    // row's unit, the relative change, and whether it is better or worse
    // for the figure (its direction in the catalogue).
    function delta(a, b, unit, shown, direction) {
      if (a === null || a === undefined || b === null || b === undefined) { return ['', '']; }
      var d = b - a;
      var text = (d > 0 ? '+' : d < 0 ? '−' : '±') + fmt(Math.abs(d), unit, shown);
      if (a !== 0) {
        var pct = (d > 0 ? '+' : d < 0 ? '−' : '±') + nf.format(Math.round(Math.abs(d / a) * 1000) / 10) + '%';
        text = (labels.paren || '{text} ({note})').replace('{text}', text).replace('{note}', pct);
      }
      var way = '';
      if (d !== 0 && direction) { way = (d > 0) === (direction === 'higher') ? 'better' : 'worse'; }
      if (way) { text += ' · ' + (labels[way] || way); }
      return [text, way];
    }
    function draw() {
      var a = runs[ids[0]], b = runs[ids[1]];
      if (!a) { fail(ids[0]); return; }
      if (!b) { fail(ids[1]); return; }
      var links = [document.getElementById('diff-a'), document.getElementById('diff-b')];
      [a, b].forEach(function (r, i) { links[i].textContent = r.id; links[i].href = 'run/' + r.id + '.html'; });
      var lines = [];
      var yes = labels.yes || 'yes', no = labels.no || 'no';
      lines.push([labels.format || 'format', a.format, b.format]);
      lines.push([labels.publishable || 'publishable', a.publishable ? yes : no, b.publishable ? yes : no]);
      var keys = {};
      Object.keys(a.fields || {}).concat(Object.keys(b.fields || {})).forEach(function (k) { keys[k] = true; });
      Object.keys(keys).sort().forEach(function (k) {
        lines.push([labels['field:' + k] || k, (a.fields || {})[k] || '–', (b.fields || {})[k] || '–']);
      });
      ['sent', 'completed', 'failed'].forEach(function (k) {
        var f = function (v) { return v < 0 ? '–' : nf.format(v); };
        lines.push([labels[k] || k, f(a[k]), f(b[k])]);
      });
      var figs = {}, order = [];
      [a, b].forEach(function (r, i) {
        (r.figures || []).forEach(function (f) {
          if (!figs[f.metric]) { figs[f.metric] = [null, null, f.unit]; order.push(f.metric); }
          figs[f.metric][i] = f.recomputed !== null ? f.recomputed : f.stated;
        });
      });
      order.forEach(function (m) {
        var f = figs[m], shown = rowUnit([f[0], f[1]], f[2]);
        var d = delta(f[0], f[1], f[2], shown, labels['direction:' + m]);
        lines.push([labels['figure:' + m] || m, fmt(f[0], f[2], shown), fmt(f[1], f[2], shown), d[0], d[1], m]);
      });
      lines.push(['SHA-256', a.sha256, b.sha256]);
      var tbody = table.tBodies[0];
      lines.forEach(function (l) {
        var tr = document.createElement('tr');
        var differs = l[1] !== l[2];
        if (differs) { tr.className = 'differs'; tr.title = labels.differs || ''; }
        if (l[5]) { tr.setAttribute('data-metric', l[5]); }
        for (var i = 0; i < 4; i++) {
          var td = document.createElement('td');
          td.textContent = i < 3 ? l[i] : (differs && l[3]) || '';
          if (i === 3) { td.className = 'num' + (l[4] && differs ? ' ' + l[4] : ''); }
          tr.appendChild(td);
        }
        tbody.appendChild(tr);
      });
      table.hidden = false;
      only.addEventListener('change', function () {
        Array.prototype.forEach.call(tbody.rows, function (tr) { tr.hidden = only.checked && !tr.classList.contains('differs'); });
      });
      window.__diffReady = true;
    }
  }

  charts();
  runsTable();
  columnChooser();
  diffPage();
})();
