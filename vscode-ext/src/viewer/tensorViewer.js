// @ts-check
'use strict';
/**
 * The tensor viewer's views, all of them: which view shows a value (one of its own, the unpinned
 * view of its group, or a new one: viewerPanel.js's ViewerPanel) and in which column, the
 * sessions' stops, runs and ends reaching them, and views restored after a window reload. The
 * command's arguments are viewCommand.js's; the pure parts live in types.js (which rows),
 * expression.js (what to evaluate), result.js (what came back), sessions.js (which session is
 * paused where), adoption.js (which session a view whose session ended, or a view restored after
 * a window reload, takes up) and savedState.js (what the page keeps so a reload can rebuild it).
 */
const vscode = require('vscode');
const { ViewerPanel, VIEW_TYPE } = require('./viewerPanel');
const { PAGE_DIR, PAGE_SCRIPT, PAGE_STYLE } = require('./html');
const { adopts, configurationName, pausedSessionFor } = require('./adoption');
const { restoredView } = require('./savedState');
const { COMMAND_VIEW, COMMAND_VIEW_BESIDE, viewTensor } = require('./viewCommand');

/**
 * @typedef {import('./sessions').SessionState} SessionState
 * @typedef {import('./sessions').ViewerSessions} ViewerSessions
 * @typedef {import('./viewerPanel').FrameRef} FrameRef
 * @typedef {import('./expression').ViewRequest} ViewRequest
 */

