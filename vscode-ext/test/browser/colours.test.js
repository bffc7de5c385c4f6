// @ts-check
'use strict';
/**
 * Colours fitted to what is drawn, in a real headless Chromium: a few outliers do not flatten the
 * rest (robust range of the cells shown, "full" brings the slice's range back); zero-mean values
 * squeezed many to a pixel show their largest |x|, not a blank strip of means; a very wide slice
 * fills the panel's height; the legend has rows only for what is present.
 */
const assert = require('node:assert/strict');
const { test } = require('node:test');
const core = require('../../media/viewer/viewerCore.js');
const { browserForFile, openViewer } = require('./harness.js');
const { payloadOf, payloadMessage, matrixWithSpecials } = require('./fixtures.js');

const browser = browserForFile();

/** @param {any} v */
async function heatLayout(v) {
  return JSON.parse(await v.page.$eval('#heatmap', (/** @type {HTMLElement} */ e) => e.dataset.layout || 'null'));
}
/** Colour at the middle of cell (row, col). @param {any} v @param {number} row @param {number} col */
async function cellColour(v, row, col) {
  const l = await heatLayout(v);
  return v.pixel('heatmap', (col - l.c0 + 0.5) * l.cellW, (row - l.r0 + 0.5) * l.cellH);
}
/** @param {number[]} a @param {number[]} b */
const distance = (a, b) => Math.max(...a.map((x, i) => Math.abs(x - b[i])));
const VIRIDIS_TOP = [0xfd, 0xe7, 0x25];
const VIRIDIS_BOTTOM = [0x44, 0x01, 0x54];

test('an outlier does not flatten the rest: colours span 99% of the cells shown; "full" spans all', async () => {
  const v = await openViewer(browser());
  // 400 cells in [0, 1), one of them 1000
  const grid = Array.from({ length: 20 }, (_, r) => Array.from({ length: 20 }, (_, c) => (r * 20 + c) / 400));
  grid[0][5] = 1000;
  await v.send(payloadMessage(payloadOf(grid)));
  const scale = JSON.parse(await v.page.$eval('#colourbar', (e) => /** @type {HTMLElement} */ (e).dataset.scale || ''));
  assert.equal(scale.kind, 'sequential');
  assert.ok(scale.hi < 1 && scale.hi > 0.98, `fitted top ${scale.hi}`);
  // the largest ordinary cell is near the top colour, the outlier at it (clipped)
  assert.ok(distance(await cellColour(v, 19, 19), VIRIDIS_TOP) <= 3, 'the largest ordinary cell is yellow');
  assert.ok(distance(await cellColour(v, 0, 5), VIRIDIS_TOP) <= 3, 'the outlier takes the end colour');
  assert.ok(distance(await cellColour(v, 10, 0), core.cellColour(scale, 0.5)) <= 3, 'a middle cell, the middle colour');
  assert.match(await v.text('#legend'), /colours fitted to 0\.005 … 0\.995 \(99% of the cells shown; they span 0 … 1000\)/);

  await v.page.select('#range', 'full');
  const full = JSON.parse(await v.page.$eval('#colourbar', (e) => /** @type {HTMLElement} */ (e).dataset.scale || ''));
  assert.equal(full.hi, 1000);
  assert.ok(distance(await cellColour(v, 19, 19), VIRIDIS_BOTTOM) <= 6, 'on the full range the rest is all one colour');
  assert.equal((await v.savedState()).range, 'full');
  assert.equal(await v.page.$('#legend [data-kind="fitted"]'), null);
  await v.page.close();
});

test('zero-mean cells many to a pixel show their largest |x|, not a blank strip of means', async () => {
  const v = await openViewer(browser());
  // 8 rows x 3000 columns of ±a (a grows by row): every block mean is 0
  const grid = Array.from({ length: 8 }, (_, r) => Array.from({ length: 3000 }, (_, c) => (c % 2 ? -1 : 1) * (r + 1)));
  await v.send(payloadMessage(payloadOf(grid)));
  const layout = await heatLayout(v);
  assert.ok(layout.cellW < 1, `reduced: ${layout.cellW} px a column`);
  assert.match(await v.text('#zoom-info'), /largest \|x\|/);
  const white = [0xf7, 0xf7, 0xf7];
  let coloured = 0;
  for (let x = 5; x < layout.cols * layout.cellW; x += 37) {
    const rgb = await v.pixel('heatmap', x, 7.5 * layout.cellH);
    if (distance(rgb, white) > 60) coloured++;
  }
  assert.ok(coloured >= 15, `${coloured} of the bottom row's samples are coloured`);
  await v.page.close();
});

test('a smooth wide slice keeps block means', async () => {
  const v = await openViewer(browser());
  const grid = Array.from({ length: 4 }, () => Array.from({ length: 3000 }, (_, c) => c / 3000));
  await v.send(payloadMessage(payloadOf(grid)));
  assert.doesNotMatch(await v.text('#zoom-info'), /largest/);
  await v.page.close();
});

test("a very wide slice fills the panel's height, not a thin strip", async () => {
  const v = await openViewer(browser(), { viewport: { width: 1000, height: 760 } });
  const grid = Array.from({ length: 4 }, (_, r) => Array.from({ length: 4000 }, (_, c) => Math.sin(c / 50) + r));
  await v.send(payloadMessage(payloadOf(grid)));
  const layout = await heatLayout(v);
  const height = layout.cellH * layout.rows;
  assert.ok(height >= 250, `the picture is ${height} px tall`);
  const box = await v.page.$eval('#heatmap', (e) => e.getBoundingClientRect().bottom);
  assert.ok(box <= 760, 'and still fits the window');
  await v.page.close();
});

test('the legend has rows only for what is present', async () => {
  const v = await openViewer(browser());
  await v.send(payloadMessage(payloadOf([[1, 2], [3, 4]])));
  assert.deepEqual(await v.page.$$eval('#legend [data-kind]', (els) => els.map((e) => /** @type {HTMLElement} */ (e).dataset.kind)), []);
  assert.doesNotMatch(await v.text('#legend'), /in the value/);
  await v.send(payloadMessage(payloadOf([[1, NaN], [3, 4]])));
  assert.deepEqual(await v.page.$$eval('#legend [data-kind]', (els) => els.map((e) => /** @type {HTMLElement} */ (e).dataset.kind)), ['nan']);
  await v.send(payloadMessage(matrixWithSpecials()));
  assert.deepEqual(await v.page.$$eval('#legend [data-kind]', (els) => els.map((e) => /** @type {HTMLElement} */ (e).dataset.kind)), ['nan', 'posinf', 'neginf']);
  await v.page.close();
});
