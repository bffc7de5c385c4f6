// @ts-check
'use strict';
/**
 * "Copy TensorFlow state as Markdown": evaluates `tf_debug_repr.report()` in the frame selected
 * in the Call Stack of the paused debugpy session (as View Tensor evaluates `view_payload`, with
 * `context: "clipboard"`, so debugpy answers the whole str) and puts the Markdown on the clipboard.
 * The report escapes the debuggee's text itself; here it is only carried, never shown as markup
 * (the notification says how big it is, not what it holds). Nothing here imports `vscode`: the
 * editor's parts come in as `ui`, so node tests drive it with a duck-typed session.
 */
const { exceptionIn, messageOf, pyStr, ViewerError } = require('../viewer/result');

const COMMAND_COPY_REPORT = 'tfDebugRepr.copyStateAsMarkdown';

/** What is evaluated: a fixed expression, nothing of the debuggee's or the user's in it. */
const REPORT_EXPRESSION = "__import__('tf_debug_repr').report(format='markdown')";

/**
 * @typedef {import('../viewer/sessions').ViewerSessions} ViewerSessions
 * @typedef {{ activeSessionId: string | undefined, activeStackItem: any,
 *   writeClipboard(text: string): Thenable<void>, info(text: string): unknown,
 *   error(text: string): unknown }} ReportUi
 */

/**
 * The Markdown from an evaluate answer, or a ViewerError saying why there is none.
 * @param {{ result?: string, type?: string }} body
 * @returns {string}
 */
function decodeReport(body) {
  const exc = exceptionIn(body);
  if (exc) {
    if ((exc.type === 'ModuleNotFoundError' || exc.type === 'ImportError') && /tf_debug_repr/.test(exc.message)) {
      throw new ViewerError(`tf-debug-repr is not importable in the debugged program (${exc.message}): pip install tf-debug-repr where it runs.`);
    }
    if (exc.type === 'AttributeError' && /report/.test(exc.message)) {
      throw new ViewerError(`The tf-debug-repr in the debugged program has no report() (${exc.message}): pip install -U tf-debug-repr`);
    }
    throw new ViewerError(`report() failed: ${exc.type}: ${exc.message}`);
  }
  const text = body?.type === 'str' ? pyStr(body?.result ?? '') : undefined;
  if (text === undefined) {
    throw new ViewerError(`Unexpected answer from the debugged program (${body?.type ?? 'no type'}): ${(body?.result ?? '').slice(0, 200)}`);
  }
  return text;
}

/** `12.3 KB` for a character count. @param {number} n */
function sizeText(n) {
  return n < 1000 ? `${n} characters` : `${(n / 1000).toFixed(1)} KB`;
}

/**
 * The command: the report of the selected frame of the active paused debugpy session, copied.
 * @param {ViewerSessions} sessions @param {ReportUi} ui
 * @returns {Promise<string | undefined>} the Markdown copied, if any
 */
async function copyReport(sessions, ui) {
  const state = sessions.get(ui.activeSessionId);
  if (!state || !state.paused) {
    ui.error(
      state && !state.ended
        ? 'Copy TensorFlow state: the program is running; pause it (or stop at a breakpoint) first.'
        : 'Copy TensorFlow state: no paused Python debug session (debugpy).',
    );
    return undefined;
  }
  try {
    const frame = await state.currentFrame(ui.activeStackItem);
    const body = await state.session.customRequest('evaluate', { expression: REPORT_EXPRESSION, frameId: frame.frameId, context: 'clipboard' });
    const text = decodeReport(body);
    await ui.writeClipboard(text);
    const values = /^(\d[\d,]*) TF values/m.exec(text)?.[1] ?? '0';
    ui.info(`Copied the TensorFlow state as Markdown: ${values} TF values, ${sizeText(text.length)}.`);
    return text;
  } catch (e) {
    ui.error(`Copy TensorFlow state: ${messageOf(e, state)}`);
    return undefined;
  }
}

module.exports = { copyReport, decodeReport, COMMAND_COPY_REPORT, REPORT_EXPRESSION };
