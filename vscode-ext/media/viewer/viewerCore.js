// @ts-check
'use strict';
/**
 * The tensor viewer's pure logic, shared by the page (a plain <script>, as `TfViewerCore`) and
 * node's unit tests (`require`): base64 decoding, colour scales, cell -> tensor index, zoom regions;
 * with viewerFormat.js's number formatting, ticks and bar heights re-exported. No DOM here.
 */
/** @typedef {[number, number, number]} RGB */
/** @typedef {import('./protocol').Slice} Slice  the payload's `slice` (docs/tensor-viewer.md, section 2) */
/** @typedef {{ kind: 'sequential' | 'diverging', lo: number, hi: number }} Scale */

(function (root, factory) {
  if (typeof module !== 'undefined' && module.exports) module.exports = factory(require('./viewerContract.js'), require('./viewerFormat.js'));
  else /** @type {any} */ (root).TfViewerCore = factory(/** @type {any} */ (root).TfViewerContract, /** @type {any} */ (root).TfViewerFormat);
})(typeof self !== 'undefined' ? self : globalThis, function (
  /** @type {typeof import('./viewerContract.js')} */ contract,
  /** @type {typeof import('./viewerFormat.js')} */ format,
) {
  // The colour maps and mask codes of the contract (src/tf_debug_repr/viewer/contract.json), which
  // the notebook's pictures read too: viridis at 10 evenly spaced points, ColorBrewer RdBu
  // (9 classes) reversed (blue for negative, near-white at 0, red for positive); linear in between.
  /** @type {RGB[]} */
  const VIRIDIS = contract.colourMaps.viridis.map(hexToRgb);
  /** @type {RGB[]} */
  const DIVERGING = contract.colourMaps.diverging.map(hexToRgb);
  /** Colours of their own for the non-finite cells: in neither scale. @type {{ nan: RGB, posinf: RGB, neginf: RGB }} */
  const SPECIAL = JSON.parse(JSON.stringify(contract.colourMaps.special));
  /** The payload mask's codes. @type {{ finite: number, nan: number, posinf: number, neginf: number }} */
  const MASK = { ...contract.mask };

  /** @param {string} hex @returns {RGB} */
  function hexToRgb(hex) {
    const n = parseInt(hex.slice(1), 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  }

  /** @param {RGB} c */
  function rgbToCss(c) {
    return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
  }

  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const B64_INDEX = new Int16Array(128).fill(-1);
  for (let i = 0; i < B64.length; i++) B64_INDEX[B64.charCodeAt(i)] = i;

  /**
   * Standard base64 (with or without padding) to bytes; throws on a foreign character.
   * @param {string} text
   * @returns {Uint8Array}
   */
  function decodeBase64(text) {
    const s = text.replace(/=+$/, '');
    if (s.length % 4 === 1) throw new Error('base64 of a wrong length');
    const out = new Uint8Array(Math.floor((s.length * 3) / 4));
    let bits = 0;
    let nbits = 0;
    let o = 0;
    for (let i = 0; i < s.length; i++) {
      const code = s.charCodeAt(i);
      const v = code < 128 ? B64_INDEX[code] : -1;
      if (v < 0) throw new Error(`not base64 at character ${i}`);
      bits = ((bits << 6) | v) & 0xffffff;
      nbits += 6;
      if (nbits >= 8) {
        nbits -= 8;
        out[o++] = (bits >> nbits) & 255;
      }
    }
    return out;
  }

  /**
   * The slice's cells: float32 little-endian values and the uint8 mask, both height*width.
   * @param {Slice} slice
   * @returns {{ values: Float32Array, mask: Uint8Array }}
   */
  function decodeSlice(slice) {
    const n = slice.height * slice.width;
    const bytes = decodeBase64(slice.values || '');
    if (bytes.length !== n * 4) throw new Error(`slice values: ${bytes.length} bytes for ${n} cells`);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const values = new Float32Array(n);
    for (let i = 0; i < n; i++) values[i] = view.getFloat32(i * 4, true);
    const mask = slice.mask ? decodeBase64(slice.mask) : new Uint8Array(n);
    if (mask.length !== n) throw new Error(`slice mask: ${mask.length} bytes for ${n} cells`);
    return { values, mask };
  }

  /**
   * The colour scale of a slice: diverging and symmetric around 0 when the data is signed,
   * sequential over [min, max] otherwise; `choice` overrides the kind.
   * @param {{ min: number, max: number, signed: boolean }} slice
   * @param {'auto' | 'sequential' | 'diverging'} [choice]
   * @returns {Scale}
   */
  function scaleFor(slice, choice = 'auto') {
    const kind = choice === 'auto' ? (slice.signed ? 'diverging' : 'sequential') : choice;
    const lo = Number.isFinite(slice.min) ? slice.min : 0;
    const hi = Number.isFinite(slice.max) ? slice.max : 0;
    if (kind === 'diverging') {
      const m = Math.max(Math.abs(lo), Math.abs(hi));
      return { kind, lo: -m, hi: m };
    }
    return { kind, lo, hi };
  }

  /**
   * Position of v in the scale, in [0, 1] (0.5 for a flat scale).
   * @param {Scale} scale @param {number} v
   */
  function scalePosition(scale, v) {
    if (!(scale.hi > scale.lo)) return 0.5;
    const t = (v - scale.lo) / (scale.hi - scale.lo);
    return t < 0 ? 0 : t > 1 ? 1 : t;
  }

  /** @param {RGB[]} stops @param {number} t in [0, 1] @returns {RGB} */
  function interpolate(stops, t) {
    const x = t * (stops.length - 1);
    const i = Math.min(Math.floor(x), stops.length - 2);
    const f = x - i;
    const a = stops[i];
    const b = stops[i + 1];
    return [Math.round(a[0] + (b[0] - a[0]) * f), Math.round(a[1] + (b[1] - a[1]) * f), Math.round(a[2] + (b[2] - a[2]) * f)];
  }

  /** Colour at position t in [0, 1] of a scale kind. @param {Scale['kind']} kind @param {number} t */
  function colourAt(kind, t) {
    return interpolate(kind === 'diverging' ? DIVERGING : VIRIDIS, t);
  }

  /**
   * The colour of one cell.
   * @param {Scale} scale @param {number} value @param {number} [maskCode] 0 finite, 1 NaN, 2 +Inf, 3 -Inf
   * @returns {RGB}
   */
  function cellColour(scale, value, maskCode = 0) {
    if (maskCode === MASK.nan || (maskCode === 0 && Number.isNaN(value))) return SPECIAL.nan;
    if (maskCode === MASK.posinf || (maskCode === 0 && value === Infinity)) return SPECIAL.posinf;
    if (maskCode === MASK.neginf || (maskCode === 0 && value === -Infinity)) return SPECIAL.neginf;
    return colourAt(scale.kind, scalePosition(scale, value));
  }

  /**
   * RGBA bytes, one pixel per cell, for an ImageData of width x height.
   * @param {Float32Array} values @param {Uint8Array} mask @param {Scale} scale
   * @returns {Uint8ClampedArray}
   */
  function cellPixels(values, mask, scale) {
    const out = new Uint8ClampedArray(values.length * 4);
    for (let i = 0; i < values.length; i++) {
      const c = cellColour(scale, values[i], mask[i]);
      out[i * 4] = c[0];
      out[i * 4 + 1] = c[1];
      out[i * 4 + 2] = c[2];
      out[i * 4 + 3] = 255;
    }
    return out;
  }

  /**
   * The cells of a view reduced to outH x outW pixels, for views with more cells than pixels:
   * each pixel the mean of the finite cells it covers ('mean'), or the one of largest |x|
   * ('absmax': where means of zero-mean values wash out to 0), or NaN if any is NaN, else +Inf /
   * -Inf if any (the payload's own block rule), so that no NaN or Inf cell vanishes from the picture.
   * @param {Float32Array} values @param {Uint8Array} mask @param {number} width cells per slice row
   * @param {{ r0: number, r1: number, c0: number, c1: number }} view @param {number} outW @param {number} outH
   * @param {'mean' | 'absmax'} [rule]
   * @returns {{ values: Float32Array, mask: Uint8Array }}
   */
  function reduceCells(values, mask, width, view, outW, outH, rule = 'mean') {
    const rows = view.r1 - view.r0;
    const cols = view.c1 - view.c0;
    const ov = new Float32Array(outW * outH);
    const om = new Uint8Array(outW * outH);
    for (let oy = 0; oy < outH; oy++) {
      const ra = view.r0 + Math.floor((oy * rows) / outH);
      const rb = Math.max(view.r0 + Math.floor(((oy + 1) * rows) / outH), ra + 1);
      for (let ox = 0; ox < outW; ox++) {
        const ca = view.c0 + Math.floor((ox * cols) / outW);
        const cb = Math.max(view.c0 + Math.floor(((ox + 1) * cols) / outW), ca + 1);
        let sum = 0;
        let n = 0;
        let code = 0;
        for (let r = ra; r < rb; r++) {
          for (let c = ca; c < cb; c++) {
            const i = r * width + c;
            const m = mask[i];
            if (m === MASK.finite) {
              if (rule === 'mean') sum += values[i];
              else if (!n || Math.abs(values[i]) > Math.abs(sum)) sum = values[i];
              n++;
            } else if (m === MASK.nan || code === 0 || (m === MASK.posinf && code === MASK.neginf)) code = m;
          }
        }
        const o = oy * outW + ox;
        om[o] = code;
        ov[o] = n ? (rule === 'mean' ? sum / n : sum) : 0;
      }
    }
    return { values: ov, mask: om };
  }

  /**
   * The range colours are fitted to: the finite values of these cells (of the view, when given)
   * from the 0.5th to the 99.5th percentile (nearest rank), so that a few outliers do not flatten
   * the rest; up to 100 values that is their min and max. From a strided sample past 2^16 values.
   * @param {Float32Array} values @param {Uint8Array} mask
   * @param {{ width: number, view: { r0: number, r1: number, c0: number, c1: number } }} [within]
   * @returns {{ lo: number, hi: number, min: number, max: number } | null} null: no finite value
   */
  function robustRange(values, mask, within) {
    const rows = within ? within.view.r1 - within.view.r0 : 1;
    const cols = within ? within.view.c1 - within.view.c0 : values.length;
    const stride = Math.max(1, Math.floor((rows * cols) / 65536));
    const picked = [];
    for (let k = 0; k < rows * cols; k += stride) {
      const i = within ? (within.view.r0 + Math.floor(k / cols)) * within.width + within.view.c0 + (k % cols) : k;
      if (mask[i] === MASK.finite) picked.push(values[i]);
    }
    if (!picked.length) return null;
    const sorted = Float64Array.from(picked).sort();
    const at = (/** @type {number} */ q) => sorted[Math.round(q * (sorted.length - 1))];
    return { lo: at(0.005), hi: at(0.995), min: sorted[0], max: sorted[sorted.length - 1] };
  }

  /** @param {number} axis @param {number} rank */
  function normaliseAxis(axis, rank) {
    return axis < 0 ? axis + rank : axis;
  }

  /**
   * The shown axes of a value of this rank, as non-negative ints: [row, col]. A 1-D value is one
   * row (row axis null), a 0-D value one cell (both null).
   * @param {(number|null)[] | null | undefined} axes @param {number} rank
   * @returns {[number|null, number|null]}
   */
  function shownAxes(axes, rank) {
    if (rank === 0) return [null, null];
    if (rank === 1) return [null, 0];
    const a = axes && axes.length === 2 ? axes : [-2, -1];
    const r = a[0] == null ? rank - 2 : normaliseAxis(a[0], rank);
    const c = a[1] == null ? rank - 1 : normaliseAxis(a[1], rank);
    return [r, c];
  }

  /**
   * Where cell (row, col) of the slice lies in the full value: for each axis a half-open range
   * [start, stop) (one element wide on the non-shown axes, and on shown axes when step is 1).
   * @param {Slice} slice @param {number[]} shape @param {number} row @param {number} col
   * @returns {{ ranges: [number, number][], block: [number, number] }}
   */
  function cellRanges(slice, shape, row, col) {
    const rank = shape.length;
    const [ra, ca] = shownAxes(slice.axes, rank);
    const region = slice.region || [[0, slice.rows], [0, slice.cols]];
    const step = slice.step || [1, 1];
    const r0 = region[0][0] + row * step[0];
    const r1 = Math.min(r0 + step[0], region[0][1]);
    const c0 = region[1][0] + col * step[1];
    const c1 = Math.min(c0 + step[1], region[1][1]);
    /** @type {[number, number][]} */
    const ranges = [];
    for (let axis = 0; axis < rank; axis++) {
      if (axis === ra) ranges.push([r0, r1]);
      else if (axis === ca) ranges.push([c0, c1]);
      else {
        const i = (slice.index && slice.index[axis]) || 0;
        ranges.push([i, i + 1]);
      }
    }
    return { ranges, block: [r1 - r0, c1 - c0] };
  }

  /**
   * The part of the slice a client-side zoom window of cells covers, as a payload `region`
   * (rows and columns of the 2-D slice, half-open), for refetching it at full resolution.
   * @param {Slice} slice @param {{ r0: number, r1: number, c0: number, c1: number }} view cells
   * @returns {[[number, number], [number, number]]}
   */
  function viewToRegion(slice, view) {
    const region = slice.region || [[0, slice.rows], [0, slice.cols]];
    const step = slice.step || [1, 1];
    const rs = region[0][0] + view.r0 * step[0];
    const re = Math.min(region[0][0] + view.r1 * step[0], region[0][1]);
    const cs = region[1][0] + view.c0 * step[1];
    const ce = Math.min(region[1][0] + view.c1 * step[1], region[1][1]);
    return [
      [rs, Math.max(re, rs + 1)],
      [cs, Math.max(ce, cs + 1)],
    ];
  }

  /** Whether the slice shows all of its 2-D plane. @param {Slice} slice */
  function isWholeRegion(slice) {
    const r = slice.region;
    return !r || (r[0][0] === 0 && r[0][1] === slice.rows && r[1][0] === 0 && r[1][1] === slice.cols);
  }

  /**
   * The History tab's plots (docs/history.md): one line plot per figure of the payload's `history`,
   * all on one x axis (steps, epochs or stops), in a `width`×`height` box with `pad` pixels inside
   * its edges. On the step axis the gradient-norm ring (`grad_step`, `grad_norm`) is the
   * `grad_norm` plot, on the same axis as the stops. A missing (null) value breaks a line; a plot
   * without a value is left out.
   * @param {import('./protocol').History} history
   * @param {number} width @param {number} height @param {number} [pad]
   * @returns {{ axis: string, x0: number, x1: number, plots: { figure: string, lo: number, hi: number, count: number, lines: [number, number][][] }[] }}
   */
  function historyPlots(history, width, height, pad = 4) {
    /** @type {{ figure: string, xs: number[], ys: (number | null)[] }[]} */
    const series = [];
    history.figures.forEach((figure, i) => {
      const ring = figure === 'grad_norm' && history.axis === 'step' && history.grad_step.length > 0;
      series.push(ring ? { figure, xs: history.grad_step, ys: history.grad_norm } : { figure, xs: history.x, ys: history.series[i] || [] });
    });
    const every = series.flatMap((s) => s.xs.filter((_, i) => isFinite(/** @type {any} */ (s.ys[i])) && s.ys[i] !== null));
    const x0 = every.length ? Math.min(...every) : 0;
    const x1 = every.length ? Math.max(...every) : 1;
    const xspan = x1 - x0 || 1;
    const plots = [];
    for (const { figure, xs, ys } of series) {
      const finite = /** @type {number[]} */ (ys.filter((y) => y !== null && isFinite(y)));
      if (!finite.length) continue;
      const lo = Math.min(...finite);
      const hi = Math.max(...finite);
      /** @type {[number, number][][]} */
      const lines = [[]];
      xs.forEach((x, i) => {
        const y = ys[i];
        if (y === null || y === undefined || !isFinite(y)) {
          if (lines[lines.length - 1].length) lines.push([]);
          return;
        }
        const px = pad + ((x - x0) / xspan) * (width - 2 * pad);
        const py = hi > lo ? height - pad - ((y - lo) / (hi - lo)) * (height - 2 * pad) : height / 2;
        lines[lines.length - 1].push([Math.round(px * 10) / 10, Math.round(py * 10) / 10]);
      });
      plots.push({ figure, lo, hi, count: finite.length, lines: lines.filter((l) => l.length) });
    }
    return { axis: history.axis, x0, x1, plots };
  }

  /**
   * The History tab's Compare (docs/history.md): the difference b − a of two stops as RGBA
   * pixels, one a cell, `rows`×`cols`, on the diverging scale symmetric around 0 over its finite
   * cells (a null cell, not finite, in the contract's NaN colour; the cells past the last of a
   * flattened difference transparent). Null where the compare has no values (its note says why).
   * @param {import('./protocol').HistoryCompare} compare
   * @returns {{ rows: number, cols: number, scale: Scale, pixels: Uint8ClampedArray } | null}
   */
  function compareGrid(compare) {
    const values = compare && compare.values;
    if (!values || !values.length || !(compare.rows > 0) || !(compare.cols > 0)) return null;
    const finite = /** @type {number[]} */ (values.filter((v) => v !== null && Number.isFinite(v)));
    const lo = finite.length ? Math.min(...finite) : 0;
    const hi = finite.length ? Math.max(...finite) : 0;
    const scale = scaleFor({ min: lo, max: hi, signed: true });
    const pixels = new Uint8ClampedArray(compare.rows * compare.cols * 4);
    for (let i = 0; i < compare.rows * compare.cols; i++) {
      if (i >= values.length) continue; // past a flattened difference's last cell
      const v = values[i];
      const c = v === null || !Number.isFinite(v) ? SPECIAL.nan : cellColour(scale, v);
      pixels.set([c[0], c[1], c[2], 255], i * 4);
    }
    return { rows: compare.rows, cols: compare.cols, scale, pixels };
  }

  return {
    VIRIDIS,
    DIVERGING,
    SPECIAL,
    MASK,
    hexToRgb,
    rgbToCss,
    decodeBase64,
    decodeSlice,
    scaleFor,
    scalePosition,
    colourAt,
    cellColour,
    cellPixels,
    reduceCells,
    robustRange,
    shownAxes,
    cellRanges,
    viewToRegion,
    isWholeRegion,
    historyPlots,
    compareGrid,
    // viewerFormat.js's, here too: the page and the tests read them as core's
    ...format,
  };
});
