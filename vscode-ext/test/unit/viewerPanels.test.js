// @ts-check
'use strict';
/**
 * The panels' side of the page protocol (docs/tensor-viewer.md §3), run against a recording
 * stand-in for the `vscode` module and a debug session that answers like debugpy does (the
 * real adapter is driven in test/e2e/viewer.test.js): what each page message makes the extension
 * evaluate, and what it posts back.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');

const { viewerWithStandIn } = require('./vscodeStandIn');
/** The secret the extension keeps in globalState to sign what pages keep. */
const KEY = 'test-key-0123456789abcdef0123456789abcdef';

/** An evaluate answer holding a payload, as debugpy sends a returned str. @param {object} payload */
function answer(payload) {
  return { result: `'${Buffer.from(JSON.stringify(payload)).toString('base64')}'`, type: 'str', variablesReference: 0 };
}

function world() {
  const { vscode, panels, serializers, ui, mods } = viewerWithStandIn();
  /** What the debuggees are asked (s1's in `requests`, every session's in `all`). */
  const requests = /** @type {{ command: string, args: any }[]} */ ([]);
  const all = /** @type {{ session: string, command: string, args: any }[]} */ ([]);
  let weight = 1;
  const sessions = new mods.ViewerSessions();
  /**
   * A debugpy session as VS Code would have it, with its tracker. It answers like debugpy: frame
   * ids `frameBase` + thread id; a name with `nope` in it is not defined; `vec` is 1-D here, so a
   * request for a 2-D slice of it gets view_payload's error (the text tensor_slices gives).
   * @param {string} id @param {string | undefined} name the launch configuration's name @param {number} frameBase
   */
  const newSession = (id, name, frameBase) => {
    const session = {
      id,
      name: name ?? id,
      configuration: { request: 'launch', name },
      customRequest: async (/** @type {string} */ command, /** @type {any} */ args) => {
        if (id === 's1') requests.push({ command, args });
        all.push({ session: id, command, args });
        if (command === 'stackTrace') return { stackFrames: [{ id: frameBase + args.threadId }] };
        if (command === 'evaluate' && args.expression.includes('save_npy')) return { result: "'saved float32[2] to /ws/w.npy'", type: 'str' };
        if (command === 'evaluate' && args.expression.includes('nope')) return { result: 'NameError("name \'nope\' is not defined")', type: 'NameError' };
        if (command === 'evaluate' && args.expression.includes('((vec),') && !args.expression.includes('index=None')) {
          const index = /index=(\[[^\]]*\])/.exec(args.expression)?.[1];
          return answer({ version: 1, error: `index must hold one entry per axis (1), not ${index}`, summary: 'float32[4]', shape: [4], slice: null, bad_request: true, from: id });
        }
        if (command === 'evaluate' && args.expression.includes('((words),')) {
          return answer({ version: 1, error: 'strings: no numbers to draw', summary: 'string[2]', shape: [2], slice: null, bad_request: false, from: id });
        }
        if (command === 'evaluate') return answer({ version: 1, error: null, summary: `w=${weight}`, shape: [2], from: id });
        throw new Error(`unexpected ${command}`);
      },
    };
    const tracker = sessions.trackerFactory().createDebugAdapterTracker(session);
    const state = /** @type {any} */ (sessions.get(id));
    return {
      session,
      tracker,
      state,
      stop: (/** @type {number} */ threadId) => tracker.onDidSendMessage({ type: 'event', event: 'stopped', body: { reason: 'breakpoint', threadId } }),
      resume: () => tracker.onWillReceiveMessage({ type: 'request', command: 'continue', arguments: { threadId: 1 } }),
      end: () => (tracker.onDidSendMessage({ type: 'event', event: 'terminated', body: {} }), sessions.terminated(session)),
    };
  };
  const s1 = newSession('s1', 'Python: train', 100);
  const { session, tracker, state, stop } = s1;
  const viewer = new mods.TensorViewer(/** @type {any} */ ({ fsPath: '/ext' }), sessions, KEY);
  const disposables = viewer.register();
  /** A panel VS Code brings back after a window reload (not made by createWebviewPanel). */
  const revivedPanel = () => {
    const p = vscode.window.createWebviewPanel(mods.VIEW_TYPE, 'w (restored title)', { viewColumn: 2 }, {});
    p.webview.options = undefined;
    return /** @type {any} */ (p);
  };
  return { vscode, ui, panels, serializers, session, requests, all, sessions, tracker, viewer, state, stop, disposables, newSession, revivedPanel, setWeight: (/** @type {number} */ w) => (weight = w) };
}

const settle = () => new Promise((r) => setTimeout(r, 10));
const evaluations = (/** @type {any[]} */ requests) => requests.filter((r) => r.command === 'evaluate').map((r) => [r.args.expression, r.args.frameId, r.args.context]);

