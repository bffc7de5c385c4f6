// @ts-check
'use strict';
/* exported TfHeatmapInput */
/**
 * The heatmap under the mouse and the keyboard: hover and the cell cursor (arrow keys) read a cell's
 * index and value; wheel, drag and Shift+drag zoom and pan; Escape resets. A zoom into a
 * downsampled slice fetches the region at full resolution.
 */
const TfHeatmapInput = (() => {
  const core = /** @type {typeof import('../viewerCore')} */ (/** @type {any} */ (window).TfViewerCore);
  const { el, showTooltip, hideTooltip } = TfDom;
  const { state, cur } = TfState;
  const { requestPayload } = TfSlices;
  const renderHeatmap = TfHeatmap.render;

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

  return { zoomTo };
})();
