// @ts-check
'use strict';
/**
 * The expressions the viewer evaluates in the debuggee: the user's expression wrapped safely,
 * the page's request as Python literals (and nothing else), the gradient row mapped to the
 * gradient tensor. Tricky cases are also parsed by a real Python (ast) when one is at hand.
 */
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const x = require('../../src/viewer/expression');

const P = "__import__('tf_debug_repr')";

test('pyLiteral: None, booleans, ints, nested lists, escaped strings', () => {
  assert.equal(x.pyLiteral(null), 'None');
  assert.equal(x.pyLiteral(undefined), 'None');
  assert.equal(x.pyLiteral(true), 'True');
  assert.equal(x.pyLiteral(-3), '-3');
  assert.equal(x.pyLiteral([0, null, [1, 2]]), '[0, None, [1, 2]]');
  assert.equal(x.pyLiteral("it's \\ \"q\"\n"), '"it\'s \\\\ \\"q\\"\\n"');
  assert.throws(() => x.pyLiteral(NaN), TypeError);
  assert.throws(() => x.pyLiteral({ a: 1 }), TypeError);
});

test('view_payload expression: the contract form, defaults as None', () => {
  assert.equal(x.viewPayloadExpression('w'), `${P}.view_payload((w), axes=None, index=None, region=None, part=None)`);
  assert.equal(
    x.viewPayloadExpression('  model.layers[0].kernel ', { axes: [0, 1], index: [0, 0, 3], region: [[0, 64], [2, 10]], part: 'angle' }),
    `${P}.view_payload((model.layers[0].kernel), axes=[0, 1], index=[0, 0, 3], region=[[0, 64], [2, 10]], part="angle")`,
  );
  assert.equal(x.viewPayloadExpression('x', { axes: [-2, -1], index: [null, 4, null] }), `${P}.view_payload((x), axes=[-2, -1], index=[None, 4, None], region=None, part=None)`);
  // What a 1-D value's payload says of its axes comes back from the page as it is.
  assert.equal(x.viewPayloadExpression('v', { axes: [null, 0], region: [[0, 1], [10, 20]] }), `${P}.view_payload((v), axes=[None, 0], index=None, region=[[0, 1], [10, 20]], part=None)`);
});

test('the user expression: precedence kept, a trailing comment or line break cannot swallow the rest', () => {
  assert.equal(x.wrapExpression('a if c else b'), '(a if c else b)');
  assert.equal(x.wrapExpression('x  # the input'), '(x  # the input\n)');
  assert.equal(x.wrapExpression('(a +\n b)'), '((a +\n b)\n)');
  assert.throws(() => x.wrapExpression('   '), /no expression/);
});

test('request arguments are checked: only ints, None and the known parts get through', () => {
  const bad = [
    { axes: [0] },
    { axes: [0, '1); import os; (1'] },
    { axes: [0, 1.5] },
    { index: 'all' },
    { index: [0, 'x'] },
    { region: [[0, 1]] },
    { region: [[0, 1], [0, '2']] },
    { part: 'imag); os.system("x"' },
  ];
  for (const r of bad) assert.throws(() => x.viewPayloadExpression('w', /** @type {any} */ (r)), TypeError, JSON.stringify(r));
  // Hostile sizes from the page: a huge index list, integers past 2**53 (String() gives 1e+300).
  for (const r of [{ index: new Array(255).fill(0) }, { index: new Array(10_000_000).fill(0) }, { axes: [1e300, 0] }, { region: [[0, 2 ** 60], [0, 1]] }]) {
    assert.throws(() => x.viewPayloadExpression('w', /** @type {any} */ (r)), TypeError);
  }
  assert.ok(x.viewPayloadExpression('w', { index: new Array(254).fill(null) }).length < 2_000);
  for (const part of x.PARTS) assert.match(x.viewPayloadExpression('w', { part }), new RegExp(`part="${part}"\\)$`));
});

