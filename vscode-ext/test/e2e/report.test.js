// @ts-check
'use strict';
/**
 * "Copy TensorFlow state as Markdown" and the inline values provider against a real debugpy
 * adapter with the bundled plugin: the command's and the provider's own code, given a
 * vscode.DebugSession-like object over the adapter (as viewer.test.js does), a stand-in only for
 * the clipboard, the notifications and vscode's Range/InlineValueText.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const { getTemplate } = require('../../src/launch/templates');
const { ViewerSessions } = require('../../src/viewer/sessions');
const { copyReport } = require('../../src/report/copyReport');
const { createInlineValuesProvider } = require('../../src/inline/inlineValues');
const h = require('./harness');
const envs = require('./envs');

const PROGRAM = path.join(h.FIXTURES, 'viewer_program.py');

/**
 * A session whose DAP events reach the sessions' tracker, and a DebugSession-like object over it.
 * @param {import('./harness').Session} s @param {ViewerSessions} sessions
 */
function tracked(s, sessions) {
  const dc = /** @type {any} */ (s.dc);
  const debugSession = {
    id: 'report-e2e',
    type: 'debugpy',
    configuration: { request: 'launch' },
    customRequest: (/** @type {string} */ command, /** @type {any} */ args) => dc.send(command, args).then((/** @type {any} */ r) => r.body),
  };
  const tracker = sessions.trackerFactory().createDebugAdapterTracker(debugSession);
  const dispatch = dc.dispatch;
  dc.dispatch = (/** @type {string} */ body) => {
    const msg = JSON.parse(body);
    if (msg.type !== 'request') tracker.onDidSendMessage(msg);
    return dispatch(body);
  };
  return debugSession;
}

class Range {
  /** @param {number} l1 @param {number} c1 @param {number} l2 @param {number} c2 */
  constructor(l1, c1, l2, c2) {
    Object.assign(this, { start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });
  }
}
class InlineValueText {
  /** @param {any} range @param {string} text */
  constructor(range, text) {
    Object.assign(this, { range, text });
  }
}

test('the report copied and the inline values shown at a stop, from the bundled plugin', { timeout: h.TIMEOUT * 2 }, async () => {
  const { python } = envs.buildEnv('no-plugin');
  const config = h.resolveAsVSCode(getTemplate('currentFile').configurations[0], { file: PROGRAM, python });
  const s = new h.Session({ python });
  const sessions = new ViewerSessions();
  const debugSession = tracked(s, sessions);
  try {
    const line = h.lineOf(PROGRAM, 'BREAK-HERE');
    const stopped = await s.start('launch', config, [{ path: PROGRAM, lines: [line] }]);
    const { top } = await s.topFrame(stopped.body.threadId);

    /** @type {{ clipboard: string[], infos: string[], errors: string[] }} */
    const seen = { clipboard: [], infos: [], errors: [] };
    const markdown = await copyReport(sessions, {
      activeSessionId: debugSession.id,
      activeStackItem: { session: debugSession, threadId: stopped.body.threadId, frameId: top.id },
      writeClipboard: async (t) => void seen.clipboard.push(t),
      info: (m) => seen.infos.push(String(m)),
      error: (m) => seen.errors.push(String(m)),
    });
    assert.deepEqual(seen.errors, []);
    assert.equal(seen.clipboard[0], markdown);
    assert.match(String(markdown), /^## TensorFlow state at main\(\) line \d+ of /);
    const row = (/** @type {string} */ name) => String(markdown).split('\n').find((l) => l.startsWith(`| ${name} |`));
    assert.match(String(row('tensor')), /^\| tensor \| float32\[3, 4\] .* \| \[3, 4\] \| float32 \| CPU:0 \| none \|$/);
    assert.match(String(row('weights')), /Variable 'weights'/);
    assert.equal(row('count'), undefined, 'an int is no TF value');
    assert.match(String(markdown), /### Gradients\n\n\| variable \| ‖g‖ \| gradient \|\n\|---\|---\|---\|\n\| weights \| 7\.55 \| ∇ /);
    assert.match(seen.infos[0], /^Copied the TensorFlow state as Markdown: \d+ TF values, [\d.]+ KB\.$/);

    // Inline values for the lines of main() in view, up to the stop (0-based lines).
    const source = fs.readFileSync(PROGRAM, 'utf8').split('\n');
    const first = source.findIndex((l) => l.startsWith('def main'));
    const provider = createInlineValuesProvider({ Range, InlineValueText, enabled: () => true, activeSession: () => debugSession });
    /** @type {string[]} */
    const requests = [];
    const counting = { ...debugSession, customRequest: (/** @type {string} */ c, /** @type {any} */ a) => (requests.push(c), debugSession.customRequest(c, a)) };
    const counted = createInlineValuesProvider({ Range, InlineValueText, enabled: () => true, activeSession: () => counting });
    const document = { lineCount: source.length, lineAt: (/** @type {number} */ l) => ({ text: source[l] }) };
    const viewPort = { start: { line: first, character: 0 }, end: { line: source.length - 1, character: 0 } };
    const context = { frameId: top.id, stoppedLocation: { start: { line: line - 1, character: 0 }, end: { line: line - 1, character: 0 } } };
    const values = await counted.provideInlineValues(document, viewPort, context);
    assert.deepEqual(requests, ['evaluate'], 'one request for the whole view');
    const byLine = new Map(values.map((v) => [v.range.start.line, v.text]));
    const at = (/** @type {string} */ start) => byLine.get(source.findIndex((l) => l.trimStart().startsWith(start)));
    assert.match(String(at('tensor = ')), /^tensor = float32\[3, 4\] x∈\[0, 11\] μ=5\.5/);
    // a variable's short form keeps its gradient's norm whole
    assert.match(String(at('weights = ')), /^weights = float32\[2, 2\] x∈\[-2, 3\] μ=0\.625 .*∇‖g‖=7\.55@/);
    assert.match(String(at('grad = ')), /^grad = float32\[2, 2\].* · loss = .* · weights = /);
    assert.equal(at('count = '), undefined, 'no TF value on that line');
    assert.equal(at('print('), undefined, 'below the stop');
    for (const text of byLine.values()) for (const part of text.split(' · ')) assert.ok(part.split(' = ')[1].length <= 80, part);
    assert.ok((await provider.provideInlineValues(document, viewPort, context)).length === values.length);
    await s.finish(stopped.body.threadId);
  } finally {
    await s.close();
  }
});
