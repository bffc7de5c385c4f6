// @ts-check
'use strict';
/**
 * A recording stand-in for the `vscode` module, enough for the tensor viewer (src/viewer/tensorViewer.js, viewerPanel.js, viewCommand.js, pageActions.js):
 * webview panels that record what is posted to them and hand page messages in, the serializer
 * registry, input boxes and messages. No VS Code runs in CI; the debug sessions given to the viewer
 * are either duck-typed fakes (test/unit/viewerPanels.test.js) or a real debugpy adapter
 * (test/e2e/viewer.test.js).
 */
const Module = require('node:module');
const path = require('node:path');

const SRC = path.resolve(__dirname, '..', '..', 'src');

/** The viewer's modules loaded afresh against a new stand-in. */
function viewerWithStandIn() {
  /** @type {any[]} */
  const panels = [];
  /** @type {{ [viewType: string]: any }} */
  const serializers = {};
  const ui = { inputs: /** @type {any[]} */ ([]), inputAnswers: /** @type {(string | undefined)[]} */ ([]), saveAnswer: /** @type {any} */ (undefined), infos: /** @type {string[]} */ ([]), errors: /** @type {string[]} */ ([]), clipboard: /** @type {string[]} */ ([]) };
  const vscode = {
    ViewColumn: { Active: -1, Beside: -2 },
    Uri: {
      joinPath: (/** @type {any} */ base, /** @type {string[]} */ ...parts) => ({ fsPath: path.join(base.fsPath, ...parts), toString: () => path.join(base.fsPath, ...parts) }),
    },
    debug: {
      activeStackItem: /** @type {any} */ (undefined),
      activeDebugSession: /** @type {any} */ (undefined),
      registerDebugAdapterTrackerFactory: () => ({ dispose() {} }),
      onDidTerminateDebugSession: () => ({ dispose() {} }),
    },
    workspace: {
      workspaceFolders: [{ uri: { fsPath: '/ws' } }],
      /** The user's settings (`tfDebugRepr.` left out), as a test sets them. */
      settings: /** @type {Record<string, unknown>} */ ({}),
      getConfiguration: (/** @type {string} */ section) => ({
        get: (/** @type {string} */ key, /** @type {unknown} */ fallback) => (section === 'tfDebugRepr' && key in vscode.workspace.settings ? vscode.workspace.settings[key] : fallback),
      }),
    },
    window: {
      activeTextEditor: undefined,
      registerWebviewPanelSerializer: (/** @type {string} */ viewType, /** @type {any} */ serializer) => ((serializers[viewType] = serializer), { dispose() {} }),
      createWebviewPanel: (/** @type {string} */ viewType, /** @type {string} */ title, /** @type {any} */ show, /** @type {any} */ options) => {
        // Beside: the group after the active editor's (the source, group 1 here).
        const viewColumn = show.viewColumn === -2 ? 2 : show.viewColumn === -1 ? 1 : show.viewColumn;
        const p = {
          viewType, title, show, options, viewColumn, posted: /** @type {any[]} */ ([]), onMessage: /** @type {Function | undefined} */ (undefined), disposed: false, revealed: 0,
          webview: {
            html: '',
            options: /** @type {any} */ (undefined),
            cspSource: 'vscode-webview://x',
            asWebviewUri: (/** @type {any} */ u) => ({ toString: () => `webview:${u.fsPath}` }),
            postMessage: (/** @type {any} */ m) => (p.posted.push(m), Promise.resolve(true)),
            onDidReceiveMessage: (/** @type {Function} */ f) => ((p.onMessage = f), { dispose() {} }),
          },
          onDidDispose: () => ({ dispose() {} }),
          onDidChangeViewState: () => ({ dispose() {} }),
          reveal: () => p.revealed++,
          dispose: () => (p.disposed = true),
        };
        panels.push(p);
        return p;
      },
      showInputBox: async (/** @type {any} */ o) => (ui.inputs.push(o), ui.inputAnswers.shift()),
      showSaveDialog: async (/** @type {any} */ o) => (ui.inputs.push(o), ui.saveAnswer),
      showInformationMessage: (/** @type {string} */ m) => (ui.infos.push(m), Promise.resolve(undefined)),
      showErrorMessage: (/** @type {string} */ m) => (ui.errors.push(m), Promise.resolve(undefined)),
      showWarningMessage: (/** @type {string} */ m) => (ui.errors.push(m), Promise.resolve(undefined)),
    },
    commands: { registerCommand: () => ({ dispose() {} }) },
    env: { clipboard: { writeText: async (/** @type {string} */ t) => void ui.clipboard.push(t) } },
  };
  const load = /** @type {any} */ (Module)._load;
  /** @type {any} */ (Module)._load = function (/** @type {string} */ request, /** @type {any[]} */ ...rest) {
    return request === 'vscode' ? vscode : load.call(this, request, ...rest);
  };
  let mods;
  try {
    for (const key of Object.keys(require.cache)) if (key.startsWith(SRC + path.sep)) delete require.cache[key];
    mods = { ...require('../../src/viewer/tensorViewer'), ...require('../../src/viewer/sessions'), ...require('../../src/notify') };
  } finally {
    /** @type {any} */ (Module)._load = load;
  }
  return { vscode, panels, serializers, ui, mods: /** @type {typeof import('../../src/viewer/tensorViewer') & typeof import('../../src/viewer/sessions') & typeof import('../../src/notify')} */ (mods) };
}

module.exports = { viewerWithStandIn };
