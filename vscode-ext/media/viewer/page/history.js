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
  const { el } = TfDom;
  const { cur } = TfState;
  const SVG = 'http://www.w3.org/2000/svg';
  const W = 260;
  const H = 80;

  /** @param {string} name @param {Record<string, string>} attrs */
  function svg(name, attrs) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  }

  function renderHistory() {
    const h = cur.payload && cur.payload.history;
    el.historyPlots.textContent = '';
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

  return { render: renderHistory };
})();
