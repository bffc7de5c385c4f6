// @ts-check
'use strict';
/**
 * The viewer contract (src/tf_debug_repr/viewer/contract.json) held to the extension's side: the
 * files generated from it are current, the manifest's Watch when-clauses match it, both ends of
 * the postMessage protocol handle and send exactly its messages, and the page tests' payloads have
 * its fields. The Python side is held to it by tests/unit/test_viewer_contract.py.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const { generated, readContract, MANIFEST } = require('../../scripts/contract.js');
const contract = require('../../media/viewer/viewerContract.js');
const { WATCH_TYPE_PATTERN } = require('../../src/viewer/types.js');
const { payloadOf, matrixWithSpecials } = require('../browser/fixtures.js');

const EXT_ROOT = path.resolve(__dirname, '..', '..');
const c = readContract();

test('the generated files are what the contract makes of them (else: npm run contract)', () => {
  for (const { file, text } of generated()) {
    assert.equal(fs.readFileSync(file, 'utf8'), text, `${path.relative(EXT_ROOT, file)} is not current: run npm run contract`);
  }
});

test("the Watch pane's when-clauses offer View Tensor on the contract's types", () => {
  const pkg = JSON.parse(fs.readFileSync(MANIFEST, 'utf8'));
  const whens = pkg.contributes.menus['debug/watch/context'].map((/** @type {any} */ e) => e.when);
  assert.ok(whens.length >= 2);
  for (const when of whens) assert.ok(when.includes(`variableType =~ /${WATCH_TYPE_PATTERN}/`), when);
  for (const type of Object.keys(c.viewable_types.types)) assert.match(type, new RegExp(WATCH_TYPE_PATTERN));
});

/** Source text of files under the extension root. @param {string[]} rels */
function sources(rels) {
  return rels.map((rel) => fs.readFileSync(path.join(EXT_ROOT, rel), 'utf8')).join('\n');
}

/** `case 'x':` labels and `type: 'x'` literals of a source text. @param {string} text */
function messageNames(text) {
  return {
    handled: new Set([...text.matchAll(/case '(\w+)':/g)].map((m) => m[1])),
    sent: new Set([...text.matchAll(/type: '(\w+)'/g)].map((m) => m[1])),
  };
}

/** Files of a folder (relative to the extension root) whose names match. @param {string} dir @param {RegExp} pattern */
function filesIn(dir, pattern) {
  return fs
    .readdirSync(path.join(EXT_ROOT, dir), { recursive: true })
    .map(String)
    .filter((f) => pattern.test(f))
    .map((f) => path.posix.join(dir, f.split(path.sep).join('/')));
}

test('the page handles every message to it and sends only messages of the contract', () => {
  const page = filesIn('media/viewer', /\.js$/).filter((f) => !/viewerContract|protocol|viewerCore/.test(f));
  const { handled, sent } = messageNames(sources(page));
  assert.deepEqual([...handled].sort(), [...contract.messages.toPage].sort());
  assert.deepEqual([...sent].filter((t) => !contract.messages.toExtension.includes(t)), []);
  assert.deepEqual([...contract.messages.toExtension].filter((t) => !sent.has(t)), [], 'every message to the extension is sent');
});

test('the extension handles every message from the page and sends only messages of the contract', () => {
  const ext = filesIn('src', /^viewer.*\.js$|\/viewer.*\.js$|^viewer\/.*\.js$/);
  const { handled, sent } = messageNames(sources(ext));
  assert.deepEqual([...handled].filter((t) => contract.messages.toExtension.includes(t)).sort(), [...contract.messages.toExtension].sort());
  assert.deepEqual([...sent].filter((t) => !contract.messages.toPage.includes(t)), []);
  assert.deepEqual([...contract.messages.toPage].filter((t) => !sent.has(t)), [], 'every message to the page is sent');
});

/** @param {any} obj @param {string} typename */
function assertFits(obj, typename) {
  const fields = Object.keys(c.payload[typename]);
  const every = fields.map((f) => f.replace(/\?$/, ''));
  const required = fields.filter((f) => !f.endsWith('?'));
  assert.deepEqual(Object.keys(obj).filter((k) => !every.includes(k)), [], `${typename}: fields not in the contract`);
  assert.deepEqual(required.filter((k) => !(k in obj)), [], `${typename}: fields missing`);
}

test("the page tests' payloads have the contract's fields", () => {
  for (const p of [matrixWithSpecials(), payloadOf([[1, -2]], { part: 'abs' })]) {
    assertFits(p, 'Payload');
    assertFits(p.stats, 'Stats');
    assertFits(p.histogram, 'Histogram');
    assertFits(p.slice, 'Slice');
  }
});

test('the colour maps and mask codes of the page are the contract values', () => {
  const core = require('../../media/viewer/viewerCore.js');
  assert.equal(core.VIRIDIS.length, c.colour_maps.viridis.length);
  assert.deepEqual(core.VIRIDIS.map(core.rgbToCss), c.colour_maps.viridis.map(core.hexToRgb).map(core.rgbToCss));
  assert.deepEqual(core.SPECIAL, c.colour_maps.special);
  assert.deepEqual(core.MASK, c.mask);
});