test('View Tensor from a Variables row: a panel titled by the expression, evaluated in the selected frame', async () => {
  const w = world();
  w.vscode.workspace.settings['viewer.reuseView'] = false; // a view per value
  w.stop(1);
  w.vscode.debug.activeStackItem = { session: w.session, threadId: 1, frameId: 7 };
  await w.viewer.view({ sessionId: 's1', container: {}, variable: { name: '∇ gradient', evaluateName: "__import__('tf_debug_repr').gradient_info(w)", variablesReference: 3 } }, false);
  assert.equal(w.panels.length, 1);
  const p = w.panels[0];
  assert.equal(p.title, '∇ w');
  assert.deepEqual(p.options.localResourceRoots.map((/** @type {any} */ u) => u.fsPath), [path.join('/ext', 'media', 'viewer')]);
  assert.equal(p.options.enableScripts, true);
  assert.equal(p.options.retainContextWhenHidden, false);
  assert.match(p.webview.html, /Content-Security-Policy/);
  // A view's first picture asks for a smaller payload (the full one follows only where it was reduced).
  assert.deepEqual(evaluations(w.requests), [["__import__('tf_debug_repr').view_payload((__import__('tf_debug_repr').gradient_of(w)), axes=None, index=None, region=None, part=None, budget=200000)", 7, 'clipboard']]);
  assert.deepEqual(p.posted.map((/** @type {any} */ m) => m.type), ['loading', 'payload']);
  const payload = p.posted[1];
  assert.equal(payload.expression, "__import__('tf_debug_repr').gradient_of(w)");
  assert.equal(payload.payload.summary, 'w=1');
  assert.deepEqual(payload.request, { axes: null, index: null, region: null, part: null });
  assert.equal(payload.pinned, false);
  // Views share the group beside the source; the same expression again reuses its view.
  assert.equal(p.viewColumn, 2);
  await w.viewer.view({ sessionId: 's1', variable: { name: 'x', evaluateName: 'x', variablesReference: 0 } }, false);
  assert.equal(w.panels[1].viewColumn, 2);
  await w.viewer.view({ sessionId: 's1', variable: { name: 'x', evaluateName: 'x', variablesReference: 0 } }, false);
  assert.equal(w.panels.length, 2);
  assert.equal(w.panels[1].revealed, 1);
  await w.viewer.view({ sessionId: 's1', variable: { name: 'x', evaluateName: 'x', variablesReference: 0 } }, true);
  assert.equal(w.panels[2].viewColumn, 3, 'View Tensor Beside: the next group');
  // The same again beside, from the view in group 2: already there, revealed, not doubled.
  w.viewer.lastPanel = w.viewer.panels.values().next().value;
  await w.viewer.view({ sessionId: 's1', variable: { name: 'x', evaluateName: 'x', variablesReference: 0 } }, true);
  assert.equal(w.panels.length, 3);
  assert.equal(w.panels[2].revealed, 1);
});

test('page messages: request refetches in the same frame; ready re-sends; a bad request is an error message', async () => {
  const w = world();
  w.stop(2);
  await w.viewer.open({ expression: 'w', state: w.state });
  const p = w.panels[0];
  assert.equal(w.requests[0].command, 'stackTrace', 'no frame selected: the top frame of the stopped thread');
  await p.onMessage({ type: 'request', axes: [1, 0], index: [0, null], region: null, part: 'real' });
  assert.deepEqual(evaluations(w.requests)[1], ["__import__('tf_debug_repr').view_payload((w), axes=[1, 0], index=[0, None], region=None, part=\"real\")", 102, 'clipboard']);
  assert.equal(w.requests.filter((r) => r.command === 'stackTrace').length, 1, 'the frame is reused while the program has not moved');
  const numbers = p.posted.filter((/** @type {any} */ m) => m.type === 'payload').map((/** @type {any} */ m) => m.n);
  assert.deepEqual(numbers, [1, 2], 'each fetched payload has its own number');
  p.posted.length = 0;
  await p.onMessage({ type: 'ready' });
  assert.deepEqual(p.posted.map((/** @type {any} */ m) => m.type), ['payload']);
  assert.deepEqual(p.posted[0].request, { axes: [1, 0], index: [0, null], region: null, part: 'real' });
  assert.equal(p.posted[0].n, 2, 'sent again at ready with its number: a page already showing it skips it');
  await p.onMessage({ type: 'request', axes: [0, 'x'] });
  assert.deepEqual(p.posted.at(-1).type, 'error');
  assert.match(p.posted.at(-1).message, /Bad request: an axis must be an integer/);
});

test('a pinned view refreshes at each stop in the stopped thread\'s top frame; running and ended make views stale', async () => {
  const w = world();
  w.stop(1);
  await w.viewer.open({ expression: 'w', state: w.state });
  await w.viewer.open({ expression: 'b', state: w.state, beside: true });
  const [pinned, other] = w.panels;
  await pinned.onMessage({ type: 'pin', pinned: true });
  w.tracker.onWillReceiveMessage({ type: 'request', command: 'continue', arguments: { threadId: 1 } });
  assert.deepEqual(pinned.posted.at(-1), { type: 'stale', reason: 'the program is running; this view refreshes at the next stop' });
  assert.deepEqual(other.posted.at(-1), { type: 'stale', reason: 'the program is running; Refresh at the next stop' });
  w.setWeight(2);
  const before = evaluations(w.requests).length;
  w.stop(3);
  await settle();
  const after = evaluations(w.requests).slice(before);
  assert.deepEqual(after, [["__import__('tf_debug_repr').view_payload((w), axes=None, index=None, region=None, part=None)", 103, 'clipboard']], 'only the pinned view, in thread 3\'s top frame');
  assert.equal(pinned.posted.at(-1).payload.summary, 'w=2');
  assert.equal(pinned.posted.at(-1).pinned, true);
  assert.equal(other.posted.at(-1).type, 'stale', 'the unpinned view keeps its picture, greyed');
  w.tracker.onDidSendMessage({ type: 'event', event: 'terminated', body: {} });
  assert.deepEqual(pinned.posted.at(-1), { type: 'stale', reason: 'the debug session has ended; this pinned view refreshes at the next stop of a new debug session' });
  assert.deepEqual(other.posted.at(-1), { type: 'stale', reason: 'the debug session has ended; Refresh to view it in another paused session, or Pin to follow the next one' });
  await other.onMessage({ type: 'request', axes: null });
  assert.match(other.posted.at(-1).message, /session has ended/);
});

