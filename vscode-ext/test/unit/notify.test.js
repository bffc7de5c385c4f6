// @ts-check
'use strict';
/**
 * Hostile values in notifications: VS Code renders `[label](command:…)` in a notification as a
 * link that runs the command, so no text from the debuggee (row names, expressions, exception
 * and report text) may reach one with that syntax intact. Every place that builds a notification
 * from such text is driven here with a hostile value.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');

const { viewerWithStandIn } = require('./vscodeStandIn');

const SRC = path.resolve(__dirname, '..', '..', 'src');
const LINK = '[Open a terminal](command:workbench.action.terminal.new)';
/** VS Code's own link syntax in notifications (vs/base/common/linkedText.ts). */
const VSCODE_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/i;
const HOSTILE = [
  LINK,
  `[a](command:x?${encodeURIComponent('["rm -rf /"]')})`,
  '[[nested]](command:x)](command:y)',
  '[a]](command:x)',
  '[a](https://example.com/) and [b](file:///etc/passwd)',
  `line one\n${LINK}\nline three`,
  `${'x'.repeat(5000)}${LINK}`,
];

/** The notify module loaded against the stand-in (it requires `vscode`). */
function notify() {
  const { mods, ui } = viewerWithStandIn();
  return { loaded: mods, ui };
}

test('plainText leaves no link VS Code would render, and reads the same', () => {
  const { loaded } = notify();
  for (const text of HOSTILE) {
    const shown = loaded.plainText(text);
    assert.doesNotMatch(shown, VSCODE_LINK, text);
    assert.ok(!shown.includes(']('), text);
    assert.ok(shown.length <= loaded.MAX_MESSAGE, 'cut');
  }
  assert.equal(loaded.plainText('x[0] (float32) is nan'), 'x[0] (float32) is nan', 'ordinary text unchanged');
  assert.equal(loaded.plainText(LINK), '[Open a terminal] (command:workbench.action.terminal.new)');
});

test('no module but notify.js calls vscode.window.show*Message itself', () => {
  for (const name of fs.readdirSync(SRC)) {
    if (!name.endsWith('.js') || name === 'notify.js') continue;
    const text = fs.readFileSync(path.join(SRC, name), 'utf8');
    assert.doesNotMatch(text, /\.show(?:Error|Information|Warning)Message\b/, `${name} shows a notification without notify.js`);
  }
});

/** A viewer whose debuggee answers every evaluate with `answer`. @param {(args: any) => any} answer */
function viewerAnswering(answer) {
  const { vscode, panels, ui, mods } = viewerWithStandIn();
  const sessions = new mods.ViewerSessions();
  const session = {
    id: 's1',
    name: 'Python: train',
    configuration: { request: 'launch', name: 'Python: train' },
    customRequest: async (/** @type {string} */ command, /** @type {any} */ args) => {
      if (command === 'stackTrace') return { stackFrames: [{ id: 101 }] };
      if (command === 'evaluate') return answer(args);
      throw new Error(`unexpected ${command}`);
    },
  };
  const tracker = sessions.trackerFactory().createDebugAdapterTracker(session);
  tracker.onDidSendMessage({ type: 'event', event: 'stopped', body: { reason: 'breakpoint', threadId: 1 } });
  const viewer = new mods.TensorViewer(/** @type {any} */ ({ fsPath: '/ext' }), sessions, 'k'.repeat(40));
  viewer.register();
  vscode.debug.activeDebugSession = session;
  return { viewer, panels, ui, state: /** @type {any} */ (sessions.get('s1')) };
}

const PAYLOAD = `'${Buffer.from(JSON.stringify({ version: 1, error: null, summary: 'w', shape: [2] })).toString('base64')}'`;
/** @param {string} text a Python str's repr, as debugpy sends a returned str */
const pyRepr = (text) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;

test('Save as .npy: the debuggee\'s report (saved) carries no link', async () => {
  for (const hostile of HOSTILE) {
    const w = viewerAnswering((args) =>
      args.expression.includes('save_npy') ? { result: pyRepr(`saved string[2] to ${hostile}`), type: 'str' } : { result: PAYLOAD, type: 'str' },
    );
    await w.viewer.open({ expression: 'w', state: w.state });
    w.ui.saveAnswer = { fsPath: '/ws/w.npy' };
    await w.panels[0].onMessage({ type: 'saveNpy' });
    assert.equal(w.ui.infos.length, 1);
    assert.doesNotMatch(w.ui.infos[0], VSCODE_LINK);
  }
});

test('Save as .npy: the debuggee\'s report (not saved) carries no link', async () => {
  const w = viewerAnswering((args) =>
    args.expression.includes('save_npy') ? { result: pyRepr(`not saved: OSError: ${LINK}`), type: 'str' } : { result: PAYLOAD, type: 'str' },
  );
  await w.viewer.open({ expression: 'w', state: w.state });
  w.ui.saveAnswer = { fsPath: '/ws/w.npy' };
  await w.panels[0].onMessage({ type: 'saveNpy' });
  assert.equal(w.ui.errors.length, 1);
  assert.match(w.ui.errors[0], /^Save as \.npy: not saved: OSError: \[Open a terminal\] \(command:/);
  assert.doesNotMatch(w.ui.errors[0], VSCODE_LINK);
});

test('Save as .npy: an exception raised while saving carries no link', async () => {
  const w = viewerAnswering((args) =>
    args.expression.includes('save_npy') ? { result: `RuntimeError('${LINK}')`, type: 'RuntimeError' } : { result: PAYLOAD, type: 'str' },
  );
  await w.viewer.open({ expression: 'w', state: w.state });
  w.ui.saveAnswer = { fsPath: '/ws/w.npy' };
  await w.panels[0].onMessage({ type: 'saveNpy' });
  assert.equal(w.ui.errors.length, 1);
  assert.doesNotMatch(w.ui.errors[0], VSCODE_LINK);
});

test('Save as .npy: a failed request (the adapter\'s error text) carries no link', async () => {
  const w = viewerAnswering((args) => {
    if (args.expression.includes('save_npy')) throw new Error(`evaluate failed: ${LINK}`);
    return { result: PAYLOAD, type: 'str' };
  });
  await w.viewer.open({ expression: 'w', state: w.state });
  w.ui.saveAnswer = { fsPath: '/ws/w.npy' };
  await w.panels[0].onMessage({ type: 'saveNpy' });
  assert.equal(w.ui.errors.length, 1);
  assert.doesNotMatch(w.ui.errors[0], VSCODE_LINK);
});

test('View Tensor: a row without an expression, named with a link, carries no link', async () => {
  const w = viewerAnswering(() => ({ result: PAYLOAD, type: 'str' }));
  for (const hostile of HOSTILE) {
    await w.viewer.view({ sessionId: 's1', variable: { name: hostile } }, false);
    assert.doesNotMatch(w.ui.errors.at(-1) ?? '', VSCODE_LINK, hostile);
    assert.match(w.ui.errors.at(-1) ?? '', /^View Tensor: /);
  }
});
