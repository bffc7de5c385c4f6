// @ts-check
'use strict';
/**
 * package.json against what extension.js really registers: activate() runs against a recording
 * stand-in for the `vscode` module, and every contribution and activation event is matched.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { test } = require('node:test');

const EXT_ROOT = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(EXT_ROOT, 'package.json'), 'utf8'));

function recordingVscode() {
  /**
   * @type {{ commands: string[], debugProviders: { type: string, trigger: number | undefined, methods: string[] }[],
   *   completion: any[], configSections: string[], providers?: object[], settings?: { [key: string]: any } }}
   */
  const rec = { commands: [], debugProviders: [], completion: [], configSections: [] };
  const disposable = { dispose() {} };
  const vscode = {
    DebugConfigurationProviderTriggerKind: { Initial: 1, Dynamic: 2 },
    CompletionItemKind: { Snippet: 27 },
    commands: { registerCommand: (/** @type {string} */ id) => (rec.commands.push(id), disposable) },
    debug: {
      registerDebugConfigurationProvider: (/** @type {string} */ type, /** @type {object} */ provider, /** @type {number} */ trigger) => {
        rec.debugProviders.push({ type, trigger, methods: Object.keys(provider) });
        rec.providers = [...(rec.providers ?? []), provider];
        return disposable;
      },
    },
    languages: { registerCompletionItemProvider: (/** @type {any} */ selector) => (rec.completion.push(selector), disposable) },
    window: { createOutputChannel: () => ({ appendLine() {}, dispose() {} }) },
    workspace: {
      getConfiguration: (/** @type {string} */ section) => {
        rec.configSections.push(section);
        return { get: (/** @type {string} */ key, /** @type {any} */ def) => ((rec.settings ?? {})[`${section}.${key}`] ?? def) };
      },
    },
  };
  return { vscode, rec: /** @type {any} */ (rec) };
}

function activate() {
  const { vscode, rec } = recordingVscode();
  const load = /** @type {any} */ (Module)._load;
  /** @type {any} */ (Module)._load = function (/** @type {string} */ request, /** @type {any[]} */ ...rest) {
    return request === 'vscode' ? vscode : load.call(this, request, ...rest);
  };
  try {
    const entry = path.join(EXT_ROOT, pkg.main);
    delete require.cache[require.resolve(entry)];
    const ext = require(entry);
    ext.activate({ subscriptions: [], asAbsolutePath: (/** @type {string} */ p) => path.join(EXT_ROOT, p) });
    return { rec, ext };
  } finally {
    /** @type {any} */ (Module)._load = load;
  }
}

test('manifest basics the marketplace and VS Code expect', () => {
  for (const key of ['name', 'displayName', 'description', 'version', 'publisher', 'license', 'icon', 'repository', 'categories', 'main']) {
    assert.ok(pkg[key], `package.json has ${key}`);
  }
  assert.match(pkg.engines.vscode, /^\^1\.\d+\.\d+$/);
  assert.deepEqual(pkg.extensionDependencies, ['ms-python.debugpy']);
  assert.equal(pkg.license, 'MIT');
  assert.ok(fs.existsSync(path.join(EXT_ROOT, pkg.icon)));
  const png = fs.readFileSync(path.join(EXT_ROOT, pkg.icon));
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  assert.ok(png.readUInt32BE(16) >= 128 && png.readUInt32BE(20) >= 128, 'icon at least 128x128');
  assert.ok(fs.existsSync(path.join(EXT_ROOT, pkg.main)));
  assert.deepEqual(Object.keys(pkg.dependencies), ['jsonc-parser'], 'one runtime dependency');
});

