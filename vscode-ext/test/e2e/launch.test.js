// @ts-check
'use strict';
/**
 * Each launch template, resolved as VS Code would, started with a real debugpy adapter on a
 * small TensorFlow program: it stops at the breakpoint, the stack and variables are right,
 * and the program's output reaches the (stand-in) integrated terminal.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');
const { getTemplate } = require('../../src/launch/templates');
const h = require('./harness');

const PROGRAM = path.join(h.FIXTURES, 'tf_program.py');

/**
 * Common checks for a launch with console integratedTerminal: the adapter asked for a terminal,
 * and the program (the debuggee, not the launcher) got the bundled folder first on PYTHONPATH
 * and the template's env.
 * @param {import('./harness').Session} s @param {any} config @param {number} frameId
 */
async function assertLaunchedInTerminal(s, config, frameId) {
  assert.equal(s.runInTerminalRequests.length, 1, 'the adapter asked the client to run the program in its terminal');
  assert.equal(s.runInTerminalRequests[0].kind, 'integrated');
  const pp = JSON.parse(await s.evaluate('__import__("json").dumps(__import__("os").environ.get("PYTHONPATH", ""))', frameId).then((r) => r.replace(/^'|'$/g, '')));
  assert.equal(pp.split(path.delimiter)[0], h.BUNDLE_DIR, `bundled folder first on the debuggee's PYTHONPATH: ${pp}`);
  for (const [k, v] of Object.entries(config.env ?? {})) {
    if (k === 'PYTHONPATH') continue;
    const got = await s.evaluate(`__import__("os").environ.get(${JSON.stringify(k)})`, frameId);
    assert.equal(got, `'${v}'`, `env ${k} reached the program`);
  }
}

test('template "currentFile": stops at the breakpoint, tensors shown, output in the terminal', { timeout: h.TIMEOUT * 2 }, async () => {
  const config = h.resolveAsVSCode(getTemplate('currentFile').configurations[0], { file: PROGRAM });
  assert.equal(config.program, PROGRAM);
  const s = new h.Session();
  try {
    const line = h.lineOf(PROGRAM, 'BREAK-HERE');
    const stopped = await s.start('launch', config, [{ path: PROGRAM, lines: [line] }]);
    assert.equal(stopped.body.reason, 'breakpoint');
    const { top } = await s.topFrame(stopped.body.threadId);
    assert.equal(top.line, line);
    assert.equal(path.resolve(top.source?.path ?? ''), PROGRAM);
    const vars = await s.locals(top.id);
    assert.ok(vars.weights, 'weights is a local');
    assert.equal(vars.weights.type, 'EagerTensor');
    assert.ok(!vars.weights.value.startsWith(h.STOCK_REPR), `plugin summary, not the stock repr: ${vars.weights.value}`);
    assert.match(vars.weights.value, /float32/);
    assert.match(vars.weights.value, /2,\s*3/);
    await assertLaunchedInTerminal(s, config, top.id);
    await s.finish(stopped.body.threadId);
    const out = s.terminalOutput();
    assert.match(out, /TFDR-FIXTURE-START/);
    assert.match(out, /TFDR-TF-PRINT 4/);
    assert.match(out, /TFDR-FIXTURE-END 4\.0/);
    assert.doesNotMatch(out, /cpu_feature_guard|This TensorFlow binary is optimized/, 'TF_CPP_MIN_LOG_LEVEL=1 hides the C++ INFO lines');
  } finally {
    await s.close();
  }
});

