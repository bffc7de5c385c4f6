// @ts-check
'use strict';
/**
 * The viewer page's pure logic (media/viewer/viewerCore.js), in node: the same file the page loads.
 */
const assert = require('node:assert/strict');
const { test } = require('node:test');
const core = require('../../media/viewer/viewerCore.js');

test('decodeBase64 matches node for every length and byte, with and without padding', () => {
  for (let n = 0; n < 40; n++) {
    const bytes = Buffer.from(Array.from({ length: n }, (_, i) => (i * 97 + n * 13) & 255));
    const b64 = bytes.toString('base64');
    assert.deepEqual(Buffer.from(core.decodeBase64(b64)), bytes, `length ${n}`);
    assert.deepEqual(Buffer.from(core.decodeBase64(b64.replace(/=+$/, ''))), bytes);
  }
  assert.throws(() => core.decodeBase64('ab$d'), /not base64/);
  assert.throws(() => core.decodeBase64('abcde'), /wrong length/);
});

test('decodeSlice reads float32 little-endian values and the uint8 mask', () => {
  const values = Buffer.alloc(12);
  [1.5, -2.25, 0].forEach((v, i) => values.writeFloatLE(v, i * 4));
  const slice = /** @type {any} */ ({ height: 1, width: 3, values: values.toString('base64'), mask: Buffer.from([0, 0, 1]).toString('base64') });
  const cells = core.decodeSlice(slice);
  assert.deepEqual([...cells.values], [1.5, -2.25, 0]);
  assert.deepEqual([...cells.mask], [0, 0, 1]);
  assert.throws(() => core.decodeSlice({ ...slice, width: 4 }), /12 bytes for 4 cells/);
});

test('scales: sequential over [min, max], diverging symmetric around 0; ends are the published colours', () => {
  assert.deepEqual(core.scaleFor({ min: 2, max: 10, signed: false }), { kind: 'sequential', lo: 2, hi: 10 });
  assert.deepEqual(core.scaleFor({ min: -1, max: 4, signed: true }), { kind: 'diverging', lo: -4, hi: 4 });
  assert.deepEqual(core.scaleFor({ min: -1, max: 4, signed: true }, 'sequential'), { kind: 'sequential', lo: -1, hi: 4 });
  const seq = core.scaleFor({ min: 2, max: 10, signed: false });
  assert.deepEqual(core.cellColour(seq, 2), [0x44, 0x01, 0x54]); // viridis start
  assert.deepEqual(core.cellColour(seq, 10), [0xfd, 0xe7, 0x25]); // viridis end
  assert.deepEqual(core.cellColour(seq, 6), [35, 144, 140]); // half way from viridis' 5th stop (#26828e) to its 6th (#1f9e89)
  assert.deepEqual(core.cellColour(seq, -100), core.cellColour(seq, 2), 'clamped');
  const div = core.scaleFor({ min: -3, max: 1, signed: true });
  assert.deepEqual(core.cellColour(div, 0), [0xf7, 0xf7, 0xf7]);
  assert.deepEqual(core.cellColour(div, -3), [0x21, 0x66, 0xac]);
  assert.deepEqual(core.cellColour(div, 3), [0xb2, 0x18, 0x2b]);
  // A flat slice is one colour, the middle of the scale.
  assert.deepEqual(core.cellColour({ kind: 'sequential', lo: 5, hi: 5 }, 5), core.colourAt('sequential', 0.5));
  // Non-finite cells by mask code, and by value when unmasked.
  assert.deepEqual(core.cellColour(seq, 0, 1), core.SPECIAL.nan);
  assert.deepEqual(core.cellColour(seq, 0, 2), core.SPECIAL.posinf);
  assert.deepEqual(core.cellColour(seq, 0, 3), core.SPECIAL.neginf);
  assert.deepEqual(core.cellColour(seq, NaN), core.SPECIAL.nan);
  // The special colours are in neither scale.
  for (const special of Object.values(core.SPECIAL)) {
    for (let t = 0; t <= 1; t += 0.01) {
      for (const kind of /** @type {const} */ (['sequential', 'diverging'])) {
        const c = core.colourAt(kind, t);
        const d = Math.abs(c[0] - special[0]) + Math.abs(c[1] - special[1]) + Math.abs(c[2] - special[2]);
        assert.ok(d > 90, `${special} is far from ${kind} at ${t.toFixed(2)} (${c})`);
      }
    }
  }
});