test('every contributed command has a handler; every registered public command is contributed', () => {
  const { rec } = activate();
  const contributed = pkg.contributes.commands.map((/** @type {any} */ c) => c.command);
  for (const id of contributed) assert.ok(rec.commands.includes(id), `handler registered for ${id}`);
  for (const id of rec.commands) {
    if (!id.includes('.internal.')) assert.ok(contributed.includes(id), `${id} is contributed`);
  }
  for (const m of pkg.contributes.menus.commandPalette) assert.ok(contributed.includes(m.command));
  // Contributed commands activate the extension implicitly (VS Code >= 1.74); engines says so.
  const minor = Number(/^\^1\.(\d+)/.exec(pkg.engines.vscode)?.[1]);
  assert.ok(minor >= 74, 'implicit onCommand activation needs engines.vscode >= 1.74');
});

test('every activation event matches something the extension registers', () => {
  const { rec } = activate();
  for (const ev of pkg.activationEvents) {
    const [kind, arg] = ev.split(':');
    switch (kind) {
      case 'onDebugResolve':
        assert.ok(rec.debugProviders.some((/** @type {any} */ p) => p.type === arg && p.methods.some((/** @type {string} */ m) => m.startsWith('resolveDebugConfiguration'))), ev);
        break;
      case 'onDebugDynamicConfigurations':
        assert.ok(rec.debugProviders.some((/** @type {any} */ p) => p.type === arg && p.trigger === 2 && p.methods.includes('provideDebugConfigurations')), ev);
        break;
      case 'onLanguage':
        assert.ok(rec.completion.some((/** @type {any} */ s) => s.language === arg), ev);
        break;
      default:
        assert.fail(`activation event ${ev} not accounted for`);
    }
  }
  // And the other way round: every registration has its activation event.
  for (const p of rec.debugProviders) {
    const ev = p.trigger === 2 ? `onDebugDynamicConfigurations:${p.type}` : `onDebugResolve:${p.type}`;
    assert.ok(pkg.activationEvents.includes(ev), `${ev} declared`);
  }
  for (const s of rec.completion) assert.ok(pkg.activationEvents.includes(`onLanguage:${s.language}`));
  // The debug type provided for is the Python Debugger's, which the manifest depends on.
  assert.ok(rec.debugProviders.every((/** @type {any} */ p) => p.type === 'debugpy'));
});

test('the registered resolver applies the setting and the PYTHONPATH rule', () => {
  const { rec } = activate();
  const resolver = rec.providers.find((/** @type {any} */ p) => p.resolveDebugConfigurationWithSubstitutedVariables);
  assert.ok(!rec.providers.some((/** @type {any} */ p) => p.resolveDebugConfiguration), 'no pre-substitution hook: {} reaches the Python Debugger untouched');
  const config = { type: 'debugpy', request: 'launch', name: 'x', program: '/p.py', env: { PYTHONPATH: '/mine' } };
  const r = resolver.resolveDebugConfigurationWithSubstitutedVariables(undefined, config);
  assert.equal(r.env.PYTHONPATH, [path.join(EXT_ROOT, 'python'), '/mine'].join(path.delimiter));
  rec.settings = { 'tfDebugRepr.bundledPlugin': false };
  assert.equal(resolver.resolveDebugConfigurationWithSubstitutedVariables(undefined, config), config);
  assert.ok(rec.configSections.every((/** @type {string} */ s) => s === 'tfDebugRepr'));
  assert.ok(pkg.contributes.configuration.properties['tfDebugRepr.bundledPlugin'], 'the setting read is contributed');
  assert.equal(pkg.contributes.configuration.properties['tfDebugRepr.bundledPlugin'].default, true);
});

test('dynamic configurations are launch templates with no placeholders to fill', () => {
  const { rec } = activate();
  const dyn = rec.providers.find((/** @type {any} */ p) => p.provideDebugConfigurations).provideDebugConfigurations();
  assert.ok(dyn.length >= 3);
  for (const c of dyn) {
    assert.equal(c.request, 'launch');
    assert.equal(c.type, 'debugpy');
    assert.doesNotMatch(JSON.stringify(c), /your_package/);
  }
});
