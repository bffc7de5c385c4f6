// @ts-check
'use strict';
/* exported TfHistogram */
/**
 * The histogram tab: bars (linear or log counts), ticks, marks at 0 and the mean, and the summary
 * figures of the whole value.
 */
const TfHistogram = (() => {
  const core = /** @type {typeof import('../viewerCore')} */ (/** @type {any} */ (window).TfViewerCore);
  const { el, theme, sizeCanvas, showTooltip, hideTooltip, statCell } = TfDom;
  const { state, saveState, cur } = TfState;

  el.log.checked = state.log;
  el.log.addEventListener('change', () => {
    state.log = el.log.checked;
    saveState();
    renderHistogram();
  });

  function renderHistogram() {
    const p = /** @type {Payload} */ (cur.payload);
    renderStats(p);
    const hist = p.histogram;
    if (!hist || !hist.counts || !hist.counts.length) {
      sizeCanvas(el.histogram, 1, 1);
      el.histNote.textContent = 'No finite values to count.';
      return;
    }
    el.histNote.textContent = hist.sampled ? 'counts from a sample' : '';
    const t = theme();
    const figure = /** @type {HTMLElement} */ (el.histogram.parentElement);
    const W = Math.max(Math.min(figure.clientWidth - 8, 900), 240);
    const H = 260;
    const L = 56;
    const R = 16;
    const T = 22;
    const B = 30;
    const ctx = sizeCanvas(el.histogram, W, H);
    const plotW = W - L - R;
    const plotH = H - T - B;
    const counts = /** @type {number[]} */ (hist.counts);
    const edges = /** @type {number[]} */ (hist.edges);
    const heights = core.barHeights(counts, state.log, plotH);
    const bw = plotW / counts.length;
    // Ticks and grid lines first, bars over them, the axes last.
    ctx.strokeStyle = t.muted;
    ctx.fillStyle = t.fg;
    ctx.font = t.font;
    ctx.lineWidth = 1;
    const lo = edges[0];
    const hi = edges[edges.length - 1];
    const xt = core.niceTicks(lo, hi, Math.max(2, Math.floor(plotW / 90)));
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    for (const v of xt.ticks) {
      const x = hi > lo ? L + ((v - lo) / (hi - lo)) * plotW : L + plotW / 2;
      ctx.beginPath();
      ctx.moveTo(Math.round(x) + 0.5, T + plotH);
      ctx.lineTo(Math.round(x) + 0.5, T + plotH + 4);
      ctx.stroke();
      ctx.fillText(core.formatTick(v, xt.step), x, T + plotH + 7);
    }
    const maxCount = Math.max(...counts);
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    /** @type {number[]} */
    let yTicks;
    if (state.log) {
      yTicks = [0];
      for (let d = 1; d <= maxCount; d *= 10) yTicks.push(d);
    } else {
      const yt = core.niceTicks(0, maxCount, 4);
      yTicks = yt.ticks.filter((v) => Number.isInteger(v));
    }
    const yOf = (/** @type {number} */ c) => T + plotH - core.barHeights([c, maxCount], state.log, plotH)[0];
    ctx.strokeStyle = t.grid;
    for (const c of yTicks) {
      const y = Math.round(yOf(c)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(L, y);
      ctx.lineTo(L + plotW, y);
      ctx.stroke();
      ctx.fillText(core.formatCount(c), L - 6, y);
    }
    ctx.fillStyle = t.bar;
    counts.forEach((_, i) => {
      const hgt = heights[i];
      if (hgt <= 0) return;
      ctx.fillRect(L + i * bw + (bw > 4 ? 0.5 : 0), T + plotH - hgt, Math.max(bw - (bw > 4 ? 1 : 0), 1), hgt);
    });
    ctx.strokeStyle = t.muted;
    ctx.beginPath();
    ctx.moveTo(L - 0.5, T);
    ctx.lineTo(L - 0.5, T + plotH + 0.5);
    ctx.lineTo(L + plotW, T + plotH + 0.5);
    ctx.stroke();
    // Dashed marks at 0 and at the mean, where they fall inside the bins.
    const stats = /** @type {Partial<import('../protocol').Stats>} */ (p.stats || {});
    /** @type {[number, string][]} */
    const marks = [[0, '0']];
    if (typeof stats.mean === 'number' && Number.isFinite(stats.mean)) marks.push([stats.mean, 'μ']);
    ctx.setLineDash([3, 3]);
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    for (const [value, label] of marks) {
      if (!(hi > lo) || value < lo || value > hi || (label === '0' && lo === 0)) continue;
      const x = Math.round(L + ((value - lo) / (hi - lo)) * plotW) + 0.5;
      ctx.strokeStyle = t.fg;
      ctx.globalAlpha = 0.7;
      ctx.beginPath();
      ctx.moveTo(x, T);
      ctx.lineTo(x, T + plotH);
      ctx.stroke();
      ctx.globalAlpha = 1;
      ctx.fillStyle = t.fg;
      ctx.textAlign = label === '0' ? 'right' : 'left';
      ctx.fillText(label, label === '0' ? x - 3 : x + 3, T - 15);
    }
    ctx.setLineDash([]);
    el.histogram.dataset.plot = JSON.stringify({ left: L, top: T, width: plotW, height: plotH, bins: counts.length, log: state.log });
    el.histogram.onmousemove = (e) => {
      const rect = el.histogram.getBoundingClientRect();
      const i = Math.floor((e.clientX - rect.left - L) / bw);
      if (i < 0 || i >= counts.length) return hideTooltip();
      const text = `[${core.formatNumber(edges[i])}, ${core.formatNumber(edges[i + 1])}${i === counts.length - 1 ? ']' : ')'}: ${core.formatInt(counts[i])}`;
      el.histHover.textContent = text;
      showTooltip(text, e);
    };
    el.histogram.onmouseleave = hideTooltip;
  }

  /** @param {Payload} p */
  function renderStats(p) {
    const s = /** @type {Partial<import('../protocol').Stats>} */ (p.stats || {});
    el.stats.textContent = '';
    const mark = s.sampled ? ' (sampled)' : '';
    /** @type {[string, string][]} */
    const rows = [
      ['n', s.n == null ? '—' : core.formatInt(s.n)],
      ['min', s.min == null ? '—' : core.formatNumber(s.min, 7) + mark],
      ['max', s.max == null ? '—' : core.formatNumber(s.max, 7) + mark],
      ['mean', s.mean == null ? '—' : core.formatNumber(s.mean, 7) + mark],
      ['std', s.std == null ? '—' : core.formatNumber(s.std, 7) + mark],
      ['NaN', core.formatInt(s.nan ?? 0) + mark],
      ['+Inf', core.formatInt(s.posinf ?? 0) + mark],
      ['−Inf', core.formatInt(s.neginf ?? 0) + mark],
      ['zeros', core.formatInt(s.zeros ?? 0) + mark],
    ];
    for (const [k, v] of rows) el.stats.append(statCell(k, v));
  }

  return { render: renderHistogram };
})();
