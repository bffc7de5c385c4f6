// @ts-check
'use strict';
/** The viewer page's HTML (src/viewer/html.js): its CSP, its scripts and their nonce. */
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { viewerHtml, PAGE_SCRIPTS } = require('../../src/viewer/html.js');

const base = 'https://file%2B.vscode-resource.vscode-cdn.net/ext/media/viewer';
const opts = { scriptUri: `${base}/viewer.js`, styleUri: `${base}/viewer.css`, cspSource: 'https://*.vscode-cdn.net', nonce: 'q1w2e3r4t5y6u7i8o9p0+/==' };

test('the page has the strict CSP: nothing by default, styles and images from the webview, scripts by nonce', () => {
  const html = viewerHtml(opts);
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
  assert.ok(csp);
  assert.equal(csp[1], "default-src 'none'; img-src https://*.vscode-cdn.net data: blob:; style-src https://*.vscode-cdn.net; script-src 'nonce-q1w2e3r4t5y6u7i8o9p0+/=='");
  assert.doesNotMatch(html, /unsafe-inline|unsafe-eval|style="/);
  // The contract's values, viewerCore.js, the page's modules (beside viewer.js), viewer.js last,
  // each with the nonce; no inline script.
  const scripts = [...html.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)];
  assert.deepEqual(
    scripts.map((m) => m[1].trim()),
    PAGE_SCRIPTS.map((name) => `nonce="${opts.nonce}" src="${base}/${name}"`),
  );
  assert.deepEqual(PAGE_SCRIPTS.slice(0, 3), ['viewerContract.js', 'viewerFormat.js', 'viewerCore.js']);
  assert.equal(PAGE_SCRIPTS.at(-1), 'viewer.js');
  assert.ok(scripts.every((m) => m[2] === ''));
  assert.match(html, new RegExp(`<link rel="stylesheet" href="${base}/viewer.css">`));
});

test('a vscode.Uri-like object works for the URIs, an explicit coreUri wins, attributes are escaped', () => {
  const uri = (/** @type {string} */ s) => ({ toString: () => s });
  const html = viewerHtml({ ...opts, scriptUri: uri(`${base}/viewer.js?v="1"`), styleUri: uri(`${base}/viewer.css`) });
  assert.match(html, /src="https:\/\/file%2B\.vscode-resource\.vscode-cdn\.net\/ext\/media\/viewer\/viewerCore\.js\?v=&quot;1&quot;"/);
  assert.match(viewerHtml({ ...opts, coreUri: 'https://x/core.js' }), /src="https:\/\/x\/core\.js"/);
  assert.throws(() => viewerHtml({ ...opts, nonce: 'short' }), /nonce/);
  assert.throws(() => viewerHtml({ ...opts, nonce: 'abc"def0123456789xyz' }), /nonce/);
});

test('the page loads every module of media/viewer/page, each a file of under 400 lines', () => {
  const fs = require('node:fs');
  const path = require('node:path');
  const media = path.resolve(__dirname, '..', '..', 'media', 'viewer');
  const modules = fs.readdirSync(path.join(media, 'page')).filter((f) => f.endsWith('.js'));
  assert.deepEqual(
    modules.map((f) => `page/${f}`).filter((f) => !PAGE_SCRIPTS.includes(f)),
    [],
    'a page module missing from PAGE_SCRIPTS',
  );
  for (const name of PAGE_SCRIPTS) {
    const lines = fs.readFileSync(path.join(media, name), 'utf8').split('\n').length;
    assert.ok(lines < 400, `${name}: ${lines} lines`);
  }
});
