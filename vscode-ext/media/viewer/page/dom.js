// @ts-check
'use strict';
/* exported TfDom */
/**
 * The page's elements, its theme colours, canvas sizing, the tooltip, the loading overlay and the
 * message box that replaces the panels. Everything else reaches the DOM through `el`.
 */
const TfDom = (() => {
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
    range: /** @type {HTMLSelectElement} */ ($('range')),
    heatmapBox: $('heatmap-box'),
    heatmap: /** @type {HTMLCanvasElement} */ ($('heatmap')),
    selection: $('selection'),
    cellHighlight: $('cell-highlight'),
    colourbar: /** @type {HTMLCanvasElement} */ ($('colourbar')),
    legend: $('legend'),
    hover: $('hover'),
    image: /** @type {HTMLCanvasElement} */ ($('image')),
    imageInfo: $('image-info'),
    imageHover: $('image-hover'),
    log: /** @type {HTMLInputElement} */ ($('log')),
    histNote: $('hist-note'),
    histogram: /** @type {HTMLCanvasElement} */ ($('histogram')),
    histHover: $('hist-hover'),
    tableFormat: /** @type {HTMLSelectElement} */ ($('table-format')),
    tableBox: $('table-box'),
    table: /** @type {HTMLTableElement} */ ($('table')),
    tableInfo: $('table-info'),
    tableNote: $('table-note'),
    tableUp: /** @type {HTMLButtonElement} */ ($('table-up')),
    tableDown: /** @type {HTMLButtonElement} */ ($('table-down')),
    tableLeft: /** @type {HTMLButtonElement} */ ($('table-left')),
    tableRight: /** @type {HTMLButtonElement} */ ($('table-right')),
    tableExact: /** @type {HTMLButtonElement} */ ($('table-exact')),
    copyTsv: /** @type {HTMLButtonElement} */ ($('copy-tsv')),
    copyCsv: /** @type {HTMLButtonElement} */ ($('copy-csv')),
    filters: /** @type {HTMLCanvasElement} */ ($('filters')),
    filterIn: /** @type {HTMLSelectElement} */ ($('filter-in')),
    filterInLabel: $('filter-in-label'),
    filtersInfo: $('filters-info'),
    filtersHover: $('filters-hover'),
    historyNote: $('history-note'),
    historyPlots: $('history-plots'),
    historyCompare: $('history-compare'),
    compareA: /** @type {HTMLSelectElement} */ ($('compare-a')),
    compareB: /** @type {HTMLSelectElement} */ ($('compare-b')),
    compareNote: $('compare-note'),
    compareHeatmap: /** @type {HTMLCanvasElement} */ ($('compare-heatmap')),
    compareFigures: $('compare-figures'),
    stats: $('stats'),
  };
  const tabs = /** @type {HTMLButtonElement[]} */ ([...document.querySelectorAll('[role=tab]')]);
  const panels = { heatmap: $('panel-heatmap'), table: $('panel-table'), filters: $('panel-filters'), image: $('panel-image'), histogram: $('panel-histogram'), history: $('panel-history') };

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

  /** @param {boolean} on */
  function setLoading(on) {
    el.overlay.hidden = !on;
    el.content.classList.toggle('loading', on);
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

  /**
   * One figure of a `.stats` grid: its name beside its value, in one cell (the histogram's
   * figures and the History tab's Compare); the value's `data-stat` is the name.
   * @param {string} name @param {string} value @returns {HTMLDivElement}
   */
  function statCell(name, value) {
    const item = document.createElement('div');
    item.className = 'stat';
    const dt = document.createElement('dt');
    dt.textContent = name;
    const dd = document.createElement('dd');
    dd.textContent = value;
    dd.dataset.stat = name;
    item.append(dt, dd);
    return item;
  }

  return { $, el, tabs, panels, theme, sizeCanvas, showTooltip, hideTooltip, setLoading, showMessage, statCell };
})();
