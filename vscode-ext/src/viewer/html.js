// @ts-check
'use strict';
/**
 * The tensor viewer page (media/viewer/) as the HTML of a webview: a strict Content-Security-Policy
 * (no network, no inline code; scripts only with this page's nonce), the stylesheet, the pure-logic
 * module viewerCore.js and viewer.js. The page is driven by postMessage (docs/tensor-viewer.md, 3).
 */

/** The page's folder in the extension (the `webview`'s local resource root), its script and style. */
const PAGE_DIR = Object.freeze(['media', 'viewer']);
const PAGE_SCRIPT = 'viewer.js';
const PAGE_STYLE = 'viewer.css';

/** @typedef {string | { toString(): string }} UriLike  a string or a vscode.Uri (webview.asWebviewUri) */

/** @param {string} s */
function escapeAttr(s) {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * The page's scripts, in load order, as paths relative to media/viewer/ (classic scripts: each
 * later one uses the globals of those before it). viewer.js is `scriptUri`; the others lie beside it.
 */
const PAGE_SCRIPTS = Object.freeze([
  'viewerContract.js',
  'viewerFormat.js',
  'viewerCore.js',
  'page/dom.js',
  'page/state.js',
  'page/slices.js',
  'page/heatmap.js',
  'page/heatmapInput.js',
  'page/image.js',
  'page/histogram.js',
  'page/table.js',
  'page/filters.js',
  'page/history.js',
  'page/header.js',
  'page/messages.js',
  'viewer.js',
]);

/**
 * A file beside the page's script: the script's URI with its last path segment replaced.
 * @param {string} scriptUri @param {string} name
 */
