// @ts-check
'use strict';
/**
 * What a view's page keeps with `vscode.setState` so the extension can rebuild the view after a
 * window reload (docs/tensor-viewer.md §3): the expression, its title, the launch configuration
 * it came from, the slice request and the pinned flag; never the payload (up to ~1 MB).
 *
 * The expression is the one string from the page that the debuggee evaluates, so it comes back
 * only with the extension's signature: an HMAC of it (and the configuration name) under a key the
 * extension keeps in its globalState. A page can never make the debuggee evaluate text of its
 * own choosing; the request's numbers are checked as every request from the page is.
 */
const crypto = require('node:crypto');
const { checkRequest, titleFor } = require('./expression');

/** Longest expression a saved view may hold (what a user types or a Watch row holds is far shorter). */
const MAX_EXPRESSION = 10_000;

/**
 * @typedef {{ expression: string, title: string, session: string | null, sig: string }} SavedView
 *   what the extension sends the page (in `payload` and `waiting` messages) to keep as `view`
 * @typedef {{ expression: string, title: string, origin: string | undefined,
 *   request: import('./expression').ViewRequest, pinned: boolean }} RestoredView
 */

/** @param {string} key @param {string} expression @param {string | null} session */
function signature(key, expression, session) {
  return crypto.createHmac('sha256', key).update(JSON.stringify([expression, session])).digest('base64');
}

/**
 * Whether the page's `sig` is the expected one. Compared as bytes: a non-ASCII string of the
 * right length in characters is longer in bytes, and timingSafeEqual throws on unequal lengths.
 * @param {string} sig @param {string} expected
 */
function sameSignature(sig, expected) {
  const given = Buffer.from(sig, 'utf8');
  const wanted = Buffer.from(expected, 'utf8');
  return given.length === wanted.length && crypto.timingSafeEqual(given, wanted);
}

/**
 * The signed description of a view, for the page to keep.
 * @param {string} key @param {string} expression @param {string | undefined} session the launch configuration name
 * @returns {SavedView}
 */
function savedView(key, expression, session) {
  const name = session ?? null;
  return { expression, title: titleFor(expression), session: name, sig: signature(key, expression, name) };
}

/**
 * The view a page's saved state describes, or why there is none.
 * @param {unknown} state what deserializeWebviewPanel gets (the page's last setState)
 * @param {string} key
 * @returns {{ view: RestoredView } | { error: string }}
 */
function restoredView(state, key) {
  const v = state && typeof state === 'object' ? /** @type {any} */ (state).view : undefined;
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { error: 'This view kept no expression to restore (it was saved by an older version, or never shown a value): open it again with View Tensor.' };
  const { expression, session = null, sig } = v;
  if (typeof expression !== 'string' || !expression.trim() || expression.length > MAX_EXPRESSION) {
    return { error: 'This view\'s saved expression is missing or unreadable: open it again with View Tensor.' };
  }
  if (session !== null && typeof session !== 'string') return { error: 'This view\'s saved state is unreadable: open it again with View Tensor.' };
  if (typeof sig !== 'string' || !sameSignature(sig, signature(key, expression, session))) {
    return { error: `This view of "${titleFor(expression)}" was not saved by this extension on this machine, so its expression is not evaluated: open it again with View Tensor.` };
  }
  let request;
  try {
    request = checkRequest(v.request ?? {});
  } catch {
    request = checkRequest({}); // a slice request that does not read: the default slice
  }
  return { view: { expression, title: titleFor(expression), origin: session ?? undefined, request, pinned: v.pinned === true } };
}

module.exports = { savedView, restoredView, MAX_EXPRESSION };
