// @ts-check
'use strict';
/**
 * Launch.json completion: where the templates are offered and the snippet text inserted.
 * No `require('vscode')`; extension.js turns these into CompletionItems.
 */
const jsonc = require('jsonc-parser');

/**
 * True when the cursor is directly inside the "configurations" array of a launch.json (where a
 * whole configuration object may be typed), not inside one of its objects.
 * @param {string} fileName
 * @param {string} text
 * @param {number} offset
 */
function canComplete(fileName, text, offset) {
  if (!/(^|[\\/])launch\.json$/i.test(fileName)) return false;
  const location = jsonc.getLocation(text, offset);
  return location.path.length === 2 && location.path[0] === 'configurations' && typeof location.path[1] === 'number';
}

/** Escapes text for VS Code's snippet syntax (`$`, `\` and `}` are special). @param {string} s */
function escapeSnippet(s) {
  return s.replace(/[\\$}]/g, (c) => '\\' + c);
}

/**
 * The snippet for a template's configurations (one or more objects, comma-separated), with
 * tab stops on the values a user has to fill in (module name, remote root).
 * @param {import('./templates').Template} template
 * @param {{ indent?: string }} [o]
 */
function templateSnippet(template, o = {}) {
  const indent = o.indent ?? '    ';
  let tab = 1;
  const parts = template.configurations.map((config) => {
    let text = escapeSnippet(JSON.stringify(config, null, indent));
    if (config.module && config.module !== 'pytest') {
      const m = escapeSnippet(JSON.stringify(config.module));
      text = text.replace(`"module": ${m}`, `"module": "\${${tab++}:${escapeSnippet(config.module)}}"`);
      text = text.replace(escapeSnippet(JSON.stringify(config.name)), JSON.stringify(config.name).replace(config.module, `\${${1}}`));
    }
    if (config.request === 'attach') {
      for (const pm of config.pathMappings ?? []) {
        const r = escapeSnippet(JSON.stringify(pm.remoteRoot));
        text = text.replace(`"remoteRoot": ${r}`, `"remoteRoot": "\${${tab++}:${escapeSnippet(pm.remoteRoot)}}"`);
      }
    }
    return text;
  });
  return parts.join(',\n');
}

/**
 * Commas needed around an object inserted at `offset` inside an array: a leading one when an
 * element ends right before, a trailing one when an element starts right after.
 * @param {string} text @param {number} offset
 */
function commasAround(text, offset) {
  const scanner = jsonc.createScanner(text, true);
  let prev = jsonc.SyntaxKind.Unknown;
  scanner.setPosition(0);
  let t;
  while ((t = scanner.scan()) !== jsonc.SyntaxKind.EOF) {
    if (scanner.getTokenOffset() >= offset) break;
    if (t !== jsonc.SyntaxKind.Trivia && t !== jsonc.SyntaxKind.LineBreakTrivia && t !== jsonc.SyntaxKind.LineCommentTrivia && t !== jsonc.SyntaxKind.BlockCommentTrivia) {
      prev = t;
    }
  }
  scanner.setPosition(offset);
  let next = scanner.scan();
  while (next === jsonc.SyntaxKind.Trivia || next === jsonc.SyntaxKind.LineBreakTrivia || next === jsonc.SyntaxKind.LineCommentTrivia || next === jsonc.SyntaxKind.BlockCommentTrivia) {
    next = scanner.scan();
  }
  return {
    before: prev === jsonc.SyntaxKind.CloseBraceToken ? ',' : '',
    after: next === jsonc.SyntaxKind.OpenBraceToken ? ',' : '',
  };
}

module.exports = { canComplete, escapeSnippet, templateSnippet, commasAround };
