// @ts-check
'use strict';
/* exported TfFilters */
/**
 * The Filters tab of a conv kernel [h, w, in, out] (the payload's `filters`): one h×w tile per
 * output channel for the input channel chosen, in a grid that fills the panel, in the heatmap's
 * colour scale (fitted to the tiles shown, diverging when they cross 0), with gaps between tiles.
 * Hover reads a weight's index and value.
 */
const TfFilters = (() => {
  const core = /** @type {typeof import('../viewerCore')} */ (/** @type {any} */ (window).TfViewerCore);
  const { el, sizeCanvas, showTooltip, hideTooltip } = TfDom;
  const { state, cur } = TfState;

  /** Decoded filters of the payload shown (by payload), and the layout drawn. */
  /** @type {{ payload: Payload, cells: Cells } | null} */
  let decoded = null;
  /** @type {{ columns: number, k: number, tileW: number, tileH: number, input: number } | null} */
  let layout = null;
  const MAX_CELL_PX = 24;

  /** @returns {import('../protocol').Filters | null} */
  function filtersOf() {
    return (cur.payload && cur.payload.filters) || null;
  }

  function cells() {
    const f = filtersOf();
    if (!f || !cur.payload) return null;
    if (!decoded || decoded.payload !== cur.payload) {
      const n = f.in_shown * f.out_shown * f.tile[0] * f.tile[1];
      const slice = /** @type {Slice} */ ({ height: 1, width: n, values: f.values, mask: f.mask });
      decoded = { payload: cur.payload, cells: core.decodeSlice(slice) };
    }
    return decoded.cells;
  }

  el.filterIn.addEventListener('change', () => renderFilters());

  /** Grid columns that make tiles largest in a box of w x h px. @param {number} n @param {number} tw @param {number} th @param {number} w @param {number} h */
  function bestColumns(n, tw, th, w, h) {
    let best = { columns: 1, k: 0 };
    for (let columns = 1; columns <= n; columns++) {
      const rows = Math.ceil(n / columns);
      const k = Math.min(w / (columns * (tw + 1)), h / (rows * (th + 1)));
      if (k > best.k) best = { columns, k };
    }
    return best;
  }

  function renderFilters() {
    const f = filtersOf();
    const c = cells();
    if (!f || !c) return;
    const [th, tw] = f.tile;
    // The input channel: its select lists the inputs sent.
    if (el.filterIn.options.length !== f.in_shown) {
      el.filterIn.textContent = '';
      for (let i = 0; i < f.in_shown; i++) el.filterIn.append(new Option(`input ${i}`, String(i)));
    }
    const input = Math.min(Number(el.filterIn.value) || 0, f.in_shown - 1);
    el.filterInLabel.hidden = f.in_shown < 2;
    const n = f.out_shown;
    const first = input * n * th * tw;
    const tileCells = { values: c.values.subarray(first, first + n * th * tw), mask: c.mask.subarray(first, first + n * th * tw) };
    const fit = core.robustRange(tileCells.values, tileCells.mask);
    const signed = fit ? fit.lo < 0 && fit.hi > 0 : f.signed;
    const scale = core.scaleFor(fit ? { min: fit.lo, max: fit.hi, signed } : f, state.scale);
    const figure = /** @type {HTMLElement} */ (el.filters.parentElement);
    const availW = Math.max(figure.clientWidth - 8, 80);
    const availH = Math.max(window.innerHeight - figure.getBoundingClientRect().top - 60, 140);
    const best = bestColumns(n, tw, th, availW, availH);
    const columns = best.columns;
    const rows = Math.ceil(n / columns);
    let k = Math.min(best.k, MAX_CELL_PX);
    if (k >= 1) k = Math.floor(k);
    // One pixel per weight on an offscreen grid (1-cell gaps), scaled up without smoothing.
    const gw = columns * (tw + 1) - 1;
    const gh = rows * (th + 1) - 1;
    const off = document.createElement('canvas');
    off.width = gw;
    off.height = gh;
    const octx = /** @type {CanvasRenderingContext2D} */ (off.getContext('2d'));
    const img = octx.createImageData(gw, gh);
    const rgba = core.cellPixels(tileCells.values, tileCells.mask, scale);
    for (let o = 0; o < n; o++) {
      const x0 = (o % columns) * (tw + 1);
      const y0 = Math.floor(o / columns) * (th + 1);
      for (let y = 0; y < th; y++) {
        const from = (o * th * tw + y * tw) * 4;
        img.data.set(rgba.subarray(from, from + tw * 4), ((y0 + y) * gw + x0) * 4);
      }
    }
    octx.putImageData(img, 0, 0);
    const ctx = sizeCanvas(el.filters, gw * k, gh * k);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(off, 0, 0, gw, gh, 0, 0, gw * k, gh * k);
    layout = { columns, k, tileW: tw, tileH: th, input };
    el.filters.dataset.layout = JSON.stringify(layout);
    el.filters.dataset.scale = JSON.stringify(scale);
    const more = f.out_shown < f.out_channels ? ` (the first ${f.out_shown} of ${f.out_channels})` : '';
    const inputs = f.in_shown < f.in_channels ? `; inputs 0–${f.in_shown - 1} of ${f.in_channels} sent` : '';
    el.filtersInfo.textContent =
      `${n} filter${n > 1 ? 's' : ''}${more} of ${th}×${tw}, input channel ${input}${inputs}; ` +
      `colours ${scale.kind === 'diverging' ? `diverging over ±${core.formatNumber(scale.hi)}` : `over ${core.formatNumber(scale.lo)} … ${core.formatNumber(scale.hi)}`}`;
  }

  /** The weight under canvas point (x, y) px, or null in a gap. @param {number} x @param {number} y */
  function weightAt(x, y) {
    const f = filtersOf();
    if (!f || !layout) return null;
    const gx = Math.floor(x / layout.k);
    const gy = Math.floor(y / layout.k);
    const col = Math.floor(gx / (layout.tileW + 1));
    const row = Math.floor(gy / (layout.tileH + 1));
    const px = gx % (layout.tileW + 1);
    const py = gy % (layout.tileH + 1);
    const o = row * layout.columns + col;
    if (px >= layout.tileW || py >= layout.tileH || col >= layout.columns || o >= f.out_shown) return null;
    return { y: py, x: px, i: layout.input, o };
  }

  el.filters.addEventListener('mousemove', (e) => {
    const rect = el.filters.getBoundingClientRect();
    const at = weightAt(e.clientX - rect.left, e.clientY - rect.top);
    const f = filtersOf();
    const c = cells();
    if (!at || !f || !c) return hideTooltip();
    const i = ((at.i * f.out_shown + at.o) * f.tile[0] + at.y) * f.tile[1] + at.x;
    const value = core.formatValue(c.values[i], c.mask[i], (cur.payload && cur.payload.dtype) || 'float32');
    const text = `filter ${at.o}, [${at.y}, ${at.x}, ${at.i}, ${at.o}] = ${value}`;
    el.filtersHover.textContent = text;
    showTooltip(text, e);
  });
  el.filters.addEventListener('mouseleave', hideTooltip);

  return { render: renderFilters };
})();
