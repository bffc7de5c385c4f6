// @ts-check
'use strict';
/**
 * The "stop where a NaN is born" template, from the extension alone: an interpreter where
 * tf-debug-repr is NOT installed, the bundled folder on PYTHONPATH (what the .vsix ships), VS
 * Code's default exception breakpoint ("Uncaught Exceptions" only: "User Uncaught Exceptions" is off
 * by default). The stop is at the user's line of the op, not inside
 * TensorFlow or the bundled plugin; with the "Current File" template the program runs through.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { test, before } = require('node:test');
const { getTemplate } = require('../../src/launch/templates');
const h = require('./harness');
const envs = require('./envs');

const PROGRAM = path.join(h.FIXTURES, 'nan_program.py');
const VS_CODE_DEFAULT_FILTERS = ['uncaught'];

/** @type {{ python: string, sitePackages: string }} */
let noPlugin;

before(() => {
  noPlugin = envs.buildEnv('no-plugin');
});

test('NaN template from the bundled plugin stops at the line whose op made the NaN', { timeout: h.TIMEOUT * 2 }, async () => {
  const config = h.resolveAsVSCode(getTemplate('checkNumerics').configurations[0], { file: PROGRAM, python: noPlugin.python, bundledPlugin: true });
  const s = new h.Session({ python: noPlugin.python, exceptionFilters: VS_CODE_DEFAULT_FILTERS });
  try {
    const stopped = await s.start('launch', config, []);
    assert.equal(stopped.body.reason, 'exception');
    const { top } = await s.topFrame(stopped.body.threadId);
    assert.equal(top.name, 'normalise');
    assert.equal(top.line, h.lineOf(PROGRAM, 'NAN BORN HERE'));
    const info = await s.dc.customRequest('exceptionInfo', { threadId: stopped.body.threadId });
    assert.match(info.body.description, /op RealDiv on CPU:0: .* has NaN×2 of 6, first at \[2, 0\]/);
    const where = await s.evaluate('__import__("tf_debug_repr").__file__', top.id);
    assert.ok(where.includes(h.BUNDLE_DIR), `the bundled copy answered: ${where}`);
  } finally {
    await s.close();
  }
});

test('the everyday template (no switch) runs the same program to its end', { timeout: h.TIMEOUT * 2 }, async () => {
  const config = h.resolveAsVSCode(getTemplate('currentFile').configurations[0], { file: PROGRAM, python: noPlugin.python, bundledPlugin: true });
  const s = new h.Session({ python: noPlugin.python, exceptionFilters: VS_CODE_DEFAULT_FILTERS });
  try {
    const terminated = s.dc.waitForEvent('terminated');
    await s.dc.start();
    await s.dc.initializeRequest({ adapterID: 'debugpy', clientID: 'vscode', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path', supportsRunInTerminalRequest: true });
    const launched = s.dc.launchRequest(/** @type {any} */ (config));
    await s.dc.waitForEvent('initialized');
    await s.dc.setExceptionBreakpointsRequest({ filters: VS_CODE_DEFAULT_FILTERS });
    await s.dc.configurationDoneRequest();
    await launched;
    await terminated;
    await Promise.all(s.terminals.map((t) => t.exited));
    assert.match(s.terminalOutput(), /finite total 4\.0/);
  } finally {
    await s.close();
  }
});
