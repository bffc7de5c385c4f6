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

test("the History tab's Compare: the difference heatmap of the payload's two stops, its figures, another pair asked and drawn", async () => {
  const compare = fit('HistoryCompare', {
    a: 1, b: 5, rows: 2, cols: 2, values: [-1, 0, 0.5, 1], exact: true, block: 1,
    norm: 1.5, largest: 1, figures: ['min', 'mean'], changes: [-0.4, null], note: '',
  });
  const v = await openViewer(browser());
  await v.send(payloadMessage(payloadOf([[1, 2], [3, 4]], { history: { ...HISTORY, compare } }), { expression: 'kernel' }));
  await v.page.click('#tab-history');
  assert.equal(await v.isHidden('#history-compare'), false);
  const stops = await v.page.$$eval('#compare-a option, #compare-b option', (o) => o.map((e) => [/** @type {HTMLOptionElement} */ (e).value, /** @type {HTMLOptionElement} */ (e).selected]));
  assert.equal(stops.length, 10);
  assert.deepEqual(stops.filter((s) => s[1]).map((s) => s[0]), ['1', '5'], 'the first stop against the last');
  // each cell the colour viewerCore gives it (the difference −1 at the top left: the scale's low end)
  const grid = /** @type {any} */ (core.compareGrid(/** @type {any} */ (compare)));
  assert.deepEqual(await v.pixel('compare-heatmap', 1, 1), [...grid.pixels.slice(0, 3)]);
  assert.deepEqual(await v.pixel('compare-heatmap', 200, 200), [...grid.pixels.slice(12, 15)]);
  const figures = await v.text('#compare-figures');
  assert.ok(figures.includes('‖Δ‖') && figures.includes('Δmin') && figures.includes('—'), figures);
  // each figure's name and value in one cell of the grid (not names and values in turn)
  const cells = await v.page.$$eval('#compare-figures > *', (c) => c.map((e) => [e.className, e.querySelector('dt')?.textContent, !!e.querySelector('dd')]));
  assert.deepEqual(cells[0], ['stat', '‖Δ‖', true]);
  assert.ok(cells.every(([cls, name, value]) => cls === 'stat' && name && value), JSON.stringify(cells));
  assert.match(await v.text('#compare-note'), /b − a \(2×2\)/);
  // another pair: the page asks the extension, then draws its answer
  await v.page.select('#compare-a', '2');
  const asked = (await v.posted()).filter((m) => m.type === 'historyCompare');
  assert.deepEqual(asked, [{ type: 'historyCompare', a: 2, b: 5 }]);
  const other = { ...compare, a: 2, values: [1, 1, 1, 1], note: '' };
  await v.send({ type: 'historyCompare', expression: 'kernel', compare: other, error: null });
  assert.deepEqual(await v.page.$eval('#compare-a', (s) => /** @type {HTMLSelectElement} */ (s).value), '2');
  await v.send({ type: 'historyCompare', expression: 'kernel', compare: null, error: 'no entry for stop 9 (stops kept: 1, 2)' });
  assert.match(await v.text('#compare-note'), /no entry for stop 9/);
  assert.deepEqual(v.pageErrors, []);
  assert.deepEqual(await v.cspViolations(), []);
});
