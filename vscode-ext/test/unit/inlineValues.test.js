// @ts-check
'use strict';
/** TF-aware inline values: the names on the lines in view, one request, the answers placed. */
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { createInlineValuesProvider, namesOnLine, namesOnLines, inlineValuesExpression, decodeInlineValues, MAX_NAMES } = require('../../src/inline/inlineValues');

test('the plain names a line reads or assigns, nothing in strings, comments, attributes or keyword arguments', () => {
  assert.deepEqual(namesOnLine('    loss = loss_fn(y, model(x, training=True))  # not, these'), ['loss', 'loss_fn', 'y', 'model', 'x']);
  assert.deepEqual(namesOnLine("grads = tape.gradient(loss, model.trainable_variables)"), ['grads', 'tape', 'loss', 'model']);
  assert.deepEqual(namesOnLine('print(f"{w} it\'s", \'x # y\', """z""", w2)'), ['print', 'w2']);
  assert.deepEqual(namesOnLine('for i in range(n): total += w[i] if i == k else 0'), ['i', 'range', 'n', 'total', 'w', 'k']);
  assert.deepEqual(namesOnLine('gewicht_ä = 2 * größe'), ['gewicht_ä', 'größe']);
  assert.deepEqual(namesOnLine('"""a docstring line'), []);
});

test('the names are a JSON list in a Python string literal: no debuggee or document text becomes code', () => {
  assert.equal(inlineValuesExpression(['x', 'w']), `__import__('tf_debug_repr').inline_values("[\\"x\\",\\"w\\"]")`);
  // Whatever a name held, it stays inside the literal (namesOnLine gives identifiers only anyway).
  const hostile = inlineValuesExpression(["x'); __import__('os').system('boom'); ('", 'a@LINE@b']);
  assert.match(hostile, /^__import__\('tf_debug_repr'\)\.inline_values\(".*"\)$/);
  assert.ok(!hostile.includes('@'), '@LINE@ would cut the literal in pydevd');
  const literal = hostile.slice("__import__('tf_debug_repr').inline_values(".length, -1);
  assert.deepEqual(JSON.parse(JSON.parse(literal.replace(/\\x40/g, '@'))), ["x'); __import__('os').system('boom'); ('", 'a@LINE@b']);
});

test('decodeInlineValues keeps string answers only, and reads an error as nothing', () => {
  assert.deepEqual({ ...decodeInlineValues({ type: 'str', result: `'{"x": "float32[2] ‼ NaN×1", "n": 3}'` }) }, { x: 'float32[2] ‼ NaN×1' });
  assert.deepEqual({ ...decodeInlineValues({ type: 'AttributeError', result: 'AttributeError("no inline_values")' }) }, {});
  assert.deepEqual({ ...decodeInlineValues({ type: 'str', result: "'not json'" }) }, {});
});

class Range {
  /** @param {number} l1 @param {number} c1 @param {number} l2 @param {number} c2 */
  constructor(l1, c1, l2, c2) {
    Object.assign(this, { start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });
  }
}
class InlineValueText {
  /** @param {any} range @param {string} text */
  constructor(range, text) {
    Object.assign(this, { range, text });
  }
}

const SOURCE = [
  'import tensorflow as tf',
  'x = tf.ones([64, 10])',
  'step = 3',
  'w = tf.Variable(x)  # x again',
  'y = x * w',
  'later = y',
];

