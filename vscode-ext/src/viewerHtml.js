// @ts-check
'use strict';
/**
 * PLACEHOLDER until the page's own viewerHtml (branch `webview`) lands on main; the integrator
 * keeps that one on merge. Same signature: the page's HTML for a webview, with a strict content
 * security policy (only the page's own script and style, by nonce and webview origin; no network).
 * This stand-in shows what it was sent, so the extension can be tried before the page exists.
 */

/**
 * @param {{ scriptUri: string, styleUri: string, cspSource: string, nonce: string }} o
 * @returns {string}
 */
function viewerHtml({ scriptUri, styleUri, cspSource, nonce }) {
  void scriptUri; // the real page's script; this stand-in draws with the inline one below
  const csp = [
    "default-src 'none'",
    `img-src ${cspSource} data: blob:`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeAttr(styleUri)}">
<title>Tensor</title>
</head>
<body>
<pre id="out">Loading…</pre>
<script nonce="${nonce}">
  const vscode = acquireVsCodeApi();
  const out = document.getElementById('out');
  window.addEventListener('message', (e) => {
    const m = e.data;
    if (m.type === 'payload') out.textContent = m.title + '\\n' + (m.payload.error || m.payload.summary || '') + '\\n' + JSON.stringify(m.payload.stats);
    else if (m.type === 'error') out.textContent = m.message;
    else if (m.type === 'loading') out.textContent = 'Loading ' + m.expression + '…';
    else if (m.type === 'stale') out.style.opacity = '0.5';
  });
  vscode.postMessage({ type: 'ready' });
</script>
</body>
</html>`;
}

/** @param {string} s */
function escapeAttr(s) {
  return String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

module.exports = { viewerHtml };
