// @ts-check
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const c = require('../../src/launch/completion');
const { getTemplate, getTemplates } = require('../../src/launch/templates');

/**
 * The text a snippet inserts, with tab stops replaced by their defaults (as VS Code does).
 * @param {string} snippet
 */
function expand(snippet) {
  let out = '';
  for (let i = 0; i < snippet.length; i++) {
    const ch = snippet[i];
    if (ch === '\\' && i + 1 < snippet.length && '\\$}'.includes(snippet[i + 1])) {
      out += snippet[++i];
    } else if (ch === '$' && snippet[i + 1] === '{') {
      const end = snippet.indexOf('}', i);
      const body = snippet.slice(i + 2, end);
      const colon = body.indexOf(':');
      out += colon >= 0 ? body.slice(colon + 1) : `<mirror ${body}>`;
      i = end;
    } else out += ch;
  }
  return out;
}

test('offered only directly inside launch.json "configurations"', () => {
  const text = '{\n  "version": "0.2.0",\n  "configurations": [\n    \n    {"name": "a"}\n  ]\n}';
  const slot = text.indexOf('[') + 6;
  assert.ok(c.canComplete('/w/.vscode/launch.json', text, slot));
  assert.ok(c.canComplete('C:\\w\\.vscode\\launch.json', text, slot));
  assert.ok(!c.canComplete('/w/.vscode/settings.json', text, slot), 'other files');
  assert.ok(!c.canComplete('/w/.vscode/launch.json', text, text.indexOf('"a"') + 1), 'inside an object');
  assert.ok(!c.canComplete('/w/.vscode/launch.json', text, text.indexOf('0.2.0')), 'elsewhere');
});

test('snippets expand to the template configurations as JSON', () => {
  for (const t of getTemplates()) {
    if (t.id === 'module') continue;
    const expanded = expand(c.templateSnippet(t));
    assert.deepEqual(JSON.parse(`[${expanded}]`), t.configurations, t.id);
  }
  // ${file} etc. must be escaped, or VS Code would treat them as snippet variables.
  assert.ok(c.templateSnippet(getTemplate('currentFile')).includes('"\\${file\\}"'));
});

test('module snippet: tab stop on the module name, mirrored in the name', () => {
  const s = c.templateSnippet(getTemplate('module'));
  assert.match(s, /"module": "\$\{1:your_package\.train\}"/);
  assert.match(s, /"name": "TensorFlow: Module \$\{1\}"/);
});

test('commas added around an inserted object only where JSON needs them', () => {
  const text = '{"configurations": [ {"a": 1} , {"b": 2} ]}';
  assert.deepEqual(c.commasAround(text, text.indexOf('{"a"')), { before: '', after: ',' });
  assert.deepEqual(c.commasAround(text, text.indexOf('} ,') + 1), { before: ',', after: '' });
  assert.deepEqual(c.commasAround(text, text.indexOf(' ]')), { before: ',', after: '' });
  const empty = '{"configurations": [ ]}';
  assert.deepEqual(c.commasAround(empty, empty.indexOf(' ]')), { before: '', after: '' });
});
