// @ts-check
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const p = require('../../src/launch/pythonPath');

const POSIX_DIR = '/home/u/.vscode/extensions/tf-debug-repr-0.1.0/python';
const WIN_DIR = 'C:\\Users\\u\\.vscode\\extensions\\tf-debug-repr-0.1.0\\python';
// Both folders the resolver adds: the bundle, then its pydevd16/ (debugpy 1.6.x, pkg_resources).
const POSIX_BOTH = `${POSIX_DIR}:${POSIX_DIR}/pydevd16`;
const WIN_BOTH = `${WIN_DIR};${WIN_DIR}\\pydevd16`;

test('separator per OS', () => {
  assert.equal(p.delimiterFor('win32'), ';');
  assert.equal(p.delimiterFor('linux'), ':');
  assert.equal(p.delimiterFor('darwin'), ':');
});

test('prepend: empty, keeps the user value, posix and win32', () => {
  assert.equal(p.prependPythonPath(undefined, POSIX_DIR, 'linux'), POSIX_DIR);
  assert.equal(p.prependPythonPath('', POSIX_DIR, 'linux'), POSIX_DIR);
  assert.equal(p.prependPythonPath('/a:/b', POSIX_DIR, 'linux'), `${POSIX_DIR}:/a:/b`);
  assert.equal(p.prependPythonPath('C:\\a;D:\\b', WIN_DIR, 'win32'), `${WIN_DIR};C:\\a;D:\\b`);
  // A Windows path has a colon in it: split on ';' only there.
  assert.equal(p.prependPythonPath('C:\\a', WIN_DIR, 'win32').split(';').length, 2);
  // The user's value is kept byte for byte, empty entries included.
  assert.equal(p.prependPythonPath('/a::/b:', POSIX_DIR, 'linux'), `${POSIX_DIR}:/a::/b:`);
});

test('prepend is idempotent and recognises the folder already present anywhere', () => {
  const once = p.prependPythonPath('/a', POSIX_DIR, 'linux');
  assert.equal(p.prependPythonPath(once, POSIX_DIR, 'linux'), once);
  assert.equal(p.prependPythonPath(`/a:${POSIX_DIR}/`, POSIX_DIR, 'linux'), `/a:${POSIX_DIR}/`);
  const w = p.prependPythonPath('C:\\a', WIN_DIR, 'win32');
  assert.equal(p.prependPythonPath(w, WIN_DIR, 'win32'), w);
  assert.equal(p.prependPythonPath(WIN_DIR.toLowerCase().replace(/\\/g, '/'), WIN_DIR, 'win32'), WIN_DIR.toLowerCase().replace(/\\/g, '/'));
  // Case matters on posix.
  assert.equal(p.prependPythonPath(POSIX_DIR.toUpperCase(), POSIX_DIR, 'linux'), `${POSIX_DIR}:${POSIX_DIR.toUpperCase()}`);
});

const opts = { bundledPlugin: true, bundleDir: POSIX_DIR, platform: /** @type {NodeJS.Platform} */ ('linux') };

test('resolve: launch sessions get the folder, other settings untouched, input not mutated', () => {
  const config = { type: 'debugpy', request: 'launch', name: 'x', program: '/p.py', env: { A: '1', PYTHONPATH: '/mine' } };
  const snapshot = structuredClone(config);
  const r = p.resolveConfiguration(config, opts);
  assert.deepEqual(config, snapshot, 'not mutated');
  assert.deepEqual(r, { ...snapshot, env: { A: '1', PYTHONPATH: `${POSIX_BOTH}:/mine` } });
  assert.deepEqual(p.resolveConfiguration(r, opts), r, 'resolving twice changes nothing');
});

test('resolve: without env.PYTHONPATH the inherited one is kept after the folder', () => {
  /** @type {{ [key: string]: any }} */
  const config = { type: 'debugpy', request: 'launch', name: 'x', program: '/p.py' };
  assert.equal(p.resolveConfiguration(config, opts).env.PYTHONPATH, POSIX_BOTH);
  assert.equal(p.resolveConfiguration(config, { ...opts, inheritedPythonPath: '/site' }).env.PYTHONPATH, `${POSIX_BOTH}:/site`);
  // The configuration's own value wins over the inherited one (as debugpy would use it).
  const own = { ...config, env: { PYTHONPATH: '/own' } };
  assert.equal(p.resolveConfiguration(own, { ...opts, inheritedPythonPath: '/site' }).env.PYTHONPATH, `${POSIX_BOTH}:/own`);
});

test('resolve: sessions not owned pass through as the very same object', () => {
  const cases = [
    {},
    undefined,
    null,
    { type: 'debugpy', request: 'attach', connect: { host: 'localhost', port: 5678 } },
    { type: 'debugpy', request: 'attach', processId: 1234 },
    { type: 'node', request: 'launch', program: 'a.js' },
    { type: 'python', request: 'launch', program: 'a.py' },
  ];
  for (const c of cases) assert.equal(p.resolveConfiguration(c, opts), c, JSON.stringify(c));
  const launch = { type: 'debugpy', request: 'launch', program: '/p.py' };
  assert.equal(p.resolveConfiguration(launch, { ...opts, bundledPlugin: false }), launch, 'setting off');
});

test('resolve: win32 separator', () => {
  const r = p.resolveConfiguration(
    { type: 'debugpy', request: 'launch', program: 'C:\\p.py', env: { PYTHONPATH: 'C:\\mine' } },
    { bundledPlugin: true, bundleDir: WIN_DIR, platform: 'win32' },
  );
  assert.equal(r.env.PYTHONPATH, `${WIN_BOTH};C:\\mine`);
});

test('bundle entries: the folder, then its pydevd16/ (regular packages for debugpy 1.6.x)', () => {
  assert.deepEqual(p.bundleEntries(POSIX_DIR, 'linux'), [POSIX_DIR, `${POSIX_DIR}/pydevd16`]);
  assert.deepEqual(p.bundleEntries(WIN_DIR, 'win32'), [WIN_DIR, `${WIN_DIR}\\pydevd16`]);
});

test('prepend several: in order, each once, the user value kept; a folder already there stays where it is', () => {
  const dirs = [POSIX_DIR, `${POSIX_DIR}/pydevd16`];
  assert.equal(p.prependPythonPaths(undefined, dirs, 'linux'), POSIX_BOTH);
  assert.equal(p.prependPythonPaths('/a::/b', dirs, 'linux'), `${POSIX_BOTH}:/a::/b`);
  assert.equal(p.prependPythonPaths(`${POSIX_BOTH}:/a`, dirs, 'linux'), `${POSIX_BOTH}:/a`);
  // A configuration resolved by an extension that added only the first folder gets the second.
  assert.equal(p.prependPythonPaths(`${POSIX_DIR}:/a`, dirs, 'linux'), `${POSIX_DIR}/pydevd16:${POSIX_DIR}:/a`);
});
