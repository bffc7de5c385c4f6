// @ts-check
'use strict';
/**
 * The "View Tensor" command (and "View Tensor Beside"): what to view and in which session. From a
 * Variables/Watch row, its evaluateName in the row's session; else the editor's selection or the
 * expression at the cursor, else an input box, in the active session; refused, with a word why,
 * when no session is paused. Which view shows it is tensorViewer.js's (`open`).
 */
const vscode = require('vscode');
const { expressionAt, targetOf } = require('./expression');
const { showError } = require('../notify');

const COMMAND_VIEW = 'tfDebugRepr.viewTensor';
const COMMAND_VIEW_BESIDE = 'tfDebugRepr.viewTensorBeside';

/** @typedef {import('./tensorViewer').TensorViewer} TensorViewer */

/**
 * The command: from a Variables/Watch row (its evaluateName), else the editor's selection or
 * the expression at the cursor, else an input box.
 * @param {TensorViewer} viewer @param {any} arg @param {boolean} beside
 */
async function viewTensor(viewer, arg, beside) {
  const target = targetOf(arg);
  if ('error' in target) {
    showError(`View Tensor: ${target.error}`);
    return;
  }
  let state;
  let expression;
  if (target.from === 'variable') {
    state = viewer.sessions.get(target.sessionId) ?? viewer.sessions.get(vscode.debug.activeDebugSession?.id);
    expression = target.expression;
  } else {
    state = viewer.sessions.get(vscode.debug.activeDebugSession?.id);
    expression = editorExpression() ?? (state?.paused ? await askExpression() : undefined);
    if (state?.paused && expression === undefined) return;
  }
  if (!state || !state.paused) {
    showError(
      state?.ended === false
        ? 'View Tensor: the program is running; pause it (or stop at a breakpoint) first.'
        : 'View Tensor: no paused Python debug session (debugpy) to evaluate in.',
    );
    return;
  }
  if (!expression) return;
  await viewer.open({ expression, state, beside });
}

/** The active editor's selection, or the expression at its cursor. */
function editorExpression() {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return undefined;
  const selected = editor.document.getText(editor.selection).trim();
  if (selected) return selected;
  const position = editor.selection.active;
  return expressionAt(editor.document.lineAt(position.line).text, position.character);
}

function askExpression() {
  return vscode.window.showInputBox({ title: 'View Tensor', prompt: 'A Python expression in the selected frame (a tensor, variable or array)' });
}

module.exports = { viewTensor, COMMAND_VIEW, COMMAND_VIEW_BESIDE };
