// @ts-check
'use strict';
/**
 * What comes back from the viewer's `evaluate` requests, read into a payload, a message, or a
 * ViewerError whose message the user can act on (docs/tensor-viewer.md §1).
 *
 * With `context: "clipboard"` debugpy answers even a failed evaluation with success: `type` is
 * then the exception's class and `result` its repr (`NameError("name 'x' is not defined")`).
 * A successful `view_payload` is the repr of a str made only of base64 characters.
 */

/** An error to show the user as it is. */
class ViewerError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'ViewerError';
  }
}

const PIP_HINT = 'pip install tf-debug-repr';

/**
 * The text of a Python str repr (`'a\'b'`, `"it's"`, with \n, \xNN, \uNNNN escapes), or
 * undefined when `literal` is not one.
 * @param {string} literal
 * @returns {string | undefined}
 */
function pyStr(literal) {
  const m = /^(['"])([\s\S]*)\1$/.exec(literal);
  if (!m) return undefined;
  const simple = /** @type {{ [k: string]: string }} */ ({ n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '\n': '' });
  let out = '';
  const body = m[2];
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    if (e in simple) out += simple[e];
    else if (e === 'x' || e === 'u' || e === 'U') {
      const n = { x: 2, u: 4, U: 8 }[e];
      const hex = body.slice(i + 1, i + 1 + n);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== n) return undefined;
      out += String.fromCodePoint(parseInt(hex, 16));
      i += n;
    } else if (/[0-7]/.test(e)) {
      const oct = /^[0-7]{1,3}/.exec(body.slice(i))?.[0] ?? e;
      out += String.fromCharCode(parseInt(oct, 8));
      i += oct.length - 1;
    } else out += `\\${e}`;
  }
  return out;
}

/**
 * The exception in an evaluate answer, or undefined when the answer is a value.
 * @param {{ result?: string, type?: string }} body
 * @returns {{ type: string, message: string } | undefined}
 */
function exceptionIn(body) {
  const type = body?.type ?? '';
  const result = body?.result ?? '';
  const m = /^(\w+)\(([\s\S]*)\)$/.exec(result);
  const looksRaised = /(Error|Exception|Exit|Interrupt)$/.test(type) || (m !== null && m[1] === type && type !== '');
  if (!looksRaised) return undefined;
  let message = m ? m[2] : result;
  if (m) message = pyStr(m[2]) ?? m[2];
  return { type, message };
}

/**
 * A message for an exception raised by the viewer's expression in the debuggee.
 * @param {{ type: string, message: string }} exc @param {string} expression the user's expression
 */
function describeException(exc, expression) {
  const { type, message } = exc;
  if ((type === 'ModuleNotFoundError' || type === 'ImportError') && /tf_debug_repr/.test(message)) {
    return `tf-debug-repr is not importable in the debugged program (${message}). Install it where the program runs: ${PIP_HINT} (a launch session gets the extension's bundled copy unless "tfDebugRepr.bundledPlugin" is off; an attach session needs it installed).`;
  }
  if (type === 'AttributeError' && /tf_debug_repr/.test(message) && /view_payload|view_history_compare|save_npy|gradient_of/.test(message)) {
    return `The tf-debug-repr in the debugged program is too old for the tensor viewer (${message}): pip install -U tf-debug-repr`;
  }
  if (type === 'NameError') {
    return `${message} in the selected frame: select the frame where "${expression}" exists in the Call Stack, or check the expression.`;
  }
  return `${expression}: ${type}: ${message}`;
}

/**
 * The payload from a `view_payload` evaluate answer.
 * @param {{ result?: string, type?: string }} body the evaluate response body
 * @param {string} expression the user's expression (for messages)
 * @returns {any} the payload object (version 1)
 * @throws {ViewerError}
 */
function decodePayload(body, expression) {
  const exc = exceptionIn(body);
  if (exc) throw new ViewerError(describeException(exc, expression));
  const result = body?.result ?? '';
  const m = /^'([A-Za-z0-9+/=]*)'$/.exec(result);
  if (body?.type !== 'str' || !m) {
    throw new ViewerError(`Unexpected answer from the debugged program for "${expression}" (${body?.type ?? 'no type'}): ${result.slice(0, 200)}`);
  }
  let payload;
  try {
    payload = JSON.parse(Buffer.from(m[1], 'base64').toString('utf8'));
  } catch (e) {
    throw new ViewerError(`Could not read the payload for "${expression}" (${m[1].length} base64 characters): ${/** @type {Error} */ (e).message}`);
  }
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw new ViewerError(`The payload for "${expression}" is not an object.`);
  if (payload.version !== 1) {
    throw new ViewerError(`The payload for "${expression}" has version ${JSON.stringify(payload.version)}; this extension reads version 1. Use matching versions of the extension and tf-debug-repr.`);
  }
  return payload;
}

/**
 * Whether a bigger budget would draw more of the payload's value: its slice, image (or the
 * image's values) or filter grid was reduced to fit.
 * @param {any} payload a decoded payload
 */
function reduced(payload) {
  const stepped = (/** @type {unknown} */ step) => Array.isArray(step) && step.some((s) => typeof s === 'number' && s > 1);
  const f = payload?.filters;
  return (
    stepped(payload?.slice?.step) ||
    stepped(payload?.image?.step) ||
    stepped(payload?.image?.values?.step) ||
    (!!f && (f.in_shown < f.in_channels || f.out_shown < f.out_channels))
  );
}

/**
 * The one-line report of a `save_npy` evaluate answer.
 * @param {{ result?: string, type?: string }} body @param {string} expression
 * @throws {ViewerError}
 */
function decodeSaveResult(body, expression) {
  const exc = exceptionIn(body);
  if (exc) throw new ViewerError(describeException(exc, expression));
  const text = body?.type === 'str' ? pyStr(body.result ?? '') : undefined;
  if (text === undefined) throw new ViewerError(`Unexpected answer from the debugged program: ${(body?.result ?? '').slice(0, 200)}`);
  return text;
}

/**
 * A message for a failed evaluate request (the request itself, not the expression).
 * @param {unknown} error what customRequest rejected with
 * @param {{ ended?: boolean }} [state]
 */
function describeRequestError(error, state = {}) {
  const message = error instanceof Error ? error.message : String(error);
  if (state.ended) return 'The debug session has ended: start it again and stop where the tensor lives.';
  if (/not (?:suspended|stopped|paused)|Unable to find (?:thread|frame)|Frame .* not found|thread .* not (?:found|alive)|invalid frame/i.test(message)) {
    return `The program is not paused where this was evaluated any more (${message.trim()}): stop at a breakpoint and try again.`;
  }
  if (/cancel/i.test(message)) return 'The request was cancelled (the program resumed).';
  return `The debugger could not evaluate the expression: ${message.trim()}`;
}

/**
 * The message a caught error becomes on the page or in a notification.
 * @param {unknown} e @param {{ ended?: boolean } | undefined} state the view's session, if it has one
 */
function messageOf(e, state) {
  if (e instanceof ViewerError) return e.message;
  if (e instanceof TypeError) return `Bad request: ${e.message}`;
  return describeRequestError(e, { ended: state?.ended });
}

module.exports = { ViewerError, PIP_HINT, pyStr, exceptionIn, describeException, decodePayload, reduced, decodeSaveResult, describeRequestError, messageOf };
