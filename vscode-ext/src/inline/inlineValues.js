// @ts-check
'use strict';
/**
 * TF-aware inline values: at a stop, each line in view (up to the stopped line) shows the short
 * form of the TF values named on it (`x = float32[64, 10] ‼ NaN×3 x∈[…] μ=0.1`). One `evaluate`
 * per request, for the whole visible range: `tf_debug_repr.inline_values(NAMES)`, where NAMES is
 * the JSON list of the plain names found on those lines written as a Python string literal. The
 * names are data: the plugin looks each one up in the frame (locals, then globals) and never
 * evaluates it; only TF values answer, so every other name keeps whatever another provider (the
 * Python extension's, when a user turns it on) shows. Nothing here imports `vscode`: the editor's
 * parts come in as `api`, so node tests drive it directly.
 */
const { pyLiteral } = require('../viewer/expression');
const { exceptionIn, pyStr } = require('../viewer/result');

const SETTING = 'inlineValues';
/** Names asked for in one request, at most (the plugin reads at most 200 too). */
const MAX_NAMES = 200;

const KEYWORDS = new Set([
  'False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue',
  'def', 'del', 'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in',
  'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield',
]);

/**
 * The plain names a line of Python reads or assigns, in order, each once: no attribute after a
 * dot, no keyword, nothing inside a string or a comment, no keyword argument's name (`f(x=w)`
 * gives `f`, `w`).
 * @param {string} line
 * @returns {string[]}
 */
function namesOnLine(line) {
  return scanLine(line, null).names;
}

/**
 * The names of each line of a document's lines, read in order: a triple-quoted string (a
 * docstring) that spans lines, or a string continued by a backslash at the end of a line, is
 * text on every line it covers, not names.
 * @param {string[]} lines
 * @returns {string[][]}
 */
function namesOnLines(lines) {
  /** @type {string | null} */
  let open = null;
  return lines.map((line) => {
    const found = scanLine(line, open);
    open = found.open;
    return found.names;
  });
}

/**
 * The string still open at the end of these lines (the state the next line starts in).
 * @param {string[]} lines
 * @returns {string | null}
 */
function openAfter(lines) {
  /** @type {string | null} */
  let open = null;
  for (const line of lines) open = scanLine(line, open).open;
  return open;
}

/**
 * One line's names, and the string left open at its end (a triple quote, or any quote after
 * a trailing backslash); `open`: the string open at its start.
 * @param {string} line
 * @param {string | null} open
 * @returns {{ names: string[], open: string | null }}
 */
function scanLine(line, open) {
  /** @type {string[]} */
  const names = [];
  let code = '';
  /** @type {string | null} */
  let quote = open;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === '\\') i++;
      else if (line.startsWith(quote, i)) {
        i += quote.length - 1;
        quote = null;
      }
      code += ' ';
      continue;
    }
    if (c === '#') break;
    if (c === '"' || c === "'") {
      // a string's prefix (f"…", rb'…') is no name
      const prefix = /(?:^|[^\p{L}\p{N}_])([rRbBuUfF]{1,2})$/u.exec(code);
      if (prefix) code = code.slice(0, code.length - prefix[1].length) + ' '.repeat(prefix[1].length);
      quote = line.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      i += quote.length - 1;
      code += ' ';
      continue;
    }
    code += c;
  }
  let depth = 0;
  const token = /[\p{L}_][\p{L}\p{N}_]*|[()[\]{}]|\S/gu;
  /** @type {RegExpExecArray | null} */
  let m;
  let previous = '';
  while ((m = token.exec(code)) !== null) {
    const t = m[0];
    if ('([{'.includes(t)) depth++;
    else if (')]}'.includes(t)) depth = Math.max(0, depth - 1);
    else if (/^[\p{L}_]/u.test(t) && previous !== '.' && !KEYWORDS.has(t) && !/^\d/.test(t)) {
      const after = code.slice(token.lastIndex);
      const keywordArgument = depth > 0 && /^\s*=(?!=)/.test(after);
      if (!keywordArgument && !names.includes(t)) names.push(t);
    }
    previous = t;
  }
  const continued = quote !== null && (quote.length === 3 || line.endsWith('\\'));
  return { names, open: continued ? quote : null };
}

/** `__import__('tf_debug_repr').inline_values('["x", "w"]')`. @param {string[]} names */
function inlineValuesExpression(names) {
  return `__import__('tf_debug_repr').inline_values(${pyLiteral(JSON.stringify(names))})`;
}

/**
 * The short forms from an evaluate answer: `{name: text}` of strings only, {} for anything else
 * (an old plugin, an error: inline values are a nicety, never an error dialog).
 * @param {{ result?: string, type?: string }} body
 * @returns {Record<string, string>}
 */
function decodeInlineValues(body) {
  if (!body || exceptionIn(body) || body.type !== 'str') return {};
  const text = pyStr(body.result ?? '');
  if (text === undefined) return {};
  try {
    const parsed = JSON.parse(text);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    /** @type {Record<string, string>} */
    const found = Object.create(null);
    for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string') found[k] = v;
    return found;
  } catch {
    return {};
  }
}

/**
 * @typedef {{ line: number, character: number }} PositionLike
 * @typedef {{ start: PositionLike, end: PositionLike }} RangeLike
 * @typedef {{ Range: new (l1: number, c1: number, l2: number, c2: number) => any,
 *   InlineValueText: new (range: any, text: string) => any,
 *   enabled(): boolean,
 *   activeSession(): { type?: string, customRequest(command: string, args?: any): Thenable<any> } | undefined }} InlineApi
 */

/**
 * The provider to register for Python documents.
 * @param {InlineApi} api
 */
function createInlineValuesProvider(api) {
  return {
    /**
     * @param {{ lineCount: number, lineAt(line: number): { text: string } }} document
     * @param {RangeLike} viewPort
     * @param {{ frameId: number, stoppedLocation: RangeLike }} context
     */
    async provideInlineValues(document, viewPort, context) {
      if (!api.enabled()) return [];
      const session = api.activeSession();
      if (!session || session.type !== 'debugpy') return [];
      const last = Math.min(viewPort.end.line, context.stoppedLocation.end.line, document.lineCount - 1);
      /** @type {{ line: number, length: number, names: string[] }[]} */
      const lines = [];
      /** @type {Set<string>} */
      const asked = new Set();
      const first = Math.max(0, viewPort.start.line);
      /** @type {string[]} */
      const before = [];
      for (let line = 0; line < first; line++) before.push(document.lineAt(line).text);
      let open = openAfter(before); // a docstring opened above the view
      for (let line = first; line <= last; line++) {
        const text = document.lineAt(line).text;
        const scanned = scanLine(text, open);
        open = scanned.open;
        const names = scanned.names.filter((n) => asked.size < MAX_NAMES || asked.has(n));
        names.forEach((n) => asked.add(n));
        if (names.length) lines.push({ line, length: text.length, names });
      }
      if (!asked.size) return [];
      let found;
      try {
        const body = await session.customRequest('evaluate', { expression: inlineValuesExpression([...asked]), frameId: context.frameId, context: 'clipboard' });
        found = decodeInlineValues(body);
      } catch {
        return [];
      }
      const values = [];
      for (const { line, length, names } of lines) {
        const shown = names.filter((n) => n in found).map((n) => `${n} = ${found[n]}`);
        if (shown.length) values.push(new api.InlineValueText(new api.Range(line, length, line, length), shown.join(' · ')));
      }
      return values;
    },
  };
}

module.exports = { createInlineValuesProvider, namesOnLine, namesOnLines, inlineValuesExpression, decodeInlineValues, SETTING, MAX_NAMES };
