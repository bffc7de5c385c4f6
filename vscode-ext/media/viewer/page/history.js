// @ts-check
'use strict';
/* exported TfHistory */
/**
 * The History tab (docs/history.md): a variable's figures at each stop since it was first shown,
 * one line plot per figure over steps (or epochs, or stops), the gradient-norm ring on the same
 * axis. SVG made through the DOM; every text (the variable's name included) is textContent.
 */
const TfHistory = (() => {
  const core = /** @type {typeof import('../viewerCore')} */ (/** @type {any} */ (window).TfViewerCore);
  const { el, statCell } = TfDom;
  const { cur, post } = TfState;
  const SVG = 'http://www.w3.org/2000/svg';
  const W = 260;
  const H = 80;

  /** @param {string} name @param {Record<string, string>} attrs */
  function svg(name, attrs) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  }

  /** The Compare shown: the payload's (first stop against the last) or the one last asked for. */
  /** @type {import('../protocol').HistoryCompare | null} */
  let shownCompare = null;
  /** @type {string | null} the error of the last Compare asked for */
  let compareError = null;
  /** @type {unknown} the payload whose Compare is shown */
  let comparedPayload = null;

  /** @param {HTMLSelectElement} select @param {number[]} stops @param {number} chosen */
  function fillStops(select, stops, chosen) {
    select.textContent = '';
    for (const stop of stops) {
      const option = document.createElement('option');
      option.value = String(stop);
      option.textContent = String(stop);
      option.selected = stop === chosen;
      select.append(option);
    }
  }

  /** The Compare of two stops: a difference heatmap and its figures (docs/history.md). */
  function renderCompare() {
    const h = cur.payload && cur.payload.history;
    const compare = shownCompare;
    el.historyCompare.hidden = !h || !h.compare;
    el.compareFigures.textContent = '';
    const canvas = el.compareHeatmap;
    if (!h || !h.compare || !compare) return;
    fillStops(el.compareA, h.stop, compare.a);
    fillStops(el.compareB, h.stop, compare.b);
    const grid = core.compareGrid(compare);
    canvas.hidden = !grid;
    let note = compareError || compare.note || '';
    if (grid) {
      const side = Math.max(1, Math.floor(Math.min(256 / grid.cols, 256 / grid.rows)));
      canvas.width = grid.cols;
      canvas.height = grid.rows;
      canvas.style.width = `${grid.cols * side}px`;
      canvas.style.height = `${grid.rows * side}px`;
      const ctx = canvas.getContext('2d');
      if (ctx) {
        const img = ctx.createImageData(grid.cols, grid.rows);
        img.data.set(grid.pixels);
        ctx.putImageData(img, 0, 0);
      }
      const what = compare.exact ? `${grid.rows}×${grid.cols}` : `block means of ${compare.block}, ${grid.cols} a row`;
      note = note || `b − a (${what}), blue < 0 < red, ±${core.formatNumber(grid.scale.hi)}`;
    }
    el.compareNote.textContent = note;
    /** @type {[string, number | null][]} */
    const rows = [
      ['‖Δ‖', compare.norm],
      ['max |Δ|', compare.largest],
      ...compare.figures.map((f, i) => /** @type {[string, number | null]} */ ([`Δ${f}`, compare.changes[i] ?? null])),
    ];
    for (const [name, value] of rows) {
      el.compareFigures.append(statCell(name, value === null ? '—' : core.formatNumber(value)));
    }
  }

  function askCompare() {
    const a = Number(el.compareA.value);
    const b = Number(el.compareB.value);
    if (Number.isInteger(a) && Number.isInteger(b)) post({ type: 'historyCompare', a, b });
  }
  el.compareA.addEventListener('change', askCompare);
  el.compareB.addEventListener('change', askCompare);

  /** The extension's answer to a Compare asked for. @param {import('../protocol').ToPageHistoryCompare} msg */
  function showCompare(msg) {
    if (!cur.msg || msg.expression !== cur.msg.expression) return; // another value's: not this view's
    compareError = msg.error;
    if (msg.compare) shownCompare = msg.compare;
    renderCompare();
  }

  function renderHistory() {
    const h = cur.payload && cur.payload.history;
    el.historyPlots.textContent = '';
    if (cur.payload !== comparedPayload) {
      comparedPayload = cur.payload; // a new payload (a stop, another value): its own Compare
      shownCompare = h ? h.compare ?? null : null;
      compareError = null;
    }
    renderCompare();
    if (!h) {
      el.historyNote.textContent = 'No history: it is kept for variables, from the stop they are first shown.';
      return;
    }
    const { axis, x0, x1, plots } = core.historyPlots(h, W, H);
    el.historyNote.textContent = `${h.name}: ${h.x.length} stop${h.x.length === 1 ? '' : 's'}, over ${axis}s ${x0}…${x1}`;
    for (const plot of plots) {
      const box = document.createElement('figure');
      box.className = 'history-plot';
      const caption = document.createElement('figcaption');
      caption.textContent = `${plot.figure}  ${core.formatNumber(plot.lo)} … ${core.formatNumber(plot.hi)}`;
      const chart = svg('svg', { width: String(W), height: String(H), viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${plot.figure} over ${axis}s` });
      chart.classList.add('history-chart');
      for (const line of plot.lines) {
        if (line.length === 1) chart.append(svg('circle', { cx: String(line[0][0]), cy: String(line[0][1]), r: '2.5', class: 'history-point' }));
        else chart.append(svg('polyline', { points: line.map((p) => p.join(',')).join(' '), class: 'history-line' }));
      }
      box.append(caption, chart);
      el.historyPlots.append(box);
    }
  }

  return { render: renderHistory, showCompare };
})();