/** @param {any} answer @param {{ type?: string, enabled?: boolean }} [o] */
function setup(answer, { type = 'debugpy', enabled = true } = {}) {
  /** @type {any[]} */
  const requests = [];
  const session = {
    type,
    customRequest: async (/** @type {string} */ command, /** @type {any} */ args) => {
      requests.push({ command, args });
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  const provider = createInlineValuesProvider({ Range, InlineValueText, enabled: () => enabled, activeSession: () => session });
  const document = { lineCount: SOURCE.length, lineAt: (/** @type {number} */ l) => ({ text: SOURCE[l] }) };
  /** @param {number} first @param {number} lastInView @param {number} stopped */
  const ask = (first, lastInView, stopped) =>
    provider.provideInlineValues(
      document,
      { start: { line: first, character: 0 }, end: { line: lastInView, character: 0 } },
      { frameId: 9, stoppedLocation: { start: { line: stopped, character: 0 }, end: { line: stopped, character: 0 } } },
    );
  return { requests, ask };
}

const DOCSTRING = [
  'def train_step(x, w):',
  '    """Run one step of training on the batch',
  '    and return the loss as a tensor.',
  '',
  "    model weights are updated in place, ' is no closing quote",
  '    """',
  '    loss = x * w  # loss, not these words',
  "    note = 'a \\",
  "    continued string' + w",
  '    return loss',
];

test('a multi-line docstring and a continued string are text on every line they cover, not names', () => {
  assert.deepEqual(namesOnLines(DOCSTRING), [
    ['train_step', 'x', 'w'],
    [],
    [],
    [],
    [],
    [],
    ['loss', 'x', 'w'],
    ['note'],
    ['w'],
    ['loss'],
  ]);
  // a line read alone cannot know it is inside a docstring: the provider reads lines in order
  assert.deepEqual(namesOnLine(DOCSTRING[2]), ['the', 'loss', 'a', 'tensor']);
});

test('a docstring opened above the lines in view is still a docstring in view', async () => {
  /** @type {any[]} */
  const requests = [];
  const session = {
    type: 'debugpy',
    customRequest: async (/** @type {string} */ command, /** @type {any} */ args) => {
      requests.push({ command, args });
      return ANSWER;
    },
  };
  const provider = createInlineValuesProvider({ Range, InlineValueText, enabled: () => true, activeSession: () => session });
  const document = { lineCount: DOCSTRING.length, lineAt: (/** @type {number} */ l) => ({ text: DOCSTRING[l] }) };
  const at = (/** @type {number} */ line) => ({ line, character: 0 });
  await provider.provideInlineValues(document, { start: at(2), end: at(9) }, { frameId: 1, stoppedLocation: { start: at(9), end: at(9) } });
  assert.equal(requests.length, 1);
  assert.equal(requests[0].args.expression, inlineValuesExpression(['loss', 'x', 'w', 'note']));
});

const ANSWER = { type: 'str', result: `'{"x": "float32[64, 10] x∈[1, 1] μ=1", "w": "float32[64, 10] Variable"}'` };

test('one evaluate for the lines in view up to the stop; each line shows its TF values only', async () => {
  const { requests, ask } = setup(ANSWER);
  const values = await ask(0, 5, 4);
  assert.equal(requests.length, 1);
  assert.equal(requests[0].command, 'evaluate');
  assert.equal(requests[0].args.frameId, 9);
  assert.equal(requests[0].args.context, 'clipboard');
  // lines 0-4 (the stop), not 'later' on line 5; each name once
  assert.equal(requests[0].args.expression, inlineValuesExpression(['tensorflow', 'tf', 'x', 'step', 'w', 'y']));
  assert.deepEqual(
    values.map((v) => [v.range.start.line, v.range.start.character, v.text]),
    [
      [1, SOURCE[1].length, 'x = float32[64, 10] x∈[1, 1] μ=1'],
      [3, SOURCE[3].length, 'w = float32[64, 10] Variable · x = float32[64, 10] x∈[1, 1] μ=1'],
      [4, SOURCE[4].length, 'x = float32[64, 10] x∈[1, 1] μ=1 · w = float32[64, 10] Variable'],
    ],
  );
});

test('nothing asked when off, outside debugpy, or with no names in view; a failed request shows nothing', async () => {
  for (const o of [{ enabled: false }, { type: 'node' }]) {
    const { requests, ask } = setup(ANSWER, o);
    assert.deepEqual(await ask(0, 5, 4), []);
    assert.equal(requests.length, 0);
  }
  const empty = setup(ANSWER);
  assert.deepEqual(await empty.ask(4, 5, 2), []); // the view starts below the stop
  assert.equal(empty.requests.length, 0);
  const failed = setup(new Error('Unable to find frame'));
  assert.deepEqual(await failed.ask(0, 5, 4), []);
});

test('at most MAX_NAMES names in one request', async () => {
  const many = Array.from({ length: MAX_NAMES + 40 }, (_, i) => `v${i}`);
  const { requests } = setup({ type: 'str', result: "'{}'" });
  const provider = createInlineValuesProvider({ Range, InlineValueText, enabled: () => true, activeSession: () => ({ type: 'debugpy', customRequest: async (/** @type {string} */ c, /** @type {any} */ a) => (requests.push({ c, a }), { type: 'str', result: "'{}'" }) }) });
  const lines = many.map((n) => `${n} = 1`);
  await provider.provideInlineValues(
    { lineCount: lines.length, lineAt: (/** @type {number} */ l) => ({ text: lines[l] }) },
    { start: { line: 0, character: 0 }, end: { line: lines.length - 1, character: 0 } },
    { frameId: 1, stoppedLocation: { start: { line: lines.length - 1, character: 0 }, end: { line: lines.length - 1, character: 0 } } },
  );
  assert.equal(requests.length, 1);
  assert.equal(requests[0].a.expression, inlineValuesExpression(many.slice(0, MAX_NAMES)));
});
