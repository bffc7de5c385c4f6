// @ts-check
'use strict';
/**
 * What the viewer knows about each debugpy session, learnt from the DAP traffic a debug adapter
 * tracker sees: whether it is paused, on which thread it last stopped, whether it ended. The
 * same tracker tags TF rows of `variables` responses for the Variables pane's menu.
 * Nothing here imports `vscode`: the sessions are duck-typed, so node tests drive it directly.
 */
const { tagVariables } = require('./types');
const { ViewerError } = require('./result');

/** Requests after which the program runs again (its frames and variables are gone). */
const RESUMING = new Set(['continue', 'next', 'stepIn', 'stepOut', 'stepBack', 'reverseContinue', 'goto', 'restartFrame', 'restart']);

/**
 * @typedef {{ id: string, name?: string, type?: string, configuration?: any,
 *   customRequest(command: string, args?: any): Thenable<any> }} SessionLike
 * @typedef {{ session: SessionLike, threadId: number, frameId?: number }} StackItemLike
 */

class SessionState {
  /** @param {SessionLike} session */
  constructor(session) {
    this.session = session;
    /** Threads now stopped. @type {Set<number>} */
    this.stoppedThreads = new Set();
    /** @type {number | undefined} */
    this.lastStoppedThread = undefined;
    /** Counts stops and resumes: a frame id is good only within the generation it came from. */
    this.generation = 0;
    this.ended = false;
    /** Running since the last resume (or since the start, before the first stop). */
    this.running = true;
  }

  get paused() {
    return !this.ended && this.stoppedThreads.size > 0;
  }

  /**
   * The top frame of a stopped thread, asked of the adapter.
   * @param {number} threadId
   * @returns {Promise<{ frameId: number, threadId: number, generation: number }>}
   */
  async topFrame(threadId) {
    const generation = this.generation;
    const body = await this.session.customRequest('stackTrace', { threadId, startFrame: 0, levels: 1 });
    const frame = body?.stackFrames?.[0];
    if (!frame) throw new ViewerError(`Thread ${threadId} has no stack frames to evaluate in.`);
    return { frameId: frame.id, threadId, generation };
  }

  /**
   * The frame to evaluate in now: the one selected in the Call Stack when it belongs to this
   * session (its top frame when a thread is selected), else the top frame of the thread that
   * stopped last.
   * @param {StackItemLike | undefined} activeItem vscode.debug.activeStackItem
   */
  async currentFrame(activeItem) {
    if (this.ended) throw new ViewerError('The debug session has ended.');
    if (!this.paused) throw new ViewerError('The program is running: pause it (or stop at a breakpoint) to view a tensor.');
    if (activeItem && activeItem.session?.id === this.session.id) {
      if (typeof activeItem.frameId === 'number') return { frameId: activeItem.frameId, threadId: activeItem.threadId, generation: this.generation };
      if (this.stoppedThreads.has(activeItem.threadId)) return this.topFrame(activeItem.threadId);
    }
    const threadId = this.lastStoppedThread !== undefined && this.stoppedThreads.has(this.lastStoppedThread) ? this.lastStoppedThread : [...this.stoppedThreads][0];
    return this.topFrame(threadId);
  }
}

class ViewerSessions {
  constructor() {
    /** @type {Map<string, SessionState>} */
    this.states = new Map();
    /** @type {{ stopped: ((s: SessionState, threadId: number) => void)[], resumed: ((s: SessionState) => void)[], ended: ((s: SessionState) => void)[] }} */
    this.listeners = { stopped: [], resumed: [], ended: [] };
  }

  /**
   * @template {'stopped' | 'resumed' | 'ended'} K
   * @param {K} event @param {ViewerSessions['listeners'][K][number]} listener
   * @returns {{ dispose(): void }}
   */
  on(event, listener) {
    const list = /** @type {any[]} */ (this.listeners[event]);
    list.push(listener);
    return { dispose: () => list.splice(list.indexOf(listener) >>> 0, 1) };
  }

  /** @param {'stopped' | 'resumed' | 'ended'} event @param {...any} args */
  emit(event, ...args) {
    for (const l of [...this.listeners[event]]) {
      try {
        /** @type {Function} */ (l)(...args);
      } catch (e) {
        console.error(`tf-debug-repr viewer: ${event} listener failed`, e);
      }
    }
  }

  /** @param {string | undefined} id */
  get(id) {
    return id === undefined ? undefined : this.states.get(id);
  }

  /** The factory to register with vscode.debug.registerDebugAdapterTrackerFactory('debugpy', …). */
  trackerFactory() {
    return { createDebugAdapterTracker: (/** @type {SessionLike} */ session) => this.tracker(session) };
  }

  /**
   * A tracker for one session.
   * @param {SessionLike} session
   */
  tracker(session) {
    const state = new SessionState(session);
    this.states.set(session.id, state);
    const resumed = () => {
      if (state.running || state.ended) return;
      state.running = true;
      state.stoppedThreads.clear();
      state.generation++;
      this.emit('resumed', state);
    };
    const ended = () => {
      if (state.ended) return;
      state.ended = true;
      state.stoppedThreads.clear();
      state.generation++;
      this.emit('ended', state);
    };
    return {
      /** @param {any} m */
      onWillReceiveMessage: (m) => {
        if (m?.type === 'request' && RESUMING.has(m.command)) resumed();
      },
      /** @param {any} m */
      onDidSendMessage: (m) => {
        if (m?.type === 'response') {
          tagVariables(m);
          return;
        }
        if (m?.type !== 'event') return;
        if (m.event === 'stopped') {
          const threadId = m.body?.threadId;
          if (typeof threadId !== 'number') return;
          state.stoppedThreads.add(threadId);
          state.lastStoppedThread = threadId;
          state.running = false;
          state.generation++;
          this.emit('stopped', state, threadId);
        } else if (m.event === 'continued') {
          if (m.body?.allThreadsContinued === false) state.stoppedThreads.delete(m.body.threadId);
          if (m.body?.allThreadsContinued !== false || state.stoppedThreads.size === 0) resumed();
        } else if (m.event === 'terminated' || m.event === 'exited') ended();
      },
      onWillStopSession: ended,
      /** @param {number | undefined} _code @param {string | undefined} _signal */
      onExit: (_code, _signal) => ended(),
      /** @param {Error} _e */
      onError: (_e) => {},
    };
  }

  /** Forget a session VS Code says has ended (vscode.debug.onDidTerminateDebugSession). @param {{ id: string }} session */
  terminated(session) {
    const state = this.states.get(session.id);
    if (!state) return;
    if (!state.ended) {
      state.ended = true;
      state.stoppedThreads.clear();
      state.generation++;
      this.emit('ended', state);
    }
    this.states.delete(session.id);
  }
}

module.exports = { SessionState, ViewerSessions, RESUMING };