test('template "module": python -m <module> from the workspace folder', { timeout: h.TIMEOUT * 2 }, async () => {
  const file = path.join(h.FIXTURES, 'tfdr_fixture_pkg', 'train.py');
  const config = h.resolveAsVSCode(getTemplate('module', { module: 'tfdr_fixture_pkg.train' }).configurations[0], {});
  assert.equal(config.module, 'tfdr_fixture_pkg.train');
  assert.equal(config.cwd, h.FIXTURES);
  const s = new h.Session();
  try {
    const line = h.lineOf(file, 'BREAK-HERE');
    const stopped = await s.start('launch', config, [{ path: file, lines: [line] }]);
    const { top, frames } = await s.topFrame(stopped.body.threadId);
    assert.equal(top.name, 'train_step');
    assert.equal(top.line, line);
    assert.ok(frames.some((f) => f.name === '<module>' && f.source?.path && path.resolve(f.source.path) === file), 'caller frame is the module body');
    const vars = await s.locals(top.id);
    assert.equal(vars.y.type, 'EagerTensor');
    assert.ok(!vars.y.value.startsWith(h.STOCK_REPR), `plugin summary: ${vars.y.value}`);
    await assertLaunchedInTerminal(s, config, top.id);
    await s.finish(stopped.body.threadId);
    assert.match(s.terminalOutput(), /TFDR-MODULE-START __main__/);
    assert.match(s.terminalOutput(), /TFDR-MODULE-END 4\.66/);
  } finally {
    await s.close();
  }
});

test('template "pytestFile": pytest on the active file stops inside the test', { timeout: h.TIMEOUT * 2 }, async () => {
  const file = path.join(h.FIXTURES, 'test_tf_fixture.py');
  const template = getTemplate('pytestFile').configurations[0];
  assert.deepEqual(template.purpose, ['debug-test']);
  const config = h.resolveAsVSCode(template, { file });
  assert.deepEqual(config.args, [file]);
  const s = new h.Session();
  try {
    const line = h.lineOf(file, 'BREAK-HERE');
    const stopped = await s.start('launch', config, [{ path: file, lines: [line] }]);
    const { top } = await s.topFrame(stopped.body.threadId);
    assert.equal(top.name, 'test_matmul_shape');
    assert.equal(top.line, line);
    const vars = await s.locals(top.id);
    assert.ok(!vars.a.value.startsWith(h.STOCK_REPR), `plugin summary: ${vars.a.value}`);
    await assertLaunchedInTerminal(s, config, top.id);
    await s.finish(stopped.body.threadId);
    assert.match(s.terminalOutput(), /1 passed/);
  } finally {
    await s.close();
  }
});

test('template "stepIntoLibraries": justMyCode false, Step Into enters TensorFlow source', { timeout: h.TIMEOUT * 2 }, async () => {
  const config = h.resolveAsVSCode(getTemplate('stepIntoLibraries').configurations[0], { file: PROGRAM });
  assert.equal(config.justMyCode, false);
  const s = new h.Session();
  try {
    const line = h.lineOf(PROGRAM, 'STEP-INTO-HERE');
    const stopped = await s.start('launch', config, [{ path: PROGRAM, lines: [line] }]);
    const threadId = stopped.body.threadId;
    assert.equal((await s.topFrame(threadId)).top.line, line);
    const next = s.dc.waitForEvent('stopped');
    await s.dc.stepInRequest({ threadId });
    await next;
    const { top } = await s.topFrame(threadId);
    assert.match(top.source?.path ?? '', /[\\/](tensorflow|keras)[\\/]/, `stepped into library code: ${top.source?.path}`);
    await assertLaunchedInTerminal(s, config, top.id);
    await s.finish(threadId);
    assert.match(s.terminalOutput(), /TFDR-FIXTURE-END 4\.0/);
  } finally {
    await s.close();
  }
});

test('template "eager": a breakpoint inside a @tf.function body is hit with eager tensors', { timeout: h.TIMEOUT * 2 }, async () => {
  const file = path.join(h.FIXTURES, 'eager_program.py');
  const config = h.resolveAsVSCode(getTemplate('eager').configurations[0], { file });
  assert.equal(config.env.TF_DEBUG_REPR_EAGER, '1');
  const s = new h.Session();
  try {
    const line = h.lineOf(file, 'BREAK-HERE');
    const stopped = await s.start('launch', config, [{ path: file, lines: [line] }]);
    const { top } = await s.topFrame(stopped.body.threadId);
    assert.equal(top.name, 'scaled');
    assert.equal(top.line, line);
    const vars = await s.locals(top.id);
    assert.equal(vars.doubled.type, 'EagerTensor', 'the body runs eagerly (not traced into a graph)');
    await assertLaunchedInTerminal(s, config, top.id);
    await s.finish(stopped.body.threadId);
    assert.match(s.terminalOutput(), /TFDR-EAGER-END \[1\.0, 3\.0\]/);
  } finally {
    await s.close();
  }
});
