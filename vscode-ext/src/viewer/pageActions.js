// @ts-check
'use strict';
/**
 * What a view's page asks of VS Code besides its values (docs/tensor-viewer.md, section 3): "Save as
 * .npy" (a file dialog, then the plugin's save_npy), "Compare…" (another expression, opened beside)
 * and Copy (the Table's block, through VS Code's clipboard: a webview's own may be denied).
 */
const vscode = require('vscode');
const { ViewerError, decodeSaveResult, messageOf } = require('./result');
const { checkRequest, gradientOfExpression, npyFileName, saveNpyExpression } = require('./expression');
const { showError, showInfo } = require('../notify');

/**
 * @typedef {import('./viewerPanel').ViewerPanel} ViewerPanel
 * @typedef {import('./sessions').SessionState} SessionState
 * @typedef {import('./expression').ViewRequest} ViewRequest
 */

/** The most text a page may put on the clipboard (about 50 MB: a 2048×2048 slice as CSV). */
const MAX_COPY_CHARS = 50_000_000;

/**
 * "Save as .npy": where (a save dialog; for an attached program, a path in its file system), then
 * the plugin's `save_npy` in the view's frame, and a notification of what it did.
 * @param {ViewerPanel} view
 */
async function saveNpy(view) {
  try {
    // A view whose session ended saves nothing from another session: Refresh it there first.
    if (!view.state) throw new ViewerError('This view has not been shown a value yet: stop in a debug session first.');
    if (!view.state.paused) throw new ViewerError(view.state.ended ? 'The debug session has ended: nothing to save (Refresh the view in a paused session first).' : 'The program is running: pause it to save the value.');
    const name = npyFileName(view.expression);
    let target;
    if (view.state.session.configuration?.request === 'attach') {
      // The program may run on another machine or in a container: a local file dialog would lie.
      target = await vscode.window.showInputBox({
        title: `Save ${view.title} as .npy`,
        prompt: "Path in the debugged program's file system (relative paths are from its working directory)",
        value: name,
      });
    } else {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
      const uri = await vscode.window.showSaveDialog({
        title: `Save ${view.title} as .npy`,
        defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
        filters: { 'NumPy array': ['npy'] },
      });
      target = uri?.fsPath;
    }
    if (!target) return;
    const frame = await view.currentFrame();
    const body = await /** @type {SessionState} */ (view.state).session.customRequest('evaluate', {
      expression: saveNpyExpression(view.expression, target),
      frameId: frame.frameId,
      context: 'clipboard',
    });
    const report = decodeSaveResult(body, view.expression);
    // save_npy reports a failure ("not saved: PermissionError: …") instead of raising.
    if (report.startsWith('not saved')) showError(`Save as .npy: ${report}`);
    else showInfo(report);
  } catch (e) {
    showError(`Save as .npy: ${messageOf(e, view.state)}`);
  }
}

/**
 * "Compare…": another expression, opened in the group next to this view's (not the last view's),
 * showing the slice this one shows (a request that does not fit it falls back to its default).
 * @param {ViewerPanel} view @param {unknown} request the page's current request
 */
async function compare(view, request) {
  const expression = await vscode.window.showInputBox({
    title: `Compare ${view.title} with…`,
    prompt: 'An expression to view beside this one (in the same frame)',
    value: gradientOfExpression(view.expression),
  });
  if (!expression?.trim()) return;
  const state = view.liveState();
  if (!state) {
    showError('Compare: no paused Python debug session (debugpy) to evaluate in.');
    return;
  }
  let kept;
  try {
    kept = checkRequest(/** @type {ViewRequest} */ (request ?? view.request));
  } catch {
    kept = checkRequest(view.request);
  }
  await view.viewer.open({ expression, state, frame: view.frame, beside: true, request: kept, from: view });
}

/** The page's text to the clipboard, if it is text of a sane size. @param {unknown} text */
async function copy(text) {
  if (typeof text === 'string' && text.length <= MAX_COPY_CHARS) await vscode.env.clipboard.writeText(text);
}

module.exports = { saveNpy, compare, copy, MAX_COPY_CHARS };
