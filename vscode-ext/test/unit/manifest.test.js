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
   *   completion: any[], configSections: string[], providers?: object[], settings?: { [key: string]: any },
   *   trackerFactories: { type: string, factory: any }[], handlers: { [id: string]: Function }, errors: string[],
   *   serializers: { viewType: string, serializer: any }[] }}
   */
  const rec = { commands: [], debugProviders: [], completion: [], configSections: [], trackerFactories: [], handlers: {}, errors: [], serializers: [] };
  const disposable = { dispose() {} };
  const vscode = {
    DebugConfigurationProviderTriggerKind: { Initial: 1, Dynamic: 2 },
    CompletionItemKind: { Snippet: 27 },
    commands: {
      registerCommand: (/** @type {string} */ id, /** @type {Function} */ handler) => (rec.commands.push(id), (rec.handlers[id] = handler), disposable),
    },
    Uri: { joinPath: (/** @type {any} */ base, /** @type {string[]} */ ...parts) => ({ fsPath: path.join(base.fsPath, ...parts) }) },
    ViewColumn: { Active: -1, Beside: -2 },
    debug: {
      registerDebugAdapterTrackerFactory: (/** @type {string} */ type, /** @type {any} */ factory) => (rec.trackerFactories.push({ type, factory }), disposable),
      onDidTerminateDebugSession: () => disposable,
      registerDebugConfigurationProvider: (/** @type {string} */ type, /** @type {object} */ provider, /** @type {number} */ trigger) => {
        rec.debugProviders.push({ type, trigger, methods: Object.keys(provider) });
        rec.providers = [...(rec.providers ?? []), provider];
        return disposable;
      },
    },
    languages: { registerCompletionItemProvider: (/** @type {any} */ selector) => (rec.completion.push(selector), disposable) },
    window: {
      createOutputChannel: () => ({ appendLine() {}, dispose() {} }),
      registerWebviewPanelSerializer: (/** @type {string} */ viewType, /** @type {any} */ serializer) => (rec.serializers.push({ viewType, serializer }), disposable),
      showErrorMessage: (/** @type {string} */ m) => (rec.errors.push(m), Promise.resolve(undefined)),
    },
    workspace: {
      getConfiguration: (/** @type {string} */ section) => {
        rec.configSections.push(section);
        return { get: (/** @type {string} */ key, /** @type {any} */ def) => ((rec.settings ?? {})[`${section}.${key}`] ?? def) };
      },
    },
  };
  return { vscode, rec: /** @type {any} */ (rec) };
}

/** @param {{ [key: string]: any }} [kept] what globalState holds at activation */
function activate(kept = {}) {
  const { vscode, rec } = recordingVscode();
  const globalState = { kept: { ...kept }, get: (/** @type {string} */ k) => globalState.kept[k], update: async (/** @type {string} */ k, /** @type {any} */ v) => void (globalState.kept[k] = v) };
  rec.globalState = globalState;
  const load = /** @type {any} */ (Module)._load;
  /** @type {any} */ (Module)._load = function (/** @type {string} */ request, /** @type {any[]} */ ...rest) {
    return request === 'vscode' ? vscode : load.call(this, request, ...rest);
  };
  try {
    const entry = path.join(EXT_ROOT, pkg.main);
    // Every module of the extension afresh, so each one's `vscode` is this stand-in.
    for (const key of Object.keys(require.cache)) if (key.startsWith(path.join(EXT_ROOT, 'src') + path.sep)) delete require.cache[key];
    const ext = require(entry);
    ext.activate({ subscriptions: [], asAbsolutePath: (/** @type {string} */ p) => path.join(EXT_ROOT, p), extensionUri: { fsPath: EXT_ROOT }, globalState });
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
      case 'onWebviewPanel':
        // VS Code activates the extension to restore a panel of this type after a window reload.
        assert.ok(rec.serializers.some((/** @type {any} */ s) => s.viewType === arg && typeof s.serializer.deserializeWebviewPanel === 'function'), ev);
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
  for (const s of rec.serializers) assert.ok(pkg.activationEvents.includes(`onWebviewPanel:${s.viewType}`), `onWebviewPanel:${s.viewType} declared`);
  assert.deepEqual(rec.serializers.map((/** @type {any} */ s) => s.viewType), ['tfDebugRepr.tensorViewer'], 'the tensor viewer\'s panels are restored');
  // The debug type provided for is the Python Debugger's, which the manifest depends on.
  assert.ok(rec.debugProviders.every((/** @type {any} */ p) => p.type === 'debugpy'));
});

