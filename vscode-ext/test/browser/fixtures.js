// @ts-check
'use strict';
/**
 * Payloads (docs/tensor-viewer.md, section 2) built from known numbers, for the page tests: the
 * slice's float32 values and mask are encoded here exactly as the payload builder encodes them.
 *
 * The Python tests build the same payloads (tests/unit/payload_dicts.py): both assemble every part
 * from the contract's field lists (src/tf_debug_repr/viewer/contract.json, through `fit`) and
 * encode cells with its mask codes; tests/unit/test_viewer_contract.py checks that the two make
 * the same payload of the same numbers.
 */
const { readContract } = require('../../scripts/contract.js');

const CONTRACT = readContract();
const MASK = CONTRACT.mask;

/**
 * `values` as the contract's `typename`, in its field order: every required field must be given,
 * none outside the contract may be; an optional one not given is null when `every` (the payload
 * builder sends each of its top-level fields), else absent.
 * @param {string} typename @param {Record<string, any>} values @param {boolean} [every]
 * @returns {any}
 */
function fit(typename, values, every = false) {
  const fields = Object.keys(CONTRACT.payload[typename]);
  const names = fields.map((f) => f.replace(/\?$/, ''));
  const unknown = Object.keys(values).filter((k) => !names.includes(k));
  const missing = fields.filter((f) => !f.endsWith('?') && !(f in values));
  if (unknown.length || missing.length) throw new Error(`${typename}: not in the contract ${unknown}, missing ${missing}`);
  /** @type {Record<string, any>} */
  const out = {};
  for (const name of names) if (name in values || every) out[name] = values[name] ?? null;
  return out;
}

/**
 * base64 of float32 little-endian values, and the mask (0 finite, 1 NaN, 2 +Inf, 3 -Inf).
 * @param {number[]} flat
 */
function encodeCells(flat) {
  const buf = Buffer.alloc(flat.length * 4);
  const mask = Buffer.alloc(flat.length);
  flat.forEach((v, i) => {
    const finite = Number.isFinite(v);
    buf.writeFloatLE(finite ? v : 0, i * 4);
    mask[i] = finite ? MASK.finite : Number.isNaN(v) ? MASK.nan : v > 0 ? MASK.posinf : MASK.neginf;
  });
  return { values: buf.toString('base64'), mask: mask.toString('base64') };
}

/**
 * A payload of one 2-D slice of cells (rows of numbers; NaN/Infinity allowed).
 * @param {number[][]} grid the cells sent (height x width)
 * @param {{ dtype?: string, shape?: number[], axes?: (number|null)[], index?: (number|null)[],
 *   rows?: number, cols?: number, region?: number[][], step?: number[], signed?: boolean,
 *   part?: string | null, image?: any, filters?: any, history?: any, stats?: any, bins?: number, summary?: string }} [o]
 */
function payloadOf(grid, o = {}) {
  const height = grid.length;
  const width = grid[0].length;
  const flat = grid.flat();
  const finite = flat.filter(Number.isFinite);
  const min = finite.length ? Math.min(...finite) : 0;
  const max = finite.length ? Math.max(...finite) : 0;
  const shape = o.shape ?? [height, width];
  const rank = shape.length;
  const step = o.step ?? [1, 1];
  const rows = o.rows ?? height * step[0];
  const cols = o.cols ?? width * step[1];
  const n = shape.reduce((a, b) => a * b, 1);
  const mean = finite.reduce((a, b) => a + b, 0) / Math.max(finite.length, 1);
  const std = Math.sqrt(finite.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(finite.length, 1));
  const bins = o.bins ?? 8;
  const edges = Array.from({ length: bins + 1 }, (_, i) => min + ((max - min) * i) / bins);
  const counts = new Array(bins).fill(0);
  for (const v of finite) counts[Math.min(Math.floor(((v - min) / (max - min || 1)) * bins), bins - 1)]++;
  const dtype = o.dtype ?? 'float32';
  const stats = o.stats ?? {
    n,
    min,
    max,
    mean,
    std,
    nan: flat.filter(Number.isNaN).length,
    posinf: flat.filter((v) => v === Infinity).length,
    neginf: flat.filter((v) => v === -Infinity).length,
    zeros: flat.filter((v) => v === 0).length,
    sampled: false,
  };
  return fit(
    'Payload',
    {
      version: CONTRACT.version,
      error: null,
      kind: 'tensor',
      summary: o.summary ?? `${dtype}[${shape.join(', ')}] n=${n}`,
      dtype,
      shape,
      device: '/job:localhost/replica:0/task:0/device:CPU:0',
      part: o.part ?? null,
      stats: fit('Stats', stats),
      histogram: fit('Histogram', { edges, counts, sampled: false }),
      slice: fit('Slice', {
        axes: o.axes ?? (rank === 1 ? [null, 0] : [rank - 2, rank - 1]),
        index: o.index ?? shape.map(() => null),
        rows,
        cols,
        region: o.region ?? [
          [0, rows],
          [0, cols],
        ],
        height,
        width,
        step,
        reduce: step[0] > 1 || step[1] > 1 ? 'mean' : 'none',
        ...encodeCells(flat),
        min,
        max,
        signed: o.signed ?? (min < 0 && max > 0),
      }),
      image: o.image ?? null,
      filters: o.filters ?? null,
      history: o.history ?? null,
      bad_request: false,
    },
    true,
  );
}

/**
 * The payload's `filters` of a conv kernel given as kernel[y][x][i][o] (HWIO), all of it sent:
 * tiles in [i][o][y][x] order, as viewer/filters.py sends them.
 * @param {number[][][][]} kernel
 */
function filtersOf(kernel) {
  const h = kernel.length;
  const w = kernel[0].length;
  const inputs = kernel[0][0].length;
  const outputs = kernel[0][0][0].length;
  const flat = [];
  for (let i = 0; i < inputs; i++) for (let o = 0; o < outputs; o++) for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) flat.push(kernel[y][x][i][o]);
  const finite = flat.filter(Number.isFinite);
  const min = Math.min(...finite);
  const max = Math.max(...finite);
  return fit('Filters', {
    layout: 'HWIO',
    tile: [h, w],
    in_channels: inputs,
    out_channels: outputs,
    in_shown: inputs,
    out_shown: outputs,
    ...encodeCells(flat),
    min,
    max,
    signed: min < 0 && max > 0,
  });
}

/**
 * The message the extension sends with a payload.
 * @param {any} payload @param {{ expression?: string, pinned?: boolean, request?: any }} [o]
 */
function payloadMessage(payload, o = {}) {
  const s = payload.slice;
  return {
    type: 'payload',
    expression: o.expression ?? 'x',
    title: o.expression ?? 'x',
    payload,
    pinned: o.pinned ?? false,
    request: o.request ?? { axes: s ? s.axes : null, index: s ? s.index : null, region: null, part: payload.part },
  };
}

/** A 4 x 5 float32 matrix 0..19 (unsigned: sequential scale) with NaN, +Inf and -Inf cells. */
function matrixWithSpecials() {
  const grid = [
    [0, 1, 2, 3, 4],
    [5, NaN, 7, 8, 9],
    [10, 11, Infinity, 13, 14],
    [15, 16, 17, -Infinity, 19],
  ];
  return payloadOf(grid);
}

module.exports = { fit, encodeCells, payloadOf, payloadMessage, matrixWithSpecials, filtersOf };