function siblingUri(scriptUri, name) {
  return scriptUri.replace(/[^/?#]*(?=[?#]|$)/, name);
}

/**
 * @param {{ scriptUri: UriLike, styleUri: UriLike, cspSource: string, nonce: string, coreUri?: UriLike }} opts
 *   scriptUri: media/viewer/viewer.js as the webview sees it; styleUri: media/viewer/viewer.css;
 *   cspSource: webview.cspSource; nonce: fresh per page (letters and digits); coreUri: viewerCore.js
 *   (default: beside scriptUri, as every other script of PAGE_SCRIPTS).
 * @returns {string}
 */
function viewerHtml({ scriptUri, styleUri, cspSource, nonce, coreUri }) {
  if (!/^[A-Za-z0-9+/=_-]{16,}$/.test(nonce)) throw new Error('viewerHtml: the nonce must be 16+ letters or digits');
  const main = String(scriptUri);
  const scripts = PAGE_SCRIPTS.map((name) => {
    if (name === 'viewer.js') return main;
    if (name === 'viewerCore.js' && coreUri) return String(coreUri);
    return siblingUri(main, name);
  }).map((uri) => `<script nonce="${nonce}" src="${escapeAttr(uri)}"></script>`);
  const style = escapeAttr(String(styleUri));
  const csp = [
    "default-src 'none'",
    `img-src ${cspSource} data: blob:`,
    `style-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style}">
<title>Tensor viewer</title>
</head>
<body>
<header class="header">
  <div class="title-row">
    <h1 id="title" class="title">Tensor viewer</h1>
    <span id="badges" class="badges"></span>
  </div>
  <div id="summary" class="summary"></div>
</header>
<div class="toolbar" role="toolbar" aria-label="Viewer actions">
  <div class="tabs" role="tablist" aria-label="Views of the value">
    <button type="button" role="tab" id="tab-heatmap" data-tab="heatmap" aria-selected="true" aria-controls="panel-heatmap">Heatmap</button>
    <button type="button" role="tab" id="tab-table" data-tab="table" aria-selected="false" aria-controls="panel-table" tabindex="-1">Table</button>
    <button type="button" role="tab" id="tab-filters" data-tab="filters" aria-selected="false" aria-controls="panel-filters" tabindex="-1" hidden>Filters</button>
    <button type="button" role="tab" id="tab-image" data-tab="image" aria-selected="false" aria-controls="panel-image" tabindex="-1" hidden>Image</button>
    <button type="button" role="tab" id="tab-histogram" data-tab="histogram" aria-selected="false" aria-controls="panel-histogram" tabindex="-1">Histogram</button>
    <button type="button" role="tab" id="tab-history" data-tab="history" aria-selected="false" aria-controls="panel-history" tabindex="-1" hidden>History</button>
  </div>
  <span class="spacer"></span>
  <button type="button" id="pin" aria-pressed="false" title="Keep this view: refresh it at every stop of the session, and open other values in views of their own (an unpinned view shows the next value you view)">Pin</button>
  <button type="button" id="refresh" title="Fetch the value again">Refresh</button>
  <button type="button" id="save" title="Save the whole value as a .npy file">Save as .npy</button>
  <button type="button" id="compare" title="Open another expression beside this one">Compare…</button>
</div>
<div id="slice-controls" class="slice-controls" hidden></div>
<div id="banner" class="banner" role="status" hidden></div>
<main id="content" class="content">
  <section id="panel-heatmap" class="panel" role="tabpanel" aria-labelledby="tab-heatmap" hidden>
    <div class="view-tools">
      <label>Colours <select id="scale">
        <option value="auto">auto</option>
        <option value="sequential">sequential</option>
        <option value="diverging">diverging</option>
      </select></label>
      <label title="Fitted: colours span 99% of the cells shown (outliers take the end colours). Full: the slice's whole range.">Range <select id="range">
        <option value="fit">fitted</option>
        <option value="full">full</option>
      </select></label>
      <button type="button" id="reset-zoom" title="Show the whole slice (Escape). Wheel or drag on the picture to zoom; Shift+drag or arrow keys to pan">Reset zoom</button>
      <span id="zoom-info" class="muted"></span>
    </div>
    <div class="figure">
      <div id="heatmap-box" class="heatmap-box"><canvas id="heatmap" tabindex="0" aria-label="heatmap: arrow keys move a cell cursor, its index and value are read below" aria-describedby="hover"></canvas><div id="cell-highlight" class="cell-highlight" hidden></div><div id="selection" class="selection" hidden></div></div>
      <canvas id="colourbar" class="colourbar" aria-label="colour bar"></canvas>
    </div>
    <div id="legend" class="legend"></div>
    <div id="hover" class="hover-line muted" aria-live="polite">Hover a cell (or focus the heatmap and use the arrow keys) for its index and value; wheel or drag to zoom.</div>
  </section>
  <section id="panel-table" class="panel" role="tabpanel" aria-labelledby="tab-table" hidden>
    <div class="view-tools">
      <label>Numbers <select id="table-format">
        <option value="auto">auto</option>
        <option value="fixed">0.0000</option>
        <option value="sci">1.234e+5</option>
      </select></label>
      <span class="pager">
        <button type="button" id="table-up" title="Previous rows" aria-label="Previous rows">▲</button>
        <button type="button" id="table-down" title="Next rows" aria-label="Next rows">▼</button>
        <button type="button" id="table-left" title="Previous columns" aria-label="Previous columns">◀</button>
        <button type="button" id="table-right" title="Next columns" aria-label="Next columns">▶</button>
      </span>
      <button type="button" id="copy-tsv" title="Copy the selected block (drag over cells; else this page) as tab-separated text">Copy</button>
      <button type="button" id="copy-csv" title="Copy the selected block (else this page) as CSV">Copy CSV</button>
      <button type="button" id="table-exact" title="Fetch this page's cells at full resolution" hidden>Exact values</button>
      <span id="table-info" class="muted"></span>
    </div>
    <div id="table-box" class="table-box"><table id="table" class="cells" aria-label="values of the slice"></table></div>
    <div id="table-note" class="hover-line muted" aria-live="polite"></div>
  </section>
  <section id="panel-filters" class="panel" role="tabpanel" aria-labelledby="tab-filters" hidden>
    <div class="view-tools">
      <label id="filter-in-label">Input channel <select id="filter-in"></select></label>
      <span id="filters-info" class="muted"></span>
    </div>
    <div class="figure"><canvas id="filters" aria-label="the kernel's filters, one tile per output channel"></canvas></div>
    <div id="filters-hover" class="hover-line muted" aria-live="polite"></div>
  </section>
  <section id="panel-image" class="panel" role="tabpanel" aria-labelledby="tab-image" hidden>
    <div class="figure"><canvas id="image" aria-label="image"></canvas></div>
    <div id="image-info" class="hover-line muted"></div>
    <div id="image-hover" class="hover-line muted" aria-live="polite"></div>
  </section>
  <section id="panel-histogram" class="panel" role="tabpanel" aria-labelledby="tab-histogram" hidden>
    <div class="view-tools">
      <label><input type="checkbox" id="log"> Log scale</label>
      <span id="hist-note" class="muted"></span>
    </div>
    <div class="figure"><canvas id="histogram" aria-label="histogram"></canvas></div>
    <div id="hist-hover" class="hover-line muted"></div>
    <dl id="stats" class="stats"></dl>
  </section>
  <section id="panel-history" class="panel" role="tabpanel" aria-labelledby="tab-history" hidden>
    <div class="view-tools"><span id="history-note" class="muted"></span></div>
    <div id="history-plots" class="history-plots"></div>
    <div id="history-compare" class="history-compare">
      <div class="view-tools"><span>Compare stop</span> <select id="compare-a" aria-label="Compare: the first stop"></select> <span>with</span> <select id="compare-b" aria-label="Compare: the second stop"></select> <span id="compare-note" class="muted"></span></div>
      <canvas id="compare-heatmap" class="compare-heatmap" aria-label="Difference between the two stops, as a heatmap"></canvas>
      <dl id="compare-figures" class="stats"></dl>
    </div>
  </section>
  <div id="message" class="message" hidden></div>
  <div id="overlay" class="overlay"><span class="spinner"></span><span>Loading…</span></div>
  <div id="tooltip" class="tooltip" hidden></div>
</main>
${scripts.join('\n')}
</body>
</html>
`;
}

module.exports = { viewerHtml, PAGE_SCRIPTS, PAGE_DIR, PAGE_SCRIPT, PAGE_STYLE };