test('cellRanges maps a cell to the full tensor index through axes, index, region and step', () => {
  /** @param {any} o */
  const slice = (o) => ({ axes: [0, 1], index: [null, null], rows: 4, cols: 5, region: [[0, 4], [0, 5]], step: [1, 1], ...o });
  assert.deepEqual(core.cellRanges(/** @type {any} */ (slice({})), [4, 5], 2, 3), { ranges: [[2, 3], [3, 4]], block: [1, 1] });
  // Rank 3, axes [2, 0], index 7 on axis 1.
  const s3 = slice({ axes: [2, 0], index: [null, 7, null], rows: 6, cols: 3, region: [[0, 6], [0, 3]] });
  assert.deepEqual(core.cellRanges(/** @type {any} */ (s3), [3, 9, 6], 5, 1).ranges, [[1, 2], [7, 8], [5, 6]]);
  assert.equal(core.formatIndex(core.cellRanges(/** @type {any} */ (s3), [3, 9, 6], 5, 1).ranges), '[1, 7, 5]');
  // Negative axes.
  const neg = slice({ axes: [-1, -3], index: [null, 2, null] });
  assert.equal(core.formatIndex(core.cellRanges(/** @type {any} */ (neg), [3, 4, 5], 1, 2).ranges), '[2, 2, 1]');
  // A zoomed, downsampled region: blocks, clipped at the region's end.
  const ds = slice({ rows: 100, cols: 90, region: [[10, 25], [30, 90]], step: [4, 8] });
  const last = core.cellRanges(/** @type {any} */ (ds), [100, 90], 3, 7);
  assert.deepEqual(last, { ranges: [[22, 25], [86, 90]], block: [3, 4] });
  assert.equal(core.formatIndex(last.ranges), '[22:25, 86:90]');
  // 1-D and 0-D.
  assert.equal(core.formatIndex(core.cellRanges(/** @type {any} */ (slice({ axes: [null, 0], index: [null], rows: 1, cols: 9 })), [9], 0, 4).ranges), '[4]');
  assert.equal(core.formatIndex(core.cellRanges(/** @type {any} */ (slice({ axes: [null, null], index: [], rows: 1, cols: 1 })), [], 0, 0).ranges), '[]');
});

test('viewToRegion turns zoomed cells back into a region of the slice', () => {
  const s = /** @type {any} */ ({ rows: 100, cols: 90, region: [[10, 25], [30, 90]], step: [4, 8] });
  assert.deepEqual(core.viewToRegion(s, { r0: 1, r1: 3, c0: 2, c1: 8 }), [[14, 22], [46, 90]]);
  assert.equal(core.isWholeRegion(s), false);
  assert.equal(core.isWholeRegion(/** @type {any} */ ({ rows: 3, cols: 4, region: [[0, 3], [0, 4]] })), true);
});

test('values are written as their dtype: exact ints, True/False, float32 digits, nan/inf', () => {
  assert.equal(core.formatValue(30000000, 0, 'int32'), '30000000');
  assert.equal(core.formatValue(-7, 0, 'int64'), '-7');
  assert.equal(core.formatValue(3.5, 0, 'uint8', true), '3.5', 'a block mean is a float');
  assert.equal(core.formatValue(1, 0, 'bool'), 'True');
  assert.equal(core.formatValue(0, 0, 'bool'), 'False');
  assert.equal(core.formatValue(Math.fround(0.1), 0, 'float32'), '0.1');
  assert.equal(core.formatValue(Math.fround(1 / 3), 0, 'float32'), '0.3333333');
  assert.equal(core.formatValue(1e-7, 0, 'float32'), '1e-7');
  assert.equal(core.formatValue(0, 1, 'float32'), 'nan');
  assert.equal(core.formatValue(0, 2, 'float32'), '+inf');
  assert.equal(core.formatValue(0, 3, 'float32'), '-inf');
});

