// @ts-check
'use strict';
/**
 * One "View Tensor" view: a webview panel showing one expression of one debug session. It fetches
 * its payload through the paused session's `evaluate` (docs/tensor-viewer.md), keeps what its page
 * was sent (to send again when the page reloads) and answers the page's messages (§3): request and
 * pin here; saveNpy, compare and copy are pageActions.js's. Which panel shows a value and the
 * sessions' events are tensorViewer.js's (TensorViewer).
 */
const crypto = require('node:crypto');
const vscode = require('vscode');
const { PAGE_SCRIPT, PAGE_STYLE, viewerHtml } = require('./html');
const { ViewerError, decodePayload, messageOf, reduced } = require('./result');
const { FIRST_PICTURE_BUDGET, checkRequest, historyCompareExpression, isDefaultRequest, titleFor, viewPayloadExpression } = require('./expression');
const { configurationName } = require('./adoption');
const { savedView } = require('./savedState');
const { compare, copy, saveNpy } = require('./pageActions');

const VIEW_TYPE = 'tfDebugRepr.tensorViewer';

/**
 * @typedef {import('./sessions').SessionState} SessionState
 * @typedef {{ frameId: number, threadId: number, generation: number }} FrameRef
 * @typedef {import('./expression').ViewRequest} ViewRequest
 * @typedef {import('./tensorViewer').TensorViewer} TensorViewer
 */

/** Said after an error at an automatic refresh of a pinned view. */
const TRIES_AGAIN = 'This pinned view tries again at the next stop.';

class ViewerPanel {
  /**
   * A view of one expression: a new panel, or (`panel` given) one VS Code restored after a window
   * reload, which has no session until one is paused (`origin`: the configuration it came from).
   * @param {TensorViewer} viewer
   * @param {{ expression: string, state?: SessionState, frame?: FrameRef, column?: vscode.ViewColumn,
   *   panel?: vscode.WebviewPanel, origin?: string, request?: ViewRequest, pinned?: boolean }} o
   */
  constructor(viewer, { expression, state, frame, column, panel, origin, request = {}, pinned = false }) {
    this.viewer = viewer;
    this.expression = expression.trim();
    this.title = titleFor(this.expression);
    /** The session evaluated in; undefined for a restored view not yet shown a value. @type {SessionState | undefined} */
    this.state = state;
    /** The configuration name of a restored view's session (a live one's is read from it). */
    this.origin = origin;
    /** The frame of the last fetch; good while the session's generation is unchanged. */
    this.frame = frame;
    this.pinned = pinned;
    /** A restored view waiting for its first value: fetched at the next stop, pinned or not. */
    this.waiting = !state;
    /** Why a restored view cannot be rebuilt (shown instead of a value). @type {string | undefined} */
    this.broken = undefined;
    /** @type {ViewRequest} */
    this.request = request;
    /** Latest payload and error messages, sent again when the page reloads (hidden → shown). @type {import('../../media/viewer/protocol').ToPagePayload | undefined} */
    this.lastPayload = undefined;
    /** @type {import('../../media/viewer/protocol').ToPageError | undefined} */
    this.lastError = undefined;
    /** @type {import('../../media/viewer/protocol').ToPageStale | undefined} */
    this.stale = undefined;
    /** @type {'running' | 'ended' | undefined} */
    this.staleWhy = undefined;
    /** @type {import('../../media/viewer/protocol').ToPageWaiting | undefined} */
    this.lastWaiting = undefined;
    this.seq = 0;
    /** The number of the last payload (its message's `n`): a page showing it skips it when sent again. */
    this.payloads = 0;
    const options = { enableScripts: true, retainContextWhenHidden: false, localResourceRoots: [viewer.pageRoot] };
    if (panel) {
      this.panel = panel;
      this.panel.webview.options = options;
      this.panel.title = this.title || panel.title;
    } else {
      this.panel = vscode.window.createWebviewPanel(VIEW_TYPE, this.title, { viewColumn: column ?? vscode.ViewColumn.Beside, preserveFocus: false }, options);
    }
    this.panel.webview.html = this.html();
    this.panel.webview.onDidReceiveMessage((m) => this.onMessage(m));
    this.panel.onDidChangeViewState((e) => {
      if (e.webviewPanel.active) viewer.lastPanel = this;
    });
    this.panel.onDidDispose(() => {
      viewer.panels.delete(this);
      if (viewer.lastPanel === this) viewer.lastPanel = undefined;
    });
  }