test('an answer that arrives after the program resumed is shown, then marked stale again', async () => {
  const w = world();
  w.stop(1);
  await w.viewer.open({ expression: 'w', state: w.state });
  const p = w.panels[0];
  /** @type {(v: any) => void} */
  let release = () => {};
  const original = w.session.customRequest;
  w.session.customRequest = async (command, args) => {
    if (command === 'evaluate') await new Promise((r) => (release = r));
    return original(command, args);
  };
  const pending = p.onMessage({ type: 'request', axes: [0, 1] });
  await settle();
  w.tracker.onWillReceiveMessage({ type: 'request', command: 'continue', arguments: { threadId: 1 } });
  release(undefined);
  await pending;
  assert.deepEqual(p.posted.slice(-3).map((/** @type {any} */ m) => m.type), ['stale', 'payload', 'stale']);
  assert.deepEqual(p.posted.at(-2).request.axes, [0, 1]);
});

test('compare opens the gradient (or what the user types) beside; copy writes the clipboard; saveNpy asks where and reports', async () => {
  const w = world();
  w.stop(1);
  await w.viewer.open({ expression: 'model.w', state: w.state });
  assert.equal(w.panels[0].viewColumn, 2, 'the first view beside the source');
  const p = w.panels[0];
  w.ui.inputAnswers.push("__import__('tf_debug_repr').gradient_of(model.w)");
  await p.onMessage({ type: 'compare' });
  assert.equal(w.ui.inputs[0].value, "__import__('tf_debug_repr').gradient_of(model.w)", 'prefilled with the gradient');
  assert.equal(w.panels.length, 2);
  assert.equal(w.panels[1].viewColumn, 3, 'compared: in the group next to the view');
  assert.equal(w.panels[1].title, '∇ model.w');
  await p.onMessage({ type: 'copy', text: '1\t2\n', format: 'tsv' });
  assert.deepEqual(w.ui.clipboard, ['1\t2\n'], "the Table's block goes to VS Code's clipboard");
  await p.onMessage(/** @type {any} */ ({ type: 'copy', text: 42 }));
  assert.equal(w.ui.clipboard.length, 1, 'only text');
  w.ui.inputAnswers.push(undefined); // cancelled: nothing opens
  await p.onMessage({ type: 'compare' });
  assert.equal(w.panels.length, 2);

  w.ui.saveAnswer = { fsPath: "/ws/it's.npy" };
  await p.onMessage({ type: 'saveNpy' });
  const save = w.ui.inputs.at(-1);
  assert.equal(save.defaultUri.fsPath, path.join('/ws', 'model.w.npy'));
  assert.deepEqual(save.filters, { 'NumPy array': ['npy'] });
  assert.deepEqual(evaluations(w.requests).at(-1), ["__import__('tf_debug_repr').save_npy((model.w), \"/ws/it's.npy\")", 101, 'clipboard']);
  assert.deepEqual(w.ui.infos, ['saved float32[2] to /ws/w.npy']);
  // Attach sessions: a path in the program's own file system, typed in.
  w.session.configuration.request = 'attach';
  w.ui.inputAnswers.push('/tmp/in-container.npy');
  await p.onMessage({ type: 'saveNpy' });
  assert.match(w.ui.inputs.at(-1).prompt, /debugged program's file system/);
  assert.match(evaluations(w.requests).at(-1)?.[0], /save_npy\(\(model\.w\), "\/tmp\/in-container\.npy"\)$/);
});

test('messages for a name missing in the frame, a running program, and no session', async () => {
  const w = world();
  w.stop(1);
  await w.viewer.open({ expression: 'nope', state: w.state });
  assert.match(w.panels[0].posted.at(-1).message, /name 'nope' is not defined in the selected frame/);
  w.tracker.onWillReceiveMessage({ type: 'request', command: 'next', arguments: { threadId: 1 } });
  w.vscode.debug.activeDebugSession = w.session;
  await w.viewer.view({ sessionId: 's1', variable: { name: 'w', evaluateName: 'w' } }, false);
  assert.match(w.ui.errors.at(-1) ?? '', /program is running/);
  await w.viewer.view({ sessionId: 'gone', variable: { name: 'w', evaluateName: 'w' } }, false);
  assert.match(w.ui.errors.at(-1) ?? '', /program is running/, 'an unknown session id falls back to the active session');
  w.vscode.debug.activeDebugSession = undefined;
  await w.viewer.view(undefined, false);
  assert.match(w.ui.errors.at(-1) ?? '', /no paused Python debug session/);
});

test('a save the debuggee could not make is shown as an error, not as information', async () => {
  const w = world();
  w.stop(1);
  await w.viewer.open({ expression: 'model.w', state: w.state });
  const answers = w.session.customRequest;
  w.session.customRequest = async (/** @type {string} */ command, /** @type {any} */ args) =>
    command === 'evaluate' && args.expression.includes('save_npy')
      ? { result: "'not saved: PermissionError: [Errno 13] Permission denied: \\'/ro/w.npy\\''", type: 'str' }
      : answers(command, args);
  w.ui.saveAnswer = { fsPath: '/ro/w.npy' };
  await w.panels[0].onMessage({ type: 'saveNpy' });
  assert.deepEqual(w.ui.infos, []);
  assert.deepEqual(w.ui.errors, ["Save as .npy: not saved: PermissionError: [Errno 13] Permission denied: '/ro/w.npy'"]);
});

// ---- views that outlive their session, and a window reload -------------------------------------

/** The evaluations one session was asked for: [expression, frameId]. @param {any} w @param {string} id */
const evaluatedIn = (w, id) => w.all.filter((/** @type {any} */ r) => r.session === id && r.command === 'evaluate').map((/** @type {any} */ r) => [r.args.expression, r.args.frameId]);
const VIEW_W = (/** @type {string} */ args = 'axes=None, index=None, region=None, part=None') => `__import__('tf_debug_repr').view_payload((w), ${args})`;

test('a pinned view whose session ended is adopted by the next session that stops, with its last slice request', async () => {
  const w = world();
  w.stop(1);
  await w.viewer.open({ expression: 'w', state: w.state });
  const p = w.panels[0];
  await p.onMessage({ type: 'request', axes: [1, 0], index: [null, null], region: [[0, 1], [0, 2]], part: null });
  await p.onMessage({ type: 'pin', pinned: true });
  w.tracker.onDidSendMessage({ type: 'event', event: 'terminated', body: {} });
  w.sessions.terminated(w.session);
  assert.match(p.posted.at(-1).reason, /ended; this pinned view refreshes at the next stop of a new debug session/);
  // The next run: a new session (same launch configuration), which runs, then stops.
  const next = w.newSession('s2', 'Python: train', 200);
  assert.deepEqual(evaluatedIn(w, 's2'), [], 'nothing is asked of a running program');
  next.stop(4);
  await settle();
  assert.deepEqual(evaluatedIn(w, 's2'), [[VIEW_W('axes=[1, 0], index=[None, None], region=[[0, 1], [0, 2]], part=None'), 204]], "in thread 4's top frame, with the last request");
  const shown = p.posted.at(-1);
  assert.equal(shown.type, 'payload');
  assert.equal(shown.payload.from, 's2');
  assert.equal(shown.pinned, true);
  assert.deepEqual(shown.request, { axes: [1, 0], index: [null, null], region: [[0, 1], [0, 2]], part: null });
  assert.equal(shown.view.session, 'Python: train', 'the page keeps where it came from');
  // It now belongs to s2: stale when s2 runs, refreshed at s2's next stop.
  next.resume();
  assert.match(p.posted.at(-1).reason, /the program is running; this view refreshes at the next stop/);
  next.stop(4);
  await settle();
  assert.equal(evaluatedIn(w, 's2').length, 2);
});

test('several sessions: a view waits for a session of its own configuration; once adopted it never moves to another running one', async () => {
  const w = world();
  const chief = w.newSession('c1', 'chief', 300);
  const worker = w.newSession('k1', 'worker', 400);
  chief.stop(1);
  worker.stop(1);
  await w.viewer.open({ expression: 'w', state: chief.state });
  await w.viewer.open({ expression: 'w', state: worker.state, beside: true });
  const [ofChief, ofWorker] = w.panels;
  for (const p of [ofChief, ofWorker]) await p.onMessage({ type: 'pin', pinned: true });
  chief.end();
  worker.end();
  // The pair again; the worker stops first: only the worker's view is taken up.
  const chief2 = w.newSession('c2', 'chief', 500);
  const worker2 = w.newSession('k2', 'worker', 600);
  worker2.stop(2);
  await settle();
  assert.deepEqual(evaluatedIn(w, 'k2'), [[VIEW_W(), 602]]);
  assert.equal(ofWorker.posted.at(-1).payload.from, 'k2');
  assert.equal(ofChief.posted.at(-1).type, 'stale', "the chief's view waits for the chief");
  chief2.stop(3);
  await settle();
  assert.deepEqual(evaluatedIn(w, 'c2'), [[VIEW_W(), 503]]);
  assert.equal(ofChief.posted.at(-1).payload.from, 'c2');
  // No jumping: each view refreshes at its own session's stops only.
  chief2.resume();
  worker2.resume();
  chief2.stop(3);
  await settle();
  assert.equal(evaluatedIn(w, 'k2').length, 1, "a chief's stop does not refresh the worker's view");
  assert.equal(evaluatedIn(w, 'c2').length, 2);
  assert.equal(ofWorker.posted.at(-1).type, 'stale');
  // A configuration renamed (no session of the old name runs): the first session that stops.
  worker2.end();
  chief2.end();
  const renamed = w.newSession('r1', 'worker (renamed)', 700);
  const other = w.newSession('o1', 'chief', 800);
  renamed.stop(1);
  await settle();
  assert.deepEqual(evaluatedIn(w, 'r1'), [[VIEW_W(), 701]], 'the worker view: no "worker" session runs');
  assert.equal(ofChief.posted.at(-1).type, 'stale', 'the chief view: a "chief" session runs, so it waits for it');
  other.stop(1);
  await settle();
  assert.equal(ofChief.posted.at(-1).payload.from, 'o1');
});

test("a live session's pinned view is never taken by another session's stop", async () => {
  const w = world();
  w.stop(1);
  await w.viewer.open({ expression: 'w', state: w.state });
  await w.panels[0].onMessage({ type: 'pin', pinned: true });
  const other = w.newSession('s2', undefined, 200);
  other.stop(1);
  await settle();
  assert.deepEqual(evaluatedIn(w, 's2'), []);
  assert.equal(w.panels[0].posted.at(-1).payload.from, 's1');
});

test('an unpinned view of an ended session stays stale at the next stop; Refresh evaluates in the paused session', async () => {
  const w = world();
  w.stop(1);
  await w.viewer.open({ expression: 'w', state: w.state });
  const p = w.panels[0];
  w.tracker.onDidSendMessage({ type: 'event', event: 'terminated', body: {} });
  // Refresh with no session paused anywhere: says so.
  await p.onMessage({ type: 'request', axes: null, index: null, region: null, part: null });
  assert.match(p.posted.at(-1).message, /The debug session has ended: start it again/);
  const next = w.newSession('s2', 'Python: train', 200);
  next.stop(1);
  await settle();
  assert.deepEqual(evaluatedIn(w, 's2'), [], 'not pinned: not refreshed');
  assert.equal(p.posted.at(-1).type, 'error');
  const said = p.posted.length;
  next.resume();
  next.stop(1);
  await settle();
  assert.equal(p.posted.length, said, "not taken up by s2 either: its running and stops say nothing to this view");
  // Refresh (the page sends its request): the paused session answers, and the view is its own now.
  w.setWeight(5);
  await p.onMessage({ type: 'request', axes: null, index: null, region: null, part: null });
  assert.deepEqual(evaluatedIn(w, 's2'), [[VIEW_W(), 201]]);
  assert.equal(p.posted.at(-1).payload.summary, 'w=5');
  next.resume();
  assert.match(p.posted.at(-1).reason, /the program is running; Refresh at the next stop/);
});

test('pinning a view whose session ended brings it up to date in a paused session, else says it waits', async () => {
  const w = world();
  w.stop(1);
  await w.viewer.open({ expression: 'w', state: w.state });
  const p = w.panels[0];
  w.tracker.onDidSendMessage({ type: 'event', event: 'terminated', body: {} });
  await p.onMessage({ type: 'pin', pinned: true });
  assert.match(p.posted.at(-1).reason, /this pinned view refreshes at the next stop of a new debug session/);
  await p.onMessage({ type: 'pin', pinned: false });
  const next = w.newSession('s2', 'Python: train', 200);
  next.stop(1);
  await settle();
  await p.onMessage({ type: 'pin', pinned: true });
  assert.deepEqual(evaluatedIn(w, 's2'), [[VIEW_W(), 201]]);
  assert.equal(p.posted.at(-1).type, 'payload');
});

test('adopted where the name is not defined: the error is shown, the view stays pinned and tries again at the next stop', async () => {
  const w = world();
  w.stop(1);
  await w.viewer.open({ expression: 'nope_w', state: w.state });
  const p = w.panels[0];
  await p.onMessage({ type: 'pin', pinned: true });
  w.tracker.onDidSendMessage({ type: 'event', event: 'terminated', body: {} });
  const next = w.newSession('s2', 'Python: train', 200);
  next.stop(1);
  await settle();
  assert.match(p.posted.at(-1).message, /name 'nope' is not defined in the selected frame.*This pinned view tries again at the next stop\./);
  assert.equal([...w.viewer.panels][0].pinned, true);
  next.resume();
  next.stop(1);
  await settle();
  assert.equal(evaluatedIn(w, 's2').length, 2, 'refreshed again at the next stop');
});

test("a slice request that no longer fits the value's shape falls back to the default slice", async () => {
  const w = world();
  w.stop(1);
  await w.viewer.open({ expression: 'vec', state: w.state });
  const p = w.panels[0];
  await p.onMessage({ type: 'pin', pinned: true });
  // A request the page made for the value as it was (3-D, say); the value is 1-D now.
  const view = [...w.viewer.panels][0];
  view.request = { axes: [1, 2], index: [0, null, null], region: null, part: null };
  w.tracker.onWillReceiveMessage({ type: 'request', command: 'continue', arguments: { threadId: 1 } });
  const before = evaluatedIn(w, 's1').length;
  w.stop(1);
  await settle();
  const asked = evaluatedIn(w, 's1').slice(before).map((/** @type {any[]} */ e) => e[0]);
  assert.deepEqual(asked, [
    "__import__('tf_debug_repr').view_payload((vec), axes=[1, 2], index=[0, None, None], region=None, part=None)",
    "__import__('tf_debug_repr').view_payload((vec), axes=None, index=None, region=None, part=None)",
  ]);
  const shown = p.posted.at(-1);
  assert.equal(shown.type, 'payload');
  assert.equal(shown.payload.error, null);
  assert.deepEqual(shown.request, { axes: null, index: null, region: null, part: null }, 'the page is told the default slice is shown');
  assert.deepEqual(view.request, { axes: null, index: null, region: null, part: null });
});

test('an error about the value, not the request, is shown as it is: no second evaluate', async () => {
  const w = world();
  w.stop(1);
  await w.viewer.open({ expression: 'words', state: w.state });
  const p = w.panels[0];
  const before = evaluatedIn(w, 's1').length;
  await p.onMessage({ type: 'request', axes: [null, 0], index: [0], region: null, part: null });
  const asked = evaluatedIn(w, 's1').slice(before).map((/** @type {any[]} */ e) => e[0]);
  assert.deepEqual(asked, ["__import__('tf_debug_repr').view_payload((words), axes=[None, 0], index=[0], region=None, part=None)"]);
  assert.equal(p.posted.at(-1).payload.error, 'strings: no numbers to draw');
  assert.deepEqual(p.posted.at(-1).request, { axes: [null, 0], index: [0], region: null, part: null });
});

/** A page's saved state as the page keeps it: the extension's `view` plus request and pinned. @param {any} msg @param {object} [extra] */
const pageState = (msg, extra = {}) => ({ tab: 'histogram', log: true, scale: 'auto', zoom: null, view: { ...msg.view, request: msg.request, pinned: msg.pinned, ...extra } });

test('after a window reload: a restored view shows its title and waits, then fetches (with its request) at the next stop', async () => {
  const before = world();
  before.stop(1);
  await before.viewer.open({ expression: 'model.w', state: before.state });
  await before.panels[0].onMessage({ type: 'request', axes: [1, 0], index: [null, null], region: null, part: null });
  await before.panels[0].onMessage({ type: 'pin', pinned: true });
  const saved = pageState({ ...before.panels[0].posted.at(-1), pinned: true });
  assert.equal(saved.view.expression, 'model.w');
  assert.equal(JSON.stringify(saved).length < 1000, true, 'no payload in the saved state');

  // The reloaded window: no session yet. VS Code hands the serializer the panel and the state.
  const w = world();
  w.tracker.onDidSendMessage({ type: 'event', event: 'terminated', body: {} });
  w.sessions.terminated(w.session);
  const serializer = w.serializers['tfDebugRepr.tensorViewer'];
  const panel = w.revivedPanel();
  await serializer.deserializeWebviewPanel(panel, saved);
  assert.equal(panel.title, 'model.w');
  assert.match(panel.webview.html, /Content-Security-Policy/);
  assert.deepEqual(panel.webview.options.localResourceRoots.map((/** @type {any} */ u) => u.fsPath), [path.join('/ext', 'media', 'viewer')]);
  assert.equal(panel.webview.options.enableScripts, true);
  const waiting = panel.posted.at(-1);
  assert.equal(waiting.type, 'waiting');
  assert.equal(waiting.title, 'model.w');
  assert.equal(waiting.pinned, true);
  assert.deepEqual(waiting.request, { axes: [1, 0], index: [null, null], region: null, part: null });
  assert.match(waiting.message, /Waiting for a paused debug session.*every stop after it \(pinned\)/);
  // Unpinned and pinned again on the page: the words follow.
  await panel.onMessage({ type: 'pin', pinned: false });
  assert.doesNotMatch(panel.posted.at(-1).message, /pinned/);
  await panel.onMessage({ type: 'pin', pinned: true });
  assert.match(panel.posted.at(-1).message, /every stop after it \(pinned\)/);
  assert.deepEqual(w.all.filter((r) => r.command === 'evaluate'), []);
  // The page loads and says ready: told again (it may have missed the first message).
  panel.posted.length = 0;
  await panel.onMessage({ type: 'ready' });
  assert.deepEqual(panel.posted.map((/** @type {any} */ m) => m.type), ['waiting']);
  // A session starts and stops: the view fetches there, with its saved request.
  const run = w.newSession('s2', 'Python: train', 200);
  run.stop(1);
  await settle();
  assert.deepEqual(evaluatedIn(w, 's2'), [["__import__('tf_debug_repr').view_payload((model.w), axes=[1, 0], index=[None, None], region=None, part=None)", 201]]);
  assert.equal(panel.posted.at(-1).type, 'payload');
  assert.equal(panel.posted.at(-1).pinned, true);
  // Pinned: at the next stop again.
  run.resume();
  run.stop(1);
  await settle();
  assert.equal(evaluatedIn(w, 's2').length, 2);
});

test('a restored unpinned view fetches once, at once when a session is paused now, and is then that session\'s', async () => {
  const before = world();
  before.stop(1);
  await before.viewer.open({ expression: 'w', state: before.state });
  const saved = pageState(before.panels[0].posted.at(-1));
  const w = world();
  w.stop(3);
  const panel = w.revivedPanel();
  await w.serializers['tfDebugRepr.tensorViewer'].deserializeWebviewPanel(panel, saved);
  assert.deepEqual(evaluatedIn(w, 's1'), [[VIEW_W(), 103]]);
  assert.equal(panel.posted.at(-1).type, 'payload');
  w.tracker.onWillReceiveMessage({ type: 'request', command: 'continue', arguments: { threadId: 3 } });
  w.stop(3);
  await settle();
  assert.equal(evaluatedIn(w, 's1').length, 1, 'not pinned: not refreshed at the next stop');
  assert.match(panel.posted.at(-1).reason, /Refresh at the next stop/);
});

test('a missing, unreadable or forged saved state gives a clear message, never an evaluation', async () => {
  const before = world();
  before.stop(1);
  await before.viewer.open({ expression: 'w', state: before.state });
  const good = pageState(before.panels[0].posted.at(-1), { pinned: true });
  const cases = [
    [undefined, /kept no expression to restore/],
    [{ tab: 'heatmap', log: false }, /kept no expression to restore/],
    [{ view: 'w' }, /kept no expression to restore/],
    [{ view: { ...good.view, expression: 42 } }, /saved expression is missing or unreadable/],
    [{ view: { ...good.view, expression: '   ' } }, /saved expression is missing or unreadable/],
    [{ view: { ...good.view, sig: undefined } }, /"w" was not saved by this extension on this machine/],
    [{ view: { ...good.view, expression: "__import__('os').system('x')" } }, /was not saved by this extension/],
    [{ view: { ...good.view, session: 'another' } }, /was not saved by this extension/],
  ];
  const w = world();
  w.stop(1);
  for (const [state, message] of cases) {
    const panel = w.revivedPanel();
    await w.serializers['tfDebugRepr.tensorViewer'].deserializeWebviewPanel(panel, state);
    assert.equal(panel.posted.at(-1).type, 'error', JSON.stringify(state));
    assert.match(panel.posted.at(-1).message, /** @type {RegExp} */ (message));
    assert.match(panel.webview.html, /Content-Security-Policy/, 'the page is there to say it');
    panel.posted.length = 0;
    await panel.onMessage({ type: 'ready' });
    await panel.onMessage({ type: 'pin', pinned: true });
    await panel.onMessage({ type: 'request', axes: null });
    await panel.onMessage({ type: 'compare' });
    await panel.onMessage({ type: 'saveNpy' });
    assert.deepEqual(panel.posted.map((/** @type {any} */ m) => m.type), ['error', 'error']);
    assert.deepEqual(w.ui.inputs, [], 'no dialog either');
  }
  w.tracker.onWillReceiveMessage({ type: 'request', command: 'continue', arguments: { threadId: 1 } });
  w.stop(1);
  await settle();
  assert.deepEqual(w.all.filter((r) => r.command === 'evaluate'), [], 'nothing from a bad state is ever evaluated');
  // A request that does not read is dropped for the default slice; the view itself is restored.
  const panel = w.revivedPanel();
  await w.serializers['tfDebugRepr.tensorViewer'].deserializeWebviewPanel(panel, { view: { ...good.view, request: { axes: 'x' } } });
  assert.deepEqual(evaluatedIn(w, 's1'), [[VIEW_W(), 101]]);
});

test('View Tensor on an expression a view of an ended session shows: that view, taken up by the new session', async () => {
  const w = world();
  w.vscode.workspace.settings['viewer.reuseView'] = false; // a view per value
  w.stop(1);
  await w.viewer.open({ expression: 'w', state: w.state });
  await w.viewer.open({ expression: 'b', state: w.state });
  w.tracker.onDidSendMessage({ type: 'event', event: 'terminated', body: {} });
  const next = w.newSession('s2', 'Python: train', 200);
  next.stop(1);
  await w.viewer.open({ expression: ' w ', state: next.state });
  assert.equal(w.panels.length, 2, 'no second view of w');
  assert.equal(w.panels[0].revealed, 1);
  assert.equal(w.panels[0].posted.at(-1).payload.from, 's2');
  assert.equal([...w.viewer.panels][0].state, next.state);
  assert.equal(w.panels[1].posted.at(-1).type, 'stale', 'the view of b is left as it was');
});

test("compare opens next to the comparing view (not the last one) and shows the slice it shows", async () => {
  const w = world();
  w.vscode.workspace.settings['viewer.reuseView'] = false; // a view per value
  w.stop(1);
  await w.viewer.open({ expression: 'model.w', state: w.state });
  const a = w.panels[0];
  await a.onMessage({ type: 'request', axes: [1, 0], index: [null, null], region: [[0, 2], [0, 1]], part: null });
  await w.viewer.open({ expression: 'other', state: w.state, beside: true });
  assert.deepEqual(w.panels.map((/** @type {any} */ p) => p.viewColumn), [2, 3], 'the last view is in group 3');
  w.ui.inputAnswers.push('grad_w');
  await a.onMessage({ type: 'compare', request: { axes: [1, 0], index: [null, null], region: [[0, 2], [0, 1]], part: null } });
  const compared = w.panels[2];
  assert.equal(compared.title, 'grad_w');
  assert.equal(compared.viewColumn, 3, "next to the comparing view's group, not the last view's");
  assert.match(evaluations(w.requests).at(-1)?.[0], /view_payload\(\(grad_w\), axes=\[1, 0\], index=\[None, None\], region=\[\[0, 2\], \[0, 1\]\], part=None, budget=200000\)/);
  // A request the page garbled: the comparing view's own is kept.
  w.ui.inputAnswers.push('grad_v');
  await a.onMessage(/** @type {any} */ ({ type: 'compare', request: { axes: 'rows' } }));
  assert.match(evaluations(w.requests).at(-1)?.[0], /view_payload\(\(grad_v\), axes=\[1, 0\]/);
});

test('View Tensor shows a new value in the unpinned view of its group, as a preview editor; pinned views are kept; the setting turns it off', async () => {
  const w = world();
  w.stop(1);
  await w.viewer.open({ expression: 'w', state: w.state });
  const a = w.panels[0];
  await a.onMessage({ type: 'request', axes: [1, 0], index: [null, null], region: [[0, 2], [0, 1]], part: null });
  await w.viewer.open({ expression: ' b ', state: w.state });
  assert.equal(w.panels.length, 1, 'no new webview: the unpinned view shows b');
  assert.equal(a.title, 'b');
  assert.equal(a.revealed, 1);
  assert.match(evaluations(w.requests).at(-1)?.[0], /view_payload\(\(b\), axes=None, index=None, region=None, part=None, budget=200000\)/, "w's slice is not b's");
  const shown = a.posted.at(-1);
  assert.equal(shown.type, 'payload');
  assert.equal(shown.expression, 'b');
  assert.equal(shown.view.expression, 'b', 'what a reload rebuilds is b');
  // Pinned: kept; the next value opens a view of its own, which the one after replaces.
  await a.onMessage({ type: 'pin', pinned: true });
  await w.viewer.open({ expression: 'c', state: w.state });
  assert.equal(w.panels.length, 2);
  assert.equal(w.panels[1].viewColumn, a.viewColumn, 'in the same group');
  await w.viewer.open({ expression: 'd', state: w.state });
  assert.equal(w.panels.length, 2);
  assert.deepEqual([a.title, w.panels[1].title], ['b', 'd']);
  // The same expression as the pinned view: that view, not the preview.
  await w.viewer.open({ expression: 'b', state: w.state });
  assert.equal(a.revealed, 2);
  assert.equal(w.panels[1].title, 'd');
  // Compare never replaces the view comparing; beside, an unpinned view there is reused.
  w.ui.inputAnswers.push('grad_d');
  await w.panels[1].onMessage({ type: 'compare', request: null });
  assert.equal(w.panels.length, 3);
  assert.equal(w.panels[2].viewColumn, 3);
  w.ui.inputAnswers.push('grad_b');
  await w.panels[1].onMessage({ type: 'compare', request: null });
  assert.equal(w.panels.length, 3, 'the unpinned view in group 3 shows grad_b');
  assert.equal(w.panels[2].title, 'grad_b');
  // A stale view is reusable, and the new value is not marked stale.
  w.tracker.onDidSendMessage({ type: 'event', event: 'continued', body: { threadId: 1, allThreadsContinued: true } });
  w.stop(1);
  w.viewer.lastPanel = [...w.viewer.panels][1];
  await w.viewer.open({ expression: 'e', state: w.state });
  assert.equal(w.panels.length, 3);
  assert.equal(w.panels[1].title, 'e');
  assert.equal(w.panels[1].posted.at(-1).type, 'payload');
  // Off: every value in a view of its own.
  w.vscode.workspace.settings['viewer.reuseView'] = false;
  await w.viewer.open({ expression: 'f', state: w.state });
  assert.equal(w.panels.length, 4);
  assert.equal(w.panels[1].title, 'e');
});

test("a view's first picture comes from a smaller payload; the full one follows where that one was reduced, unless the page asked for something else first", async () => {
  const w = world();
  w.stop(1);
  const plain = w.session.customRequest;
  /** Held answers of full-budget evaluates: released by the test. @type {(() => void)[]} */
  const held = [];
  let hold = false;
  w.session.customRequest = async (/** @type {string} */ command, /** @type {any} */ args) => {
    if (command !== 'evaluate' || !args.expression.includes('((big),')) return plain(command, args);
    const first = args.expression.includes('budget=200000');
    if (!first && hold) await new Promise((resolve) => held.push(() => resolve(undefined)));
    await plain(command, args); // noted as asked
    const step = first ? [5, 5] : [3, 3];
    return answer({ version: 1, error: null, summary: 'float32[1000, 1000]', shape: [1000, 1000], slice: { step, height: 1000 / step[0] }, from: 's1' });
  };
  await w.viewer.open({ expression: 'big', state: w.state });
  const p = w.panels[0];
  const asked = evaluations(w.requests).map((e) => /budget=\d+/.exec(e[0])?.[0] ?? 'default budget');
  assert.deepEqual(asked, ['budget=200000', 'default budget']);
  const shown = p.posted.filter((/** @type {any} */ m) => m.type === 'payload');
  assert.deepEqual(shown.map((/** @type {any} */ m) => [m.n, m.payload.slice.step[0]]), [[1, 5], [2, 3]], 'the reduced picture, then the full one');
  assert.equal(p.posted.filter((/** @type {any} */ m) => m.type === 'loading').length, 1, 'no loading state for the full picture');
  // Sent again at ready: the full one.
  await p.onMessage({ type: 'ready' });
  assert.equal(p.posted.at(-1).payload.slice.step[0], 3);
  // A value the first payload shows whole: one evaluate.
  await w.viewer.open({ expression: 'w', state: w.state });
  assert.deepEqual(evaluations(w.requests).slice(2).map((e) => /budget=\d+/.test(e[0])), [true]);
  // The page asks for a slice while the full picture is on its way: that picture is dropped.
  hold = true;
  const opening = w.viewer.open({ expression: 'big', state: w.state });
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(held.length, 1, 'the full picture is being fetched');
  hold = false;
  const q = w.panels[0];
  const before = q.posted.length;
  await q.onMessage({ type: 'request', axes: [0, 1], index: [null, null], region: [[0, 10], [0, 10]], part: null });
  held[0]();
  await opening;
  const after = q.posted.slice(before).filter((/** @type {any} */ m) => m.type === 'payload');
  assert.equal(after.length, 1, 'only the answer to the page');
  assert.deepEqual(after[0].request.region, [[0, 10], [0, 10]]);
});

test("the History tab's Compare of two stops: evaluated in the view's frame, answered as historyCompare; a bad stop is its error", async () => {
  const w = world();
  w.stop(2);
  await w.viewer.open({ expression: 'w', state: w.state });
  const p = w.panels[0];
  const compare = { a: 1, b: 3, rows: 1, cols: 2, values: [0.5, -1], exact: true, block: 1, norm: 1.118, largest: 1, figures: ['mean'], changes: [-0.25], note: '' };
  const original = w.session.customRequest;
  const asked = /** @type {any[]} */ ([]);
  w.session.customRequest = async (/** @type {string} */ command, /** @type {any} */ args) => {
    if (command !== 'evaluate' || !args.expression.includes('view_history_compare')) return original(command, args);
    asked.push([args.expression, args.frameId, args.context]);
    return answer({ version: 1, error: null, compare });
  };
  p.posted.length = 0;
  await p.onMessage({ type: 'historyCompare', a: 1, b: 3 });
  assert.deepEqual(asked, [["__import__('tf_debug_repr').view_history_compare((w), 1, 3)", 102, 'clipboard']]);
  assert.deepEqual(p.posted, [{ type: 'historyCompare', expression: 'w', compare, error: null }]);
  // a stop that is no integer is never put into an expression: the page is told why
  p.posted.length = 0;
  await p.onMessage(/** @type {any} */ ({ type: 'historyCompare', a: '1); import os; (', b: 3 }));
  assert.equal(asked.length, 1, 'nothing evaluated');
  assert.equal(p.posted.length, 1);
  assert.equal(p.posted[0].compare, null);
  assert.match(p.posted[0].error, /a stop must be an integer/);
});
