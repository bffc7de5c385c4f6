// @ts-check
'use strict';
/* exported TfHeader */
/**
 * The header (summary, badges), the toolbar (pin, refresh, save, compare) and the tabs: which
 * panel shows, and `render` of the tab shown.
 */
const TfHeader = (() => {
  const { el, tabs, panels } = TfDom;
  const { state, saveState, cur, post, showPinned, keepView } = TfState;
  const { requestPayload } = TfSlices;

  /** @param {Payload} p */
  function renderHeader(p) {
    el.summary.textContent = p.summary || (p.dtype ? `${p.dtype}[${(p.shape || []).join(', ')}]` : '');
    el.summary.title = el.summary.textContent; // whole on hover where a narrow panel clamps it
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
    for (const t of tabs) {
      t.setAttribute('aria-selected', String(t.dataset.tab === tab));
      t.tabIndex = t.dataset.tab === tab ? 0 : -1; // one tab stop for the tab list (roving tabindex)
    }
    if (!cur.payload || cur.payload.error || !el.message.hidden) return;
    for (const [name, panel] of Object.entries(panels)) panel.hidden = name !== tab;
    // The slice controls choose what the heatmap and the table show; the image, histogram and history are the whole value.
    el.sliceControls.classList.toggle('off-tab', tab !== 'heatmap' && tab !== 'table');
    render();
  }
  for (const t of tabs) t.addEventListener('click', () => setTab(t.dataset.tab || 'heatmap'));
  // The ARIA tabs pattern: Left/Right (wrapping), Home and End move to a tab and show it.
  /** @type {Record<string, (i: number, n: number) => number>} */
  const TAB_KEYS = { ArrowRight: (i, n) => (i + 1) % n, ArrowLeft: (i, n) => (i - 1 + n) % n, Home: () => 0, End: (_, n) => n - 1 };
  for (const t of tabs) {
    t.addEventListener('keydown', (e) => {
      const move = TAB_KEYS[e.key];
      if (!move) return;
      const shown = tabs.filter((x) => !x.hidden);
      const next = shown[move(shown.indexOf(t), shown.length)];
      if (!next) return;
      e.preventDefault();
      e.stopPropagation(); // not the heatmap's pan keys
      next.focus();
      setTab(next.dataset.tab || 'heatmap');
    });
  }

  function render() {
    if (!cur.payload || cur.payload.error) return;
    if (state.tab === 'heatmap') TfHeatmap.render();
    else if (state.tab === 'table') TfTable.render();
    else if (state.tab === 'filters') TfFilters.render();
    else if (state.tab === 'image') TfImage.render();
    else if (state.tab === 'history') TfHistory.render();
    else TfHistogram.render();
  }

  el.pin.addEventListener('click', () => {
    showPinned(!cur.pinned);
    keepView(undefined);
    post({ type: 'pin', pinned: cur.pinned });
  });
  el.save.addEventListener('click', () => post({ type: 'saveNpy' }));
  // Compare keeps the slice shown: the extension opens the other value with this request.
  el.compare.addEventListener('click', () => post({ type: 'compare', request: cur.request }));
  el.refresh.addEventListener('click', () => requestPayload(cur.request));

  return { renderHeader, setTab, render };
})();