test('niceTicks picks round steps inside the range; tick labels carry the digits the step needs', () => {
  assert.deepEqual(core.niceTicks(0, 19, 4), { ticks: [0, 5, 10, 15], step: 5 });
  assert.deepEqual(core.niceTicks(-4, 4, 4), { ticks: [-4, -2, 0, 2, 4], step: 2 });
  const small = core.niceTicks(-0.2, 0.2, 4);
  assert.equal(small.step, 0.1);
  assert.deepEqual(small.ticks.map((t) => core.formatTick(t, small.step)), ['-0.2', '-0.1', '0', '0.1', '0.2']);
  assert.deepEqual(core.niceTicks(3, 3), { ticks: [3], step: 0 });
  assert.deepEqual(core.niceTicks(NaN, 3), { ticks: [], step: 0 });
  assert.equal(core.formatTick(250000, 50000), '2.5e+5');
  assert.equal(core.formatTick(0.0001, 0.0001), '1e-4');
});

test('barHeights: linear against the tallest bar, log10(1 + count) in log mode', () => {
  assert.deepEqual(core.barHeights([1000, 10, 0], false, 100), [100, 1, 0]);
  const log = core.barHeights([1000, 10, 0], true, 100);
  assert.equal(log[0], 100);
  assert.ok(Math.abs(log[1] - (100 * Math.log10(11)) / Math.log10(1001)) < 1e-9);
  assert.equal(log[2], 0);
  assert.deepEqual(core.barHeights([0, 0], true, 100), [0, 0]);
});

test('reduceCells: block means of finite cells; NaN, else +Inf/-Inf, wins a pixel', () => {
  // 4 x 4 cells -> 2 x 2 pixels.
  const values = Float32Array.from([1, 3, 0, 0, 5, 7, 0, 0, 2, 2, 8, 8, 2, 2, 8, 8]);
  const mask = Uint8Array.from([0, 0, 2, 0, 0, 0, 3, 1, 0, 0, 0, 0, 0, 0, 0, 3]);
  const out = core.reduceCells(values, mask, 4, { r0: 0, r1: 4, c0: 0, c1: 4 }, 2, 2);
  assert.deepEqual([...out.values], [4, 0, 2, 8]);
  assert.deepEqual([...out.mask], [0, 1, 0, 3]);
  // A view inside the slice, reduced along rows only.
  const part = core.reduceCells(values, mask, 4, { r0: 1, r1: 4, c0: 0, c1: 2 }, 2, 1);
  assert.deepEqual([...part.values], [3, Math.fround(11 / 3)]);
  // Every NaN survives a heavy reduction.
  const tall = new Float32Array(4000);
  const tallMask = new Uint8Array(4000);
  tallMask[2345] = 1;
  const r = core.reduceCells(tall, tallMask, 1, { r0: 0, r1: 4000, c0: 0, c1: 1 }, 1, 300);
  assert.equal(r.mask.filter((m) => m === 1).length, 1);
});

test('counts: compact on axes, exact with separators in the figures', () => {
  assert.deepEqual([0, 950, 9999, 20000, 100000, 1500000, 2e9].map(core.formatCount), ['0', '950', '9999', '20k', '100k', '1.5M', '2G']);
  assert.deepEqual([0, 999, 1011, 2097152].map(core.formatInt), ['0', '999', '1,011', '2,097,152']);
});

test('robustRange: the 0.5th to 99.5th percentile of the finite cells (of a view), min and max of up to 100', () => {
  const values = Float32Array.from({ length: 400 }, (_, i) => (i === 7 ? 1000 : i / 400));
  const mask = new Uint8Array(400);
  mask[3] = core.MASK.nan;
  const r = /** @type {NonNullable<ReturnType<typeof core.robustRange>>} */ (core.robustRange(values, mask));
  assert.equal(r.max, 1000);
  assert.ok(r.hi < 1, 'the outlier is left out');
  const small = core.robustRange(Float32Array.from([5, -2, 9]), new Uint8Array(3));
  assert.deepEqual(small, { lo: -2, hi: 9, min: -2, max: 9 });
  // a 2 x 2 view of a 4-wide slice
  const view = core.robustRange(Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8]), new Uint8Array(8), { width: 4, view: { r0: 0, r1: 2, c0: 1, c1: 3 } });
  assert.deepEqual(view, { lo: 2, hi: 7, min: 2, max: 7 });
  assert.equal(core.robustRange(Float32Array.from([0]), Uint8Array.from([core.MASK.nan])), null);
});

test("reduceCells 'absmax': each pixel the cell of largest |x|, sign kept; NaN still wins", () => {
  const values = Float32Array.from([1, -3, 2, 0.5]);
  const r = core.reduceCells(values, new Uint8Array(4), 4, { r0: 0, r1: 1, c0: 0, c1: 4 }, 2, 1, 'absmax');
  assert.deepEqual([...r.values], [-3, 2]);
  const nan = core.reduceCells(values, Uint8Array.from([0, 1, 0, 0]), 4, { r0: 0, r1: 1, c0: 0, c1: 4 }, 2, 1, 'absmax');
  assert.deepEqual([...nan.mask], [core.MASK.nan, 0]);
});

