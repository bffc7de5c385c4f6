// @ts-check
'use strict';
/**
 * Zero-install: with an interpreter where tf-debug-repr is NOT importable, the bundled folder
 * the resolver puts on PYTHONPATH is what makes tensors show the plugin's summary (checked
 * against the same program with the setting off, which must show the stock repr).
 * And a user who pip-installed tf-debug-repr gets that copy, not the bundled one, with no clash.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { test, before } = require('node:test');
const { getTemplate } = require('../../src/launch/templates');
const h = require('./harness');
const envs = require('./envs');

const PROGRAM = path.join(h.FIXTURES, 'tf_program.py');
const line = h.lineOf(PROGRAM, 'BREAK-HERE');

/** @type {{ python: string, sitePackages: string }} */
let noPlugin;
/** @type {{ python: string, sitePackages: string }} */
let pipCopy;

before(() => {
  noPlugin = envs.buildEnv('no-plugin');
  pipCopy = envs.buildEnv('pip-copy');
});

/**
 * @param {string} python @param {boolean} bundledPlugin
 * @returns {Promise<{ value: string, tfDebugRepr: string, sysPath: string, output: string }>}
 */
async function weightsValue(python, bundledPlugin) {
  const config = h.resolveAsVSCode(getTemplate('currentFile').configurations[0], { file: PROGRAM, python, bundledPlugin });
  const s = new h.Session();
  try {
    const stopped = await s.start('launch', config, [{ path: PROGRAM, lines: [line] }]);
    const { top } = await s.topFrame(stopped.body.threadId);
    const vars = await s.locals(top.id);
    const value = vars.weights.value;
    const tfDebugRepr = await s.evaluate('str(getattr(__import__("sys").modules.get("tf_debug_repr"), "__file__", None))', top.id);
    const sysPath = await s.evaluate('__import__("os").pathsep.join(__import__("sys").path)', top.id);
    await s.finish(stopped.body.threadId);
    return { value, tfDebugRepr, sysPath, output: s.terminalOutput() };
  } finally {
    await s.close();
  }
}

test('the "no-plugin" interpreter really lacks tf-debug-repr, and has TensorFlow and debugpy', () => {
  assert.equal(envs.whereIsTfDebugRepr(noPlugin.python, h.FIXTURES), null);
  const where = envs.whereIsTfDebugRepr(pipCopy.python, h.FIXTURES);
  assert.ok(where && where.startsWith(pipCopy.sitePackages), `pip-copy interpreter imports its own copy: ${where}`);
});

test('zero-install: with only the bundled folder on PYTHONPATH a tensor shows the plugin summary', { timeout: h.TIMEOUT * 3 }, async () => {
  const off = await weightsValue(noPlugin.python, false);
  assert.ok(off.value.startsWith(h.STOCK_REPR), `control, setting off: stock repr expected, got ${off.value}`);
  assert.equal(off.tfDebugRepr, "'None'", 'tf_debug_repr not imported at all');

  const on = await weightsValue(noPlugin.python, true);
  assert.ok(!on.value.startsWith(h.STOCK_REPR), `plugin summary expected, got ${on.value}`);
  assert.match(on.value, /float32/);
  assert.match(on.value, /2,\s*3/);
  assert.ok(on.tfDebugRepr.includes(path.join(h.BUNDLE_DIR, 'lib', 'tf_debug_repr')), `bundled copy imported: ${on.tfDebugRepr}`);
  assert.doesNotMatch(on.output, /plugin disabled/);
  assert.match(on.output, /TFDR-FIXTURE-END 4\.0/);
});

test('a pip-installed tf-debug-repr is used instead of the bundled copy, without a clash', { timeout: h.TIMEOUT * 2 }, async () => {
  const r = await weightsValue(pipCopy.python, true);
  assert.ok(!r.value.startsWith(h.STOCK_REPR), `plugin summary expected, got ${r.value}`);
  assert.ok(r.tfDebugRepr.includes(path.join(pipCopy.sitePackages, 'tf_debug_repr')), `installed copy imported: ${r.tfDebugRepr}`);
  assert.ok(!r.sysPath.includes(path.join(h.BUNDLE_DIR, 'lib')), 'bundled lib/ not added to sys.path');
  assert.doesNotMatch(r.output, /plugin disabled|Traceback/);
});
