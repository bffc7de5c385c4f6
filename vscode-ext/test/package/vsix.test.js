// @ts-check
'use strict';
/**
 * The .vsix that `npm run package` (vsce) produced: it carries the extension code, its runtime
 * dependency, and the whole bundled Python folder (and no __init__.py in the PEP 420 portion).
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');
const { test } = require('node:test');
const { PAGE_SCRIPTS } = require('../../src/viewer/html.js');

const EXT_ROOT = path.resolve(__dirname, '..', '..');
const VSIX = path.join(EXT_ROOT, 'tf-debug-repr.vsix');

/** Entry names and a reader, from the zip's central directory. @param {Buffer} buf */
function readZip(buf) {
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  assert.ok(eocd >= 0, 'zip end-of-central-directory record found');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  /** @type {Map<string, () => Buffer>} */
  const entries = new Map();
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(p), 0x02014b50);
    const method = buf.readUInt16LE(p + 10);
    const csize = buf.readUInt32LE(p + 20);
    const nlen = buf.readUInt16LE(p + 28);
    const elen = buf.readUInt16LE(p + 30);
    const clen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nlen);
    entries.set(name, () => {
      const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
      const data = buf.subarray(start, start + csize);
      return method === 8 ? zlib.inflateRawSync(data) : Buffer.from(data);
    });
    p += 46 + nlen + elen + clen;
  }
  return entries;
}

/** @param {string} dir @returns {string[]} */
function filesUnder(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.name === '__pycache__') return [];
    return e.isDirectory() ? filesUnder(p) : [p];
  });
}

test('the .vsix exists and carries the extension, its dependency and the bundled Python folder', () => {
  assert.ok(fs.existsSync(VSIX), 'run `npm run package` first');
  const zip = readZip(fs.readFileSync(VSIX));
  const names = [...zip.keys()];
  for (const required of [
    'extension/package.json',
    'extension/src/extension.js',
    'extension/src/launch/templates.js',
    'extension/media/icon.png',
    'extension/README.md',
    'extension/CHANGELOG.md',
    'extension/LICENSE.txt',
    'extension/node_modules/jsonc-parser/package.json',
    'extension/python/pydevd_plugins/extensions/pydevd_plugin_tf_debug_repr.py',
    'extension/python/plugin/pydevd_plugin_tf_debug_repr.py',
    // debugpy 1.6.x (pkg_resources): regular packages in the second PYTHONPATH folder
    'extension/python/pydevd16/pydevd_plugins/__init__.py',
    'extension/python/pydevd16/pydevd_plugins/extensions/__init__.py',
    'extension/python/pydevd16/pydevd_plugins/extensions/pydevd_plugin_tf_debug_repr.py',
    'extension/python/lib/tf_debug_repr/__init__.py',
    // the module the plugin imports, in a subpackage: the bundle carries every one
    'extension/python/lib/tf_debug_repr/hosts/pydevd/adapter.py',
    // the viewer contract the notebook's colours are read from
    'extension/python/lib/tf_debug_repr/viewer/contract.json',
  ]) {
    // vsce stores README/CHANGELOG under lower-case names.
    assert.ok(names.some((n) => n.toLowerCase() === required.toLowerCase()), `${required} in the vsix`);
  }
  // Every file of the bundled folder is in the package, byte for byte.
  const bundle = path.join(EXT_ROOT, 'python');
  for (const file of filesUnder(bundle)) {
    const entry = 'extension/python/' + path.relative(bundle, file).split(path.sep).join('/');
    const read = zip.get(entry);
    assert.ok(read, `${entry} in the vsix`);
    assert.ok(read().equals(fs.readFileSync(file)), `${entry} matches the bundled file`);
  }
  // The extension's code and the viewer page (its script, core and style), byte for byte.
  for (const dir of ['src', 'media/viewer']) {
    const root = path.join(EXT_ROOT, dir);
    const files = filesUnder(root);
    assert.ok(files.length > 0, `${dir} has files`);
    for (const file of files) {
      const entry = `extension/${dir}/` + path.relative(root, file).split(path.sep).join('/');
      const read = zip.get(entry);
      assert.ok(read, `${entry} in the vsix`);
      assert.ok(read().equals(fs.readFileSync(file)), `${entry} matches the repository's`);
    }
  }
  // PEP 420 portion: no __init__.py in pydevd_plugins/ or pydevd_plugins/extensions/.
  assert.ok(!names.includes('extension/python/pydevd_plugins/__init__.py'));
  assert.ok(!names.includes('extension/python/pydevd_plugins/extensions/__init__.py'));
  // Nothing that belongs to development only.
  const stray = names.filter((n) => /__pycache__|\.pyc$|^extension\/test\/|^extension\/scripts\/|\.vsix$|node_modules\/(@vscode|puppeteer-core)\//.test(n));
  assert.deepEqual(stray, []);
  // The manifest inside is the one in the repository.
  const manifest = JSON.parse(zip.get('extension/package.json')?.().toString('utf8') ?? '{}');
  const here = JSON.parse(fs.readFileSync(path.join(EXT_ROOT, 'package.json'), 'utf8'));
  assert.equal(manifest.version, here.version);
  assert.deepEqual(manifest.extensionDependencies, ['ms-python.debugpy']);
});

test('the .vsix carries every module the extension requires and the viewer page it loads', () => {
  const zip = readZip(fs.readFileSync(VSIX));
  /** Relative requires of a module, followed through the source tree. @param {string} rel @param {Set<string>} seen */
  const walk = (rel, seen) => {
    if (seen.has(rel)) return seen;
    seen.add(rel);
    const text = fs.readFileSync(path.join(EXT_ROOT, rel), 'utf8');
    for (const m of text.matchAll(/require\('(\.{1,2}\/[^']+)'\)/g)) {
      walk(path.posix.normalize(path.posix.join(path.posix.dirname(rel), m[1])) + (m[1].endsWith('.js') ? '' : '.js'), seen);
    }
    return seen;
  };
  const modules = [...walk('src/extension.js', new Set())];
  assert.ok(['tensorViewer', 'viewerPanel', 'viewCommand', 'pageActions', 'html'].every((m) => modules.includes(`src/viewer/${m}.js`)), modules.join(', '));
  for (const rel of modules) assert.ok(zip.get(`extension/${rel}`), `${rel} in the vsix`);
  const { PAGE_SCRIPT, PAGE_STYLE } = readPageNames();
  for (const file of [PAGE_SCRIPT, PAGE_STYLE, ...PAGE_SCRIPTS]) {
    const entry = zip.get(`extension/media/viewer/${file}`);
    assert.ok(entry, `media/viewer/${file} in the vsix`);
    assert.ok(entry().equals(fs.readFileSync(path.join(EXT_ROOT, 'media', 'viewer', file))), `media/viewer/${file} as in the repository`);
  }
});

/** The page's file names as the extension names them (src/viewer/html.js, which needs no `vscode`). */
function readPageNames() {
  const { PAGE_SCRIPT, PAGE_STYLE } = require('../../src/viewer/html.js');
  return { PAGE_SCRIPT, PAGE_STYLE };
}