test('historyPlots: one plot per figure on one axis, the gradient ring on the step axis, gaps at null', () => {
  const history = {
    name: 'kernel',
    axis: 'step',
    x: [4, 8, 12],
    stop: [1, 2, 3],
    step: [4, 8, 12],
    epoch: [0, 1, 2],
    figures: ['min', 'max', 'nan', 'grad_norm'],
    series: [[-1, -2, -3], [1, null, 3], [0, 0, 0], [0.5, 0.4, 0.3]],
    grad_step: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    grad_norm: [1, 1, 1, 0.5, 1, 1, 1, 0.4, 1, 1, 1, 0.3],
  };
  const { axis, x0, x1, plots } = core.historyPlots(history, 110, 50, 5);
  assert.equal(axis, 'step');
  assert.deepEqual([x0, x1], [1, 12]); // the ring starts before the first stop: one axis for both
  assert.deepEqual(plots.map((p) => p.figure), ['min', 'max', 'nan', 'grad_norm']);
  const min = plots[0];
  assert.deepEqual([min.lo, min.hi, min.count], [-3, -1, 3]);
  // x: 5 + (x - 1) / 11 * 100; y: the highest value at the top (y = pad)
  assert.deepEqual(min.lines, [[[32.3, 5], [68.6, 25], [105, 45]]]);
  assert.deepEqual(plots[1].lines, [[[32.3, 45]], [[105, 5]]]); // null breaks the line
  assert.deepEqual(plots[2].lines[0].map((p) => p[1]), [25, 25, 25]); // flat: the middle
  assert.equal(plots[3].count, 12); // the ring, not the three stops
  // on the stop axis the stops' own grad_norm is plotted, and an all-null figure is left out
  const byStop = core.historyPlots({ ...history, axis: 'stop', x: [1, 2, 3], series: [[-1, -2, -3], [null, null, null], [0, 0, 0], [0.5, 0.4, 0.3]] }, 110, 50, 5);
  assert.deepEqual(byStop.plots.map((p) => p.figure), ['min', 'nan', 'grad_norm']);
  assert.equal(byStop.plots[2].count, 3);
  assert.deepEqual([byStop.x0, byStop.x1], [1, 3]);
});

test("compareGrid: the History tab's difference on the diverging scale symmetric around 0, NaN cells marked, past the end transparent", () => {
  /** @type {import('../../media/viewer/protocol').HistoryCompare} */
  const compare = { a: 1, b: 4, rows: 2, cols: 3, values: [-2, 0, 1, null, 2], exact: false, block: 4, norm: 3, largest: 2, figures: ['mean'], changes: [0.2], note: '' };
  const grid = /** @type {NonNullable<ReturnType<typeof core.compareGrid>>} */ (core.compareGrid(compare));
  assert.deepEqual([grid.rows, grid.cols, grid.scale], [2, 3, { kind: 'diverging', lo: -2, hi: 2 }]);
  const px = (/** @type {number} */ i) => [...grid.pixels.slice(i * 4, i * 4 + 4)];
  assert.deepEqual(px(0), [...core.DIVERGING[0], 255], '-2: the scale\'s low end');
  assert.deepEqual(px(1), [...core.cellColour(grid.scale, 0), 255], '0: the middle');
  assert.deepEqual(px(4), [...core.DIVERGING[core.DIVERGING.length - 1], 255], '2: the high end');
  assert.deepEqual(px(3), [...core.SPECIAL.nan, 255], 'not finite: the NaN colour');
  assert.deepEqual(px(5), [0, 0, 0, 0], 'past the flattened difference: transparent');
  assert.equal(core.compareGrid({ ...compare, values: null, note: 'no copy kept' }), null);
  const flat = /** @type {NonNullable<ReturnType<typeof core.compareGrid>>} */ (core.compareGrid({ ...compare, rows: 1, cols: 2, values: [0, 0] }));
  assert.deepEqual([...flat.pixels.slice(0, 4)], [...core.cellColour(flat.scale, 0), 255], 'all zero: one colour, no division by zero');
});