test('save_npy expression: any path as an escaped literal (quotes, backslashes, unicode)', () => {
  assert.equal(x.saveNpyExpression('w', '/tmp/w.npy'), `${P}.save_npy((w), "/tmp/w.npy")`);
  assert.equal(x.saveNpyExpression('w', 'C:\\Users\\O\'Brien\\'), `${P}.save_npy((w), "C:\\\\Users\\\\O'Brien\\\\")`);
  assert.throws(() => x.saveNpyExpression('w', ''), TypeError);
  assert.equal(x.historyCompareExpression('model.layers[0].kernel', 2, 7), `${P}.view_history_compare((model.layers[0].kernel), 2, 7)`);
  for (const bad of ['1', 1.5, null, 1e300, '1); import os; (']) {
    assert.throws(() => x.historyCompareExpression('w', /** @type {any} */ (bad), 3), TypeError);
    assert.throws(() => x.historyCompareExpression('w', 3, /** @type {any} */ (bad)), TypeError);
  }
  assert.ok(!x.saveNpyExpression('w', '/tmp/a@LINE@b.npy').includes('@LINE@'), 'pydevd turns @LINE@ into a line break');
});

test('gradient_of for Compare, and the gradient row viewed as the gradient tensor', () => {
  assert.equal(x.gradientOfExpression('model.layers[0].kernel'), `${P}.gradient_of(model.layers[0].kernel)`);
  assert.equal(x.viewableExpression(`${P}.gradient_info(weights)`), `${P}.gradient_of(weights)`);
  assert.equal(x.viewableExpression(`__import__("tf_debug_repr").gradient_info(m.w[0])`), `${P}.gradient_of(m.w[0])`);
  // Rows under the gradient keep their own expressions (they end in ')' but are not the record).
  for (const e of [`${P}.gradient_info(weights).gradient.numpy()`, `${P}.gradient_info(weights).gradient[0]`, 'weights', 'f(a)(b)']) {
    assert.equal(x.viewableExpression(e), e);
  }
});

test('targetOf: the Variables/Watch argument gives the evaluateName, never the display name', () => {
  const fromVariables = { sessionId: 's', container: { name: 'Locals', variablesReference: 1, expensive: false }, variable: { name: '[0]', evaluateName: 'weights[0]', value: '…', variablesReference: 20 } };
  assert.deepEqual(x.targetOf(fromVariables), { from: 'variable', sessionId: 's', name: '[0]', expression: 'weights[0]' });
  const gradientRow = { sessionId: 's', variable: { name: '∇ gradient', evaluateName: `${P}.gradient_info(weights)`, variablesReference: 19 } };
  assert.equal(/** @type {any} */ (x.targetOf(gradientRow)).expression, `${P}.gradient_of(weights)`);
  // A watch expression (VS Code 1.103+: {sessionId, variable} with evaluateName = the expression).
  assert.deepEqual(x.targetOf({ sessionId: 's', variable: { name: 'x * 2', evaluateName: 'x * 2', type: 'EagerTensor', value: '', variablesReference: 4 } }), {
    from: 'variable', sessionId: 's', name: 'x * 2', expression: 'x * 2',
  });
  const missing = x.targetOf({ sessionId: 's', variable: { name: 'special variables', value: '', variablesReference: 3 } });
  assert.ok('error' in missing && /"special variables" has no expression/.test(missing.error));
  assert.deepEqual(x.targetOf(undefined), { from: 'editor' });
  assert.deepEqual(x.targetOf({ scheme: 'file', path: '/a.py' }), { from: 'editor' }); // editor/context passes the Uri
});

test('expressionAt: the dotted name with subscripts under the cursor', () => {
  const line = '    y = self.dense.kernel[0] @ grads[i, :] + 1  # if';
  assert.equal(x.expressionAt(line, 4), 'y');
  assert.equal(x.expressionAt(line, 10), 'self.dense.kernel[0]');
  assert.equal(x.expressionAt(line, 36), 'grads[i, :]');
  assert.equal(x.expressionAt(line, 30), undefined, 'on an operator');
  assert.equal(x.expressionAt(line, 50), undefined, 'a keyword is no expression');
});

test('titles and file names', () => {
  assert.equal(x.titleFor(`${P}.gradient_of(weights)`), '∇ weights');
  assert.equal(x.titleFor('a'.repeat(80)).length, 60);
  assert.equal(x.npyFileName('model.layers[0].kernel'), 'model.layers_0_.kernel.npy');
  assert.equal(x.npyFileName(`${P}.gradient_of(w)`), 'w_gradient.npy');
  assert.equal(x.npyFileName('!!'), 'tensor.npy');
});

/** The plugin's module path in rows' expressions, as the Python side writes it (view_model.FACADE). */
function facade() {
  const file = path.resolve(__dirname, '..', '..', '..', 'src', 'tf_debug_repr', 'core', 'view_model.py');
  const m = /^FACADE = "(.*)"$/m.exec(fs.readFileSync(file, 'utf8'));
  assert.ok(m, 'view_model.py defines FACADE');
  return m[1];
}

