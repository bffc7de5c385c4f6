// @ts-check
'use strict';
/**
 * ESLint (flat config) for the extension's JavaScript: `npm run lint`, part of `npm test`.
 * Node code (src/, scripts/, tests) is CommonJS; the viewer page (media/viewer/) is classic
 * browser scripts that share one scope, each page module one global (PAGE_GLOBALS).
 */
const js = require('@eslint/js');
const globals = require('globals');

/** The page modules' globals (media/viewer/page/*.js), in load order (src/viewer/html.js). */
const PAGE_GLOBALS = ['TfDom', 'TfState', 'TfSlices', 'TfHeatmap', 'TfHeatmapInput', 'TfImage', 'TfHistogram', 'TfTable', 'TfFilters', 'TfHistory', 'TfHeader', 'TfMessages'];

module.exports = [
  { ignores: ['node_modules/', 'python/', '*.vsix'] },
  js.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-var': 'error',
      'prefer-const': 'error',
      'no-implicit-globals': 'off',
    },
  },
  {
    files: ['src/**/*.js', 'scripts/**/*.js', 'test/**/*.js', 'eslint.config.js'],
    languageOptions: { sourceType: 'commonjs', ecmaVersion: 2022, globals: { ...globals.node } },
  },
  {
    // Functions the browser tests (and the manual code-server driver) hand to page.evaluate run in the page.
    files: ['test/browser/**/*.js', 'test/manual/**/*.js'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    files: ['media/viewer/**/*.js'],
    languageOptions: {
      sourceType: 'script',
      ecmaVersion: 2022,
      globals: {
        ...globals.browser,
        // viewerCore.js, viewerContract.js and protocol.js are also required by node (UMD).
        module: 'readonly',
        require: 'readonly',
        ...Object.fromEntries(PAGE_GLOBALS.map((name) => [name, 'readonly'])),
      },
    },
  },
  {
    // Each page module defines its global; the others only read them.
    files: ['media/viewer/page/*.js'],
    rules: { 'no-redeclare': ['error', { builtinGlobals: false }] },
  },
];