class TensorViewer {
  /**
   * @param {vscode.Uri} extensionUri @param {ViewerSessions} sessions
   * @param {string} key signs what pages keep to be restored (savedState.js); kept in globalState
   */
  constructor(extensionUri, sessions, key) {
    this.pageRoot = vscode.Uri.joinPath(extensionUri, ...PAGE_DIR);
    this.sessions = sessions;
    this.key = key;
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
      sessions.on('stopped', (state, threadId) => this.stopped(state, threadId)),
      sessions.on('resumed', (state) => panelsOf(state).forEach((p) => p.markStale('running'))),
      sessions.on('ended', (state) => panelsOf(state).forEach((p) => p.markStale('ended'))),
      vscode.commands.registerCommand(COMMAND_VIEW, (arg) => this.view(arg, false)),
      vscode.commands.registerCommand(COMMAND_VIEW_BESIDE, (arg) => this.view(arg, true)),
      vscode.window.registerWebviewPanelSerializer(VIEW_TYPE, { deserializeWebviewPanel: (panel, state) => this.restore(panel, state) }),
      { dispose: () => this.panels.forEach((p) => p.panel.dispose()) },
    ];
  }

  /**
   * A stop of `state`: its own views refresh (the pinned ones), and views without a running
   * session are adopted by it where adoption.js's rule says so.
   * @param {SessionState} state @param {number} threadId
   */
  stopped(state, threadId) {
    const name = configurationName(state.session);
    const running = [...this.sessions.states.values()].filter((s) => !s.ended).map((s) => configurationName(s.session));
    for (const p of this.panels) {
      if (p.state !== state && !(p.adoptable && adopts(p.originName, name, running))) continue;
      if (p.state !== state) p.adopt(state);
      void p.onStopped(threadId);
    }
  }

  /** A paused debugpy session for a view without one (adoption.js pausedSessionFor). @param {string | undefined} origin */
  pausedSessionFor(origin) {
    return pausedSessionFor(origin, this.sessions.states.values(), vscode.debug.activeDebugSession?.id);
  }

  /**
   * A view VS Code brings back after a window reload, from what its page kept (setState).
   * @param {vscode.WebviewPanel} panel @param {unknown} saved
   */
  async restore(panel, saved) {
    const r = restoredView(saved, this.key);
    const view = 'view' in r ? r.view : undefined;
    const p = new ViewerPanel(this, { panel, expression: view?.expression ?? '', origin: view?.origin, request: view?.request, pinned: view?.pinned });
    if ('error' in r) p.broken = r.error;
    this.panels.add(p);
    await p.start();
  }

  /** The View Tensor command (viewCommand.js). @param {any} arg @param {boolean} beside */
  view(arg, beside) {
    return viewTensor(this, arg, beside);
  }

  /**
   * Where a new view goes. Views share one editor group, beside the source (which stays in
   * sight while stepping); "beside" puts the new view in the group next to the last view's (or
   * next to `from`'s, the view comparing), so a weight and its gradient sit side by side.
   * @param {boolean} beside @param {ViewerPanel} [from]
   * @returns {vscode.ViewColumn}
   */
  columnFor(beside, from) {
    const last = from?.panel.viewColumn ?? this.lastPanel?.panel.viewColumn;
    if (last === undefined) return vscode.ViewColumn.Beside;
    return beside ? /** @type {vscode.ViewColumn} */ (Math.min(last + 1, 9)) : last;
  }

  /**
   * Shows a view: the panel already showing this expression of this session (not for beside),
   * else the unpinned view in the group it opens in, showing this value instead (the setting
   * `tfDebugRepr.viewer.reuseView`, on by default), else a new one; `request`: the slice to show first (Compare keeps the comparing view's).
   * @param {{ expression: string, state: SessionState, frame?: FrameRef, beside?: boolean, request?: ViewRequest, from?: ViewerPanel }} o
   */
  async open(o) {
    const beside = !!o.beside;
    const column = this.columnFor(beside, o.from);
    // The same expression of the same session already on view: that panel (for beside, only when
    // it already sits in the group it would open in); else one that lost its session, which this
    // session then takes up.
    const shows = (/** @type {ViewerPanel} */ p) => !p.broken && p.expression === o.expression.trim() && (!beside || p.panel.viewColumn === column);
    const same = [...this.panels].find((p) => p.state === o.state && shows(p)) ?? [...this.panels].find((p) => p.orphan && shows(p));
    if (same) {
      same.panel.reveal(undefined, false);
      this.lastPanel = same;
      if (same.state !== o.state) same.adopt(o.state);
      same.frame = undefined; // the frame the user has selected now
      await same.fetch(o.request ?? same.request, undefined, { first: true });
      return same;
    }
    const frame = o.frame && o.frame.generation === o.state.generation ? o.frame : undefined;
    const reused = reuseViews() ? this.reusableIn(column, o.from) : undefined;
    if (reused) {
      reused.retarget({ expression: o.expression, state: o.state, frame });
      reused.panel.reveal(undefined, false);
      this.lastPanel = reused;
      await reused.fetch(o.request ?? {}, frame, { first: true });
      return reused;
    }
    const panel = new ViewerPanel(this, { expression: o.expression, state: o.state, frame: o.frame, column, request: o.request });
    this.panels.add(panel);
    this.lastPanel = panel;
    await panel.fetch(o.request ?? {}, frame, { first: true });
    return panel;
  }

  /**
   * The unpinned view a new value replaces in `column` (the last one shown there), never the
   * view comparing (`from`); pinned views are kept.
   * @param {vscode.ViewColumn} column @param {ViewerPanel} [from]
   */
  reusableIn(column, from) {
    const inColumn = (/** @type {ViewerPanel} */ p) => p !== from && p.reusable && p.panel.viewColumn === column;
    if (this.lastPanel && inColumn(this.lastPanel)) return this.lastPanel;
    return [...this.panels].reverse().find(inColumn);
  }
}

/** The setting: View Tensor shows a new value in an unpinned view instead of opening another. */
function reuseViews() {
  return vscode.workspace.getConfiguration('tfDebugRepr').get('viewer.reuseView') !== false;
}

module.exports = { TensorViewer, ViewerPanel, VIEW_TYPE, COMMAND_VIEW, COMMAND_VIEW_BESIDE, PAGE_SCRIPT, PAGE_STYLE };
