// @ts-check
'use strict';
/**
 * "View Tensor" against a real debugpy adapter with the bundled plugin: every message the adapter
 * sends goes through the extension's tracker (as VS Code's DebugAdapterTracker would see it), so
 * the Variables rows come back tagged or not; the expression the extension builds for a row is
 * evaluated in the paused frame exactly as the extension sends it (context "clipboard") and read
 * with the extension's decoder; values are checked against the program's.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const { getTemplate } = require('../../src/launch/templates');
const { MENU_CONTEXT } = require('../../src/viewer/types');
const { ViewerSessions } = require('../../src/viewer/sessions');
const { targetOf, viewPayloadExpression, saveNpyExpression } = require('../../src/viewer/expression');
const { decodePayload, decodeSaveResult, ViewerError } = require('../../src/viewer/result');
const h = require('./harness');
const envs = require('./envs');
const { viewerWithStandIn } = require('../unit/vscodeStandIn');

const PROGRAM = path.join(h.FIXTURES, 'viewer_program.py');
const RERUN = path.join(h.FIXTURES, 'rerun_program.py');

/**
 * A session whose DAP traffic passes through the viewer's tracker, and a vscode.DebugSession-like
 * object over it (customRequest resolves with the body, rejects on failure, as VS Code's does).
 * @param {import('./harness').Session} s @param {ViewerSessions} sessions
 * @param {{ id?: string, name?: string }} [o] the session's id and launch configuration name
 */
function trackThrough(s, sessions, { id = 'viewer-e2e', name = 'Python Debugger: Current File' } = {}) {
  const dc = /** @type {any} */ (s.dc);
  const debugSession = {
    id,
    name,
    configuration: { request: 'launch', name },
    customRequest: (/** @type {string} */ command, /** @type {any} */ args) => dc.send(command, args).then((/** @type {any} */ r) => r.body),
  };
  const tracker = sessions.trackerFactory().createDebugAdapterTracker(debugSession);
  const dispatch = dc.dispatch;
  dc.dispatch = (/** @type {string} */ body) => {
    const msg = JSON.parse(body);
    if (msg.type !== 'request') tracker.onDidSendMessage(msg);
    return dispatch(JSON.stringify(msg));
  };
  const doSend = dc.doSend.bind(dc);
  dc.doSend = (/** @type {string} */ command, /** @type {any} */ args, /** @type {Function} */ cb) => {
    tracker.onWillReceiveMessage({ type: 'request', command, arguments: args });
    return doSend(command, args, cb);
  };
  return { debugSession, state: /** @type {import('../../src/viewer/sessions').SessionState} */ (sessions.get(id)) };
}

/** The slice's cells as numbers (float32 little-endian, row-major). @param {any} payload */
function cells(payload) {
  const buf = Buffer.from(payload.slice.values, 'base64');
  assert.equal(buf.length, payload.slice.height * payload.slice.width * 4);
  return Array.from(new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4));
}

/** Shape and data of a little-endian float32 .npy file. @param {string} file */
function readNpy(file) {
  const b = fs.readFileSync(file);
  assert.equal(b.subarray(0, 6).toString('latin1'), '\x93NUMPY');
  const major = b[6];
  const headerLen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = b.subarray(start, start + headerLen).toString('latin1');
  assert.match(header, /'descr': '<f4'/);
  const shape = JSON.parse(`[${/'shape': \(([^)]*)\)/.exec(header)?.[1].replace(/,\s*$/, '') ?? ''}]`);
  const data = b.subarray(start + headerLen);
  return { shape, values: Array.from(new Float32Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length))) };
}

