// @ts-check
'use strict';
/**
 * Adding configurations and compounds to the text of a `.vscode/launch.json` (JSONC) with
 * jsonc-parser's edits: everything already there, comments included, stays byte for byte;
 * only the inserted ranges are new. No `require('vscode')` here.
 */

const jsonc = require('jsonc-parser');

/**
 * @typedef {import('./templates').Template} Template
 * @typedef {{ insertSpaces?: boolean, tabSize?: number, eol?: string }} Formatting
 * @typedef {{ text: string, added: string[], skipped: string[] }} AddResult
 */

const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false };

/** @param {string} eol */
function newFileText(eol) {
  return [
    '{',
    '    // Use IntelliSense to learn about possible attributes.',
    '    // Hover to view descriptions of existing attributes.',
    '    // For more information, visit: https://go.microsoft.com/fwlink/?linkid=830387',
    '    "version": "0.2.0",',
    '    "configurations": []',
    '}',
    '',
  ].join(eol);
}

/**
 * Detects the line ending and indentation a file already uses.
 * @param {string} text
 * @returns {Required<Formatting>}
 */
function detectFormatting(text) {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const indents = text.split(/\r?\n/).map((l) => /^([ \t]+)\S/.exec(l)?.[1]).filter(Boolean);
  if (indents.length && indents.filter((i) => i?.startsWith('\t')).length > indents.length / 2) {
    return { insertSpaces: false, tabSize: 4, eol };
  }
  const sizes = indents.map((i) => /** @type {string} */ (i).length).filter((n) => n > 0);
  const tabSize = sizes.length ? Math.min(...sizes) : 4;
  return { insertSpaces: true, tabSize: tabSize >= 2 && tabSize <= 8 ? tabSize : 4, eol };
}

/**
 * @param {string} text
 * @returns {jsonc.Node}
 */
function parseRoot(text) {
  /** @type {jsonc.ParseError[]} */
  const errors = [];
  const root = jsonc.parseTree(text, errors, PARSE_OPTIONS);
  if (!root || root.type !== 'object') {
    throw new Error('launch.json does not contain a JSON object; fix it before adding configurations.');
  }
  if (errors.length) {
    const e = errors[0];
    const line = text.slice(0, e.offset).split('\n').length;
    throw new Error(
      `launch.json has a syntax error (${jsonc.printParseErrorCode(e.error)}, line ${line}); fix it before adding configurations.`,
    );
  }
  return root;
}

/**
 * Names already used in an array of objects ("configurations" or "compounds").
 * @param {jsonc.Node} root
 * @param {string} key
 */
function existingNames(root, key) {
  const arr = jsonc.findNodeAtLocation(root, [key]);
  /** @type {Set<string>} */
  const names = new Set();
  if (arr && arr.type === 'array') {
    for (const child of arr.children ?? []) {
      const v = jsonc.getNodeValue(child);
      if (v && typeof v === 'object' && typeof v.name === 'string') names.add(v.name);
    }
  }
  return names;
}

/** @param {string} text @param {number} offset */
function lineIndentAt(text, offset) {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const prefix = text.slice(lineStart, offset);
  return { lineStart, prefix, onlyWhitespace: /^[ \t]*$/.test(prefix), indent: /^[ \t]*/.exec(prefix)?.[0] ?? '' };
}

/**
 * Appends one value to the array at `key` (creating the array when it is missing) with
 * hand-made insert edits, so that nothing already in the file is re-formatted, then puts
 * `comment` lines right above the new element.
 * @param {string} text
 * @param {string} key
 * @param {object} value
 * @param {string[]} comment
 * @param {Required<Formatting>} fmt
 */
