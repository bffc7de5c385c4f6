// @ts-check
'use strict';
/**
 * Every notification the extension shows goes through here. VS Code renders `[label](target)`
 * in a notification's message as a link, and a `command:` target runs that command when clicked:
 * text from the debuggee (row names, expressions, exception and report text) must never become
 * one. `plainText` breaks every `](`, which the link syntax needs, so the text reads the same
 * and links nothing. A test (notify.test.js) keeps the other modules off `vscode.window.show*Message`.
 */
const vscode = require('vscode');

/** Longest message shown: a debuggee's exception text can be any length. */
const MAX_MESSAGE = 2_000;

/**
 * `text` with no markdown link left in it, cut to MAX_MESSAGE characters.
 * @param {unknown} text
 * @returns {string}
 */
function plainText(text) {
  let s = String(text);
  if (s.length > MAX_MESSAGE) s = `${s.slice(0, MAX_MESSAGE - 1)}…`;
  // `[a](command:x)` → `[a] (command:x)`: one pass leaves no `](` (a `]` now precedes a space).
  return s.replace(/\]\(/g, '] (');
}

/** @param {unknown} text @param {string[]} items */
function showError(text, ...items) {
  return vscode.window.showErrorMessage(plainText(text), ...items);
}

/** @param {unknown} text @param {string[]} items */
function showInfo(text, ...items) {
  return vscode.window.showInformationMessage(plainText(text), ...items);
}

/** @param {unknown} text @param {string[]} items */
function showWarning(text, ...items) {
  return vscode.window.showWarningMessage(plainText(text), ...items);
}

module.exports = { plainText, showError, showInfo, showWarning, MAX_MESSAGE };
