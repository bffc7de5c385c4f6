// @ts-check
'use strict';
/* exported TfSlices */
/**
 * Which slice is shown: the payload's slice with the contract's defaults, the request that made it,
 * asking for another, and the controls that choose it (row/column axes, an index per other axis,
 * the complex part).
 */
const TfSlices = (() => {
  const core = /** @type {typeof import('../viewerCore')} */ (/** @type {any} */ (window).TfViewerCore);
  const { el, setLoading } = TfDom;
  const { cur, post } = TfState;

  /**
   * The slice with the defaults the contract implies where a field is missing.
   * @param {any} s @returns {Slice | null}
   */
  function normaliseSlice(s) {
    if (!s || typeof s !== 'object') return null;
    const height = s.height ?? 0;
    const width = s.width ?? 0;
    const step = Array.isArray(s.step) && s.step.length === 2 ? s.step : [1, 1];
    const rows = s.rows ?? height * step[0];
    const cols = s.cols ?? width * step[1];
    return {
      ...s,
      height,
      width,
      step,
      rows,
      cols,
      region: Array.isArray(s.region) && s.region.length === 2 ? s.region : [[0, rows], [0, cols]],
      reduce: s.reduce || (step[0] > 1 || step[1] > 1 ? 'mean' : 'none'),
      min: Number.isFinite(s.min) ? s.min : 0,
      max: Number.isFinite(s.max) ? s.max : 0,
      signed: !!s.signed,
    };
  }

  /**
   * The request that produced the payload: the extension's if it sent one, else read from the slice.
   * @param {any} req @param {Partial<Payload>} payload @returns {SliceRequest}
   */
  function requestOf(req, payload) {
    const s = payload.slice;
    const fromSlice = {
      axes: s ? s.axes : null,
      index: s ? s.index : null,
      region: s && !core.isWholeRegion(s) ? s.region : null,
      part: payload.part ?? null,
    };
    if (!req || typeof req !== 'object') return fromSlice;
    return {
      axes: req.axes ?? fromSlice.axes,
      index: req.index ?? fromSlice.index,
      region: req.region ?? null,
      part: req.part ?? fromSlice.part,
    };
  }

  /** @param {SliceRequest} req */
  function requestPayload(req) {
    post({ type: 'request', axes: req.axes, index: req.index, region: req.region, part: req.part });
    setLoading(true);
  }

  /**
   * The controls for the slice shown (the payload's own axes and index when it has a slice).
   * @param {Payload} p
   */
  function renderSliceControls(p) {
    const s = p.slice;
    drawSliceControls(p.shape || [], s ? s.axes : cur.request.axes, s ? s.index : cur.request.index, p.part ?? null);
  }

  /**
   * Row/column axis selects, an index input and slider per other axis, the complex part select.
   * Each change posts a request and draws the controls as requested (until the answer comes).
   * @param {number[]} shape @param {(number|null)[] | null} axes @param {(number|null)[] | null} given
   * @param {string | null} part
   */
  function drawSliceControls(shape, axes, given, part) {
    const box = el.sliceControls;
    box.textContent = '';
    const rank = shape.length;
    if (rank < 2 && !part) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    const [ra, ca] = core.shownAxes(axes, rank);
    /** @type {(number|null)[]} */
    const index = shape.map((_, a) => (a === ra || a === ca ? null : (given && given[a]) || 0));

    /** @param {number} rowAxis @param {number} colAxis @param {(number|null)[]} idx */
    const send = (rowAxis, colAxis, idx) => {
      const full = shape.map((_, a) => (a === rowAxis || a === colAxis ? null : idx[a] ?? 0));
      cur.request = { axes: [rowAxis, colAxis], index: full, region: null, part: cur.request.part };
      requestPayload(cur.request);
      drawSliceControls(shape, cur.request.axes, cur.request.index, part);
    };

    if (rank >= 2 && ra !== null && ca !== null) {
      /** @param {string} label @param {number} selected @param {(axis: number) => void} onPick */
      const axisSelect = (label, selected, onPick) => {
        const l = document.createElement('label');
        l.textContent = `${label} `;
        const sel = document.createElement('select');
        sel.dataset.role = label === 'Rows' ? 'row-axis' : 'col-axis';
        shape.forEach((n, a) => {
          const o = document.createElement('option');
          o.value = String(a);
          o.textContent = `axis ${a} (${n})`;
          o.selected = a === selected;
          sel.append(o);
        });
        sel.addEventListener('change', () => onPick(Number(sel.value)));
        l.append(sel);
        box.append(l);
      };
      axisSelect('Rows', ra, (a) => send(a, a === ca ? ra : ca, index));
      axisSelect('Columns', ca, (a) => send(a === ra ? ca : ra, a, index));
      for (let a = 0; a < rank; a++) {
        if (a === ra || a === ca) continue;
        const n = shape[a];
        const group = document.createElement('span');
        group.className = 'axis-index';
        const l = document.createElement('label');
        l.textContent = `axis ${a} `;
        const num = document.createElement('input');
        num.type = 'number';
        num.min = '0';
        num.max = String(n - 1);
        num.value = String(index[a]);
        num.dataset.axis = String(a);
        num.dataset.role = 'index';
        const range = document.createElement('input');
        range.type = 'range';
        range.min = '0';
        range.max = String(Math.max(n - 1, 0));
        range.value = String(index[a]);
        range.dataset.axis = String(a);
        range.dataset.role = 'index-slider';
        const extent = document.createElement('span');
        extent.className = 'muted';
        extent.textContent = `of ${n}`;
        const axis = a;
        /** @param {string} raw */
        const commit = (raw) => {
          const v = Math.min(Math.max(Math.round(Number(raw)) || 0, 0), n - 1);
          num.value = range.value = String(v);
          if (v === index[axis]) return;
          index[axis] = v;
          send(/** @type {number} */ (ra), /** @type {number} */ (ca), index);
        };
        num.addEventListener('change', () => commit(num.value));
        range.addEventListener('input', () => (num.value = range.value));
        range.addEventListener('change', () => commit(range.value));
        l.append(num);
        group.append(l);
        if (n > 1) group.append(range);
        group.append(extent);
        box.append(group);
      }
    }
    if (part) {
      const l = document.createElement('label');
      l.textContent = 'Complex part ';
      const sel = document.createElement('select');
      sel.dataset.role = 'part';
      for (const value of ['abs', 'angle', 'real', 'imag']) {
        const o = document.createElement('option');
        o.value = value;
        o.textContent = value;
        o.selected = value === part;
        sel.append(o);
      }
      sel.addEventListener('change', () => {
        cur.request = { axes: cur.request.axes, index: cur.request.index, region: null, part: sel.value };
        requestPayload(cur.request);
        drawSliceControls(shape, cur.request.axes, cur.request.index, sel.value);
      });
      l.append(sel);
      box.append(l);
    }
  }

  return { normaliseSlice, requestOf, requestPayload, renderSliceControls };
})();
