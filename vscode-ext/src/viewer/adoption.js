// @ts-check
'use strict';
/**
 * Which debug session a view without one takes up (docs/tensor-viewer.md §3, "What survives
 * what"). A view loses its session when the session ends, or never had one (restored after a
 * window reload). A pinned (or restored, not yet shown) view is then adopted at the next stop of
 * a debugpy session, by this rule:
 *
 * - it waits for a session whose launch configuration has the same `name` as the one it came
 *   from, as long as such a session is running (a chief+worker pair: the chief's views stay the
 *   chief's, whichever process stops first);
 * - when none of that name is running (a renamed configuration, another program, a view restored
 *   without a name), the first debugpy session that stops takes it;
 * - once adopted, a view stays with its session until that session ends: it never moves to
 *   another running session.
 *
 * Nothing here imports `vscode`: sessions are duck-typed.
 */

/**
 * @typedef {{ id: string, name?: string, configuration?: { name?: unknown } }} NamedSession
 * @typedef {{ session: NamedSession, paused: boolean, ended: boolean }} StateLike
 */

/**
 * A session's launch configuration name (what the user picked in Run and Debug), else the
 * session's own name.
 * @param {NamedSession | undefined} session
 * @returns {string | undefined}
 */
function configurationName(session) {
  const name = session?.configuration?.name;
  if (typeof name === 'string' && name) return name;
  return typeof session?.name === 'string' && session.name ? session.name : undefined;
}

/**
 * Whether a view that came from a session named `origin` (undefined: not known) is adopted by
 * the session named `candidate` that has just stopped.
 * @param {string | undefined} origin
 * @param {string | undefined} candidate
 * @param {(string | undefined)[]} running the configuration names of the debugpy sessions now running (not ended), the candidate's included
 */
function adopts(origin, candidate, running) {
  if (origin === undefined || candidate === origin) return true;
  return !running.includes(origin);
}

/**
 * The paused session a view without one evaluates in when the user asks (Refresh, Pin, a
 * restored view opened while a session is paused): the active debug session when it is paused,
 * else a paused one of the view's configuration name, else the first paused one.
 * @template {StateLike} S
 * @param {string | undefined} origin
 * @param {Iterable<S>} states
 * @param {string | undefined} activeId vscode.debug.activeDebugSession?.id
 * @returns {S | undefined}
 */
function pausedSessionFor(origin, states, activeId) {
  const paused = [...states].filter((s) => s.paused && !s.ended);
  return (
    paused.find((s) => s.session.id === activeId) ??
    (origin === undefined ? undefined : paused.find((s) => configurationName(s.session) === origin)) ??
    paused[0]
  );
}

module.exports = { configurationName, adopts, pausedSessionFor };
