// @ts-check
'use strict';
/** "Copy TensorFlow state as Markdown": what is evaluated, where, and what reaches the clipboard. */
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { ViewerSessions } = require('../../src/viewer/sessions');
const { copyReport, decodeReport, REPORT_EXPRESSION } = require('../../src/report/copyReport');

const MARKDOWN = '## TensorFlow state at train\\_step() line 27 of t.py\n\n3 TF values in the frame (locals, then globals).\n\n| name | value |\n| w\\|&lt;b&gt; | ok |\n';

/** A debugpy session that answers evaluate with `answer` (an evaluate body, or an Error to reject with). @param {any} answer */
function fakeSession(answer) {
  /** @type {{ command: string, args: any }[]} */
  const requests = [];
  return {
    id: 's1',
    requests,
    configuration: { request: 'launch' },
    /** @param {string} command @param {any} args */
    customRequest: async (command, args) => {
      requests.push({ command, args });
      if (command === 'stackTrace') return { stackFrames: [{ id: 1000 + args.threadId, name: 'main', line: 1, column: 1 }] };
      if (command === 'evaluate') {
        if (answer instanceof Error) throw answer;
        return answer;
      }
      return {};
    },
  };
}

/** @param {any} answer @param {{ stopped?: boolean }} [o] */
function setup(answer, { stopped = true } = {}) {
  const sessions = new ViewerSessions();
  const session = fakeSession(answer);
  const tracker = sessions.trackerFactory().createDebugAdapterTracker(session);
  if (stopped) tracker.onDidSendMessage({ type: 'event', event: 'stopped', body: { reason: 'breakpoint', threadId: 4 } });
  /** @type {{ clipboard: string[], infos: string[], errors: string[] }} */
  const seen = { clipboard: [], infos: [], errors: [] };
  const ui = {
    activeSessionId: 's1',
    activeStackItem: /** @type {any} */ (undefined),
    writeClipboard: async (/** @type {string} */ t) => void seen.clipboard.push(t),
    info: (/** @type {string} */ m) => seen.infos.push(m),
    error: (/** @type {string} */ m) => seen.errors.push(m),
  };
  return { sessions, session, ui, seen };
}

/** The body debugpy answers for a str with context "clipboard": its repr. @param {string} text */
function strBody(text) {
  return { type: 'str', result: `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'` };
}

test('evaluates the fixed report expression in the selected frame and copies the Markdown as it came', async () => {
  const { sessions, session, ui, seen } = setup(strBody(MARKDOWN));
  ui.activeStackItem = { session, threadId: 4, frameId: 77 };
  const copied = await copyReport(sessions, ui);
  assert.equal(copied, MARKDOWN);
  assert.deepEqual(seen.clipboard, [MARKDOWN]);
  const evaluate = session.requests.find((r) => r.command === 'evaluate');
  assert.deepEqual(evaluate?.args, { expression: REPORT_EXPRESSION, frameId: 77, context: 'clipboard' });
  assert.equal(REPORT_EXPRESSION, "__import__('tf_debug_repr').report(format='markdown')");
  assert.deepEqual(seen.infos, [`Copied the TensorFlow state as Markdown: 3 TF values, ${MARKDOWN.length} characters.`]);
  assert.deepEqual(seen.errors, []);
});

test('without a selected frame: the top frame of the thread that stopped', async () => {
  const { sessions, session, ui, seen } = setup(strBody(MARKDOWN));
  await copyReport(sessions, ui);
  assert.equal(session.requests.find((r) => r.command === 'evaluate')?.args.frameId, 1004);
  assert.equal(seen.clipboard.length, 1);
});

test('refused while running or without a debugpy session, nothing evaluated or copied', async () => {
  const running = setup(strBody(MARKDOWN), { stopped: false });
  assert.equal(await copyReport(running.sessions, running.ui), undefined);
  assert.match(running.seen.errors[0], /program is running/);
  assert.equal(running.session.requests.length, 0);
  const none = setup(strBody(MARKDOWN));
  none.ui.activeSessionId = 'another';
  await copyReport(none.sessions, none.ui);
  assert.match(none.seen.errors[0], /no paused Python debug session/);
  assert.deepEqual(none.seen.clipboard, []);
});

test('an old or missing tf-debug-repr, and a failed request, say so and copy nothing', async () => {
  const old = setup({ type: 'AttributeError', result: 'AttributeError("module \'tf_debug_repr\' has no attribute \'report\'")' });
  await copyReport(old.sessions, old.ui);
  assert.match(old.seen.errors[0], /has no report\(\).*pip install -U tf-debug-repr/);
  const missing = setup({ type: 'ModuleNotFoundError', result: 'ModuleNotFoundError("No module named \'tf_debug_repr\'")' });
  await copyReport(missing.sessions, missing.ui);
  assert.match(missing.seen.errors[0], /not importable/);
  const gone = setup(new Error('Unable to find thread 4'));
  await copyReport(gone.sessions, gone.ui);
  assert.match(gone.seen.errors[0], /not paused where this was evaluated/);
  for (const s of [old, missing, gone]) assert.deepEqual(s.seen.clipboard, []);
});

test('decodeReport reads the str repr exactly, escapes and non-ASCII included', () => {
  const text = "it's \\ a `w` ‖g‖=1 ‼ NaN×3\n| x |";
  assert.equal(decodeReport(strBody(text)), text);
  assert.throws(() => decodeReport({ type: 'int', result: '3' }), /Unexpected answer/);
});
