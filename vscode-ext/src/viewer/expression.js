// @ts-check
'use strict';
/**
 * The Python expressions the viewer evaluates in the debuggee's frame (docs/tensor-viewer.md §1),
 * built from the user's expression and the page's request. Everything the page sends becomes a
 * Python literal here, checked first: only ints, None, lists of them and the known part names
 * reach the debuggee, never text of the page's choosing.
 */

const PACKAGE = "__import__('tf_debug_repr')";
const PARTS = Object.freeze(['abs', 'angle', 'real', 'imag']);

/**
 * @typedef {{ axes?: (number | null)[] | null, index?: (number | null)[] | null,
 *   region?: number[][] | null, part?: string | null }} ViewRequest
 */

/**
 * A JSON-like value as a Python literal: null/undefined → None, booleans → True/False,
 * integers as they are, strings with Python-safe escapes, arrays as lists.
 * @param {unknown} value
 * @returns {string}
 */
function pyLiteral(value) {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`not a finite number: ${value}`);
    return String(value);
  }
  // JSON's string escapes (\" \\ \n \t \b \f \r \uXXXX) all mean the same in a Python str literal.
  // `@` is written `\x40`: pydevd turns `@LINE@` anywhere in an evaluated expression into a line
  // break, which would cut a path holding it (`a@LINE@b.npy`) out of its literal.
  if (typeof value === 'string') return JSON.stringify(value).replace(/@/g, '\\x40');
  if (Array.isArray(value)) return `[${value.map(pyLiteral).join(', ')}]`;
  throw new TypeError(`no Python literal for ${typeof value}`);
}

/**
 * The user's expression, ready to sit inside parentheses: trimmed, and closed on its own line
 * when it holds a line break or a `#` (a trailing comment would otherwise swallow the rest).
 * @param {string} expression
 * @returns {string}
 */