  html() {
    const webview = this.panel.webview;
    return viewerHtml({
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(this.viewer.pageRoot, PAGE_SCRIPT)).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(this.viewer.pageRoot, PAGE_STYLE)).toString(),
      cspSource: webview.cspSource,
      nonce: crypto.randomBytes(16).toString('base64'),
    });
  }

  /** A message to the page: one of the contract's (media/viewer/protocol.js). @param {import('../../media/viewer/protocol').ToPage | undefined} message */
  post(message) {
    void this.panel.webview.postMessage(message);
  }

  /** Whether the view has no running session: it ended, or the view was restored after a reload. */
  get orphan() {
    return !this.state || this.state.ended;
  }

  /** The launch configuration name of the session the view belongs (or belonged) to. */
  get originName() {
    return this.state ? configurationName(this.state.session) : this.origin;
  }

  /** Whether the next stop of some session should take this view up (adoption.js). */
  get adoptable() {
    return !this.broken && this.orphan && (this.pinned || this.waiting);
  }

  /** From now on, the view belongs to `state`. @param {SessionState} state */
  adopt(state) {
    this.state = state;
    this.origin = undefined;
    this.frame = undefined;
  }

  /** What the page keeps to rebuild the view after a reload (request and pinned it adds itself). */
  saved() {
    return savedView(this.viewer.key, this.expression, this.originName);
  }

  /**
   * The session to evaluate in now: the view's own while it runs; for a view without one, a
   * paused debugpy session, which then takes the view up (Refresh, Pin, a restored view).
   */
  liveState() {
    if (!this.orphan) return /** @type {SessionState} */ (this.state);
    const found = this.viewer.pausedSessionFor(this.originName);
    if (found) this.adopt(found);
    return found;
  }

  /** The frame to evaluate in: the last one while the program has not moved, else the current one. */
  async currentFrame() {
    const state = this.liveState();
    if (!state) {
      if (this.state) throw new ViewerError('The debug session has ended: start it again and stop where the tensor lives.');
      throw new ViewerError(`No paused Python debug session (debugpy) to evaluate "${this.title}" in: start one and stop where it lives.`);
    }
    if (this.frame && this.frame.generation === state.generation && state.paused) return this.frame;
    return state.currentFrame(/** @type {any} */ (vscode.debug.activeStackItem));
  }

  /**
   * Evaluates the payload of `request` in `frame`, within `budget` bytes (else the plugin's default).
   * @param {ViewRequest} request @param {FrameRef} frame @param {number} [budget]
   */
  async evaluatePayload(request, frame, budget) {
    const state = /** @type {SessionState} */ (this.state);
    const body = await state.session.customRequest('evaluate', {
      expression: viewPayloadExpression(this.expression, request, budget),
      frameId: frame.frameId,
      context: 'clipboard',
    });
    return decodePayload(body, this.expression);
  }

  /**
   * The History tab's Compare of stops `a` and `b` (docs/history.md), evaluated in the frame the
   * view shows, and sent to the page; a failure is the answer's `error` (the page says it there).
   * @param {unknown} a @param {unknown} b
   */
  async compareStops(a, b) {
    /** @type {import('../../media/viewer/protocol').ToPageHistoryCompare} */
    const answer = { type: 'historyCompare', expression: this.expression, compare: null, error: null };
    try {
      const frame = this.frame ?? (await this.currentFrame());
      const state = /** @type {SessionState} */ (this.state);
      const body = await state.session.customRequest('evaluate', {
        expression: historyCompareExpression(this.expression, /** @type {number} */ (a), /** @type {number} */ (b)),
        frameId: frame.frameId,
        context: 'clipboard',
      });
      const found = decodePayload(body, this.expression);
      answer.compare = found.compare ?? null;
      answer.error = typeof found.error === 'string' ? found.error : null;
    } catch (e) {
      answer.error = messageOf(e, this.state);
    }
    this.post(answer);
  }

  /**
   * Fetches the payload for `request` (default: the last one) and sends it to the page. A request
   * that does not fit the value any more (it changed shape since) falls back to the default slice.
   * `first`: a view being opened on a value; its first picture is drawn from a smaller payload
   * (FIRST_PICTURE_BUDGET) and the full one follows where that drew less.
   * @param {ViewRequest} [request] @param {FrameRef} [frame] @param {{ auto?: boolean, first?: boolean }} [o] auto: a pinned refresh at a stop
   */
  async fetch(request = this.request, frame, { auto = false, first = false } = {}) {
    const seq = ++this.seq;
    this.post({ type: 'loading', expression: this.expression });
    try {
      let checked = checkRequest(request);
      const f = frame ?? (await this.currentFrame());
      const state = /** @type {SessionState} */ (this.state);
      const budget = first ? FIRST_PICTURE_BUDGET : undefined;
      let payload = await this.evaluatePayload(checked, f, budget);
      if (payload.bad_request && !isDefaultRequest(checked)) {
        checked = checkRequest({});
        payload = await this.evaluatePayload(checked, f, budget);
      }
      if (seq !== this.seq) return;
      this.frame = f;
      this.request = checked;
      this.waiting = false;
      this.lastError = undefined;
      this.lastWaiting = undefined;
      this.show(payload, checked);
      // Still a true picture of the stop it was asked in; if the program moved on meanwhile,
      // the page is told again that it is stale.
      if (f.generation === state.generation) this.stale = this.staleWhy = undefined;
      else if (this.stale) this.post(this.stale);
      if (first && reduced(payload) && f.generation === state.generation) await this.refine(seq, checked, f);
    } catch (e) {
      if (seq !== this.seq) return;
      const message = messageOf(e, this.state);
      this.lastError = { type: 'error', expression: this.expression, message: auto && this.pinned ? `${message} ${TRIES_AGAIN}` : message };
      this.post(this.lastError);
    }
  }

  /**
   * Shows another expression in this page: View Tensor reusing an unpinned view, as VS Code
   * reuses a group's preview editor. The page stays loaded, so the new value skips a new webview's
   * start (over a second in code-server: docs/performance.md, "Opening a view").
   * @param {{ expression: string, state: SessionState, frame?: FrameRef }} o
   */
  retarget({ expression, state, frame }) {
    this.expression = expression.trim();
    this.title = titleFor(this.expression);
    this.panel.title = this.title;
    this.adopt(state);
    this.frame = frame;
    this.waiting = false;
    this.request = {};
    this.lastPayload = this.lastError = this.lastWaiting = this.stale = this.staleWhy = undefined;
  }

  /** Whether View Tensor may show another value here: an unpinned view with a value or an error. */
  get reusable() {
    return !this.pinned && !this.broken && !this.waiting;
  }

  /**
   * Sends the page a payload for `request` (kept to send again when the page reloads).
   * @param {any} payload @param {ReturnType<typeof checkRequest>} request a checked request
   */
  show(payload, request) {
    this.lastPayload = { type: 'payload', expression: this.expression, title: this.title, payload, pinned: this.pinned, request, n: ++this.payloads };
    this.post({ ...this.lastPayload, view: this.saved() });
  }

  /**
   * After a first picture drawn from a smaller payload: the full one, unless the page asked for
   * something else meanwhile (`seq`) or the program moved on; a failure keeps the first picture.
   * @param {number} seq @param {ReturnType<typeof checkRequest>} request @param {FrameRef} frame
   */
  async refine(seq, request, frame) {
    const state = /** @type {SessionState} */ (this.state);
    let payload;
    try {
      payload = await this.evaluatePayload(request, frame);
    } catch {
      return;
    }
    if (seq !== this.seq || frame.generation !== state.generation || payload.error) return;
    this.show(payload, request);
  }

  /** A restored view's first words: fetch at once if a session is paused, else say it waits. */
  async start() {
    if (this.broken) {
      this.lastError = { type: 'error', expression: '', message: this.broken };
      this.post(this.lastError);
      return;
    }
    if (this.liveState()) {
      await this.fetch();
      return;
    }
    this.lastWaiting = this.waitingMessage();
    this.post(this.lastWaiting);
  }

  /** What a restored view without a session says. @returns {import('../../media/viewer/protocol').ToPageWaiting} */
  waitingMessage() {
    return {
      type: 'waiting',
      expression: this.expression,
      title: this.title,
      pinned: this.pinned,
      request: checkRequest(this.request),
      view: this.saved(),
      message: `Waiting for a paused debug session: "${this.title}" is evaluated at the next stop of a Python debug session (debugpy)${this.pinned ? ', and at every stop after it (pinned)' : ''}.`,
    };
  }

  /** @param {import('../../media/viewer/protocol').ToExtension | undefined} m a message from the page (checked: it comes from a webview) */
  async onMessage(m) {
    if (this.broken) {
      // A view that could not be restored evaluates nothing, anywhere: it only says why.
      if (m?.type === 'ready' || m?.type === 'request') this.post(this.lastError);
      return;
    }
    switch (m?.type) {
      case 'ready':
        if (this.lastPayload) this.post({ ...this.lastPayload, pinned: this.pinned, view: this.saved() });
        if (this.lastWaiting) this.post({ ...this.lastWaiting, pinned: this.pinned });
        if (this.lastError) this.post(this.lastError);
        if (this.stale) this.post(this.stale);
        if (!this.lastPayload && !this.lastError && !this.lastWaiting && this.seq === 0) await this.fetch();
        return;
      case 'request':
        return this.fetch({ axes: m.axes ?? null, index: m.index ?? null, region: m.region ?? null, part: m.part ?? null });
      case 'pin':
        this.pinned = !!m.pinned;
        // The banner says what happens next, which pinning changes.
        if (this.staleWhy) this.markStale(this.staleWhy);
        if (this.lastWaiting) {
          this.lastWaiting = this.waitingMessage();
          this.post(this.lastWaiting);
        }
        // Pinning a view whose program has moved on brings it up to date at once (a view whose
        // session ended: in a paused session, if there is one).
        if (this.pinned && this.stale && (this.orphan ? this.viewer.pausedSessionFor(this.originName) : this.state?.paused)) await this.fetch();
        return;
      case 'saveNpy':
        return saveNpy(this);
      case 'compare':
        return compare(this, m.request);
      case 'copy':
        return copy(m.text);
      case 'historyCompare':
        return this.compareStops(m.a, m.b);
      default:
    }
  }

  /**
   * At a stop of this view's session (or of the session that has just adopted it): a pinned or
   * restored view fetches again in the stopped thread's top frame.
   * @param {number} threadId
   */
  async onStopped(threadId) {
    if (!this.state || (!this.pinned && !this.waiting)) return;
    let frame;
    try {
      frame = await this.state.topFrame(threadId);
    } catch (e) {
      this.lastError = { type: 'error', expression: this.expression, message: messageOf(e, this.state) };
      this.post(this.lastError);
      return;
    }
    await this.fetch(this.request, frame, { auto: true });
  }

  /** @param {'running' | 'ended'} why */
  markStale(why) {
    // The page shows the reason as it is ("Stale: …").
    let reason;
    if (why === 'ended') {
      reason = this.pinned
        ? 'the debug session has ended; this pinned view refreshes at the next stop of a new debug session'
        : 'the debug session has ended; Refresh to view it in another paused session, or Pin to follow the next one';
    } else reason = this.pinned ? 'the program is running; this view refreshes at the next stop' : 'the program is running; Refresh at the next stop';
    this.stale = { type: 'stale', reason };
    this.staleWhy = why;
    this.post(this.stale);
  }

}

module.exports = { ViewerPanel, VIEW_TYPE };
