// @ts-check
'use strict';
/* exported TfHeatmap */
/**
 * The heatmap drawn: cells in the colour scale (reduced, keeping every NaN/Inf, where there are
 * more cells than pixels), grid lines and values in big cells, rings around tiny NaN/Inf cells,
 * the colour bar, the legend and the zoom line. Colours are fitted to what is drawn: the robust
 * range of the cells (or pixels) on screen, not the slice's extremes; a pixel covering many cells
 * shows their largest |x| where their mean would wash out to 0. Mouse and keyboard: heatmapInput.js.
 */
const TfHeatmap = (() => {
  const core = /** @type {typeof import('../viewerCore')} */ (/** @type {any} */ (window).TfViewerCore);
  const { el, theme, sizeCanvas } = TfDom;
  const { state, saveState, cur } = TfState;

  el.scale.value = state.scale;
  el.scale.addEventListener('change', () => {
    state.scale = /** @type {PageState['scale']} */ (el.scale.value);
    saveState();
    TfHeader.render();
  });

  el.range.value = state.range;
  el.range.addEventListener('change', () => {
    state.range = /** @type {PageState['range']} */ (el.range.value);
    saveState();
    TfHeader.render();
  });

  /**
   * What the last picture was drawn with: its scale, the range fitted (null: the slice's own), the
   * rule of its pixels when reduced.
   * @type {{ scale: Scale, fit: { lo: number, hi: number, min: number, max: number } | null, rule: 'mean' | 'absmax' | null } | null}
   */
  let drawn = null;

  /** @returns {Scale | null} */
  function currentScale() {
    return drawn && drawn.scale;
  }

  /**
   * Reduced pixels of the view: block means, unless the means spread over less than half of
   * what the blocks' largest |x| spread over (zero-mean values: the means are a blank strip).
   * @param {Cells} cells @param {Slice} s @param {View} v @param {number} outW @param {number} outH
   */
  function reducedPixels(cells, s, v, outW, outH) {
    const mean = core.reduceCells(cells.values, cells.mask, s.width, v, outW, outH, 'mean');
    const absmax = core.reduceCells(cells.values, cells.mask, s.width, v, outW, outH, 'absmax');
    const spread = (/** @type {Cells} */ c) => {
      const r = core.robustRange(c.values, c.mask);
      return r ? r.hi - r.lo : 0;
    };
    return spread(mean) < 0.5 * spread(absmax) ? { pix: absmax, rule: /** @type {const} */ ('absmax') } : { pix: mean, rule: /** @type {const} */ ('mean') };
  }

  function heatmapArea() {
    const figure = /** @type {HTMLElement} */ (el.heatmapBox.parentElement);
    const width = Math.max(figure.clientWidth - colourbarWidth() - 8, 80);
    const top = figure.getBoundingClientRect().top;
    const height = Math.max(window.innerHeight - top - 90, 140);
    return { width, height };
  }

  function renderHeatmap() {
    const p = cur.payload;
    const s = p && p.slice;
    if (!p || !s || !cur.cells || !cur.view) {
      el.legend.textContent = '';
      el.hover.textContent = 'No values to draw.';
      return;
    }
    const v = cur.view;
    const rows = v.r1 - v.r0;
    const cols = v.c1 - v.c0;
    if (rows <= 0 || cols <= 0) {
      sizeCanvas(el.heatmap, 1, 1);
      sizeCanvas(el.colourbar, 1, 1);
      el.legend.textContent = '';
      el.zoomInfo.textContent = '';
      el.hover.textContent = `No elements to draw: shape [${(p.shape || []).join(', ')}].`;
      cur.heat = null;
      return;
    }
    const area = heatmapArea();
    // Square cells where they fit. A picture that would be thinner than 40% of the room is
    // stretched (up to 4x) towards that; a single row or column is at least MIN_THICK px thick.
    const MIN_THICK = 120;
    const MAX_CELL = 64;
    const STRETCH = 4;
    const sq = Math.min(area.width / cols, area.height / rows, MAX_CELL);
    /** @param {number} room px @param {number} n cells */
    const side = (room, n) => {
      const stretched = Math.max(sq, Math.min(room / n, sq * STRETCH, (0.4 * room) / n));
      return Math.min(Math.max(stretched, Math.min(room / n, MIN_THICK / n)), MAX_CELL);
    };
    let cellW = side(area.width, cols);
    let cellH = side(area.height, rows);
    // A picture squeezed under a pixel a cell along one axis keeps no aspect ratio worth keeping:
    // the other axis takes the room it has (a [100, 12544] kernel fills the panel, not a strip).
    if (cellW < 1) cellH = Math.max(cellH, Math.min(area.height / rows, MAX_CELL));
    if (cellH < 1) cellW = Math.max(cellW, Math.min(area.width / cols, MAX_CELL));
    if (cellW >= 2) cellW = Math.floor(cellW);
    if (cellH >= 2) cellH = Math.floor(cellH);
    const w = cols * cellW;
    const h = rows * cellH;
    cur.heat = { cellW, cellH };

    // One pixel per cell, scaled up without smoothing: crisp cells. More cells than device pixels:
    // reduced first, keeping every NaN/Inf cell visible.
    const dpr = window.devicePixelRatio || 1;
    const outW = Math.min(cols, Math.max(1, Math.round(w * dpr)));
    const outH = Math.min(rows, Math.max(1, Math.round(h * dpr)));
    const reduced = outW < cols || outH < rows;
    const { pix, rule } = reduced ? reducedPixels(cur.cells, s, v, outW, outH) : { pix: cur.cells, rule: null };
    // Colours fitted to what is drawn: the pixels, or the cells of the view.
    const fit = state.range === 'full' ? null : reduced ? core.robustRange(pix.values, pix.mask) : core.robustRange(cur.cells.values, cur.cells.mask, { width: s.width, view: v });
    const scale = core.scaleFor(fit ? { min: fit.lo, max: fit.hi, signed: s.signed } : s, state.scale);
    drawn = { scale, fit, rule };
    const off = document.createElement('canvas');
    off.width = reduced ? outW : s.width;
    off.height = reduced ? outH : s.height;
    const octx = /** @type {CanvasRenderingContext2D} */ (off.getContext('2d'));
    const img = octx.createImageData(off.width, off.height);
    img.data.set(core.cellPixels(pix.values, pix.mask, scale));
    octx.putImageData(img, 0, 0);

    const ctx = sizeCanvas(el.heatmap, w, h);
    ctx.imageSmoothingEnabled = false;
    if (reduced) ctx.drawImage(off, 0, 0, outW, outH, 0, 0, w, h);
    else ctx.drawImage(off, v.c0, v.r0, cols, rows, 0, 0, w, h);
    const t = theme();
    if (cellW >= 16 && cellH >= 16) {
      ctx.strokeStyle = t.bg;
      ctx.globalAlpha = 0.35;
      ctx.lineWidth = 1;
      ctx.beginPath();
      for (let c = 1; c < cols; c++) (ctx.moveTo(c * cellW + 0.5, 0), ctx.lineTo(c * cellW + 0.5, h));
      for (let r = 1; r < rows; r++) (ctx.moveTo(0, r * cellH + 0.5), ctx.lineTo(w, r * cellH + 0.5));
      ctx.stroke();
      ctx.globalAlpha = 1;
    }
    if (cellW >= 40 && cellH >= 18) drawCellValues(ctx, s, scale, v, cellW, cellH, t.font);
    if (cellW < 4 || cellH < 4) markSpecialCells(ctx, s, v, cellW, cellH);
    el.heatmap.dataset.layout = JSON.stringify({ cellW, cellH, r0: v.r0, c0: v.c0, rows, cols });

    renderColourbar(scale, Math.max(h, 140));
    renderLegend();
    renderZoomInfo();
    state.zoom = { key: cur.key, view: v };
    saveState();
  }

  /**
   * A ring in its own colour around each NaN/Inf cell too small to be seen (up to 2000 of them):
   * a debugger's heatmap is often opened to find them.
   * @param {CanvasRenderingContext2D} ctx @param {Slice} s @param {View} v @param {number} cellW @param {number} cellH
   */
  function markSpecialCells(ctx, s, v, cellW, cellH) {
    const mask = /** @type {NonNullable<typeof cur.cells>} */ (cur.cells).mask;
    const colours = [null, core.SPECIAL.nan, core.SPECIAL.posinf, core.SPECIAL.neginf];
    let left = 2000;
    ctx.lineWidth = 1.5;
    for (let r = v.r0; r < v.r1 && left > 0; r++) {
      for (let c = v.c0; c < v.c1 && left > 0; c++) {
        const code = mask[r * s.width + c];
        const colour = colours[code];
        if (!colour) continue;
        left--;
        ctx.strokeStyle = core.rgbToCss(colour);
        ctx.beginPath();
        ctx.arc((c - v.c0 + 0.5) * cellW, (r - v.r0 + 0.5) * cellH, 4, 0, 2 * Math.PI);
        ctx.stroke();
      }
    }
  }

  /**
   * Each cell's value written in it, when cells are big enough to hold it legibly.
   * @param {CanvasRenderingContext2D} ctx @param {Slice} s @param {Scale} scale @param {View} v
   * @param {number} cellW @param {number} cellH @param {string} font
   */
  function drawCellValues(ctx, s, scale, v, cellW, cellH, font) {
    const cells = /** @type {NonNullable<typeof cur.cells>} */ (cur.cells);
    const dtype = (cur.payload && cur.payload.dtype) || 'float32';
    const mean = s.reduce === 'mean' && (s.step[0] > 1 || s.step[1] > 1);
    ctx.font = font;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (let r = v.r0; r < v.r1; r++) {
      for (let c = v.c0; c < v.c1; c++) {
        const i = r * s.width + c;
        const code = cells.mask[i];
        const text = core.formatValue(cells.values[i], code, dtype, mean);
        const label = text.length > 8 ? core.formatNumber(cells.values[i], 3) : text;
        if (ctx.measureText(label).width > cellW - 6) continue;
        const rgb = core.cellColour(scale, cells.values[i], code);
        const lum = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
        ctx.fillStyle = lum > 140 ? '#111111' : '#f4f4f4';
        ctx.fillText(label, (c - v.c0 + 0.5) * cellW, (r - v.r0 + 0.5) * cellH);
      }
    }
  }

  /** The colour bar's width: its labels need less in a narrow panel (the compact layout). */
  function colourbarWidth() {
    return window.innerWidth <= 340 ? 64 : 88;
  }

  /** @param {Scale} scale @param {number} h */
  function renderColourbar(scale, h) {
    const t = theme();
    const W = colourbarWidth();
    const BAR = 16;
    const PAD = 8;
    const ctx = sizeCanvas(el.colourbar, W, h);
    const top = PAD;
    const bottom = h - PAD;
    const span = bottom - top;
    // The first and last rows are the scale's ends exactly; the frame lies outside the gradient.
    for (let y = 0; y < span; y++) {
      const pos = scale.hi > scale.lo ? 1 - y / Math.max(span - 1, 1) : 0.5;
      ctx.fillStyle = core.rgbToCss(core.colourAt(scale.kind, pos));
      ctx.fillRect(1, top + y, BAR - 2, 1);
    }
    ctx.strokeStyle = t.grid;
    ctx.strokeRect(0.5, top - 0.5, BAR - 1, span + 1);
    ctx.fillStyle = t.fg;
    ctx.strokeStyle = t.muted;
    ctx.font = t.font;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    const { ticks, step } = core.niceTicks(scale.lo, scale.hi, Math.max(2, Math.floor(span / 40)));
    for (const v of ticks) {
      const y = scale.hi > scale.lo ? bottom - ((v - scale.lo) / (scale.hi - scale.lo)) * span : top + span / 2;
      ctx.beginPath();
      ctx.moveTo(BAR, Math.round(y) + 0.5);
      ctx.lineTo(BAR + 4, Math.round(y) + 0.5);
      ctx.stroke();
      ctx.fillText(core.formatTick(v, step), BAR + 7, y);
    }
    // The scale's ends, where no tick is near them.
    if (scale.hi > scale.lo) {
      ctx.fillStyle = t.muted;
      for (const [v, y] of [[scale.hi, top + 5], [scale.lo, bottom - 5]]) {
        const tickY = ticks.map((tv) => bottom - ((tv - scale.lo) / (scale.hi - scale.lo)) * span);
        if (tickY.every((ty) => Math.abs(ty - y) > 14)) ctx.fillText(core.formatNumber(v, 4), BAR + 7, y);
      }
    }
    el.colourbar.dataset.scale = JSON.stringify(scale);
  }

  function renderLegend() {
    const p = /** @type {Payload} */ (cur.payload);
    const stats = /** @type {Partial<import('../protocol').Stats>} */ (p.stats || {});
    const cells = cur.cells;
    /** @param {number} code */
    const here = (code) => {
      let n = 0;
      if (cells) for (let i = 0; i < cells.mask.length; i++) if (cells.mask[i] === code) n++;
      return n;
    };
    el.legend.textContent = '';
    /** @type {[string, string, number, number][]} */
    const items = [
      ['NaN', 'nan', stats.nan || 0, core.MASK.nan],
      ['+Inf', 'posinf', stats.posinf || 0, core.MASK.posinf],
      ['−Inf', 'neginf', stats.neginf || 0, core.MASK.neginf],
    ];
    for (const [label, key, total, code] of items) {
      if (!total && !here(code)) continue; // a row only for what is there
      const item = document.createElement('span');
      item.className = 'legend-item';
      item.dataset.kind = key;
      const sw = document.createElement('span');
      sw.className = `swatch swatch-${key}`;
      const text = document.createElement('span');
      const inSlice = here(code);
      text.textContent = `${label}: ${total} in the value` + (inSlice ? `, ${inSlice} cell${inSlice > 1 ? 's' : ''} here` : '');
      item.append(sw, text);
      el.legend.append(item);
    }
    const scaleNote = document.createElement('span');
    scaleNote.className = 'legend-item muted';
    const sc = currentScale();
    scaleNote.textContent = sc && sc.kind === 'diverging' ? 'diverging scale, 0 at the centre' : 'sequential scale';
    el.legend.append(scaleNote);
    const fit = drawn && drawn.fit;
    if (fit && (fit.lo > fit.min || fit.hi < fit.max)) {
      // Say so when the fitted range leaves cells out: they take the end colours.
      const clipped = document.createElement('span');
      clipped.className = 'legend-item muted';
      clipped.dataset.kind = 'fitted';
      clipped.textContent = `colours fitted to ${core.formatNumber(fit.lo)} … ${core.formatNumber(fit.hi)} (99% of the cells shown; they span ${core.formatNumber(fit.min)} … ${core.formatNumber(fit.max)})`;
      el.legend.append(clipped);
    }
  }

  function renderZoomInfo() {
    const s = /** @type {Slice} */ (cur.payload && cur.payload.slice);
    const v = /** @type {View} */ (cur.view);
    const zoomed = v.r0 > 0 || v.c0 > 0 || v.r1 < s.height || v.c1 < s.width;
    const region = core.viewToRegion(s, v);
    const parts = [];
    if (zoomed || !core.isWholeRegion(s)) parts.push(`rows ${region[0][0]}–${region[0][1]} and columns ${region[1][0]}–${region[1][1]} of ${s.rows}×${s.cols}`);
    else parts.push(`${s.rows}×${s.cols}`);
    if (s.step[0] > 1 || s.step[1] > 1) parts.push(`each cell the mean of a ${s.step[0]}×${s.step[1]} block`);
    if (drawn && drawn.rule === 'absmax') parts.push('each pixel the largest |x| of the cells it covers (their mean would be near 0)');
    el.zoomInfo.textContent = parts.join(' · ');
    el.resetZoom.disabled = !zoomed && core.isWholeRegion(s);
  }

  return { render: renderHeatmap, currentScale };
})();
