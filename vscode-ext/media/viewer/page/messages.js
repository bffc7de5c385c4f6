// @ts-check
'use strict';
/* exported TfMessages */
/**
 * Messages from the extension (docs/tensor-viewer.md, section 3; their types: ../protocol.js): a
 * payload to show, loading, an error, stale (the session ran on or ended), waiting (restored with no
 * session paused).
 */
const TfMessages = (() => {
  const core = /** @type {typeof import('../viewerCore')} */ (/** @type {any} */ (window).TfViewerCore);
  const { $, el, setLoading, showMessage } = TfDom;
  const { saved, state, cur, showTitle, showPinned, keepView } = TfState;
  const { normaliseSlice, requestOf, renderSliceControls } = TfSlices;
  const { renderHeader, setTab } = TfHeader;

  window.addEventListener('message', (event) => {
    if (!event.data || typeof event.data !== 'object') return;
    const msg = /** @type {import('../protocol').ToPage} */ (event.data);
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
      case 'historyCompare':
        TfHistory.showCompare(msg);
        break;
    }
  });

  /** A fresh page opens an image-like value on its image tab, once. */
  let imageShownOnce = false;
  /** And a conv kernel on its filters tab. */
  let filtersShownOnce = false;
  /** Whether the page chooses its tab for the value (no tab kept from before a reload). */
  let choosesTab = saved.tab === undefined;

  /** @param {import('../protocol').ToPagePayload} msg */
  function showPayload(msg) {
    // The payload this page already shows, sent again (the extension sends its last payload once
    // more when the page says ready, in case the page missed the first): only its pin and view
    // are taken, it is not decoded and drawn a second time.
    if (typeof msg.n === 'number' && cur.msg && cur.msg.n === msg.n && cur.msg.expression === msg.expression) {
      cur.msg = { ...cur.msg, pinned: msg.pinned, view: msg.view ?? cur.msg.view };
      showPinned(!!msg.pinned);
      keepView(msg.view);
      return;
    }
    if (cur.msg && cur.msg.expression !== msg.expression) {
      // Another value in this page (View Tensor reused an unpinned view): it opens as in a new view.
      imageShownOnce = filtersShownOnce = false;
      choosesTab = true;
      state.tab = 'heatmap';
      state.zoom = null;
    }
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
      const same = JSON.stringify([msg.expression, payload.shape, slice && [slice.axes, slice.index, slice.region]]);
      if (slice && cur.view && cur.dims && cur.same === same) {
        // The same slice in more detail (a view's full picture after its first): the zoom stays on
        // the same part of the value.
        const fy = slice.height / cur.dims[0];
        const fx = slice.width / cur.dims[1];
        const v = cur.view;
        cur.view = { r0: Math.floor(v.r0 * fy), r1: Math.min(slice.height, Math.max(Math.floor(v.r0 * fy) + 1, Math.round(v.r1 * fy))), c0: Math.floor(v.c0 * fx), c1: Math.min(slice.width, Math.max(Math.floor(v.c0 * fx) + 1, Math.round(v.c1 * fx))) };
      } else {
        // A new picture: the saved zoom applies only to the picture it was made on.
        cur.view = state.zoom && state.zoom.key === key ? state.zoom.view : whole;
      }
      cur.key = key;
      cur.same = same;
    }
    cur.dims = slice ? [slice.height, slice.width] : null;
    if (!cur.view && whole) cur.view = whole;
    const tabsShown = { heatmap: true, table: true, filters: !!payload.filters, image: !!payload.image, histogram: true, history: !!payload.history };
    /** @type {HTMLButtonElement} */ ($('tab-history')).hidden = !payload.history;
    /** @type {HTMLButtonElement} */ ($('tab-image')).hidden = !payload.image;
    /** @type {HTMLButtonElement} */ ($('tab-filters')).hidden = !payload.filters;
    if (!(/** @type {any} */ (tabsShown)[state.tab])) state.tab = 'heatmap';
    if (payload.image && !imageShownOnce && choosesTab) state.tab = 'image';
    if (payload.image) imageShownOnce = true;
    // A conv kernel opens as its grid of filters, once.
    if (payload.filters && !filtersShownOnce && choosesTab) state.tab = 'filters';
    if (payload.filters) filtersShownOnce = true;
    setTab(state.tab);
  }

  /**
   * A view with no value yet (restored after a window reload, no session paused): its title, its
   * pin, and what it waits for.
   * @param {import('../protocol').ToPageWaiting} msg
   */
  function showWaiting(msg) {
    setLoading(false);
    showPinned(!!msg.pinned);
    showTitle(msg.title || msg.expression || 'Tensor', msg.expression);
    if (msg.request && typeof msg.request === 'object') cur.request = requestOf(msg.request, {});
    keepView(msg.view);
    showMessage(msg.message || 'Waiting for a paused debug session.', 'info');
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

  return { showPayload };
})();
