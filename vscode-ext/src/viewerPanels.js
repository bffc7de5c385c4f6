// @ts-check
'use strict';
/**
 * "View Tensor": the commands, and one webview panel per view. A panel fetches its payload
 * through the paused debugpy session's `evaluate` (docs/tensor-viewer.md) and speaks the page's
 * message protocol (§3): request, pin, saveNpy, compare. The pure parts live in viewerTypes
 * (which rows), viewerExpression (what to evaluate), viewerResult (what came back) and
 * viewerSessions (which session is paused where).
 */
const crypto = require('node:crypto');
const vscode = require('vscode');
const { viewerHtml } = require('./viewerHtml');
const { ViewerError, decodePayload, decodeSaveResult, describeRequestError } = require('./viewerResult');
const { checkRequest, expressionAt, gradientOfExpression, npyFileName, saveNpyExpression, targetOf, titleFor, viewPayloadExpression } = require('./viewerExpression');

const VIEW_TYPE = 'tfDebugRepr.tensorViewer';
const COMMAND_VIEW = 'tfDebugRepr.viewTensor';
const COMMAND_VIEW_BESIDE = 'tfDebugRepr.viewTensorBeside';
/** The page (branch `webview`): media/viewer/, its script and style. */
const PAGE_DIR = ['media', 'viewer'];
const PAGE_SCRIPT = 'viewer.js';
const PAGE_STYLE = 'viewer.css';

/**
 * @typedef {import('./viewerSessions').SessionState} SessionState
 * @typedef {import('./viewerSessions').ViewerSessions} ViewerSessions
 * @typedef {{ frameId: number, threadId: number, generation: number }} FrameRef
 * @typedef {import('./viewerExpression').ViewRequest} ViewRequest
 */

/** The message a caught error becomes. @param {unknown} e @param {SessionState} state */
function messageOf(e, state) {
  if (e instanceof ViewerError) return e.message;
  if (e instanceof TypeError) return `Bad request: ${e.message}`;
  return describeRequestError(e, { ended: state.ended });
}