function appendToArray(text, key, value, comment, fmt) {
  const unit = fmt.insertSpaces ? ' '.repeat(fmt.tabSize) : '\t';
  const formattingOptions = { insertSpaces: fmt.insertSpaces, tabSize: fmt.tabSize, eol: fmt.eol };
  let root = parseRoot(text);
  let arr = jsonc.findNodeAtLocation(root, [key]);
  if (!arr || arr.type !== 'array') {
    if (arr) throw new Error(`"${key}" in launch.json is not an array; fix it before adding configurations.`);
    text = jsonc.applyEdits(text, jsonc.modify(text, [key], [], { formattingOptions }));
    root = parseRoot(text);
    arr = /** @type {jsonc.Node} */ (jsonc.findNodeAtLocation(root, [key]));
  }
  const property = /** @type {jsonc.Node} */ (arr.parent);
  const arrIndent = lineIndentAt(text, property.offset).indent;
  const children = arr.children ?? [];
  const itemIndent =
    children.length && lineIndentAt(text, children[0].offset).onlyWhitespace
      ? lineIndentAt(text, children[0].offset).indent
      : arrIndent + unit;
  const body = JSON.stringify(value, null, unit).split('\n').join(fmt.eol + itemIndent);
  const commentBlock = comment.map((c) => `// ${c}${fmt.eol}${itemIndent}`).join('');

  /** @type {jsonc.Edit[]} */
  const edits = [];
  if (children.length) {
    const last = children[children.length - 1];
    let pos = last.offset + last.length;
    // A trailing comma after the last element (allowed in launch.json) is kept and reused.
    const scanner = jsonc.createScanner(text, true);
    scanner.setPosition(pos);
    let token = scanner.scan();
    while (token === jsonc.SyntaxKind.Trivia || token === jsonc.SyntaxKind.LineCommentTrivia || token === jsonc.SyntaxKind.BlockCommentTrivia || token === jsonc.SyntaxKind.LineBreakTrivia) {
      token = scanner.scan();
    }
    const hasComma = token === jsonc.SyntaxKind.CommaToken;
    if (hasComma) pos = scanner.getTokenOffset() + 1;
    else edits.push({ offset: pos, length: 0, content: ',' });
    // A comment that ends the line stays with the element it annotates.
    const eolAt = text.indexOf('\n', pos);
    const rest = text.slice(pos, eolAt < 0 ? text.length : eolAt).replace(/\r$/, '');
    if (/^\s*(\/\/.*|\/\*.*\*\/\s*)$/.test(rest)) pos += rest.length;
    edits.push({ offset: pos, length: 0, content: fmt.eol + itemIndent + commentBlock + body });
  } else {
    const open = arr.offset + 1;
    const close = arr.offset + arr.length - 1;
    const inside = text.slice(open, close);
    if (/^\s*$/.test(inside)) {
      edits.push({ offset: open, length: inside.length, content: fmt.eol + itemIndent + commentBlock + body + fmt.eol + arrIndent });
    } else {
      // Only comments inside: keep them, add the element after them.
      const closeLine = lineIndentAt(text, close);
      if (closeLine.onlyWhitespace) {
        edits.push({ offset: closeLine.lineStart, length: 0, content: itemIndent + commentBlock + body + fmt.eol });
      } else {
        edits.push({ offset: close, length: 0, content: fmt.eol + itemIndent + commentBlock + body + fmt.eol + arrIndent });
      }
    }
  }
  return jsonc.applyEdits(text, edits);
}

/**
 * Adds the templates' configurations and compounds to a launch.json text. A configuration or
 * compound whose name is already there is skipped (adding twice changes nothing).
 * @param {string | undefined} text current content, or undefined/empty when the file is missing
 * @param {Template[]} templates
 * @param {Formatting} [formatting]
 * @returns {AddResult}
 */
function addTemplates(text, templates, formatting = {}) {
  const creating = text === undefined || text.trim() === '';
  const detected = detectFormatting(creating ? '' : /** @type {string} */ (text));
  const fmt = {
    eol: formatting.eol ?? detected.eol,
    insertSpaces: formatting.insertSpaces ?? detected.insertSpaces,
    tabSize: formatting.tabSize ?? detected.tabSize,
  };
  let out = creating ? newFileText(fmt.eol) : /** @type {string} */ (text);
  /** @type {string[]} */
  const added = [];
  /** @type {string[]} */
  const skipped = [];

  for (const template of templates) {
    let first = true;
    for (const config of template.configurations) {
      if (existingNames(parseRoot(out), 'configurations').has(config.name)) {
        skipped.push(config.name);
        continue;
      }
      out = appendToArray(out, 'configurations', config, first ? template.comment : [], fmt);
      first = false;
      added.push(config.name);
    }
    for (const compound of template.compounds) {
      if (existingNames(parseRoot(out), 'compounds').has(compound.name)) {
        skipped.push(compound.name);
        continue;
      }
      out = appendToArray(out, 'compounds', compound, [], fmt);
      added.push(compound.name);
    }
  }
  return { text: out, added, skipped };
}

/**
 * The parsed value (comments dropped), for tests and callers that need to read it.
 * @param {string} text
 */
function parseLaunchJson(text) {
  parseRoot(text);
  return jsonc.parse(text, [], PARSE_OPTIONS);
}

module.exports = { addTemplates, parseLaunchJson, detectFormatting, newFileText };

/**
 * The single replacement that turns `before` into `after` (common prefix and suffix kept), so
 * an editor applies it as one small edit.
 * @param {string} before @param {string} after
 * @returns {{ offset: number, length: number, content: string }}
 */
function minimalEdit(before, after) {
  let start = 0;
  const max = Math.min(before.length, after.length);
  while (start < max && before[start] === after[start]) start++;
  let end = 0;
  while (end < max - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end++;
  return { offset: start, length: before.length - start - end, content: after.slice(start, after.length - end) };
}

module.exports.minimalEdit = minimalEdit;
