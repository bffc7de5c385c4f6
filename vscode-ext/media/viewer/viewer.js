// @ts-check
'use strict';
/**
 * The tensor viewer page: draws one payload (docs/tensor-viewer.md, section 2) sent by the
 * extension through postMessage (section 3): heatmap with colour bar and zoom, image grid,
 * histogram with the summary figures, slice controls, pin/save/compare/refresh. Offline: no
 * network, no inline code (strict CSP), styles set only through the CSSOM.
 */
(function () {
  const core = /** @type {typeof import('./viewerCore')} */ (/** @type {any} */ (window).TfViewerCore);

  /** @typedef {import('./viewerCore').Slice} Slice */
  /** @typedef {import('./viewerCore').Scale} Scale */
  /** @typedef {{ r0: number, r1: number, c0: number, c1: number }} View  cells of the slice shown */
  /** @typedef {import('./protocol').Request} Request */
  /** @typedef {import('./protocol').Payload} Payload  the payload's fields: src/tf_debug_repr/viewer/contract.json */
  /**
   * What the view is, for the extension to rebuild it after a window reload: the extension's
   * signed `view` ({expression, title, session, sig}) with the request and pinned flag added.
   * @typedef {import('./protocol').SavedView} SavedView
   */
  /** @typedef {{ tab: string, log: boolean, scale: 'auto' | 'sequential' | 'diverging', zoom: { key: string, view: View } | null, view: SavedView | null }} PageState */

  /** @type {{ postMessage(msg: any): void, getState(): any, setState(s: any): void }} */
  const vscode = /** @type {any} */ (window).acquireVsCodeApi();

  /** @template {HTMLElement} T @param {string} id @returns {T} */
  function $(id) {
    const el = document.getElementById(id);
    if (!el) throw new Error(`viewer page: #${id} missing`);
    return /** @type {T} */ (el);
  }
  const el = {
    title: $('title'),
    badges: $('badges'),
    summary: $('summary'),
    sliceControls: $('slice-controls'),
    banner: $('banner'),
    content: $('content'),
    message: $('message'),
    overlay: $('overlay'),
    tooltip: $('tooltip'),
    pin: /** @type {HTMLButtonElement} */ ($('pin')),
    refresh: /** @type {HTMLButtonElement} */ ($('refresh')),
    save: /** @type {HTMLButtonElement} */ ($('save')),
    compare: /** @type {HTMLButtonElement} */ ($('compare')),
    resetZoom: /** @type {HTMLButtonElement} */ ($('reset-zoom')),
    zoomInfo: $('zoom-info'),
    scale: /** @type {HTMLSelectElement} */ ($('scale')),
    heatmapBox: $('heatmap-box'),
    heatmap: /** @type {HTMLCanvasElement} */ ($('heatmap')),
    selection: $('selection'),
    cellHighlight: $('cell-highlight'),
    colourbar: /** @type {HTMLCanvasElement} */ ($('colourbar')),
    legend: $('legend'),
    hover: $('hover'),
    image: /** @type {HTMLCanvasElement} */ ($('image')),
    imageInfo: $('image-info'),
    log: /** @type {HTMLInputElement} */ ($('log')),
    histNote: $('hist-note'),
    histogram: /** @type {HTMLCanvasElement} */ ($('histogram')),
    histHover: $('hist-hover'),
    stats: $('stats'),
  };
  const tabs = /** @type {HTMLButtonElement[]} */ ([...document.querySelectorAll('[role=tab]')]);
  const panels = { heatmap: $('panel-heatmap'), image: $('panel-image'), histogram: $('panel-histogram') };

  const saved = vscode.getState() || {};
  /** @type {PageState} */
  const state = {
    tab: typeof saved.tab === 'string' ? saved.tab : 'heatmap',
    log: !!saved.log,
    scale: ['auto', 'sequential', 'diverging'].includes(saved.scale) ? saved.scale : 'auto',
    zoom: saved.zoom && saved.zoom.view ? saved.zoom : null,
    view: saved.view && typeof saved.view === 'object' ? saved.view : null,
  };
  function saveState() {
    vscode.setState(state);
  }

  /**
   * What is shown now.
   * @type {{ msg: any, payload: Payload | null, cells: { values: Float32Array, mask: Uint8Array } | null,
   *   view: View | null, key: string, request: Request, pinned: boolean, stale: boolean,
   *   heat: { cellW: number, cellH: number } | null }}
   */
  const cur = {
    msg: null,
    payload: null,
    cells: null,
    view: null,
    key: '',
    request: { axes: null, index: null, region: null, part: null },
    pinned: false,
    stale: false,
    heat: null,
  };

  /** @param {any} msg */
  function post(msg) {
    vscode.postMessage(msg);
  }

  /** The view's title, with its whole expression on hover. @param {string} text @param {unknown} expression */
  function showTitle(text, expression) {
    el.title.textContent = text;
    el.title.title = typeof expression === 'string' ? expression : '';
  }

  /** @param {boolean} pinned */
  function showPinned(pinned) {
    cur.pinned = pinned;
    el.pin.setAttribute('aria-pressed', String(pinned));
    el.pin.textContent = pinned ? 'Pinned' : 'Pin';
  }

  /**
   * Keeps what the extension needs to rebuild this view after a window reload (never the payload).
   * @param {any} view the extension's signed description, when the message has one
   */
  function keepView(view) {
    if (view && typeof view === 'object') state.view = { ...view, request: cur.request, pinned: cur.pinned };
    else if (state.view) state.view = { ...state.view, request: cur.request, pinned: cur.pinned };
    saveState();
  }

  // A page opened again (hidden and shown, or restored after a reload) shows what it is at once.
  if (state.view && typeof state.view.title === 'string') {
    showTitle(state.view.title, state.view.expression);
    showPinned(state.view.pinned === true);
  }

  // ---- theme ---------------------------------------------------------------------------------

  /** @param {string} name @param {string} fallback */
  function cssVar(name, fallback) {
    const v = getComputedStyle(document.body).getPropertyValue(name).trim();
    return v || fallback;
  }
  function theme() {
    return {
      fg: cssVar('--tv-fg', '#cccccc'),
      muted: cssVar('--tv-muted', '#9d9d9d'),
      bg: cssVar('--tv-bg', '#1e1e1e'),
      grid: cssVar('--tv-grid', 'rgba(128,128,128,0.25)'),
      bar: cssVar('--tv-bar', '#3794ff'),
      font: cssVar('--tv-canvas-font', '11px sans-serif'),
    };
  }

  /**
   * Size a canvas to CSS pixels w x h at the device pixel ratio; returns its context, scaled.
   * @param {HTMLCanvasElement} canvas @param {number} w @param {number} h
   */
  function sizeCanvas(canvas, w, h) {
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(w * dpr));
    canvas.height = Math.max(1, Math.round(h * dpr));
    canvas.style.width = `${w}px`;
    canvas.style.height = `${h}px`;
    const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return ctx;
  }

  // ---- messages ------------------------------------------------------------------------------

  window.addEventListener('message', (event) => {
    const msg = event.data;
    if (!msg || typeof msg !== 'object') return;
    switch (msg.type) {
      case 'payload':
        showPayload(msg);
        break;
      case 'loading':
        setLoading(true);
        break;
      case 'error':
        setLoading(false);
        showMessage(`${msg.expression ? `${msg.expression}: ` : ''}${msg.message || 'failed'}`, 'error');
        break;
      case 'stale':
        setStale(msg.reason || 'The session is no longer paused.');
        break;
      case 'waiting':
        showWaiting(msg);
        break;
    }
  });

  /** A fresh page opens an image-like value on its image tab, once. */
  let imageShownOnce = false;

  /** @param {any} msg */
  function showPayload(msg) {
    setLoading(false);
    cur.stale = false;
    el.banner.hidden = true;
    el.content.classList.remove('stale');
    cur.msg = msg;
    /** @type {Payload} */
    const payload = msg.payload || {};
    cur.payload = payload;
    showPinned(!!msg.pinned);
    showTitle(msg.title || msg.expression || 'Tensor', msg.expression);
    const slice = (payload.slice = normaliseSlice(payload.slice));
    cur.request = requestOf(msg.request, payload);
    keepView(msg.view);
    renderHeader(payload);
    renderSliceControls(payload);
    cur.cells = null;
    if (payload.error) {
      showMessage(payload.error, 'error');
      return;
    }
    if (slice) {
      try {
        cur.cells = core.decodeSlice(slice);
      } catch (e) {
        showMessage(`The payload's slice cannot be read: ${/** @type {Error} */ (e).message}`, 'error');
        return;
      }
    }
    el.message.hidden = true;
    const key = JSON.stringify([msg.expression, payload.shape, slice && [slice.axes, slice.index, slice.region, slice.height, slice.width]]);
    const whole = slice ? { r0: 0, r1: slice.height, c0: 0, c1: slice.width } : null;
    if (key !== cur.key) {
      // A new picture: the saved zoom applies only to the picture it was made on.
      cur.view = state.zoom && state.zoom.key === key ? state.zoom.view : whole;
      cur.key = key;
    }
    if (!cur.view && whole) cur.view = whole;
    const tabsShown = { heatmap: true, image: !!payload.image, histogram: true };
    /** @type {HTMLButtonElement} */ ($('tab-image')).hidden = !payload.image;
    if (!(/** @type {any} */ (tabsShown)[state.tab])) state.tab = 'heatmap';
    if (payload.image && !imageShownOnce && saved.tab === undefined) state.tab = 'image';
    if (payload.image) imageShownOnce = true;
    setTab(state.tab);
  }

  /**
   * A view with no value yet (restored after a window reload, no session paused): its title, its
   * pin, and what it waits for.
   * @param {any} msg
   */
  function showWaiting(msg) {
    setLoading(false);
    showPinned(!!msg.pinned);
    showTitle(msg.title || msg.expression || 'Tensor', msg.expression);
    if (msg.request && typeof msg.request === 'object') cur.request = requestOf(msg.request, {});
    keepView(msg.view);
    showMessage(msg.message || 'Waiting for a paused debug session.', 'info');
  }

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
   * @param {any} req @param {Partial<Payload>} payload @returns {Request}
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

  /** @param {Request} req */
  function requestPayload(req) {
    post({ type: 'request', axes: req.axes, index: req.index, region: req.region, part: req.part });
    setLoading(true);
  }

  /** @param {boolean} on */
  function setLoading(on) {
    el.overlay.hidden = !on;
    el.content.classList.toggle('loading', on);
  }

  /** @param {string} reason */
  function setStale(reason) {
    cur.stale = true;
    setLoading(false);
    el.content.classList.add('stale');
    /** @type {Record<string, string>} */
    const known = {
      running: 'the program is running; this is the value at the last stop.',
      ended: 'the debug session has ended; this is the value at its last stop.',
    };
    el.banner.textContent = `Stale: ${known[reason] || reason}`;
    el.banner.className = 'banner stale';
    el.banner.hidden = false;
  }

  /** @param {string} text @param {'error' | 'info'} kind */
  function showMessage(text, kind) {
    el.message.textContent = '';
    const head = document.createElement('strong');
    head.textContent = kind === 'error' ? 'Cannot show this value' : 'Note';
    const body = document.createElement('div');
    body.className = 'message-text';
    body.textContent = text;
    el.message.append(head, body);
    el.message.className = `message ${kind}`;
    el.message.hidden = false;
    for (const p of Object.values(panels)) p.hidden = true;
  }

  // ---- header, toolbar, tabs -----------------------------------------------------------------

  /** @param {Payload} p */
  function renderHeader(p) {
    el.summary.textContent = p.summary || (p.dtype ? `${p.dtype}[${(p.shape || []).join(', ')}]` : '');
    el.badges.textContent = '';
    /** @param {string} text @param {string} title */
    const badge = (text, title) => {
      const b = document.createElement('span');
      b.className = 'badge';
      b.textContent = text;
      b.title = title;
      el.badges.append(b);
    };
    if (p.device) badge(shortDevice(p.device), p.device);
    const s = p.slice;
    if (s && (s.step[0] > 1 || s.step[1] > 1)) badge(`downsampled ${s.step[0]}×${s.step[1]}`, 'Each cell is the mean of a block of elements; zoom in to fetch at full resolution');
    if (p.stats && p.stats.sampled) badge('sampled', 'Figures come from a sample of the value');
    if (p.part) badge(p.part, 'Part of the complex values shown');
  }

  /** @param {string} device */
  function shortDevice(device) {
    const m = /device:([A-Za-z_]+:\d+)$/.exec(device);
    return m ? m[1] : device;
  }

  /** @param {string} tab */
  function setTab(tab) {
    state.tab = tab;
    saveState();
    for (const t of tabs) t.setAttribute('aria-selected', String(t.dataset.tab === tab));
    if (!cur.payload || cur.payload.error || !el.message.hidden) return;
    for (const [name, panel] of Object.entries(panels)) panel.hidden = name !== tab;
    // The slice controls choose what the heatmap shows; the image and histogram are the whole value.
    el.sliceControls.classList.toggle('off-tab', tab !== 'heatmap');
    render();
  }
  for (const t of tabs) t.addEventListener('click', () => setTab(t.dataset.tab || 'heatmap'));

  function render() {
    if (!cur.payload || cur.payload.error) return;
    if (state.tab === 'heatmap') renderHeatmap();
    else if (state.tab === 'image') renderImage();
    else renderHistogram();
  }

  el.pin.addEventListener('click', () => {
    showPinned(!cur.pinned);
    keepView(undefined);
    post({ type: 'pin', pinned: cur.pinned });
  });
  el.save.addEventListener('click', () => post({ type: 'saveNpy' }));
  el.compare.addEventListener('click', () => post({ type: 'compare' }));
  el.refresh.addEventListener('click', () => requestPayload(cur.request));

  // ---- slice controls ------------------------------------------------------------------------

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

  // ---- heatmap -------------------------------------------------------------------------------

  el.scale.value = state.scale;
  el.scale.addEventListener('change', () => {
    state.scale = /** @type {PageState['scale']} */ (el.scale.value);
    saveState();
    render();
  });

  /** @returns {Scale | null} */
  function currentScale() {
    const s = cur.payload && cur.payload.slice;
    return s ? core.scaleFor(s, state.scale) : null;
  }

  function heatmapArea() {
    const figure = /** @type {HTMLElement} */ (el.heatmapBox.parentElement);
    const width = Math.max(figure.clientWidth - 96, 80);
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
    if (cellW >= 2) cellW = Math.floor(cellW);
    if (cellH >= 2) cellH = Math.floor(cellH);
    const w = cols * cellW;
    const h = rows * cellH;
    cur.heat = { cellW, cellH };
    const scale = /** @type {Scale} */ (currentScale());

    // One pixel per cell, scaled up without smoothing: crisp cells. More cells than device pixels:
    // reduced first, keeping every NaN/Inf cell visible.
    const dpr = window.devicePixelRatio || 1;
    const outW = Math.min(cols, Math.max(1, Math.round(w * dpr)));
    const outH = Math.min(rows, Math.max(1, Math.round(h * dpr)));
    const reduced = outW < cols || outH < rows;
    const pix = reduced ? core.reduceCells(cur.cells.values, cur.cells.mask, s.width, v, outW, outH) : cur.cells;
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

  /** @param {Scale} scale @param {number} h */
  function renderColourbar(scale, h) {
    const t = theme();
    const W = 88;
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
    const stats = /** @type {Partial<import('./protocol').Stats>} */ (p.stats || {});
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
      const item = document.createElement('span');
      item.className = 'legend-item' + (total || here(code) ? '' : ' none');
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
    el.zoomInfo.textContent = parts.join(' · ');
    el.resetZoom.disabled = !zoomed && core.isWholeRegion(s);
  }

  /** The cell under a mouse event, in slice cells (may be outside). @param {MouseEvent} e */
  function cellAt(e) {
    const rect = el.heatmap.getBoundingClientRect();
    const heat = /** @type {NonNullable<typeof cur.heat>} */ (cur.heat);
    const v = /** @type {View} */ (cur.view);
    const x = e.clientX - rect.left;
    const y = e.clientY - rect.top;
    return { row: v.r0 + Math.floor(y / heat.cellH), col: v.c0 + Math.floor(x / heat.cellW), x, y, fr: v.r0 + y / heat.cellH, fc: v.c0 + x / heat.cellW };
  }

  /** Hover text of one cell. @param {number} row @param {number} col */
  function describeCell(row, col) {
    const p = /** @type {Payload} */ (cur.payload);
    const s = /** @type {Slice} */ (p.slice);
    const cells = /** @type {NonNullable<typeof cur.cells>} */ (cur.cells);
    const i = row * s.width + col;
    const { ranges, block } = core.cellRanges(s, p.shape || [], row, col);
    const isBlock = block[0] * block[1] > 1;
    const value = core.formatValue(cells.values[i], cells.mask[i], p.dtype || 'float32', isBlock);
    const idx = core.formatIndex(ranges);
    return isBlock ? `${idx} = ${value} (mean of ${block[0]}×${block[1]} block)` : `${idx} = ${value}`;
  }

  /**
   * A mouse drag on the heatmap: a selection to zoom to, or (Shift or middle button) a pan.
   * @type {{ mode: 'select' | 'pan', row: number, col: number, x: number, y: number, view: View } | null}
   */
  let drag = null;
  el.heatmap.addEventListener('mousemove', (e) => {
    if (!cur.heat || !cur.view || !cur.cells) return;
    const { row, col, x, y } = cellAt(e);
    const v = cur.view;
    if (drag && drag.mode === 'select') {
      el.selection.hidden = false;
      el.selection.style.left = `${Math.min(drag.x, x)}px`;
      el.selection.style.top = `${Math.min(drag.y, y)}px`;
      el.selection.style.width = `${Math.abs(x - drag.x)}px`;
      el.selection.style.height = `${Math.abs(y - drag.y)}px`;
    } else if (drag && drag.mode === 'pan') {
      const s = /** @type {Slice} */ (cur.payload && cur.payload.slice);
      const dr = Math.round((drag.y - y) / cur.heat.cellH);
      const dc = Math.round((drag.x - x) / cur.heat.cellW);
      const moved = panned(drag.view, dr, dc, s);
      if (moved.r0 !== v.r0 || moved.c0 !== v.c0) {
        cur.view = moved;
        renderHeatmap();
      }
      return;
    }
    if (row < v.r0 || row >= v.r1 || col < v.c0 || col >= v.c1) return hideHover();
    showTooltip(pointAt(row, col), e);
  });
  /** Says what cell (row, col) of the view holds and outlines it; returns the text. @param {number} row @param {number} col */
  function pointAt(row, col) {
    const v = /** @type {View} */ (cur.view);
    const heat = /** @type {NonNullable<typeof cur.heat>} */ (cur.heat);
    const text = describeCell(row, col);
    el.hover.textContent = text;
    el.hover.classList.remove('muted');
    if (heat.cellW >= 3 && heat.cellH >= 3) {
      el.cellHighlight.hidden = false;
      el.cellHighlight.style.left = `${(col - v.c0) * heat.cellW}px`;
      el.cellHighlight.style.top = `${(row - v.r0) * heat.cellH}px`;
      el.cellHighlight.style.width = `${heat.cellW}px`;
      el.cellHighlight.style.height = `${heat.cellH}px`;
    } else el.cellHighlight.hidden = true;
    return text;
  }
  function hideHover() {
    hideTooltip();
    el.cellHighlight.hidden = true;
  }
  el.heatmap.addEventListener('mouseleave', () => hideHover());

  /** The arrow keys as (rows, columns) steps: the cell cursor and the zoomed view's pan. @type {Record<string, [number, number]>} */
  const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  /** @param {number} a @param {number} lo @param {number} hi */
  const clamp = (a, lo, hi) => Math.min(Math.max(a, lo), hi);

  // Without a mouse: the heatmap takes focus (Tab), the arrow keys move a cell cursor (Shift:
  // ten cells), Home goes to the view's first cell; the line under the heatmap, a live region,
  // reads the cell's index and value. Moving past the edge of a zoomed view pans it.
  /** @type {{ row: number, col: number } | null} */
  let cursor = null;
  el.heatmap.addEventListener('focus', () => {
    if (!cur.heat || !cur.view || !cur.cells) return;
    const v = cur.view;
    if (!cursor || cursor.row < v.r0 || cursor.row >= v.r1 || cursor.col < v.c0 || cursor.col >= v.c1) cursor = { row: v.r0, col: v.c0 };
    pointAt(cursor.row, cursor.col);
  });
  el.heatmap.addEventListener('blur', () => hideHover());
  el.heatmap.addEventListener('keydown', (e) => {
    const s = cur.payload && cur.payload.slice;
    if (!cur.heat || !cur.view || !cur.cells || !s) return;
    const v = cur.view;
    const inView = cursor && cursor.row >= v.r0 && cursor.row < v.r1 && cursor.col >= v.c0 && cursor.col < v.c1;
    const at = inView && cursor ? cursor : { row: v.r0, col: v.c0 }; // a new payload: from its corner
    let next;
    if (e.key === 'Home') next = { row: v.r0, col: v.c0 };
    else if (ARROWS[e.key]) {
      const step = e.shiftKey ? 10 : 1;
      next = { row: clamp(at.row + ARROWS[e.key][0] * step, 0, s.height - 1), col: clamp(at.col + ARROWS[e.key][1] * step, 0, s.width - 1) };
    } else return;
    e.preventDefault();
    e.stopPropagation();
    cursor = next;
    if (next.row < v.r0 || next.row >= v.r1 || next.col < v.c0 || next.col >= v.c1) {
      // Off the zoomed view: pan just enough to bring the cell in, then read it.
      const dr = next.row < v.r0 ? next.row - v.r0 : next.row >= v.r1 ? next.row - v.r1 + 1 : 0;
      const dc = next.col < v.c0 ? next.col - v.c0 : next.col >= v.c1 ? next.col - v.c1 + 1 : 0;
      zoomTo(panned(v, dr, dc, s), 450); // a downsampled slice asks for the region, as panning does
    }
    pointAt(next.row, next.col);
  });
  el.heatmap.addEventListener('mousedown', (e) => {
    if ((e.button !== 0 && e.button !== 1) || !cur.heat || !cur.view) return;
    e.preventDefault();
    const c = cellAt(e);
    const mode = e.shiftKey || e.button === 1 ? 'pan' : 'select';
    drag = { mode, row: c.row, col: c.col, x: c.x, y: c.y, view: cur.view };
    if (mode === 'pan') el.heatmap.classList.add('panning');
  });
  window.addEventListener('mouseup', (e) => {
    if (!drag || !cur.view || !cur.heat) return;
    const start = drag;
    drag = null;
    el.selection.hidden = true;
    el.heatmap.classList.remove('panning');
    if (start.mode === 'pan') {
      if (cur.view !== start.view) zoomTo(cur.view);
      return;
    }
    const end = cellAt(e);
    if (Math.abs(end.x - start.x) < 4 && Math.abs(end.y - start.y) < 4) return; // a click
    const v = cur.view;
    const r0 = clamp(Math.min(start.row, end.row), v.r0, v.r1 - 1);
    const r1 = clamp(Math.max(start.row, end.row), v.r0, v.r1 - 1) + 1;
    const c0 = clamp(Math.min(start.col, end.col), v.c0, v.c1 - 1);
    const c1 = clamp(Math.max(start.col, end.col), v.c0, v.c1 - 1) + 1;
    zoomTo({ r0, r1, c0, c1 });
  });

  /**
   * The view moved by dr rows and dc columns, kept inside the slice's cells.
   * @param {View} v @param {number} dr @param {number} dc @param {Slice} s @returns {View}
   */
  function panned(v, dr, dc, s) {
    const r = Math.min(Math.max(dr, -v.r0), s.height - v.r1);
    const c = Math.min(Math.max(dc, -v.c0), s.width - v.c1);
    return { r0: v.r0 + r, r1: v.r1 + r, c0: v.c0 + c, c1: v.c1 + c };
  }

  el.heatmap.addEventListener(
    'wheel',
    (e) => {
      if (!cur.heat || !cur.view || !cur.payload || !cur.payload.slice) return;
      e.preventDefault();
      const s = cur.payload.slice;
      const v = cur.view;
      const { fr, fc } = cellAt(e);
      const f = e.deltaY < 0 ? 0.7 : 1 / 0.7;
      /** @param {number} a0 @param {number} a1 @param {number} at @param {number} n */
      const zoomAxis = (a0, a1, at, n) => {
        const size = Math.min(Math.max(Math.round((a1 - a0) * f), 1), n);
        let start = Math.round(at - ((at - a0) / (a1 - a0)) * size);
        start = Math.min(Math.max(start, 0), n - size);
        return [start, start + size];
      };
      const [r0, r1] = zoomAxis(v.r0, v.r1, fr, s.height);
      const [c0, c1] = zoomAxis(v.c0, v.c1, fc, s.width);
      if (r0 === v.r0 && r1 === v.r1 && c0 === v.c0 && c1 === v.c1) return;
      zoomTo({ r0, r1, c0, c1 }, 450);
    },
    { passive: false },
  );

  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let refetchTimer;
  /**
   * Zoom client-side to these cells; a downsampled slice is then fetched again for the region at
   * full resolution (after `delay` ms without further zooming).
   * @param {View} view @param {number} [delay]
   */
  function zoomTo(view, delay = 0) {
    const s = /** @type {Slice} */ (cur.payload && cur.payload.slice);
    cur.view = view;
    renderHeatmap();
    clearTimeout(refetchTimer);
    if (s.step[0] > 1 || s.step[1] > 1) {
      const region = core.viewToRegion(s, view);
      const whole = view.r0 === 0 && view.c0 === 0 && view.r1 === s.height && view.c1 === s.width;
      if (whole) return;
      refetchTimer = setTimeout(() => {
        cur.request = { axes: cur.request.axes, index: cur.request.index, region, part: cur.request.part };
        requestPayload(cur.request);
      }, delay);
    }
  }

  el.resetZoom.addEventListener('click', () => {
    const s = cur.payload && cur.payload.slice;
    if (!s) return;
    clearTimeout(refetchTimer);
    cur.view = { r0: 0, r1: s.height, c0: 0, c1: s.width };
    renderHeatmap();
    if (!core.isWholeRegion(s)) {
      cur.request = { axes: cur.request.axes, index: cur.request.index, region: null, part: cur.request.part };
      requestPayload(cur.request);
    }
  });
  // Escape resets the zoom; arrow keys pan a zoomed heatmap by a tenth of the view.
  window.addEventListener('keydown', (e) => {
    if (state.tab !== 'heatmap' || !cur.view || !cur.payload || !cur.payload.slice) return;
    const target = /** @type {HTMLElement} */ (e.target);
    if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return;
    if (target === el.heatmap && e.key !== 'Escape') return; // its own cell cursor
    if (e.key === 'Escape' && !el.resetZoom.disabled) return el.resetZoom.click();
    const dir = ARROWS[e.key];
    if (!dir) return;
    const v = cur.view;
    const moved = panned(v, dir[0] * Math.max(1, Math.round((v.r1 - v.r0) / 10)), dir[1] * Math.max(1, Math.round((v.c1 - v.c0) / 10)), cur.payload.slice);
    if (moved.r0 === v.r0 && moved.c0 === v.c0) return;
    e.preventDefault();
    zoomTo(moved, 450);
  });

  /** @param {string} text @param {MouseEvent} e */
  function showTooltip(text, e) {
    el.tooltip.textContent = text;
    el.tooltip.hidden = false;
    const box = el.content.getBoundingClientRect();
    const tw = el.tooltip.offsetWidth;
    let x = e.clientX - box.left + 14;
    if (x + tw > box.width - 4) x = e.clientX - box.left - tw - 14;
    el.tooltip.style.left = `${Math.max(x, 0)}px`;
    el.tooltip.style.top = `${e.clientY - box.top + 16}px`;
  }
  function hideTooltip() {
    el.tooltip.hidden = true;
  }

  // ---- image ---------------------------------------------------------------------------------

  function renderImage() {
    const im = cur.payload && cur.payload.image;
    if (!im) return;
    let rgba;
    try {
      rgba = core.decodeBase64(im.rgba || '');
    } catch (e) {
      showMessage(`The payload's image cannot be read: ${/** @type {Error} */ (e).message}`, 'error');
      return;
    }
    const gw = im.columns * im.tile[1];
    const gh = Math.floor(rgba.length / 4 / Math.max(gw, 1));
    if (!gw || !gh) return;
    const off = document.createElement('canvas');
    off.width = gw;
    off.height = gh;
    const octx = /** @type {CanvasRenderingContext2D} */ (off.getContext('2d'));
    const data = octx.createImageData(gw, gh);
    data.data.set(rgba.subarray(0, gw * gh * 4));
    octx.putImageData(data, 0, 0);
    const figure = /** @type {HTMLElement} */ (el.image.parentElement);
    const availW = Math.max(figure.clientWidth - 8, 80);
    const availH = Math.max(window.innerHeight - figure.getBoundingClientRect().top - 60, 140);
    let k = Math.min(availW / gw, availH / gh);
    if (k >= 1) k = Math.min(Math.floor(k), 16);
    const w = gw * k;
    const h = gh * k;
    const ctx = sizeCanvas(el.image, w, h);
    ctx.imageSmoothingEnabled = k < 1;
    ctx.drawImage(off, 0, 0, gw, gh, 0, 0, w, h);
    if (im.count > 1) {
      ctx.strokeStyle = theme().bg;
      ctx.lineWidth = Math.max(1, Math.min(k, 2));
      ctx.beginPath();
      for (let c = 1; c < im.columns; c++) (ctx.moveTo(c * im.tile[1] * k, 0), ctx.lineTo(c * im.tile[1] * k, h));
      for (let r = 1; r * im.tile[0] < gh; r++) (ctx.moveTo(0, r * im.tile[0] * k), ctx.lineTo(w, r * im.tile[0] * k));
      ctx.stroke();
    }
    el.image.dataset.layout = JSON.stringify({ scale: k, width: gw, height: gh });
    const scaleText = { uint8: 'bytes as they are', pixels: 'values in [0, 255] as they are', unit: 'values in [0, 1] ×255', normalised: 'min–max normalised over the batch' };
    el.imageInfo.textContent = `${im.count} image${im.count > 1 ? 's' : ''} (${im.layout}, ${im.channels} channel${im.channels > 1 ? 's' : ''}, ${im.tile[0]}×${im.tile[1]}), ${/** @type {any} */ (scaleText)[im.scale] || im.scale}`;
    el.image.onmousemove = (e) => {
      const rect = el.image.getBoundingClientRect();
      const px = Math.floor((e.clientX - rect.left) / k);
      const py = Math.floor((e.clientY - rect.top) / k);
      if (px < 0 || py < 0 || px >= gw || py >= gh) return;
      const tile = Math.floor(py / im.tile[0]) * im.columns + Math.floor(px / im.tile[1]);
      if (tile >= im.count) return;
      const o = (py * gw + px) * 4;
      const text = `image ${tile}, pixel (${py % im.tile[0]}, ${px % im.tile[1]}): rgba(${rgba[o]}, ${rgba[o + 1]}, ${rgba[o + 2]}, ${rgba[o + 3]})`;
      showTooltip(text, e);
    };
    el.image.onmouseleave = hideTooltip;
  }

  // ---- histogram -----------------------------------------------------------------------------

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
    const stats = /** @type {Partial<import('./protocol').Stats>} */ (p.stats || {});
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
    const s = /** @type {Partial<import('./protocol').Stats>} */ (p.stats || {});
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
    for (const [k, v] of rows) {
      const item = document.createElement('div');
      item.className = 'stat';
      const dt = document.createElement('dt');
      dt.textContent = k;
      const dd = document.createElement('dd');
      dd.textContent = v;
      dd.dataset.stat = k;
      item.append(dt, dd);
      el.stats.append(item);
    }
  }

  let resizeTimer = /** @type {ReturnType<typeof setTimeout> | undefined} */ (undefined);
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(render, 60);
  });

  post({ type: 'ready' });
})();