test('View Tensor end to end from the .vsix alone: rows tagged, payloads of a tensor, a variable and its gradient, save as .npy, a pinned refresh', { timeout: h.TIMEOUT * 3 }, async () => {
  // A Python where tf-debug-repr is not installed: only the copy the extension bundles serves.
  const { python } = envs.buildEnv('no-plugin');
  const config = h.resolveAsVSCode(getTemplate('currentFile').configurations[0], { file: PROGRAM, python });
  const s = new h.Session({ python });
  const sessions = new ViewerSessions();
  const { debugSession, state } = trackThrough(s, sessions);
  try {
    const stopped = await s.start('launch', config, [{ path: PROGRAM, lines: [h.lineOf(PROGRAM, 'BREAK-HERE')] }]);
    assert.equal(state.paused, true, 'the tracker saw the stop');
    const { top } = await s.topFrame(stopped.body.threadId);
    const active = { session: debugSession, threadId: stopped.body.threadId, frameId: top.id };
    const served = await s.evaluate('str(getattr(__import__("sys").modules.get("tf_debug_repr"), "__file__", None))', top.id);
    assert.ok(served.includes(path.join(h.BUNDLE_DIR, 'lib', 'tf_debug_repr')), `the bundled copy serves the viewer: ${served}`);

    // The Variables pane: TF and numpy rows tagged, the rest not.
    const locals = await s.locals(top.id);
    const tagged = Object.values(locals).filter((v) => /** @type {any} */ (v).__vscodeVariableMenuContext === MENU_CONTEXT).map((v) => v.name).sort();
    assert.deepEqual(tagged, ['array', 'grad', 'ints', 'kernel', 'loss', 'mirrored', 'tensor', 'weights']);
    for (const name of ['count', 'label', 'numbers', 'shape', 'layer', 'tape', 'strategy']) {
      assert.equal(/** @type {any} */ (locals[name]).__vscodeVariableMenuContext, undefined, `${name} (${locals[name].type}) not tagged`);
    }
    const children = (await s.dc.variablesRequest({ variablesReference: locals.weights.variablesReference })).body.variables;
    const gradientRow = children.find((v) => v.name.includes('gradient'));
    assert.ok(gradientRow, 'weights has its gradient row');
    assert.equal(/** @type {any} */ (gradientRow).__vscodeVariableMenuContext, MENU_CONTEXT, 'the gradient row is tagged');
    assert.equal(/** @type {any} */ (children.find((v) => v.name === 'shape')).__vscodeVariableMenuContext, undefined);

    /**
     * What the command does for a Variables row: the menu argument → expression → evaluate in the
     * frame → payload.
     * @param {any} row @param {import('../../src/viewer/expression').ViewRequest} [request]
     */
    const view = async (row, request) => {
      const target = targetOf({ sessionId: debugSession.id, container: { name: 'Locals', variablesReference: 1, expensive: false }, variable: row });
      assert.ok('expression' in target, `an expression for ${row.name}`);
      const frame = await state.currentFrame(/** @type {any} */ (active));
      const body = await debugSession.customRequest('evaluate', { expression: viewPayloadExpression(target.expression, request), frameId: frame.frameId, context: 'clipboard' });
      return { expression: target.expression, payload: decodePayload(body, target.expression) };
    };

    const tensor = (await view(locals.tensor)).payload;
    assert.equal(tensor.version, 1);
    assert.equal(tensor.error, null);
    assert.equal(tensor.kind, 'tensor');
    assert.equal(tensor.dtype, 'float32');
    assert.deepEqual(tensor.shape, [3, 4]);
    assert.deepEqual([tensor.stats.n, tensor.stats.min, tensor.stats.max], [12, 0, 11]);
    assert.deepEqual(cells(tensor), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    const zoomed = (await view(locals.tensor, { axes: [0, 1], region: [[1, 3], [2, 4]] })).payload;
    assert.deepEqual(zoomed.slice.region, [[1, 3], [2, 4]]);
    assert.deepEqual(cells(zoomed), [6, 7, 10, 11]);
    const transposed = (await view(locals.tensor, { axes: [1, 0] })).payload;
    assert.deepEqual(cells(transposed).slice(0, 3), [0, 4, 8]);

    const weights = (await view(locals.weights)).payload;
    assert.equal(weights.kind, 'variable');
    assert.deepEqual(weights.shape, [2, 2]);
    assert.deepEqual(cells(weights), [1, -2, 3, 0.5]);

    const gradient = await view(gradientRow);
    assert.equal(gradient.expression, "__import__('tf_debug_repr').gradient_of(weights)");
    assert.deepEqual(gradient.payload.shape, [2, 2]);
    assert.deepEqual(cells(gradient.payload), [2, -4, 6, 1], 'd/dw sum(w*w) = 2w');

    assert.deepEqual(cells((await view(locals.kernel)).payload).length, 6, 'a Keras variable');
    const mirrored = (await view(locals.mirrored)).payload;
    assert.deepEqual(cells(mirrored), [1, 2, 3], 'a MirroredVariable');
    // A 1-D value's axes come back from the page as the payload gave them ([null, 0]).
    assert.deepEqual(mirrored.slice.axes, [null, 0]);
    assert.deepEqual(cells((await view(locals.mirrored, { axes: mirrored.slice.axes, region: [[0, 1], [1, 3]] })).payload), [2, 3]);
    const array = (await view(locals.array)).payload;
    assert.equal(array.kind, 'numpy');
    assert.deepEqual(cells(array), [0, 1, 2, 3, 4, 5]);
    assert.deepEqual(cells((await view(locals.ints)).payload), [1, 2, 3, 4], 'ints as float32 cells');

    // A name that is not in the frame: a message, not a crash.
    await assert.rejects(view({ name: 'nope', evaluateName: 'nope_not_here', variablesReference: 0 }), (e) => e instanceof ViewerError && /name 'nope_not_here' is not defined in the selected frame/.test(e.message));

    // Save as .npy through the debuggee, to a path with a quote and a space in it.
    const dir = h.tmpdir();
    const file = path.join(dir, "it's w.npy");
    const frame = await state.currentFrame(/** @type {any} */ (active));
    const saved = await debugSession.customRequest('evaluate', { expression: saveNpyExpression('weights', file), frameId: frame.frameId, context: 'clipboard' });
    const report = decodeSaveResult(saved, 'weights');
    assert.ok(report.length > 0 && !report.includes('\n'), `a one-line report: ${report}`);
    assert.deepEqual(readNpy(file), { shape: [2, 2], values: [1, -2, 3, 0.5] });

    // A pinned view: at the next stop, the same expression in the stopped thread's top frame.
    /** @type {Promise<number[]>} */
    const refreshed = new Promise((resolve, reject) => {
      sessions.on('stopped', (st, threadId) => {
        st.topFrame(threadId)
          .then((f) => debugSession.customRequest('evaluate', { expression: viewPayloadExpression('weights'), frameId: f.frameId, context: 'clipboard' }))
          .then((body) => resolve(cells(decodePayload(body, 'weights'))), reject);
      });
    });
    /** @type {string[]} */
    const seen = [];
    sessions.on('resumed', () => seen.push('resumed'));
    const next = s.dc.waitForEvent('stopped');
    await s.dc.nextRequest({ threadId: stopped.body.threadId });
    assert.deepEqual(seen, ['resumed'], 'the step marked the session running (views go stale)');
    await next;
    assert.deepEqual(await h.withTimeout(refreshed, 30_000, 'pinned refresh'), [2, -1, 4, 1.5], 'weights after assign_add(1)');
    assert.equal((await s.topFrame(stopped.body.threadId)).top.line, h.lineOf(PROGRAM, 'AFTER-STEP'));

    await s.finish(stopped.body.threadId);
    assert.equal(state.paused, false);
    await assert.rejects(state.currentFrame(undefined), /ended|running/);
  } finally {
    await s.close();
  }
});

test('View Tensor where tf-debug-repr is not importable (attach without install): says "pip install tf-debug-repr"', { timeout: h.TIMEOUT * 2 }, async () => {
  const { python } = envs.buildEnv('no-plugin');
  const config = h.resolveAsVSCode(getTemplate('currentFile').configurations[0], { file: PROGRAM, python, bundledPlugin: false });
  const s = new h.Session({ python });
  const sessions = new ViewerSessions();
  const { debugSession, state } = trackThrough(s, sessions);
  try {
    const stopped = await s.start('launch', config, [{ path: PROGRAM, lines: [h.lineOf(PROGRAM, 'BREAK-HERE')] }]);
    const { top } = await s.topFrame(stopped.body.threadId);
    const locals = await s.locals(top.id);
    // Stock presentation, but the type is the same: the row is still offered.
    assert.ok(locals.tensor.value.startsWith(h.STOCK_REPR), locals.tensor.value);
    assert.equal(/** @type {any} */ (locals.tensor).__vscodeVariableMenuContext, MENU_CONTEXT);
    const frame = await state.currentFrame(/** @type {any} */ ({ session: debugSession, threadId: stopped.body.threadId, frameId: top.id }));
    const body = await debugSession.customRequest('evaluate', { expression: viewPayloadExpression('tensor'), frameId: frame.frameId, context: 'clipboard' });
    assert.throws(() => decodePayload(body, 'tensor'), (e) => e instanceof ViewerError && /not importable.*pip install tf-debug-repr/.test(e.message));
    await s.finish(stopped.body.threadId);
  } finally {
    await s.close();
  }
});

/** Resolves when `pred()` holds (polled), rejects after `ms`. @param {() => boolean} pred @param {number} ms @param {string} what */
async function until(pred, ms, what) {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a pinned view outlives its session: the next run of the program answers it (the real panels over a real adapter, a stand-in for vscode only)', { timeout: h.TIMEOUT * 3 }, async () => {
  const { panels, mods } = viewerWithStandIn();
  const sessions = new mods.ViewerSessions();
  const viewer = new mods.TensorViewer(/** @type {any} */ ({ fsPath: h.FIXTURES }), sessions, 'e2e-signing-key-0123456789abcdef');
  viewer.register();
  /** Every evaluate the view made, with the session it went to. @type {{ session: string, expression: string }[]} */
  const evaluated = [];
  /** @param {{ id: string, customRequest: Function }} debugSession */
  const recordEvaluations = (debugSession) => {
    const send = debugSession.customRequest;
    debugSession.customRequest = (/** @type {string} */ command, /** @type {any} */ args) => {
      if (command === 'evaluate') evaluated.push({ session: debugSession.id, expression: args.expression });
      return send(command, args);
    };
  };
  const name = 'Python: rerun';
  /** @param {string} run @param {string[]} markers */
  const launch = async (run, markers) => {
    const base = h.resolveAsVSCode(getTemplate('currentFile').configurations[0], { file: RERUN });
    const config = { ...base, name, env: { ...base.env, TFDR_RUN: run } };
    const s = new h.Session();
    const { debugSession, state } = trackThrough(s, sessions, { id: `run-${run}`, name });
    recordEvaluations(debugSession);
    const stopped = s.start('launch', config, [{ path: RERUN, lines: markers.map((m) => h.lineOf(RERUN, m)) }]);
    return { s, debugSession, state, stopped };
  };

  const first = await launch('1', ['BREAK-HERE']);
  let second;
  try {
    const stop1 = await first.stopped;
    await viewer.open({ expression: 'weights', state: first.state });
    const page = panels[0];
    await until(() => page.posted.some((/** @type {any} */ m) => m.type === 'payload'), 30_000, 'the first payload');
    assert.deepEqual(cells(page.posted.at(-1).payload), [0, 1, 2, 3, 4, 5]);
    // The page asks for the transposed slice, rows 0-3 of column 1 (run 1: weights[1, :]).
    await page.onMessage({ type: 'request', axes: [1, 0], index: [null, null], region: [[0, 3], [1, 2]], part: null });
    assert.deepEqual(cells(page.posted.at(-1).payload), [3, 4, 5]);
    await page.onMessage({ type: 'pin', pinned: true });
    await first.s.finish(stop1.body.threadId);
    assert.match(page.posted.at(-1).reason, /ended; this pinned view refreshes at the next stop of a new debug session/);

    // The next run. Its first stop is in warm_up(), where `weights` does not exist.
    const before = evaluated.length;
    second = await launch('2', ['HELPER-STOP', 'BREAK-HERE']);
    const stop2 = await second.stopped;
    await until(() => page.posted.at(-1).type === 'error', 30_000, 'the NameError at the first stop');
    assert.match(page.posted.at(-1).message, /name 'weights' is not defined.*This pinned view tries again at the next stop\./);
    const next = second.s.dc.waitForEvent('stopped');
    await second.s.dc.continueRequest({ threadId: stop2.body.threadId });
    await next;
    await until(() => page.posted.at(-1).type === 'payload', 30_000, 'the refresh at the next stop');
    const shown = page.posted.at(-1);
    // weights is 3x2 now: the transposed slice is 2x3, rows 0-3 do not fit; the default slice is shown.
    assert.deepEqual(shown.payload.shape, [3, 2]);
    assert.equal(shown.payload.error, null);
    assert.deepEqual(cells(shown.payload), [0, 2, 4, 6, 8, 10], 'run 2\'s values (x2)');
    assert.deepEqual(shown.request, { axes: null, index: null, region: null, part: null });
    assert.deepEqual(
      evaluated.slice(before).map((e) => [e.session, e.expression.replace("__import__('tf_debug_repr').view_payload((weights), ", '')]),
      [
        ['run-2', 'axes=[1, 0], index=[None, None], region=[[0, 3], [1, 2]], part=None)'],
        ['run-2', 'axes=[1, 0], index=[None, None], region=[[0, 3], [1, 2]], part=None)'],
        ['run-2', 'axes=None, index=None, region=None, part=None)'],
      ],
      'in run 2 only: at warm_up (NameError), then at BREAK-HERE with the kept request, then the default slice',
    );
    await second.s.finish(stop2.body.threadId);
  } finally {
    await first.s.close();
    await second?.s.close();
  }
});
