// @ts-check
'use strict';
/**
 * A conv kernel's Filters tab in a real headless Chromium: a fresh view of a kernel opens on it,
 * one tile per output channel in the chosen input channel, each weight in the colour the scale
 * gives it, hover reading [y, x, in, out] and the value.
 */
const assert = require('node:assert/strict');
const { test } = require('node:test');
const core = require('../../media/viewer/viewerCore.js');
const { browserForFile, openViewer } = require('./harness.js');
const { payloadOf, payloadMessage, filtersOf } = require('./fixtures.js');

const browser = browserForFile();

/** kernel[y][x][i][o] of shape [5, 5, inputs, 64]: a known value everywhere. @param {number} inputs */
function kernel(inputs) {
  return Array.from({ length: 5 }, (_, y) =>
    Array.from({ length: 5 }, (_, x) => Array.from({ length: inputs }, (_, i) => Array.from({ length: 64 }, (_, o) => Math.sin(o + y * 0.7 + x * 0.3 + i) * (i + 1)))),
  );
}

/** The in x out slice the heatmap shows at spatial [0, 0]. @param {number[][][][]} k */
function inOut(k) {
  return k[0][0];
}

/** Canvas point at the middle of weight (y, x) of filter o. @param {any} layout @param {number} o @param {number} y @param {number} x */
function at(layout, o, y, x) {
  const col = o % layout.columns;
  const row = Math.floor(o / layout.columns);
  return { x: (col * (layout.tileW + 1) + x + 0.5) * layout.k, y: (row * (layout.tileH + 1) + y + 0.5) * layout.k };
}

test('a conv kernel opens as a grid of its filters, each weight in its colour, hover reads it', async () => {
  const v = await openViewer(browser());
  const k = kernel(1);
  await v.send(payloadMessage(payloadOf(inOut(k), { shape: [5, 5, 1, 64], axes: [2, 3], index: [0, 0, null, null], filters: filtersOf(k) })));
  assert.equal(await v.page.$eval('#tab-filters', (e) => e.getAttribute('aria-selected')), 'true', 'opens on Filters');
  assert.equal(await v.isHidden('#panel-filters'), false);
  assert.equal(await v.isHidden('#filter-in-label'), true, 'one input channel: no choice');
  const layout = JSON.parse(await v.page.$eval('#filters', (e) => /** @type {HTMLElement} */ (e).dataset.layout || ''));
  const scale = JSON.parse(await v.page.$eval('#filters', (e) => /** @type {HTMLElement} */ (e).dataset.scale || ''));
  assert.ok(layout.columns > 1 && layout.columns < 64, `${layout.columns} columns`);
  assert.ok(layout.k >= 3, `${layout.k} px a weight`);
  assert.equal(scale.kind, 'diverging');
  for (const [o, y, x] of [
    [0, 0, 0],
    [7, 1, 2],
    [63, 4, 4],
  ]) {
    const p = at(layout, o, y, x);
    const want = core.cellColour(scale, Math.fround(k[y][x][0][o]));
    const got = await v.pixel('filters', p.x, p.y);
    assert.ok(Math.max(...got.map((g, i) => Math.abs(g - want[i]))) <= 2, `filter ${o} [${y}, ${x}]: ${got} vs ${want}`);
  }
  const box = await v.page.$eval('#filters', (e) => e.getBoundingClientRect().toJSON());
  const p = at(layout, 7, 1, 2);
  await v.page.mouse.move(box.x + p.x, box.y + p.y);
  assert.equal(await v.text('#filters-hover'), `filter 7, [1, 2, 0, 7] = ${core.formatValue(Math.fround(k[1][2][0][7]), 0, 'float32')}`);
  assert.match(await v.text('#filters-info'), /64 filters of 5×5, input channel 0/);
  // The heatmap is still there, one click away.
  await v.page.click('#tab-heatmap');
  assert.equal(await v.isHidden('#panel-heatmap'), false);
  assert.deepEqual(v.pageErrors, []);
  await v.page.close();
});

test('an input channel is chosen from those sent; other values have no Filters tab', async () => {
  const v = await openViewer(browser());
  const k = kernel(3);
  await v.send(payloadMessage(payloadOf(inOut(k), { shape: [5, 5, 3, 64], axes: [2, 3], index: [0, 0, null, null], filters: filtersOf(k) })));
  assert.equal(await v.isHidden('#filter-in-label'), false);
  assert.equal(await v.page.$$eval('#filter-in option', (els) => els.length), 3);
  await v.page.select('#filter-in', '2');
  assert.match(await v.text('#filters-info'), /input channel 2/);
  const layout = JSON.parse(await v.page.$eval('#filters', (e) => /** @type {HTMLElement} */ (e).dataset.layout || ''));
  const scale = JSON.parse(await v.page.$eval('#filters', (e) => /** @type {HTMLElement} */ (e).dataset.scale || ''));
  assert.equal(layout.input, 2);
  const p = at(layout, 5, 3, 1);
  const want = core.cellColour(scale, Math.fround(k[3][1][2][5]));
  const got = await v.pixel('filters', p.x, p.y);
  assert.ok(Math.max(...got.map((g, i) => Math.abs(g - want[i]))) <= 2, `input 2, filter 5: ${got} vs ${want}`);

  await v.send(payloadMessage(payloadOf([[1, 2], [3, 4]]), { expression: 'y' }));
  assert.equal(await v.isHidden('#tab-filters'), true);
  assert.equal(await v.page.$eval('#tab-heatmap', (e) => e.getAttribute('aria-selected')), 'true');
  await v.page.close();
});

test('another value shown in the same page (View Tensor reusing an unpinned view) opens as in a new view', async () => {
  const v = await openViewer(browser());
  const selected = (/** @type {string} */ tab) => v.page.$eval(`#tab-${tab}`, (e) => e.getAttribute('aria-selected'));
  await v.send(payloadMessage(payloadOf([[1, 2], [3, 4]]), { expression: 'a' }));
  await v.page.click('#tab-table');
  // The same value again (a refresh) keeps the tab the user chose.
  await v.send(payloadMessage(payloadOf([[1, 2], [3, 5]]), { expression: 'a' }));
  assert.equal(await selected('table'), 'true');
  // Another value: the heatmap, as a new view opens.
  await v.send(payloadMessage(payloadOf([[5, 6], [7, 8]]), { expression: 'b' }));
  assert.equal(await selected('heatmap'), 'true');
  assert.equal(await v.text('#title'), 'b');
  // A conv kernel opens on its filters, every time another one comes, whatever the last showed.
  const k = kernel(1);
  const kernelPayload = payloadOf(inOut(k), { shape: [5, 5, 1, 64], axes: [2, 3], index: [0, 0, null, null], filters: filtersOf(k) });
  await v.send(payloadMessage(kernelPayload, { expression: 'conv1.kernel' }));
  assert.equal(await selected('filters'), 'true');
  await v.page.click('#tab-heatmap');
  await v.send(payloadMessage(kernelPayload, { expression: 'conv2.kernel' }));
  assert.equal(await selected('filters'), 'true', 'the second kernel on Filters too');
  assert.equal(await v.text('#title'), 'conv2.kernel');
  assert.deepEqual(v.pageErrors, []);
  await v.page.close();
});
