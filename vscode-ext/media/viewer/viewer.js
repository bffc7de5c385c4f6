// @ts-check
'use strict';
/**
 * The tensor viewer page: draws one payload (docs/tensor-viewer.md, section 2) sent by the
 * extension through postMessage (section 3): heatmap with colour bar and zoom, image grid,
 * histogram with the summary figures, slice controls, pin/save/compare/refresh. Offline: no
 * network, no inline code (strict CSP), styles set only through the CSSOM.
 *
 * The page is classic scripts sharing one scope, loaded in the order of PAGE_SCRIPTS
 * (src/viewer/html.js): the contract's values and viewerCore.js (pure logic), then page/: dom
 * (elements, theme, tooltip), state (what is kept and shown), slices, heatmap, heatmapInput,
 * image, histogram, header (toolbar and tabs), messages (from the extension); this file last.
 */
(function () {
  const { state, showTitle, showPinned, post } = TfState;

  // A page opened again (hidden and shown, or restored after a reload) shows what it is at once.
  if (state.view && typeof state.view.title === 'string') {
    showTitle(state.view.title, state.view.expression);
    showPinned(state.view.pinned === true);
  }

  let resizeTimer = /** @type {ReturnType<typeof setTimeout> | undefined} */ (undefined);
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(TfHeader.render, 60);
  });

  post({ type: 'ready' });
})();
