// @ts-check
'use strict';
/**
 * The History tab in a real headless Chromium: shown only for a payload with a history, one SVG
 * line plot per figure at the points viewerCore.historyPlots gives, the variable's name as text.
 */
const assert = require('node:assert/strict');
const { test } = require('node:test');
const core = require('../../media/viewer/viewerCore.js');
const { browserForFile, openViewer } = require('./harness.js');
const { payloadOf, payloadMessage, fit } = require('./fixtures.js');

const browser = browserForFile();

const HISTORY = fit('History', {
  name: '<img src=x onerror=alert(1)>/kernel',
  axis: 'step',
  x: [4, 8, 12, 16, 20],
  stop: [1, 2, 3, 4, 5],
  step: [4, 8, 12, 16, 20],
  epoch: [0, 1, 2, 3, 4],
  figures: ['min', 'max', 'mean', 'std', 'norm', 'nan', 'inf', 'grad_norm'],
  series: [
    [-1, -1.1, -1.2, -1.3, -1.4],
    [1, 1.2, 1.4, 1.6, 1.8],
    [0, 0.01, 0.02, 0.03, 0.04],
    [0.5, 0.55, 0.6, 0.65, 0.7],
    [2, 2.5, 3, 3.5, 4],
    [0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0],
    [0.3, 0.2, 0.15, null, 0.1],
  ],
  grad_step: [17, 18, 19, 20],
  grad_norm: [0.12, 0.11, 0.105, 0.1],
});

test('no History tab for a value without a history', async () => {
  const v = await openViewer(browser());
  await v.send(payloadMessage(payloadOf([[1, 2], [3, 4]])));
  assert.equal(await v.isHidden('#tab-history'), true);
  assert.deepEqual(v.pageErrors, []);
});

test('the History tab draws one line per figure on one step axis, the name as text', async () => {
  const v = await openViewer(browser());
  await v.send(payloadMessage(payloadOf([[1, 2], [3, 4]], { history: HISTORY })));
  assert.equal(await v.isHidden('#tab-history'), false);
  await v.page.click('#tab-history');
  assert.equal(await v.isHidden('#panel-history'), false);
  const charts = await v.page.$$eval('#history-plots svg', (svgs) =>
    svgs.map((s) => ({ label: s.getAttribute('aria-label'), lines: [...s.querySelectorAll('polyline')].map((l) => l.getAttribute('points')) })),
  );
  const want = core.historyPlots(/** @type {any} */ (HISTORY), 260, 80);
  assert.equal(charts.length, 8);
  assert.deepEqual(
    charts.map((c) => c.label),
    want.plots.map((p) => `${p.figure} over steps`),
  );
  for (const [i, plot] of want.plots.entries()) {
    assert.deepEqual(charts[i].lines, plot.lines.map((l) => l.map((p) => p.join(',')).join(' ')));
  }
  // both series on one axis: the stops' norm starts at step 4, the ring's gradients at 17
  assert.deepEqual([want.x0, want.x1], [4, 20]);
  assert.equal(want.plots[7].count, 4);
  const note = await v.text('#history-note');
  assert.ok(note.startsWith('<img src=x onerror=alert(1)>/kernel: 5 stops, over steps 4…20'), note);
  assert.equal(await v.page.$$eval('#panel-history img', (e) => e.length), 0, 'the name is text, never markup');
  assert.deepEqual(v.pageErrors, []);
  assert.deepEqual(await v.cspViolations(), []);
});