class ViewerPanel {
  /**
   * @param {TensorViewer} viewer
   * @param {{ expression: string, state: SessionState, frame?: FrameRef, column: vscode.ViewColumn }} o
   */
  constructor(viewer, { expression, state, frame, column }) {
    this.viewer = viewer;
    this.expression = expression.trim();
    this.title = titleFor(this.expression);
    this.state = state;
    /** The frame of the last fetch; good while the session's generation is unchanged. */
    this.frame = frame;
    this.pinned = false;
    /** @type {ViewRequest} */
    this.request = {};
    /** Latest payload and error messages, sent again when the page reloads (hidden → shown). @type {any} */
    this.lastPayload = undefined;
    /** @type {any} */
    this.lastError = undefined;
    /** @type {any} */
    this.stale = undefined;
    this.seq = 0;
    this.panel = vscode.window.createWebviewPanel(VIEW_TYPE, this.title, { viewColumn: column, preserveFocus: false }, {
      enableScripts: true,
      retainContextWhenHidden: false,
      localResourceRoots: [viewer.pageRoot],
    });
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

  /** @param {any} message */
  post(message) {
    void this.panel.webview.postMessage(message);
  }

  /** The frame to evaluate in: the last one while the program has not moved, else the current one. */
  async currentFrame() {
    if (this.frame && this.frame.generation === this.state.generation && this.state.paused) return this.frame;
    return this.state.currentFrame(/** @type {any} */ (vscode.debug.activeStackItem));
  }

  /**
   * Fetches the payload for `request` (default: the last one) and sends it to the page.
   * @param {ViewRequest} [request] @param {FrameRef} [frame]
   */
  async fetch(request = this.request, frame) {
    const seq = ++this.seq;
    this.post({ type: 'loading', expression: this.expression });
    try {
      const checked = checkRequest(request);
      const f = frame ?? (await this.currentFrame());
      const body = await this.state.session.customRequest('evaluate', {
        expression: viewPayloadExpression(this.expression, checked),
        frameId: f.frameId,
        context: 'clipboard',
      });
      const payload = decodePayload(body, this.expression);
      if (seq !== this.seq) return;
      this.frame = f;
      this.request = checked;
      this.lastError = undefined;
      this.lastPayload = { type: 'payload', expression: this.expression, title: this.title, payload, pinned: this.pinned, request: checked };
      this.post(this.lastPayload);
      // Still a true picture of the stop it was asked in; if the program moved on meanwhile,
      // the page is told again that it is stale.
      if (f.generation === this.state.generation) this.stale = undefined;
      else if (this.stale) this.post(this.stale);
    } catch (e) {
      if (seq !== this.seq) return;
      this.lastError = { type: 'error', expression: this.expression, message: messageOf(e, this.state) };
      this.post(this.lastError);
    }
  }

  /** @param {any} m a message from the page */
  async onMessage(m) {
    switch (m?.type) {
      case 'ready':
        if (this.lastPayload) this.post({ ...this.lastPayload, pinned: this.pinned });
        if (this.lastError) this.post(this.lastError);
        if (this.stale) this.post(this.stale);
        if (!this.lastPayload && !this.lastError && this.seq === 0) await this.fetch();
        return;
      case 'request':
        return this.fetch({ axes: m.axes ?? null, index: m.index ?? null, region: m.region ?? null, part: m.part ?? null });
      case 'pin':
        this.pinned = !!m.pinned;
        // Pinning a view whose program has moved on brings it up to date at once.
        if (this.pinned && this.stale && this.state.paused) await this.fetch();
        return;
      case 'saveNpy':
        return this.saveNpy();
      case 'compare':
        return this.compare();
      default:
    }
  }

  /** At a stop of this view's session: a pinned view fetches again in the stopped thread's top frame. @param {number} threadId */
  async onStopped(threadId) {
    if (!this.pinned) return;
    let frame;
    try {
      frame = await this.state.topFrame(threadId);
    } catch (e) {
      this.lastError = { type: 'error', expression: this.expression, message: messageOf(e, this.state) };
      this.post(this.lastError);
      return;
    }
    await this.fetch(this.request, frame);
  }

  /** @param {'running' | 'ended'} why */
  markStale(why) {
    // The page shows the reason as it is ("Stale: …").
    const reason = why === 'ended' ? 'the debug session has ended' : this.pinned ? 'the program is running; this view refreshes at the next stop' : 'the program is running; Refresh at the next stop';
    this.stale = { type: 'stale', reason };
    this.post(this.stale);
  }

  async saveNpy() {
    try {
      if (!this.state.paused) throw new ViewerError(this.state.ended ? 'The debug session has ended: nothing to save.' : 'The program is running: pause it to save the value.');
      const name = npyFileName(this.expression);
      let target;
      if (this.state.session.configuration?.request === 'attach') {
        // The program may run on another machine or in a container: a local file dialog would lie.
        target = await vscode.window.showInputBox({
          title: `Save ${this.title} as .npy`,
          prompt: "Path in the debugged program's file system (relative paths are from its working directory)",
          value: name,
        });
      } else {
        const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
        const uri = await vscode.window.showSaveDialog({
          title: `Save ${this.title} as .npy`,
          defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
          filters: { 'NumPy array': ['npy'] },
        });
        target = uri?.fsPath;
      }
      if (!target) return;
      const frame = await this.currentFrame();
      const body = await this.state.session.customRequest('evaluate', {
        expression: saveNpyExpression(this.expression, target),
        frameId: frame.frameId,
        context: 'clipboard',
      });
      const report = decodeSaveResult(body, this.expression);
      // save_npy reports a failure ("not saved: PermissionError: …") instead of raising.
      if (report.startsWith('not saved')) vscode.window.showErrorMessage(`Save as .npy: ${report}`);
      else vscode.window.showInformationMessage(report);
    } catch (e) {
      vscode.window.showErrorMessage(`Save as .npy: ${messageOf(e, this.state)}`);
    }
  }

  async compare() {
    const expression = await vscode.window.showInputBox({
      title: `Compare ${this.title} with…`,
      prompt: 'An expression to view beside this one (in the same frame)',
      value: gradientOfExpression(this.expression),
    });
    if (!expression?.trim()) return;
    await this.viewer.open({ expression, state: this.state, frame: this.frame, beside: true });
  }
}

class TensorViewer {
  /** @param {vscode.Uri} extensionUri @param {ViewerSessions} sessions */
  constructor(extensionUri, sessions) {
    this.pageRoot = vscode.Uri.joinPath(extensionUri, ...PAGE_DIR);
    this.sessions = sessions;
    /** @type {Set<ViewerPanel>} */
    this.panels = new Set();
    /** The view shown or focused last: new views go to its column. @type {ViewerPanel | undefined} */
    this.lastPanel = undefined;
  }

