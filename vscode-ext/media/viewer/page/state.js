// @ts-check
'use strict';
/* exported TfState */
/**
 * What the page keeps (`state`: tab, log, colour scale, zoom, the view to rebuild after a reload;
 * through vscode.setState), what it shows now (`cur`), the one way out to the extension (`post`),
 * and the view's title and pin.
 */
// The page's types, global to its scripts (each is a classic script; they share one scope).
/** @typedef {import('../viewerCore').Slice} Slice */
/** @typedef {import('../viewerCore').Scale} Scale */
/** @typedef {import('../protocol').Payload} Payload  the payload's fields: src/tf_debug_repr/viewer/contract.json */
/** @typedef {import('../protocol').Request} SliceRequest */
/**
 * What the view is, for the extension to rebuild it after a window reload: the extension's
 * signed `view` ({expression, title, session, sig}) with the request and pinned flag added.
 * @typedef {import('../protocol').SavedView} SavedView
 */
/** @typedef {{ r0: number, r1: number, c0: number, c1: number }} View  cells of the slice shown */
/** @typedef {{ tab: string, log: boolean, tableFormat: string, range: 'fit' | 'full', scale: 'auto' | 'sequential' | 'diverging', zoom: { key: string, view: View } | null, view: SavedView | null }} PageState */
/** @typedef {{ values: Float32Array, mask: Uint8Array }} Cells  a slice's cells, decoded */

const TfState = (() => {
  const { el } = TfDom;

  /** @type {{ postMessage(msg: any): void, getState(): any, setState(s: any): void }} */
  const vscode = /** @type {any} */ (window).acquireVsCodeApi();

  const saved = vscode.getState() || {};
  /** @type {PageState} */
  const state = {
    tab: typeof saved.tab === 'string' ? saved.tab : 'heatmap',
    log: !!saved.log,
    tableFormat: typeof saved.tableFormat === 'string' ? saved.tableFormat : 'auto',
    range: saved.range === 'full' ? 'full' : 'fit',
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
   *   view: View | null, key: string, request: SliceRequest, pinned: boolean, stale: boolean,
   *   heat: { cellW: number, cellH: number } | null, same: string, dims: number[] | null }}
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
    /** The picture's key without its size (the same slice at another step), and its size in cells. */
    same: '',
    dims: null,
  };

  /** The one way out: a message of the contract (../protocol.js). @param {import('../protocol').ToExtension} msg */
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

  return { saved, state, saveState, cur, post, showTitle, showPinned, keepView };
})();
