// @ts-check
'use strict';
/** Which DAP rows the tracker tags for "View Tensor" (type strings as a real debugpy session reports them). */
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { MENU_CONTEXT, VIEWABLE_TYPES, WATCH_TYPE_PATTERN, menuContextFor, tagVariables } = require('../../src/viewer/types');

/** Rows as debugpy 1.8.22 with the plugin answered `variables` for test/fixtures/viewer_program.py. */
const SEEN = [
  { name: 'tensor', type: 'EagerTensor', value: 'float32[3, 4] x∈[0, 11] μ=5.5 σ=3.452 n=12 CPU:0', evaluateName: 'tensor', variablesReference: 17 },
  { name: 'weights', type: 'ResourceVariable', value: "float32[2, 2] x∈[-2, 3] μ=0.5 σ=1.803 n=4 CPU:0 [[-2., 1.], [0., 3.]] Variable 'weights'", evaluateName: 'weights', variablesReference: 18 },
  { name: 'kernel', type: 'Variable', value: "float32[2, 3] x∈[-0.8115, 0.9585] μ=0.1 σ=0.6 n=6 CPU:0 ∇‖g‖=0.3@Adam iteration 1 Variable 'dense/kernel'", evaluateName: 'kernel', variablesReference: 9 },
  { name: 'mirrored', type: 'MirroredVariable', value: "MirroredVariable 'mirrored' replicas equal, 2 replicas", evaluateName: 'mirrored', variablesReference: 12 },
  { name: '∇ gradient', type: 'GradientInfo', value: '∇ tape call #1 ‖g‖=7.55', evaluateName: "__import__('tf_debug_repr').gradient_info(weights)", variablesReference: 19 },
  { name: 'array', type: 'ndarray', value: 'array([[0., 1., 2.],\n       [3., 4., 5.]])', evaluateName: 'array', variablesReference: 6 },
  { name: 'values', type: 'TensorArray', value: 'TensorArray float32 size=3 element_shape=[], 3 of 3 written, dynamic size', evaluateName: 'values', variablesReference: 21 },
];
const NOT = [
  { name: 'count', type: 'int', value: '3', variablesReference: 0 },
  { name: 'label', type: 'str', value: "'not a tensor'", variablesReference: 0 },
  { name: 'numbers', type: 'list', value: '[1.0, 2.0]', variablesReference: 13 },
  { name: 'shape', type: 'TensorShape', value: 'TensorShape [3, 4] rank 2 n=12', variablesReference: 14 },
  { name: 'layer', type: 'Dense', value: "9 params → [None, 3]: kernel[2, 3] bias[3], Dense 'dense'", variablesReference: 10 },
  { name: 'tape', type: 'GradientTape', value: 'used, watches 2 variables, GradientTape', variablesReference: 16 },
  { name: 'shape', type: 'Note', value: '(2, 2)', variablesReference: 0 },
  { name: 'x', type: 'Variable', value: 'x', variablesReference: 2 }, // e.g. sympy's Variable
  { name: 'y', variablesReference: 0, value: '1' }, // no type at all
  // Rows of a viewable type that hold no numbers to draw (the contract's no_numbers)
  { name: 'text_batch', type: 'EagerTensor', value: "string[32] n=32 CPU:0 [b'a film', b'the plot']", variablesReference: 22 },
  { name: 'word', type: 'EagerTensor', value: "b'hello' string CPU:0", variablesReference: 23 },
  { name: 'handle', type: 'EagerTensor', value: 'resource[] CPU:0 (a handle: no values to show)', variablesReference: 24 },
  { name: 'numpy', type: 'ndarray', value: "array([b'a film', b'the plot'], dtype=object)", variablesReference: 25 },
  { name: 'labels', type: 'ndarray', value: "array(['cat', 'dog'], dtype='<U3')", variablesReference: 26 },
  { name: 'tokens', type: 'RaggedTensor', value: 'RaggedTensor string[2, None] rows=2 ragged_rank=1 values: string[3]', variablesReference: 27 },
];

test('TF and numpy array rows get the menu context, others none', () => {
  for (const v of SEEN) assert.equal(menuContextFor(v), MENU_CONTEXT, v.type);
  for (const v of NOT) assert.equal(menuContextFor(v), undefined, `${v.type}: ${v.value}`);
  // Keras's own repr (stock debugpy, no plugin) still reads as a variable.
  assert.equal(menuContextFor({ type: 'Variable', value: '<Variable path=dense/kernel, shape=(2, 3), dtype=float32, value=[...]>' }), MENU_CONTEXT);
});

test('tagVariables tags a variables response in place and counts', () => {
  const message = { type: 'response', command: 'variables', success: true, body: { variables: structuredClone([...SEEN, ...NOT]) } };
  assert.equal(tagVariables(message), SEEN.length);
  const tagged = message.body.variables.filter((/** @type {any} */ v) => v.__vscodeVariableMenuContext === MENU_CONTEXT).map((v) => v.name);
  assert.deepEqual(tagged, SEEN.map((v) => v.name));
  // Everything else about the rows is untouched.
  assert.deepEqual(
    message.body.variables.map((/** @type {any} */ { __vscodeVariableMenuContext, ...rest }) => rest),
    [...SEEN, ...NOT],
  );
});

test('tagVariables leaves other messages and an adapter-set context alone', () => {
  const own = { type: 'response', command: 'variables', success: true, body: { variables: [{ name: 'a', type: 'ndarray', value: '', variablesReference: 1, __vscodeVariableMenuContext: 'adapter' }] } };
  assert.equal(tagVariables(own), 0);
  assert.equal(own.body.variables[0].__vscodeVariableMenuContext, 'adapter');
  for (const m of [
    { type: 'response', command: 'evaluate', success: true, body: { result: 'x', type: 'EagerTensor', variablesReference: 3 } },
    { type: 'response', command: 'variables', success: false, message: 'boom' },
    { type: 'event', event: 'stopped', body: { threadId: 1 } },
    { type: 'response', command: 'variables', success: true, body: {} },
    null,
  ]) {
    const before = structuredClone(m);
    assert.equal(tagVariables(m), 0);
    assert.deepEqual(m, before);
  }
});

test('the Watch pane pattern is exactly the tagged type names', () => {
  const re = new RegExp(WATCH_TYPE_PATTERN);
  for (const t of [...VIEWABLE_TYPES, 'Variable']) assert.ok(re.test(t), t);
  for (const t of ['int', 'Tensor', 'EagerTensor2', 'xndarray', 'TensorShape', '']) assert.ok(!re.test(t), t);
});
