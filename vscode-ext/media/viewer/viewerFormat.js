// @ts-check
'use strict';
/**
 * Numbers as the viewer writes them: a cell's value as its dtype shows it, indexes, tick positions
 * and labels, counts, histogram bar heights. Pure functions, shared by the page (a plain
 * <script>, as `TfViewerFormat`, before viewerCore.js which re-exports them) and node (`require`).
 */
(function (root, factory) {
  if (typeof module !== 'undefined' && module.exports) module.exports = factory(require('./viewerContract.js'));
  else /** @type {any} */ (root).TfViewerFormat = factory(/** @type {any} */ (root).TfViewerContract);
})(typeof self !== 'undefined' ? self : globalThis, function (/** @type {typeof import('./viewerContract.js')} */ contract) {
  const MASK = contract.mask;

  /**
   * "[2, 3]" for one element, "[0, 4:8, 12:16]" for a block.
   * @param {[number, number][]} ranges
   */
  function formatIndex(ranges) {
    return '[' + ranges.map(([a, b]) => (b - a > 1 ? `${a}:${b}` : `${a}`)).join(', ') + ']';
  }

  /**
   * A cell's value as the dtype shows it: exact ints, True/False, float32 to 7 significant digits.
   * @param {number} v @param {number} maskCode @param {string} dtype @param {boolean} [isMean]
   */
  function formatValue(v, maskCode, dtype, isMean = false) {
    if (maskCode === MASK.nan) return 'nan';
    if (maskCode === MASK.posinf) return '+inf';
    if (maskCode === MASK.neginf) return '-inf';
    if (!isMean && dtype === 'bool') return v ? 'True' : 'False';
    if (!isMean && /^u?int/.test(dtype)) return String(Math.round(v));
    return formatNumber(v, 7);
  }

  /** @param {number} v @param {number} [digits] significant digits */
  function formatNumber(v, digits = 4) {
    if (Number.isNaN(v)) return 'nan';
    if (!Number.isFinite(v)) return v > 0 ? '+inf' : '-inf';
    if (v === 0) return '0';
    const a = Math.abs(v);
    if (a >= 1e-4 && a < 1e6) return trimZeros(v.toPrecision(digits));
    return trimExponent(v.toExponential(Math.max(digits - 1, 1)));
  }

  /** @param {string} s */
  function trimZeros(s) {
    return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
  }

  /** @param {string} s */
  function trimExponent(s) {
    const [m, e] = s.split('e');
    return `${trimZeros(m)}e${e}`;
  }

  /**
   * Round tick positions inside [lo, hi]: multiples of 1, 2 or 5 x 10^k, about `target` of them.
   * @param {number} lo @param {number} hi @param {number} [target]
   * @returns {{ ticks: number[], step: number }}
   */
  function niceTicks(lo, hi, target = 5) {
    if (!Number.isFinite(lo) || !Number.isFinite(hi)) return { ticks: [], step: 0 };
    if (hi < lo) [lo, hi] = [hi, lo];
    if (hi === lo) return { ticks: [lo], step: 0 };
    const raw = (hi - lo) / Math.max(target, 1);
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const f = raw / mag;
    const step = (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
    const ticks = [];
    const eps = step * 1e-9;
    for (let k = Math.ceil((lo - eps) / step); k * step <= hi + eps; k++) {
      const t = k * step;
      ticks.push(Math.abs(t) < eps ? 0 : t);
    }
    return { ticks, step };
  }

  /**
   * A tick label with just the digits its step needs.
   * @param {number} v @param {number} step
   */
  function formatTick(v, step) {
    if (v === 0) return '0';
    const a = Math.abs(v);
    if (a >= 1e5 || a < 1e-3) return trimExponent(v.toExponential(2));
    const decimals = step > 0 ? Math.max(0, -Math.floor(Math.log10(step) + 1e-9)) : 3;
    return v.toFixed(Math.min(decimals, 10));
  }

  /**
   * A count on an axis: 950, 20k, 1.5M (counts are whole numbers).
   * @param {number} n
   */
  function formatCount(n) {
    const a = Math.abs(n);
    if (a < 1e4) return String(Math.round(n));
    if (a < 1e6) return `${trimZeros((n / 1e3).toPrecision(3))}k`;
    if (a < 1e9) return `${trimZeros((n / 1e6).toPrecision(3))}M`;
    return `${trimZeros((n / 1e9).toPrecision(3))}G`;
  }

  /** An exact count with thousands separators: 2,097,152. @param {number} n */
  function formatInt(n) {
    return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  }

  /**
   * Bar heights in pixels, linear or log (log10(1 + count)) against the tallest bar.
   * @param {number[]} counts @param {boolean} log @param {number} maxPx
   */
  function barHeights(counts, log, maxPx) {
    const f = log ? (/** @type {number} */ c) => Math.log10(1 + c) : (/** @type {number} */ c) => c;
    const top = Math.max(0, ...counts.map(f));
    return counts.map((c) => (top > 0 ? (f(c) / top) * maxPx : 0));
  }

  /**
   * A cell's value in the Table's number format: 'auto' (as formatValue: ints exact, floats to 7
   * significant digits), 'fixed' (4 decimals) or 'sci' (4 significant digits, exponent).
   * @param {number} v @param {number} maskCode @param {string} dtype @param {boolean} isMean @param {string} format
   */
  function formatCell(v, maskCode, dtype, isMean, format) {
    if (maskCode !== MASK.finite || format === 'auto') return formatValue(v, maskCode, dtype, isMean);
    if (!isMean && (dtype === 'bool' || /^u?int/.test(dtype))) return formatValue(v, maskCode, dtype, isMean);
    return format === 'fixed' ? v.toFixed(4) : trimExponent(v.toExponential(3));
  }

  /**
   * A cell's value exactly, for copying: ints and bools as they are, a float32 with the fewest
   * digits that read back as the same float32 (NaN/±Inf as nan, inf, -inf).
   * @param {number} v @param {number} maskCode @param {string} dtype @param {boolean} isMean
   */
  function exactValue(v, maskCode, dtype, isMean) {
    if (maskCode === MASK.nan) return 'nan';
    if (maskCode === MASK.posinf) return 'inf';
    if (maskCode === MASK.neginf) return '-inf';
    if (!isMean && dtype === 'bool') return v ? 'True' : 'False';
    if (!isMean && /^u?int/.test(dtype)) return String(Math.round(v));
    const f = Math.fround(v);
    for (let p = 1; p < 9; p++) {
      const text = f.toPrecision(p);
      if (Math.fround(Number(text)) === f) return String(Number(text));
    }
    return String(Number(f.toPrecision(9)));
  }

  /**
   * Rows of values as text: tab-separated ('tsv', what spreadsheets paste) or comma-separated ('csv').
   * @param {string[][]} rows @param {'tsv' | 'csv'} format
   */
  function tableText(rows, format) {
    return rows.map((r) => r.join(format === 'csv' ? ',' : '\t')).join('\n') + '\n';
  }

  return { formatIndex, formatValue, formatNumber, trimZeros, niceTicks, formatTick, formatCount, formatInt, barHeights, formatCell, exactValue, tableText };
});