test('the registered resolver applies the setting and the PYTHONPATH rule', () => {
  const { rec } = activate();
  const resolver = rec.providers.find((/** @type {any} */ p) => p.resolveDebugConfigurationWithSubstitutedVariables);
  assert.ok(!rec.providers.some((/** @type {any} */ p) => p.resolveDebugConfiguration), 'no pre-substitution hook: {} reaches the Python Debugger untouched');
  const config = { type: 'debugpy', request: 'launch', name: 'x', program: '/p.py', env: { PYTHONPATH: '/mine' } };
  const r = resolver.resolveDebugConfigurationWithSubstitutedVariables(undefined, config);
  assert.equal(r.env.PYTHONPATH, [path.join(EXT_ROOT, 'python'), path.join(EXT_ROOT, 'python', 'pydevd16'), '/mine'].join(path.delimiter));
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

/**
 * A when-clause evaluated the way VS Code does for the forms this manifest uses:
 * `a && b`, `key`, `key == 'text'` / `key == word`, `key =~ /regex/`.
 * @param {string} when @param {{ [key: string]: any }} context
 */
function evalWhen(when, context) {
  return when.split('&&').every((term) => {
    const t = term.trim();
    let m = /^(\w+)\s*==\s*(?:'([^']*)'|(\S+))$/.exec(t);
    if (m) return context[m[1]] === (m[2] ?? m[3]);
    m = /^(\w+)\s*=~\s*\/(.*)\/$/.exec(t);
    if (m) return typeof context[m[1]] === 'string' && new RegExp(m[2]).test(context[m[1]]);
    if (/^\w+$/.test(t)) return !!context[t];
    throw new Error(`when-clause form not handled: ${t}`);
  });
}

const VIEW = 'tfDebugRepr.viewTensor';
const VIEW_BESIDE = 'tfDebugRepr.viewTensorBeside';
const { MENU_CONTEXT, VIEWABLE_TYPES, tagVariables } = require('../../src/viewer/types');

test('every menu entry names a contributed command', () => {
  const contributed = pkg.contributes.commands.map((/** @type {any} */ c) => c.command);
  for (const [menu, entries] of Object.entries(pkg.contributes.menus)) {
    for (const e of /** @type {any[]} */ (entries)) assert.ok(contributed.includes(e.command), `${menu}: ${e.command} is contributed`);
  }
});

test('View Tensor: Variables pane rows the tracker tags, and only those', () => {
  const entries = pkg.contributes.menus['debug/variables/context'];
  assert.deepEqual(entries.map((/** @type {any} */ e) => e.command).sort(), [VIEW, VIEW_BESIDE]);
  const row = (/** @type {string} */ type, value = '') => {
    const v = { name: 'x', type, value, variablesReference: 0, evaluateName: 'x' };
    tagVariables({ type: 'response', command: 'variables', success: true, body: { variables: [v] } });
    return /** @type {any} */ (v).__vscodeVariableMenuContext ?? '';
  };
  for (const e of entries) {
    // VS Code's key: debugProtocolVariableMenuContext = the row's __vscodeVariableMenuContext.
    for (const type of VIEWABLE_TYPES) assert.ok(evalWhen(e.when, { debugProtocolVariableMenuContext: row(type) }), `${e.command} on ${type}`);
    assert.ok(evalWhen(e.when, { debugProtocolVariableMenuContext: row('Variable', "float32[2, 3] x∈[-1, 1] Variable 'dense/kernel'") }));
    for (const type of ['int', 'list', 'str', 'TensorShape', 'Dense', 'GradientTape', 'KerasTensor', 'ShouldUseWrapper']) {
      assert.ok(!evalWhen(e.when, { debugProtocolVariableMenuContext: row(type) }), `${e.command} not on ${type}`);
    }
    assert.ok(!evalWhen(e.when, { debugProtocolVariableMenuContext: row('Variable', 'x + y') }), 'a sympy-like Variable is not a tensor');
    assert.match(e.when, new RegExp(`'${MENU_CONTEXT.replace('.', '\\.')}'`));
  }
});

test('View Tensor: Watch pane items of TF types in debugpy sessions only', () => {
  const entries = pkg.contributes.menus['debug/watch/context'];
  assert.deepEqual(entries.map((/** @type {any} */ e) => e.command).sort(), [VIEW, VIEW_BESIDE]);
  for (const e of entries) {
    // The Watch pane sets variableType (the item's DAP type), not debugProtocolVariableMenuContext.
    for (const type of [...VIEWABLE_TYPES, 'Variable']) assert.ok(evalWhen(e.when, { debugType: 'debugpy', variableType: type }), type);
    assert.ok(!evalWhen(e.when, { debugType: 'node', variableType: 'EagerTensor' }));
    for (const type of ['int', 'str', 'EagerTensorX', 'MyEagerTensor', 'TensorShape', '']) {
      assert.ok(!evalWhen(e.when, { debugType: 'debugpy', variableType: type }), `not on ${type}`);
    }
  }
});

test('View Tensor: editor menu and command palette only while a debugpy session is paused', () => {
  const paused = { inDebugMode: true, debugState: 'stopped', debugType: 'debugpy', editorLangId: 'python' };
  const [editor] = pkg.contributes.menus['editor/context'].filter((/** @type {any} */ e) => e.command === VIEW);
  assert.ok(editor, 'View Tensor in the editor context menu');
  assert.ok(evalWhen(editor.when, paused));
  for (const other of [{ debugState: 'running' }, { inDebugMode: false }, { debugType: 'node' }, { editorLangId: 'markdown' }]) {
    assert.ok(!evalWhen(editor.when, { ...paused, ...other }), JSON.stringify(other));
  }
  for (const id of [VIEW, VIEW_BESIDE]) {
    const entry = pkg.contributes.menus.commandPalette.find((/** @type {any} */ e) => e.command === id);
    assert.ok(entry && evalWhen(entry.when, paused) && !evalWhen(entry.when, { ...paused, debugState: 'running' }), id);
  }
});

test('the viewer registers its commands and a debugpy tracker that tags variables responses', () => {
  const { rec } = activate();
  assert.ok(rec.commands.includes(VIEW) && rec.commands.includes(VIEW_BESIDE));
  assert.deepEqual(rec.trackerFactories.map((/** @type {any} */ t) => t.type), ['debugpy']);
  const tracker = rec.trackerFactories[0].factory.createDebugAdapterTracker({ id: 's1', customRequest: async () => ({}) });
  const message = {
    type: 'response',
    command: 'variables',
    success: true,
    body: { variables: [{ name: 't', type: 'EagerTensor', value: 'float32[2]', variablesReference: 3 }, { name: 'n', type: 'int', value: '3', variablesReference: 0 }] },
  };
  tracker.onDidSendMessage(message);
  assert.deepEqual(message.body.variables.map((/** @type {any} */ v) => v.__vscodeVariableMenuContext), [MENU_CONTEXT, undefined]);
});

test('View Tensor on a row without evaluateName says so instead of guessing from its name', async () => {
  const { rec } = activate();
  await rec.handlers[VIEW]({ sessionId: 's1', container: { name: 'Locals', variablesReference: 1 }, variable: { name: '[0]', value: '1', variablesReference: 0 } });
  assert.equal(rec.errors.length, 1);
  assert.match(rec.errors[0], /"\[0\]" has no expression/);
});

test('engines.vscode covers the API the viewer uses (debug.activeStackItem: 1.90)', () => {
  const minor = Number(/^\^1\.(\d+)/.exec(pkg.engines.vscode)?.[1]);
  assert.ok(minor >= 90);
  const typesMinor = Number(/1\.(\d+)/.exec(pkg.devDependencies['@types/vscode'])?.[1]);
  assert.ok(typesMinor <= minor, '@types/vscode no newer than engines.vscode (vsce refuses otherwise)');
  assert.match(fs.readFileSync(path.join(EXT_ROOT, 'src', 'viewer', 'viewerPanel.js'), 'utf8'), /vscode\.debug\.activeStackItem/);
});

test('the key that signs what viewer pages keep is made once and kept in globalState', () => {
  const first = activate().rec.globalState.kept;
  const key = first['tfDebugRepr.viewerStateKey'];
  assert.ok(typeof key === 'string' && key.length >= 32, 'a fresh key is kept');
  const again = activate({ 'tfDebugRepr.viewerStateKey': key }).rec.globalState.kept;
  assert.equal(again['tfDebugRepr.viewerStateKey'], key, 'the same key after a reload, so saved views verify');
  assert.notEqual(activate().rec.globalState.kept['tfDebugRepr.viewerStateKey'], key, 'random, not a constant');
});
