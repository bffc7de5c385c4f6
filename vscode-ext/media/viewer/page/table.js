// @ts-check
'use strict';
/* exported TfTable */
/**
 * The Table tab: the slice's cells as numbers, a page at a time (rows and columns labelled with
 * their index in the value), in a chosen number format, NaN/±Inf cells in their colours. Drag (or
 * Shift+click) selects a block; Copy / Copy CSV (or Ctrl+C) copy it, or the page, exactly (the
 * fewest digits that read back as the same float32). A downsampled slice shows block means and
 * offers the page's exact values (a request for that region, as zooming the heatmap does).
 */
const TfTable = (() => {
  const core = /** @type {typeof import('../viewerCore')} */ (/** @type {any} */ (window).TfViewerCore);
  const { el } = TfDom;
  const { state, saveState, cur, post } = TfState;
  const { requestPayload } = TfSlices;

  /** Rows a page shows; columns follow the panel's width (CELL_PX each). */
  const PAGE_ROWS = 40;
  const CELL_PX = 86;
  const FORMATS = ['auto', 'fixed', 'sci'];
  const CODE_CLASS = ['', 'cell-nan', 'cell-posinf', 'cell-neginf'];

  /** The page's first cell, for the picture it was made on. */
  let page = { key: '', r0: 0, c0: 0 };
  /** The selected block of cells (slice cells, inclusive), and where a drag started. */
  /** @type {{ r0: number, r1: number, c0: number, c1: number } | null} */
  let selection = null;
  /** @type {{ row: number, col: number } | null} */
  let anchor = null;
  let dragging = false;

  el.tableFormat.value = FORMATS.includes(state.tableFormat) ? state.tableFormat : 'auto';
  el.tableFormat.addEventListener('change', () => {
    state.tableFormat = el.tableFormat.value;
    saveState();
    renderTable();
  });

  function pageCols() {
    const box = /** @type {HTMLElement} */ (el.tableBox);
    return Math.min(Math.max(Math.floor((Math.max(box.clientWidth, 320) - 64) / CELL_PX), 3), 40);
  }

  /** The page shown now, kept inside the slice. */
  function pageView() {
    const s = /** @type {Slice} */ (cur.payload && cur.payload.slice);
    if (page.key !== cur.key) {
      // A new picture starts where the heatmap looks (its zoom), else at the first cell.
      const v = cur.view;
      page = { key: cur.key, r0: v ? v.r0 : 0, c0: v ? v.c0 : 0 };
      selection = null;
    }
    const cols = pageCols();
    page.r0 = Math.max(0, Math.min(page.r0, s.height - 1));
    page.c0 = Math.max(0, Math.min(page.c0, s.width - 1));
    return { r0: page.r0, r1: Math.min(page.r0 + PAGE_ROWS, s.height), c0: page.c0, c1: Math.min(page.c0 + cols, s.width) };
  }

  /** Index labels of slice row r (or column): "12", or "12:15" for a block of a downsampled slice. */
  function label(/** @type {Slice} */ s, /** @type {0 | 1} */ axis, /** @type {number} */ i) {
    const start = s.region[axis][0] + i * s.step[axis];
    const stop = Math.min(start + s.step[axis], s.region[axis][1]);
    return stop - start > 1 ? `${start}:${stop}` : String(start);
  }

  function isMean() {
    const s = /** @type {Slice} */ (cur.payload && cur.payload.slice);
    return s.step[0] > 1 || s.step[1] > 1;
  }

  function renderTable() {
    const p = cur.payload;
    const s = p && p.slice;
    el.table.textContent = '';
    if (!p || !s || !cur.cells || s.height === 0 || s.width === 0) {
      el.tableInfo.textContent = 'No values to list.';
      return;
    }
    const v = pageView();
    const dtype = p.dtype || 'float32';
    const mean = isMean();
    const format = el.tableFormat.value;
    const head = document.createElement('tr');
    head.append(document.createElement('th'));
    for (let c = v.c0; c < v.c1; c++) {
      const th = document.createElement('th');
      th.scope = 'col';
      th.textContent = label(s, 1, c);
      head.append(th);
    }
    const thead = document.createElement('thead');
    thead.append(head);
    const body = document.createElement('tbody');
    for (let r = v.r0; r < v.r1; r++) {
      const tr = document.createElement('tr');
      const th = document.createElement('th');
      th.scope = 'row';
      th.textContent = label(s, 0, r);
      tr.append(th);
      for (let c = v.c0; c < v.c1; c++) {
        const i = r * s.width + c;
        const code = cur.cells.mask[i];
        const td = document.createElement('td');
        td.textContent = core.formatCell(cur.cells.values[i], code, dtype, mean, format);
        td.dataset.r = String(r);
        td.dataset.c = String(c);
        if (code) td.className = CODE_CLASS[code] || '';
        if (selection && r >= selection.r0 && r <= selection.r1 && c >= selection.c0 && c <= selection.c1) td.classList.add('sel');
        tr.append(td);
      }
      body.append(tr);
    }
    el.table.append(thead, body);
    el.tableInfo.textContent = `rows ${v.r0}–${v.r1 - 1} of ${s.height}, columns ${v.c0}–${v.c1 - 1} of ${s.width}`;
    el.tableUp.disabled = v.r0 === 0;
    el.tableDown.disabled = v.r1 >= s.height;
    el.tableLeft.disabled = v.c0 === 0;
    el.tableRight.disabled = v.c1 >= s.width;
    el.tableNote.textContent = mean ? `Each cell is the mean of a ${s.step[0]}×${s.step[1]} block of the value.` : '';
    el.tableExact.hidden = !mean;
  }

  /** @param {number} dr @param {number} dc pages to move */
  function turn(dr, dc) {
    const v = pageView();
    page.r0 += dr * (v.r1 - v.r0 || PAGE_ROWS);
    page.c0 += dc * (v.c1 - v.c0 || pageCols());
    selection = null;
    renderTable();
  }
  el.tableUp.addEventListener('click', () => turn(-1, 0));
  el.tableDown.addEventListener('click', () => turn(1, 0));
  el.tableLeft.addEventListener('click', () => turn(0, -1));
  el.tableRight.addEventListener('click', () => turn(0, 1));
  el.tableExact.addEventListener('click', () => {
    const s = /** @type {Slice} */ (cur.payload && cur.payload.slice);
    const region = core.viewToRegion(s, pageView());
    cur.request = { axes: cur.request.axes, index: cur.request.index, region, part: cur.request.part };
    requestPayload(cur.request);
  });

  /** The cell a mouse event is on, or null. @param {Event} e */
  function cellOf(e) {
    const td = /** @type {HTMLElement} */ (e.target).closest && /** @type {HTMLElement} */ (e.target).closest('td');
    if (!td || !td.dataset.r) return null;
    return { row: Number(td.dataset.r), col: Number(td.dataset.c) };
  }
  /** @param {{ row: number, col: number }} a @param {{ row: number, col: number }} b */
  function select(a, b) {
    selection = { r0: Math.min(a.row, b.row), r1: Math.max(a.row, b.row), c0: Math.min(a.col, b.col), c1: Math.max(a.col, b.col) };
    for (const td of el.table.querySelectorAll('td')) {
      const r = Number(/** @type {HTMLElement} */ (td).dataset.r);
      const c = Number(/** @type {HTMLElement} */ (td).dataset.c);
      td.classList.toggle('sel', r >= selection.r0 && r <= selection.r1 && c >= selection.c0 && c <= selection.c1);
    }
  }
  el.table.addEventListener('mousedown', (e) => {
    const at = cellOf(e);
    if (!at || e.button !== 0) return;
    e.preventDefault();
    if (e.shiftKey && anchor) select(anchor, at);
    else {
      anchor = at;
      select(at, at);
    }
    dragging = true;
  });
  el.table.addEventListener('mouseover', (e) => {
    const at = cellOf(e);
    if (dragging && anchor && at) select(anchor, at);
  });
  window.addEventListener('mouseup', () => (dragging = false));

  /** The selected block (else the page) as exact values. @param {'tsv' | 'csv'} format */
  function blockText(format) {
    const p = /** @type {Payload} */ (cur.payload);
    const s = /** @type {Slice} */ (p.slice);
    const cells = /** @type {Cells} */ (cur.cells);
    const b = selection || (() => {
      const v = pageView();
      return { r0: v.r0, r1: v.r1 - 1, c0: v.c0, c1: v.c1 - 1 };
    })();
    const rows = [];
    for (let r = b.r0; r <= b.r1; r++) {
      const row = [];
      for (let c = b.c0; c <= b.c1; c++) {
        const i = r * s.width + c;
        row.push(core.exactValue(cells.values[i], cells.mask[i], p.dtype || 'float32', isMean()));
      }
      rows.push(row);
    }
    return { text: core.tableText(rows, format), rows: b.r1 - b.r0 + 1, cols: b.c1 - b.c0 + 1 };
  }

  /** @param {'tsv' | 'csv'} format */
  function copy(format) {
    if (!cur.cells || !cur.payload || !cur.payload.slice) return;
    const block = blockText(format);
    post({ type: 'copy', text: block.text, format });
    el.tableNote.textContent = `Copied ${block.rows}×${block.cols} value${block.rows * block.cols > 1 ? 's' : ''}${format === 'csv' ? ' as CSV' : ''}.`;
  }
  el.copyTsv.addEventListener('click', () => copy('tsv'));
  el.copyCsv.addEventListener('click', () => copy('csv'));
  // Ctrl+C on the Table tab copies the block as text, through the browser's own clipboard event.
  document.addEventListener('copy', (e) => {
    if (state.tab !== 'table' || !selection || !cur.cells || !e.clipboardData) return;
    const target = /** @type {HTMLElement} */ (e.target);
    if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return;
    e.clipboardData.setData('text/plain', blockText('tsv').text);
    e.preventDefault();
  });

  return { render: renderTable };
})();
