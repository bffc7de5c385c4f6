// @ts-check
'use strict';
/** The per-session state the viewer learns from DAP traffic, driven with DAP messages. */
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { ViewerSessions } = require('../../src/viewer/sessions');
const { MENU_CONTEXT } = require('../../src/viewer/types');

function fakeSession(id = 's1') {
  /** @type {{ command: string, args: any }[]} */
  const requests = [];
  return {
    id,
    requests,
    configuration: { request: 'launch' },
    /** @param {string} command @param {any} args */
    customRequest: async (command, args) => {
      requests.push({ command, args });
      if (command === 'stackTrace') return { stackFrames: [{ id: 1000 + args.threadId, name: 'main', line: 1, column: 1 }], totalFrames: 3 };
      return {};
    },
  };
}

function setup() {
  const sessions = new ViewerSessions();
  const session = fakeSession();
  const tracker = sessions.trackerFactory().createDebugAdapterTracker(session);
  /** @type {string[]} */
  const events = [];
  sessions.on('stopped', (s, t) => events.push(`stopped ${s.session.id} ${t}`));
  sessions.on('resumed', (s) => events.push(`resumed ${s.session.id}`));
  sessions.on('ended', (s) => events.push(`ended ${s.session.id}`));
  const state = /** @type {import('../../src/viewer/sessions').SessionState} */ (sessions.get('s1'));
  return { sessions, session, tracker, events, state };
}

test('stops, resumes and the end of a session, from events and requests', async () => {
  const { tracker, events, state } = setup();
  assert.equal(state.paused, false);
  await assert.rejects(state.currentFrame(undefined), /running/);
  tracker.onDidSendMessage({ type: 'event', event: 'stopped', body: { reason: 'breakpoint', threadId: 7, allThreadsStopped: true } });
  assert.equal(state.paused, true);
  const g = state.generation;
  tracker.onWillReceiveMessage({ type: 'request', command: 'next', arguments: { threadId: 7 } });
  tracker.onDidSendMessage({ type: 'event', event: 'continued', body: { threadId: 7, allThreadsContinued: true } });
  assert.equal(state.paused, false);
  assert.equal(state.generation, g + 1, 'one resume, however many messages say so');
  tracker.onDidSendMessage({ type: 'event', event: 'stopped', body: { reason: 'step', threadId: 7 } });
  tracker.onDidSendMessage({ type: 'event', event: 'terminated', body: {} });
  tracker.onExit(0, undefined);
  assert.deepEqual(events, ['stopped s1 7', 'resumed s1', 'stopped s1 7', 'ended s1']);
  await assert.rejects(state.currentFrame(undefined), /ended/);
});

test('the frame to evaluate in: the selected frame of this session, else the stopped thread\'s top frame', async () => {
  const { session, tracker, state } = setup();
  tracker.onDidSendMessage({ type: 'event', event: 'stopped', body: { reason: 'breakpoint', threadId: 3 } });
  const selected = await state.currentFrame({ session, threadId: 3, frameId: 42 });
  assert.deepEqual(selected, { frameId: 42, threadId: 3, generation: state.generation });
  assert.equal(session.requests.length, 0, 'no request needed for a selected frame');
  const other = await state.currentFrame({ session: fakeSession('other'), threadId: 9, frameId: 5 });
  assert.deepEqual(other, { frameId: 1003, threadId: 3, generation: state.generation });
  assert.deepEqual(session.requests[0], { command: 'stackTrace', args: { threadId: 3, startFrame: 0, levels: 1 } });
  const thread = await state.currentFrame({ session, threadId: 3 });
  assert.equal(thread.frameId, 1003, 'a selected thread: its top frame');
});

test('one thread continuing alone leaves the session paused on the others', () => {
  const { tracker, state, events } = setup();
  tracker.onDidSendMessage({ type: 'event', event: 'stopped', body: { reason: 'breakpoint', threadId: 1 } });
  tracker.onDidSendMessage({ type: 'event', event: 'stopped', body: { reason: 'breakpoint', threadId: 2 } });
  tracker.onDidSendMessage({ type: 'event', event: 'continued', body: { threadId: 1, allThreadsContinued: false } });
  assert.equal(state.paused, true);
  tracker.onDidSendMessage({ type: 'event', event: 'continued', body: { threadId: 2, allThreadsContinued: false } });
  assert.equal(state.paused, false);
  assert.deepEqual(events, ['stopped s1 1', 'stopped s1 2', 'resumed s1']);
});

test('the tracker tags variables responses; VS Code ending the session forgets it', () => {
  const { sessions, session, tracker, events } = setup();
  const m = { type: 'response', command: 'variables', success: true, body: { variables: [{ name: 'w', type: 'ResourceVariable', value: "Variable 'w'", variablesReference: 2 }] } };
  tracker.onDidSendMessage(m);
  assert.equal(/** @type {any} */ (m.body.variables[0]).__vscodeVariableMenuContext, MENU_CONTEXT);
  sessions.terminated(session);
  assert.equal(sessions.get('s1'), undefined);
  assert.deepEqual(events, ['ended s1']);
});