test("a layer's → output row is titled by its layer, not the plugin's call", () => {
  const F = facade();
  assert.equal(F, "__import__('tf_debug_repr._expr', fromlist=['_'])");
  // the row's expression as views/activations.py builds it, one output and the third of several
  assert.equal(x.titleFor(`${F}.activation(model.layers[1])`), 'model.layers[1] → output');
  assert.equal(x.titleFor(`${F}.activation(net.blocks[0], 2)`), 'net.blocks[0] → output[2]');
  assert.equal(x.titleFor(`${P}.layer_output(model.get_layer('a, b'))`), "model.get_layer('a, b') → output");
  assert.equal(x.titleFor(`${F}.activation(f(a, b))`), 'f(a, b) → output', 'a comma inside a call is no index');
  const long = x.titleFor(`${F}.activation(${'m.'.repeat(40)}layer)`);
  assert.equal(long.length, 60);
  assert.ok(long.endsWith('… → output'), long);
  // not a layer output: the expression as it is
  assert.equal(x.titleFor(`${F}.activation(a) + 1`), `${F}.activation(a) + 1`.slice(0, 59) + '…');
  assert.equal(x.titleFor(`${F}.activation(a, b)`).endsWith('…'), true, 'a non-literal index is left alone');
  assert.equal(x.titleFor(`${F}.last_step(model)`).startsWith('__import__'), true);
  assert.equal(x.npyFileName(`${F}.activation(model.layers[1])`), 'model.layers_1_output.npy');
  assert.equal(x.npyFileName(`${F}.activation(model.layers[1], 2)`), 'model.layers_1_output_2.npy');
});

/** A Python to parse with: the repository's venv, else python3 on PATH, else none. */
function python() {
  const venv = path.resolve(__dirname, '..', '..', '..', '.venv', 'bin', 'python');
  if (fs.existsSync(venv)) return venv;
  const r = cp.spawnSync('python3', ['-c', 'pass']);
  return r.status === 0 ? 'python3' : undefined;
}

test('what the builder makes is one Python call with the intended arguments', { skip: !python() && 'no Python here' }, () => {
  const cases = [
    [x.viewPayloadExpression('x  # note', { axes: [0, 1], index: [null, 2], part: 'real' }), 'view_payload', 'x'],
    [x.viewPayloadExpression('(a +\n b)[0]'), 'view_payload', '(a + b)[0]'],
    [x.saveNpyExpression('w', 'C:\\dir\\it\'s "q" ∇.npy'), 'save_npy', 'w'],
    [x.gradientOfExpression('m.w # c'), 'gradient_of', 'm.w'],
    [x.saveNpyExpression('w', '/tmp/a@LINE@b\\@LINE@".npy'), 'save_npy', 'w'],
  ];
  const script = `
import ast, json, sys
for src in json.load(sys.stdin):
    src = src.replace("@LINE@", "\\n")  # what pydevd does to every evaluated expression
    call = ast.parse(src, mode="eval").body
    assert isinstance(call, ast.Call), src
    print(json.dumps([call.func.attr, ast.unparse(call.args[0]), [ast.literal_eval(a) for a in call.args[1:]], {k.arg: ast.literal_eval(k.value) for k in call.keywords}]))
`;
  const r = cp.spawnSync(/** @type {string} */ (python()), ['-c', script], { input: JSON.stringify(cases.map((c) => c[0])), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const parsed = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(parsed[0], ['view_payload', 'x', [], { axes: [0, 1], index: [null, 2], region: null, part: 'real' }]);
  assert.deepEqual(parsed[1].slice(0, 2), ['view_payload', cases[1][2]]);
  assert.deepEqual(parsed[2], ['save_npy', 'w', ['C:\\dir\\it\'s "q" ∇.npy'], {}]);
  assert.deepEqual(parsed[3], ['gradient_of', 'm.w', [], {}]);
  assert.deepEqual(parsed[4], ['save_npy', 'w', ['/tmp/a@LINE@b\\@LINE@".npy'], {}], 'a path holding @LINE@ survives pydevd');
});

test('isDefaultRequest: every field None', () => {
  assert.equal(x.isDefaultRequest({}), true);
  assert.equal(x.isDefaultRequest({ axes: null, index: null, region: null, part: null }), true);
  assert.equal(x.isDefaultRequest({ axes: [0, 1] }), false);
});
