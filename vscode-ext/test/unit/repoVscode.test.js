// @ts-check
'use strict';
/** The repository's own .vscode/ files: valid JSONC, made from the templates, pointing at real files. */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const { parseLaunchJson } = require('../../src/launch/launchJson');
const { getTemplate } = require('../../src/launch/templates');

const REPO = path.resolve(__dirname, '..', '..', '..');
const read = (/** @type {string} */ f) => parseLaunchJson(fs.readFileSync(path.join(REPO, '.vscode', f), 'utf8'));

test('.vscode/launch.json: demo program and test suite, template settings, existing targets', () => {
  const launch = read('launch.json');
  const names = launch.configurations.map((/** @type {any} */ c) => c.name);
  assert.equal(new Set(names).size, names.length);
  const keys = Object.keys(getTemplate('currentFile').configurations[0]).sort();
  for (const c of launch.configurations) {
    assert.equal(c.type, 'debugpy');
    assert.equal(c.console, 'integratedTerminal');
    for (const k of keys) if (k !== 'program') assert.ok(k in c, `${c.name} has ${k} like the templates`);
    if (c.program && !c.program.includes('${file}')) {
      const p = c.program.replace('${workspaceFolder}', REPO);
      assert.ok(fs.existsSync(p), `${c.name}: ${p} exists`);
    }
  }
  assert.ok(launch.configurations.some((/** @type {any} */ c) => /examples[\\/]demo\.py$/.test(c.program ?? '')), 'debugs the demo');
  const suite = launch.configurations.find((/** @type {any} */ c) => c.module === 'pytest' && c.args?.[0] === 'tests');
  assert.ok(suite, 'debugs the test suite');
  assert.deepEqual(suite.purpose, ['debug-test']);
  assert.ok(fs.existsSync(path.join(REPO, 'tests')));
  assert.equal(launch.configurations.find((/** @type {any} */ c) => /eagerly/.test(c.name))?.env.TF_DEBUG_REPR_EAGER, '1');
});

test('.vscode/settings.json and extensions.json', () => {
  const settings = read('settings.json');
  assert.equal(settings['python.testing.pytestEnabled'], true);
  assert.deepEqual(settings['python.testing.pytestArgs'], ['tests']);
  assert.deepEqual(read('extensions.json').recommendations, ['ms-python.python', 'ms-python.debugpy']);
});
