// @ts-check
'use strict';
const path = require('node:path');
/**
 * PYTHONPATH handling and the debug-configuration resolution rule. No `require('vscode')`.
 */

/**
 * @param {NodeJS.Platform} platform
 * @returns {';' | ':'}
 */
function delimiterFor(platform) {
  return platform === 'win32' ? ';' : ':';
}

/** The bundle's second folder (regular pydevd_plugins packages), for debugpy 1.6.x. */
const NS16 = 'pydevd16';

/**
 * The PYTHONPATH entries for the bundled folder, in order: the folder itself (debugpy 1.8 finds
 * the plugin's PEP 420 portion there), then its `pydevd16` folder (debugpy 1.6.x builds the
 * pydevd_plugins namespace with pkg_resources where it is importable, which only counts regular
 * packages; see scripts/bundle-python.js).
 * @param {string} bundleDir
 * @param {NodeJS.Platform} platform
 * @returns {string[]}
 */
function bundleEntries(bundleDir, platform) {
  const join = platform === 'win32' ? path.win32.join : path.posix.join;
  return [bundleDir, join(bundleDir, NS16)];
}

/**
 * Normalises a path entry for comparison only: trailing separators dropped, and on Windows
 * forward/back slashes and case treated as equal.
 * @param {string} entry
 * @param {NodeJS.Platform} platform
 */
function comparable(entry, platform) {
  let e = entry.trim();
  if (platform === 'win32') e = e.replace(/\//g, '\\').toLowerCase();
  while (e.length > 1 && /[\\/]$/.test(e) && !/^[a-z]:\\$/i.test(e)) e = e.slice(0, -1);
  return e;
}

/**
 * Returns `current` with `dir` in front, unless `dir` is already one of its entries (then
 * `current` is returned unchanged, so applying it twice changes nothing). Whatever the user
 * set is kept as it is, including empty entries (an empty entry means the current directory).
 * @param {string | undefined | null} current
 * @param {string} dir
 * @param {NodeJS.Platform} platform
 * @returns {string}
 */
function prependPythonPath(current, dir, platform) {
  const delimiter = delimiterFor(platform);
  if (current === undefined || current === null || current === '') return dir;
  const target = comparable(dir, platform);
  const entries = String(current).split(delimiter);
  if (entries.some((e) => e !== '' && comparable(e, platform) === target)) return String(current);
  return dir + delimiter + current;
}

/**
 * `prependPythonPath` for several folders: `dirs` in front of `current`, in that order, each
 * only if not already present.
 * @param {string | undefined | null} current
 * @param {string[]} dirs
 * @param {NodeJS.Platform} platform
 * @returns {string}
 */
function prependPythonPaths(current, dirs, platform) {
  let out = current;
  for (const dir of [...dirs].reverse()) out = prependPythonPath(out, dir, platform);
  return out ?? '';
}

/**
 * Which sessions the extension adds its bundled folder to ("owns"):
 * - type `debugpy`, request `launch`: the debuggee is started with the configuration's env;
 * - not the empty configuration (F5 with no launch.json gives `{}`; it is left alone so the
 *   Python Debugger's own resolution fills it in; the extension only ever sees configurations
 *   after that resolution, see extension.js);
 * - not `attach`: with `connect` or `listen` the user started the program; with `processId`
 *   debugpy injects itself into a running process whose environment and sys.path are already
 *   fixed, so an env entry would not reach it. Both need tf-debug-repr importable in the
 *   program's own environment (pip install, or PYTHONPATH in the command that starts it).
 * @param {{ [key: string]: any } | undefined | null} config
 * @returns {boolean}
 */
function ownsSession(config) {
  if (!config || typeof config !== 'object') return false;
  if (Object.keys(config).length === 0) return false;
  return config.type === 'debugpy' && config.request === 'launch';
}

/**
 * The resolver: returns the configuration to start, with the bundled folders (bundleEntries)
 * prepended to env.PYTHONPATH when the session is owned and the setting is on; otherwise the very same
 * object, untouched. The input object is not mutated.
 * @template {{ [key: string]: any } | undefined | null} T
 * @param {T} config
 * @param {{ bundledPlugin: boolean, bundleDir: string, platform: NodeJS.Platform, inheritedPythonPath?: string }} options
 *   inheritedPythonPath: the PYTHONPATH the debuggee would otherwise inherit (VS Code's own
 *   process environment), used only when the configuration sets none itself; debugpy's
 *   launcher merges env into the inherited environment, so setting env.PYTHONPATH alone would
 *   otherwise drop it.
 * @returns {T}
 */
function resolveConfiguration(config, options) {
  if (!options.bundledPlugin || !ownsSession(config)) return config;
  const c = /** @type {{ [key: string]: any }} */ (config);
  const env = c.env && typeof c.env === 'object' ? c.env : {};
  const hasOwn = Object.prototype.hasOwnProperty.call(env, 'PYTHONPATH') && env.PYTHONPATH !== null;
  const current = hasOwn ? String(env.PYTHONPATH) : options.inheritedPythonPath;
  const merged = prependPythonPaths(current, bundleEntries(options.bundleDir, options.platform), options.platform);
  if (hasOwn && merged === env.PYTHONPATH) return config;
  return /** @type {T} */ (/** @type {unknown} */ ({ ...c, env: { ...env, PYTHONPATH: merged } }));
}

module.exports = { delimiterFor, prependPythonPath, prependPythonPaths, bundleEntries, ownsSession, resolveConfiguration, comparable, NS16 };