  /** Everything to dispose with the extension. */
  register() {
    const { sessions } = this;
    /** @param {SessionState} state */
    const panelsOf = (state) => [...this.panels].filter((p) => p.state === state);
    return [
      vscode.debug.registerDebugAdapterTrackerFactory('debugpy', sessions.trackerFactory()),
      vscode.debug.onDidTerminateDebugSession((s) => sessions.terminated(s)),
      sessions.on('stopped', (state, threadId) => panelsOf(state).forEach((p) => void p.onStopped(threadId))),
      sessions.on('resumed', (state) => panelsOf(state).forEach((p) => p.markStale('running'))),
      sessions.on('ended', (state) => panelsOf(state).forEach((p) => p.markStale('ended'))),
      vscode.commands.registerCommand(COMMAND_VIEW, (arg) => this.view(arg, false)),
      vscode.commands.registerCommand(COMMAND_VIEW_BESIDE, (arg) => this.view(arg, true)),
      { dispose: () => this.panels.forEach((p) => p.panel.dispose()) },
    ];
  }

  /**
   * The command: from a Variables/Watch row (its evaluateName), else the editor's selection or
   * the expression at the cursor, else an input box.
   * @param {any} arg @param {boolean} beside
   */
  async view(arg, beside) {
    const target = targetOf(arg);
    if ('error' in target) {
      vscode.window.showErrorMessage(`View Tensor: ${target.error}`);
      return;
    }
    let state;
    let expression;
    if (target.from === 'variable') {
      state = this.sessions.get(target.sessionId) ?? this.sessions.get(vscode.debug.activeDebugSession?.id);
      expression = target.expression;
    } else {
      state = this.sessions.get(vscode.debug.activeDebugSession?.id);
      expression = editorExpression() ?? (state?.paused ? await askExpression() : undefined);
      if (state?.paused && expression === undefined) return;
    }
    if (!state || !state.paused) {
      vscode.window.showErrorMessage(
        state?.ended === false
          ? 'View Tensor: the program is running; pause it (or stop at a breakpoint) first.'
          : 'View Tensor: no paused Python debug session (debugpy) to evaluate in.',
      );
      return;
    }
    if (!expression) return;
    await this.open({ expression, state, beside });
  }

  /**
   * Where a new view goes. Views share one editor group, beside the source (which stays in
   * sight while stepping); "beside" puts the new view in the group next to the last view's, so
   * a weight and its gradient sit side by side.
   * @param {boolean} beside
   * @returns {vscode.ViewColumn}
   */
  columnFor(beside) {
    const last = this.lastPanel?.panel.viewColumn;
    if (last === undefined) return vscode.ViewColumn.Beside;
    return beside ? /** @type {vscode.ViewColumn} */ (Math.min(last + 1, 9)) : last;
  }

  /**
   * Shows a view: the panel already showing this expression of this session (not for beside),
   * else a new one.
   * @param {{ expression: string, state: SessionState, frame?: FrameRef, beside?: boolean }} o
   */
  async open(o) {
    const beside = !!o.beside;
    const column = this.columnFor(beside);
    // The same expression of the same session already on view: that panel (for beside, only when
    // it already sits in the group it would open in).
    const same = [...this.panels].find(
      (p) => p.state === o.state && p.expression === o.expression.trim() && (!beside || p.panel.viewColumn === column),
    );
    if (same) {
      same.panel.reveal(undefined, false);
      this.lastPanel = same;
      same.frame = undefined; // the frame the user has selected now
      await same.fetch();
      return same;
    }
    const panel = new ViewerPanel(this, { ...o, column });
    this.panels.add(panel);
    this.lastPanel = panel;
    await panel.fetch({}, o.frame && o.frame.generation === o.state.generation ? o.frame : undefined);
    return panel;
  }
}

/** The active editor's selection, or the expression at its cursor. */
function editorExpression() {
  const editor = vscode.window.activeTextEditor;
  if (!editor) return undefined;
  const selected = editor.document.getText(editor.selection).trim();
  if (selected) return selected;
  const position = editor.selection.active;
  return expressionAt(editor.document.lineAt(position.line).text, position.character);
}

function askExpression() {
  return vscode.window.showInputBox({ title: 'View Tensor', prompt: 'A Python expression in the selected frame (a tensor, variable or array)' });
}

module.exports = { TensorViewer, ViewerPanel, VIEW_TYPE, COMMAND_VIEW, COMMAND_VIEW_BESIDE, PAGE_SCRIPT, PAGE_STYLE };
