// @ts-check
'use strict';
/**
 * Interpreters for the zero-install tests, built from the main test interpreter:
 *
 * - "no-plugin": a venv (no pip) of the main venv's base Python whose site-packages holds a
 *   symlink to every top-level entry of the main venv's site-packages except tf-debug-repr's
 *   (tf_debug_repr*, pydevd_plugins, __editable__*, and *.pth files, through which an editable
 *   install would be found). So TensorFlow and debugpy import, tf_debug_repr does not; this is
 *   checked before use, not assumed.
 * - "pip-copy": the same, plus a copy of tf-debug-repr laid out as `pip install` lays it out
 *   (site-packages/tf_debug_repr and site-packages/pydevd_plugins/extensions/<plugin>.py).
 */
const cp = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { EXT_ROOT, mainPython, baseEnv } = require('./harness');
const { locateSources } = require('../../scripts/bundle-python');

const EXCLUDE = [/^tf_debug_repr/i, /^tf-debug-repr/i, /^pydevd_plugins$/, /^__editable__/, /\.pth$/, /^__pycache__$/];

/** @param {string} python @param {string} code */
function py(python, code) {
  return cp.execFileSync(python, ['-c', code], { env: baseEnv(), encoding: 'utf8' }).trim();
}

function mainSitePackages() {
  return py(mainPython(), 'import sysconfig; print(sysconfig.get_paths()["purelib"])');
}

function basePython() {
  return py(mainPython(), 'import sys, os; print(os.path.join(sys.base_exec_prefix, "bin", "python3") if os.name != "nt" else os.path.join(sys.base_exec_prefix, "python.exe"))');
}

/**
 * @param {'no-plugin' | 'pip-copy'} kind
 * @returns {{ python: string, sitePackages: string }}
 */
function buildEnv(kind) {
  const dir = path.join(EXT_ROOT, 'test', `.venv-${kind}`);
  fs.rmSync(dir, { recursive: true, force: true });
  cp.execFileSync(basePython(), ['-m', 'venv', '--without-pip', dir], { env: baseEnv() });
  const python = path.join(dir, process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');
  const site = py(python, 'import sysconfig; print(sysconfig.get_paths()["purelib"])');
  const mainSite = mainSitePackages();
  for (const name of fs.readdirSync(mainSite)) {
    if (EXCLUDE.some((re) => re.test(name))) continue;
    fs.symlinkSync(path.join(mainSite, name), path.join(site, name), fs.statSync(path.join(mainSite, name)).isDirectory() ? 'dir' : 'file');
  }
  if (kind === 'pip-copy') {
    const { pkg, plugin } = locateSources();
    fs.cpSync(pkg, path.join(site, 'tf_debug_repr'), {
      recursive: true,
      filter: (src) => !src.includes('__pycache__'),
    });
    const ext = path.join(site, 'pydevd_plugins', 'extensions');
    fs.mkdirSync(ext, { recursive: true });
    fs.copyFileSync(plugin, path.join(ext, 'pydevd_plugin_tf_debug_repr.py'));
  }
  return { python, sitePackages: site };
}

/**
 * Where tf_debug_repr would be imported from in this interpreter, with no PYTHONPATH and the
 * fixtures folder as the working directory: null when it is not importable.
 * @param {string} python @param {string} cwd
 */
function whereIsTfDebugRepr(python, cwd) {
  const out = cp.execFileSync(
    python,
    ['-c', 'import importlib.util as u; s = u.find_spec("tf_debug_repr"); print(s.origin or list(s.submodule_search_locations) if s else "NONE")'],
    { env: baseEnv(), cwd, encoding: 'utf8' },
  ).trim();
  return out === 'NONE' ? null : out;
}

module.exports = { buildEnv, whereIsTfDebugRepr, mainSitePackages };
