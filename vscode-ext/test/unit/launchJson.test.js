// @ts-check
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { addTemplates, parseLaunchJson, minimalEdit } = require('../../src/launch/launchJson');
const { getTemplate, getTemplates } = require('../../src/launch/templates');

const EXISTING = `{
  // Use IntelliSense to learn about possible attributes.
  "version": "0.2.0",
  /* block comment
     over two lines */
  "configurations": [
    // my own configuration
    {"name": "Mine", "type": "node", "request": "launch", "program": "\${file}"}, // trailing note
    {
      "name": "Other", // inline
      "type": "debugpy",
      "request": "launch",
    },
  ],
  "inputs": [],
}
`;

/**
 * `before` is a subsequence of `after`: the change only inserted text (nothing of the user's
 * file, comments included, was removed or rewritten).
 * @param {string} before @param {string} after
 */
function assertOnlyInsertions(before, after) {
  let j = 0;
  for (let i = 0; i < before.length; i++) {
    while (j < after.length && after[j] !== before[i]) j++;
    assert.ok(j < after.length, `text kept from offset ${i}: ${JSON.stringify(before.slice(i, i + 40))}`);
    j++;
  }
  // And every line of the original is still there, unchanged except for an added comma.
  const lines = new Set(after.split('\n').map((l) => l.replace(/,$/, '')));
  for (const line of before.split('\n')) assert.ok(lines.has(line.replace(/,$/, '')), `line kept: ${JSON.stringify(line)}`);
}

test('adds to an existing JSONC file: comments, other configurations and keys survive', () => {
  const r = addTemplates(EXISTING, [getTemplate('currentFile')]);
  assert.deepEqual(r.added, ['TensorFlow: Current File']);
  assertOnlyInsertions(EXISTING, r.text);
  const v = parseLaunchJson(r.text);
  assert.deepEqual(v.configurations.map((/** @type {any} */ c) => c.name), ['Mine', 'Other', 'TensorFlow: Current File']);
  assert.deepEqual(v.inputs, []);
  assert.equal(v.version, '0.2.0');
  assert.deepEqual(v.configurations[2], getTemplate('currentFile').configurations[0]);
  // The new configuration is introduced by its comment, at the array's indentation.
  assert.match(r.text, /\n {4}\/\/ TF_CPP_MIN_LOG_LEVEL=1 hides[^\n]*\n {4}\{\n {6}"type": "debugpy"/);
});

test('no duplicates when added twice; the second run changes nothing', () => {
  const once = addTemplates(EXISTING, getTemplates());
  const twice = addTemplates(once.text, getTemplates());
  assert.deepEqual(twice.added, []);
  assert.equal(twice.skipped.length, once.added.length);
  assert.equal(twice.text, once.text);
  const v = parseLaunchJson(once.text);
  const names = v.configurations.map((/** @type {any} */ c) => c.name);
  assert.equal(new Set(names).size, names.length);
  assert.equal(v.compounds.length, 1);
  assert.deepEqual(v.compounds[0].configurations, ['TensorFlow: Multi-worker chief', 'TensorFlow: Multi-worker worker']);
  for (const name of v.compounds[0].configurations) assert.ok(names.includes(name), `compound member ${name} exists`);
});

test('creates the file content when launch.json is missing or empty', () => {
  for (const input of [undefined, '', '  \n']) {
    const r = addTemplates(input, [getTemplate('eager'), getTemplate('multiWorker')]);
    const v = parseLaunchJson(r.text);
    assert.equal(v.version, '0.2.0');
    assert.equal(v.configurations.length, 3);
    assert.equal(v.compounds.length, 1);
    assert.match(r.text, /^\{\n {4}\/\/ Use IntelliSense/);
  }
});

test('adds "configurations" and "compounds" when the file lacks them; keeps existing compounds', () => {
  const src = '{\n\t"version": "0.2.0",\n\t"compounds": [\n\t\t{"name": "Both", "configurations": ["a", "b"]}\n\t]\n}\n';
  const r = addTemplates(src, [getTemplate('multiWorker')]);
  const v = parseLaunchJson(r.text);
  assert.equal(v.configurations.length, 2);
  assert.deepEqual(v.compounds.map((/** @type {any} */ c) => c.name), ['Both', 'TensorFlow: Multi-worker (chief + worker)']);
  assertOnlyInsertions(src, r.text);
  assert.match(r.text, /\n\t\t\{\n\t\t\t"type": "debugpy"/, 'tabs kept');
});

test('CRLF files stay CRLF', () => {
  const src = EXISTING.replace(/\n/g, '\r\n');
  const r = addTemplates(src, [getTemplate('currentFile')]);
  assert.ok(!/[^\r]\n/.test(r.text), 'no bare LF');
  assert.equal(parseLaunchJson(r.text).configurations.length, 3);
});

test('an empty configurations array, and one holding only comments', () => {
  const a = addTemplates('{\n  "configurations": []\n}', [getTemplate('currentFile')]);
  assert.equal(parseLaunchJson(a.text).configurations.length, 1);
  const src = '{\n  "configurations": [\n    // nothing yet\n  ]\n}';
  const b = addTemplates(src, [getTemplate('currentFile')]);
  assert.match(b.text, /\/\/ nothing yet/);
  assert.equal(parseLaunchJson(b.text).configurations.length, 1);
});

test('refuses to touch a broken file instead of guessing', () => {
  assert.throws(() => addTemplates('{ "configurations": [ { "name": } ', [getTemplate('currentFile')]), /syntax error/);
  assert.throws(() => addTemplates('[]', [getTemplate('currentFile')]), /JSON object/);
  assert.throws(() => addTemplates('{"configurations": {}}', [getTemplate('currentFile')]), /not an array/);
});

test('minimalEdit: one replacement that turns before into after', () => {
  const before = 'abcXYZdef';
  const after = 'abc123def';
  const e = minimalEdit(before, after);
  assert.deepEqual(e, { offset: 3, length: 3, content: '123' });
  const r = addTemplates(EXISTING, [getTemplate('module')]);
  const m = minimalEdit(EXISTING, r.text);
  assert.equal(EXISTING.slice(0, m.offset) + m.content + EXISTING.slice(m.offset + m.length), r.text);
  assert.equal(m.length, 0, 'pure insertion');
});
