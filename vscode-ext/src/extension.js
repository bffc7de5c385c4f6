// @ts-check
'use strict';
/**
 * The extension's entry point, kept thin: the launch side (src/launch/: debug configurations,
 * the bundled plugin on PYTHONPATH, launch.json templates and completions) and the tensor viewer
 * (src/viewer/: "View Tensor" panels and the page's host).
 */
const crypto = require('node:crypto');
const vscode = require('vscode');
const { registerLaunch, COMMAND_ADD, COMMAND_ADD_COMPOUNDS } = require('./launch/commands');
const { ViewerSessions } = require('./viewer/sessions');
const { TensorViewer } = require('./viewer/tensorViewer');

/** globalState key of the secret that signs what viewer pages keep for a window reload. */
const VIEWER_KEY = 'tfDebugRepr.viewerStateKey';

/** @param {vscode.ExtensionContext} context */
function activate(context) {
  const log = vscode.window.createOutputChannel('TensorFlow Debugging', { log: true });
  context.subscriptions.push(
    log,
    ...registerLaunch(context, log),
    // Registered at activation (onDebugResolve:debugpy), before the adapter starts, so the
    // tracker sees every message of every debugpy session.
    // The serializer restores views after a window reload (onWebviewPanel activation).
    ...new TensorViewer(context.extensionUri, new ViewerSessions(), viewerKey(context)).register(),
  );
}

function deactivate() {}

/**
 * The secret that signs the expression a viewer page keeps (viewerSavedState): made once, kept
 * in this machine's globalState (not synced), so a page can never choose what is evaluated.
 * @param {vscode.ExtensionContext} context
 */
function viewerKey(context) {
  const kept = context.globalState.get(VIEWER_KEY);
  if (typeof kept === 'string' && kept.length >= 32) return kept;
  const key = crypto.randomBytes(32).toString('base64');
  void context.globalState.update(VIEWER_KEY, key);
  return key;
}

module.exports = { activate, deactivate, COMMAND_ADD, COMMAND_ADD_COMPOUNDS };
