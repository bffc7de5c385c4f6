// @ts-check
'use strict';
/**
 * The page in a narrow panel (a side group, ~270 px) in a real headless Chromium: a one-line title,
 * a summary of at most two lines (whole on hover), the toolbar in two rows, the heatmap above the
 * fold; nothing wider than the panel. A wide panel keeps the roomy layout.
 */
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { browserForFile, openViewer } = require('./harness.js');
const { payloadOf, payloadMessage } = require('./fixtures.js');

const browser = browserForFile();

const SUMMARY = 'float32[100, 12544] CPU:0 n=1,254,400 x∈[-0.0218, 0.0218] μ=-1.2e-05 σ=0.0126 NaN=0 zeros=0 sequential_1/dense/kernel:0 trainable';
const TITLE = 'generator.trainable_variables[0].kernel_gradient';

/** Opens a 3-D value (slice controls too) at this panel width and measures the page. @param {number} width */
async function measure(width) {
  const v = await openViewer(browser(), { viewport: { width, height: 700 } });
  const grid = Array.from({ length: 20 }, (_, r) => Array.from({ length: 30 }, (_, c) => Math.sin(r * c)));
  await v.send(payloadMessage(payloadOf(grid, { shape: [4, 20, 30], index: [2, null, null], axes: [1, 2], summary: SUMMARY }), { expression: TITLE }));
  const m = await v.page.evaluate(() => {
    const box = (/** @type {string} */ sel) => /** @type {Element} */ (document.querySelector(sel)).getBoundingClientRect();
    const lineHeight = (/** @type {string} */ sel) => parseFloat(getComputedStyle(/** @type {Element} */ (document.querySelector(sel))).lineHeight);
    return {
      titleLines: box('#title').height / lineHeight('#title'),
      summaryLines: box('#summary').height / lineHeight('#summary'),
      summaryTitle: /** @type {HTMLElement} */ (document.querySelector('#summary')).title,
      toolbar: box('.toolbar').height,
      tabHeight: box('#tab-heatmap').height,
      heatTop: box('#heatmap').top,
      heatBottom: box('#heatmap').bottom,
      scrollWidth: document.documentElement.scrollWidth,
    };
  });
  await v.page.close();
  return m;
}

test('in a 270 px side group the header is compact and the heatmap starts above the fold', async () => {
  const m = await measure(270);
  assert.ok(m.titleLines < 1.5, `title: ${m.titleLines} lines`);
  assert.ok(m.summaryLines < 2.5, `summary: ${m.summaryLines} lines`);
  assert.equal(m.summaryTitle, SUMMARY, 'the whole summary on hover');
  assert.ok(m.toolbar < 2.6 * m.tabHeight, `toolbar: ${m.toolbar} px, ${m.tabHeight} px a row`);
  assert.ok(m.heatTop < 300, `the heatmap starts at ${m.heatTop} px`);
  assert.ok(m.heatBottom < 700, 'and ends inside the window');
  assert.ok(m.scrollWidth <= 270, `nothing wider than the panel (${m.scrollWidth} px)`);
});

test('a wide panel keeps the whole summary and title', async () => {
  const m = await measure(1000);
  assert.ok(m.titleLines < 1.5);
  assert.ok(m.summaryLines < 1.5, 'the summary in full on one line');
  assert.ok(m.heatTop < 250);
});

test('the tabs follow the ARIA tabs pattern: one tab stop, arrows, Home and End', async () => {
  const v = await openViewer(browser());
  await v.send(payloadMessage(payloadOf([[1, 2], [3, 4]])));
  const selected = () => v.page.$$eval('[role=tab]', (els) => els.filter((e) => e.getAttribute('aria-selected') === 'true').map((e) => /** @type {HTMLElement} */ (e).dataset.tab));
  const focused = () => v.page.evaluate(() => /** @type {HTMLElement} */ (document.activeElement).dataset.tab);
  const stops = () => v.page.$$eval('[role=tab]', (els) => els.filter((e) => /** @type {HTMLElement} */ (e).tabIndex === 0).map((e) => /** @type {HTMLElement} */ (e).dataset.tab));
  assert.deepEqual(await stops(), ['heatmap']);
  assert.equal(await v.page.$eval('#tab-table', (e) => e.getAttribute('aria-controls')), 'panel-table');
  await v.page.focus('#tab-heatmap');
  await v.page.keyboard.press('ArrowRight');
  assert.deepEqual([await selected(), await focused()], [['table'], 'table']);
  assert.equal(await v.isHidden('#panel-table'), false);
  await v.page.keyboard.press('ArrowRight'); // Filters and Image are hidden for this value
  assert.deepEqual(await selected(), ['histogram']);
  await v.page.keyboard.press('ArrowRight');
  assert.deepEqual([await selected(), await focused()], [['heatmap'], 'heatmap'], 'wraps around');
  await v.page.keyboard.press('ArrowLeft');
  assert.deepEqual(await selected(), ['histogram']);
  await v.page.keyboard.press('Home');
  assert.deepEqual(await selected(), ['heatmap']);
  await v.page.keyboard.press('End');
  assert.deepEqual([await selected(), await stops()], [['histogram'], ['histogram']]);
  // Tab leaves the tab list at once.
  await v.page.keyboard.press('Tab');
  assert.equal(await v.page.evaluate(() => document.activeElement?.getAttribute('role')), null);
  await v.page.close();
});