function wrapExpression(expression) {
  if (typeof expression !== 'string' || expression.trim() === '') throw new TypeError('no expression to view');
  const text = expression.trim();
  return /[#\n\r]/.test(text) ? `(${text}\n)` : `(${text})`;
}

/** TF's highest rank: an index from the page holds at most this many entries. */
const MAX_RANK = 254;

/** @param {unknown} v @param {string} what */
function checkInt(v, what) {
  // Safe integers only: 1e300 is an integer to JS, and its String() is no Python int literal.
  if (!Number.isSafeInteger(v)) throw new TypeError(`${what} must be an integer, not ${String(JSON.stringify(v)).slice(0, 40)}`);
  return /** @type {number} */ (v);
}

/**
 * The request's arguments, checked and defaulted to None.
 * @param {ViewRequest} [request]
 */
function checkRequest(request = {}) {
  const { axes = null, index = null, region = null, part = null } = request ?? {};
  if (axes !== null) {
    if (!Array.isArray(axes) || axes.length !== 2) throw new TypeError('axes must be [row_axis, col_axis]');
    // null keeps that axis's default (a 1-D value's payload says [null, 0], and the page sends it back)
    axes.forEach((a) => a === null || checkInt(a, 'an axis'));
  }
  if (index !== null) {
    if (!Array.isArray(index) || index.length > MAX_RANK) throw new TypeError(`index must be a list of at most ${MAX_RANK} entries`);
    index.forEach((i) => i === null || checkInt(i, 'an index'));
  }
  if (region !== null) {
    if (!Array.isArray(region) || region.length !== 2 || !region.every((r) => Array.isArray(r) && r.length === 2)) {
      throw new TypeError('region must be [[r0, r1], [c0, c1]]');
    }
    region.flat().forEach((r) => checkInt(r, 'a region bound'));
  }
  if (part !== null && !PARTS.includes(/** @type {string} */ (part))) throw new TypeError(`part must be one of ${PARTS.join(', ')}`);
  return { axes, index, region, part };
}

/** Whether a request is the default one (every field None). @param {ViewRequest} [request] */
function isDefaultRequest(request) {
  const r = checkRequest(request);
  return r.axes === null && r.index === null && r.region === null && r.part === null;
}

/**
 * The payload's byte budget for a view's first picture: a fifth of the full one (1,000,000, the
 * plugin's default). A 1 MB answer takes ~0.6 s from the adapter to the page in code-server
 * (docs/performance.md, "Opening a view"); this one paints in a fraction of that, and the full
 * picture follows (ViewerPanel.refine).
 */
const FIRST_PICTURE_BUDGET = 200_000;

/**
 * `__import__('tf_debug_repr').view_payload((EXPR), axes=…, index=…, region=…, part=…)`, and
 * `budget=…` when one is given (else the plugin's default).
 * @param {string} expression @param {ViewRequest} [request] @param {number} [budget]
 */
function viewPayloadExpression(expression, request, budget) {
  const r = checkRequest(request);
  const bytes = budget === undefined ? '' : `, budget=${checkInt(budget, 'budget')}`;
  return (
    `${PACKAGE}.view_payload(${wrapExpression(expression)}, axes=${pyLiteral(r.axes)}, ` +
    `index=${pyLiteral(r.index)}, region=${pyLiteral(r.region)}, part=${pyLiteral(r.part)}${bytes})`
  );
}

/**
 * `__import__('tf_debug_repr').view_history_compare((EXPR), A, B)`: the History tab's Compare of
 * stops A and B (docs/history.md), the stops as integers only.
 * @param {string} expression @param {number} a @param {number} b
 */
function historyCompareExpression(expression, a, b) {
  return `${PACKAGE}.view_history_compare(${wrapExpression(expression)}, ${checkInt(a, 'a stop')}, ${checkInt(b, 'a stop')})`;
}

/**
 * `__import__('tf_debug_repr').save_npy((EXPR), 'PATH')`, the path as an escaped str literal
 * (a raw string could neither hold a quote nor end in a backslash).
 * @param {string} expression @param {string} path
 */
function saveNpyExpression(expression, path) {
  if (typeof path !== 'string' || path === '') throw new TypeError('no path to save to');
  return `${PACKAGE}.save_npy(${wrapExpression(expression)}, ${pyLiteral(path)})`;
}

/** `__import__('tf_debug_repr').gradient_of(EXPR)`: what "Compare" offers first. @param {string} expression */
function gradientOfExpression(expression) {
  return `${PACKAGE}.gradient_of${wrapExpression(expression)}`;
}

const GRADIENT_INFO = /^__import__\((['"])tf_debug_repr\1\)\.gradient_info\(([\s\S]+)\)$/;

/**
 * The expression to view for a row: its evaluateName, except that the plugin's "∇ gradient"
 * row (`…gradient_info(w)`, a record with step, norm and history) is viewed as the gradient
 * tensor itself (`…gradient_of(w)`).
 * @param {string} evaluateName
 */
function viewableExpression(evaluateName) {
  const text = evaluateName.trim();
  const m = GRADIENT_INFO.exec(text);
  return m && balanced(m[2]) ? `${PACKAGE}.gradient_of(${m[2]})` : text;
}

/**
 * Whether brackets pair up in `text` (outside string literals): `w` yes, `w).gradient.numpy(` no.
 * @param {string} text
 */
function balanced(text) {
  let depth = 0;
  /** @type {string | null} */
  let quote = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c) && --depth < 0) return false;
  }
  return depth === 0 && quote === null;
}

/**
 * The Python expression at a column of a line, for "View Tensor" from the editor without a
 * selection: a dotted name with any subscripts (`self.dense.kernel`, `grads[0]`, `x[:, 1]`)
 * that contains the column, or undefined on whitespace, operators and keywords.
 * @param {string} line @param {number} column 0-based
 * @returns {string | undefined}
 */
function expressionAt(line, column) {
  const pattern = /[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*|\[[^[\]\n]*\])*/g;
  for (const m of line.matchAll(pattern)) {
    const start = m.index ?? 0;
    if (column >= start && column <= start + m[0].length) {
      return PYTHON_KEYWORDS.has(m[0]) ? undefined : m[0];
    }
  }
  return undefined;
}

/**
 * What a menu hands the command: the Variables pane `{sessionId, container, variable}` with a DAP
 * variable; the Watch pane (VS Code 1.103+) `{sessionId, variable}` for a watch expression (its
 * evaluateName is the expression) or `{sessionId, container, variable}` for a row under one; the
 * editor's menu a Uri; the command palette nothing. The variable's evaluateName is the
 * expression, never its display name (`[0]`, `∇ gradient` mean nothing in the frame).
 * @param {any} arg
 * @returns {{ from: 'variable', sessionId: string | undefined, expression: string, name: string }
 *   | { from: 'variable', sessionId: string | undefined, error: string, name: string } | { from: 'editor' }}
 */
function targetOf(arg) {
  const variable = arg && typeof arg === 'object' ? arg.variable : undefined;
  if (!variable || typeof variable !== 'object') return { from: 'editor' };
  const sessionId = typeof arg.sessionId === 'string' ? arg.sessionId : undefined;
  const name = typeof variable.name === 'string' ? variable.name : '?';
  const evaluateName = typeof variable.evaluateName === 'string' ? variable.evaluateName.trim() : '';
  if (!evaluateName) {
    return {
      from: 'variable',
      sessionId,
      name,
      error: `"${name}" has no expression the debugger can evaluate (no evaluateName from the debug adapter): select an expression for it in the editor, or type one in the Watch pane, and use View Tensor there.`,
    };
  }
  return { from: 'variable', sessionId, name, expression: viewableExpression(evaluateName) };
}

const GRADIENT_OF = /^__import__\((['"])tf_debug_repr\1\)\.gradient_of\(([\s\S]+)\)$/;
/** A layer's `→ output` row (the plugin's `_expr.activation`) or the public `layer_output`. */
const LAYER_OUTPUT =
  /^__import__\((['"])tf_debug_repr(?:\1\)\.layer_output|\._expr\1\s*,\s*fromlist\s*=\s*\[\s*(['"])_\2\s*\]\s*\)\.activation)\(([\s\S]+)\)$/;

/**
 * The layer and output index of a layer-output expression: `model.layers[1]` and 0 from
 * `…_expr.activation(model.layers[1])`, index 2 from `…activation(layer, 2)`; undefined otherwise.
 * @param {string} text an expression with its whitespace collapsed
 * @returns {{ layer: string, index: number } | undefined}
 */
function layerOutputOf(text) {
  const m = LAYER_OUTPUT.exec(text);
  if (!m || !balanced(m[3])) return undefined;
  const args = m[3];
  // the last comma outside brackets and quotes separates an index
  let depth = 0;
  /** @type {string | null} */
  let quote = null;
  let comma = -1;
  for (let i = 0; i < args.length; i++) {
    const c = args[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (c === ',' && depth === 0) comma = i;
  }
  if (comma < 0) return { layer: args.trim(), index: 0 };
  const index = args.slice(comma + 1).trim();
  if (!/^\d+$/.test(index)) return undefined;
  return { layer: args.slice(0, comma).trim(), index: Number(index) };
}

/**
 * A panel's title, at most 60 characters: the expression; the gradient helper written as
 * `∇ w`; a layer's output (a `→ output` row) as `model.layers[1] → output` (`→ output[2]` for
 * another output than the first), the layer's expression cut where the title is too long.
 * @param {string} expression
 */
function titleFor(expression) {
  const text = expression.trim().replace(/\s+/g, ' ');
  const output = layerOutputOf(text);
  if (output) {
    const suffix = ` → output${output.index ? `[${output.index}]` : ''}`;
    const room = 60 - suffix.length;
    const layer = output.layer.length > room ? `${output.layer.slice(0, room - 1)}…` : output.layer;
    return `${layer}${suffix}`;
  }
  const m = GRADIENT_OF.exec(text);
  const title = m && balanced(m[2]) ? `∇ ${m[2]}` : text;
  return title.length > 60 ? `${title.slice(0, 59)}…` : title;
}

/**
 * A file name for "Save as .npy" from the expression: `model.layers[0].kernel` →
 * `model.layers_0_.kernel.npy`, `∇ w` → `w_gradient.npy`.
 * @param {string} expression
 */
function npyFileName(expression) {
  const m = GRADIENT_OF.exec(expression.trim());
  const output = layerOutputOf(expression.trim().replace(/\s+/g, ' '));
  const base = output
    ? `${output.layer} output${output.index ? ` ${output.index}` : ''}`
    : m && balanced(m[2])
      ? `${m[2]}_gradient`
      : expression.trim();
  const safe = base.replace(/[^\w.-]+/g, '_').replace(/^[_.]+|[_.]+$/g, '').slice(0, 60);
  return `${safe || 'tensor'}.npy`;
}

const PYTHON_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(' '),
);

module.exports = {
  FIRST_PICTURE_BUDGET,
  PACKAGE,
  PARTS,
  pyLiteral,
  wrapExpression,
  checkRequest,
  isDefaultRequest,
  viewPayloadExpression,
  historyCompareExpression,
  saveNpyExpression,
  gradientOfExpression,
  viewableExpression,
  expressionAt,
  targetOf,
  titleFor,
  layerOutputOf,
  npyFileName,
};
