// @ts-check
'use strict';
/** What a viewer page keeps for a window reload, and what the extension accepts back (viewerSavedState). */
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { savedView, restoredView, MAX_EXPRESSION } = require('../../src/viewer/savedState');

const KEY = 'k'.repeat(44);

test('a saved view comes back with its expression, title, configuration, request and pin', () => {
  const saved = savedView(KEY, "__import__('tf_debug_repr').gradient_of(w)", 'Python: train');
  assert.equal(saved.title, '∇ w');
  assert.equal(saved.session, 'Python: train');
  assert.match(saved.sig, /^[A-Za-z0-9+/]+=*$/);
  const state = { tab: 'image', view: { ...saved, request: { axes: [0, 1], index: [null, null, 2], region: [[0, 2], [1, 3]], part: null }, pinned: true } };
  assert.deepEqual(restoredView(state, KEY), {
    view: { expression: saved.expression, title: '∇ w', origin: 'Python: train', request: { axes: [0, 1], index: [null, null, 2], region: [[0, 2], [1, 3]], part: null }, pinned: true },
  });
  const unnamed = savedView(KEY, 'x', undefined);
  assert.deepEqual(restoredView({ view: unnamed }, KEY), { view: { expression: 'x', title: 'x', origin: undefined, request: { axes: null, index: null, region: null, part: null }, pinned: false } });
});

test('no view, an unreadable one, or one not signed with this key: an error to show, never a view', () => {
  const saved = savedView(KEY, 'w', 'a');
  for (const state of [undefined, null, 3, 'w', {}, { view: null }, { view: [] }]) assert.match(/** @type {any} */ (restoredView(state, KEY)).error, /kept no expression/, JSON.stringify(state));
  for (const expression of [undefined, 3, '', '  ', 'x'.repeat(MAX_EXPRESSION + 1)]) {
    assert.match(/** @type {any} */ (restoredView({ view: { ...saved, expression } }, KEY)).error, /missing or unreadable/);
  }
  assert.match(/** @type {any} */ (restoredView({ view: { ...saved, session: 5 } }, KEY)).error, /unreadable/);
  for (const view of [{ ...saved, sig: undefined }, { ...saved, sig: 'AAAA' }, { ...saved, expression: 'v' }, { ...saved, session: 'b' }, { ...saved, session: null }]) {
    assert.match(/** @type {any} */ (restoredView({ view }, KEY)).error, /not saved by this extension on this machine/, JSON.stringify(view));
  }
  assert.match(/** @type {any} */ (restoredView({ view: saved }, 'another key of some length....')).error, /not saved by this extension/);
  // The request is checked as every request from the page is: one that does not read is the default.
  assert.deepEqual(/** @type {any} */ (restoredView({ view: { ...saved, request: { axes: ['__import__'] } } }, KEY)).view.request, { axes: null, index: null, region: null, part: null });
  assert.equal(/** @type {any} */ (restoredView({ view: { ...saved, pinned: 'yes' } }, KEY)).view.pinned, false);
});

test('hostile signatures: non-ASCII of the right length, lone surrogates, huge: refused, never thrown', () => {
  const saved = savedView(KEY, 'w', 'a');
  const n = saved.sig.length;
  for (const sig of ['é'.repeat(n), `${saved.sig.slice(0, -1)}é`, '\u{1F600}'.repeat(n / 2), '\uD800'.repeat(n), '\0'.repeat(n), 'A'.repeat(1_000_000)]) {
    let r;
    assert.doesNotThrow(() => (r = restoredView({ view: { ...saved, sig } }, KEY)), JSON.stringify(sig.slice(0, 8)));
    assert.match(/** @type {any} */ (r).error, /was not saved by this extension/);
  }
});
