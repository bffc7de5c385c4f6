// @ts-check
'use strict';
/**
 * The viewer page (media/viewer/) in a real headless Chromium, driven only by the messages of
 * docs/tensor-viewer.md (section 3): colours read back from the canvas, hover texts, the messages
 * the page posts, its CSP and that it never reaches the network.
 */
const assert = require('node:assert/strict');
const { test, before, after } = require('node:test');
const core = require('../../media/viewer/viewerCore.js');
const { launch, openViewer, NONCE, CSP_SOURCE } = require('./harness.js');
const { PAGE_SCRIPTS } = require('../../src/viewer/html.js');
const { payloadOf, payloadMessage, matrixWithSpecials } = require('./fixtures.js');

/** @type {import('puppeteer-core').Browser} */
let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  if (browser) await browser.close();
});

/**
 * Colours match within a small tolerance (canvas colour conversions round).
 * @param {number[]} got @param {number[]} want @param {string} what
 */
function assertColour(got, want, what) {
  const off = Math.max(...got.map((g, i) => Math.abs(g - want[i])));
  assert.ok(off <= 2, `${what}: got rgb(${got}) want rgb(${want})`);
}

/** The heatmap layout the page drew (CSS px per cell, first cell shown). @param {any} v */
async function heatLayout(v) {
  return JSON.parse(await v.page.$eval('#heatmap', (/** @type {HTMLElement} */ e) => e.dataset.layout || 'null'));
}

/**
 * A point inside cell (row, col) of the heatmap, in canvas CSS pixels, away from the centre
 * where the cell's value is written.
 * @param {any} layout @param {number} row @param {number} col
 */
function inCell(layout, row, col) {
  return { x: (col - layout.c0 + 0.2) * layout.cellW, y: (row - layout.r0 + 0.2) * layout.cellH };
}

/** Colour of cell (row, col) on the page. @param {any} v @param {number} row @param {number} col */
async function cellColourOnPage(v, row, col) {
  const p = inCell(await heatLayout(v), row, col);
  return v.pixel('heatmap', p.x, p.y);
}

/** Moves the mouse over cell (row, col) and returns the hover line. @param {any} v @param {number} row @param {number} col */
async function hover(v, row, col) {
  const layout = await heatLayout(v);
  const box = await v.page.$eval('#heatmap', (/** @type {Element} */ e) => {
    const r = e.getBoundingClientRect();
    return { x: r.left, y: r.top };
  });
  const p = { x: (col - layout.c0 + 0.5) * layout.cellW, y: (row - layout.r0 + 0.5) * layout.cellH };
  await v.page.mouse.move(box.x + p.x, box.y + p.y);
  return v.text('#hover');
}

/** @param {any} v */
async function lastPosted(v) {
  const all = await v.posted();
  return all[all.length - 1];
}

test('the page carries the strict CSP, which is enforced, and it makes no network request', async () => {
  const v = await openViewer(browser);
  const csp = await v.page.$eval('meta[http-equiv="Content-Security-Policy"]', (e) => e.getAttribute('content'));
  assert.equal(csp, `default-src 'none'; img-src ${CSP_SOURCE} data: blob:; style-src ${CSP_SOURCE}; script-src 'nonce-${NONCE}'`);
  const scripts = await v.page.$$eval('script', (els) => els.map((e) => /** @type {HTMLScriptElement} */ (e).nonce && e.getAttribute('src')));
  assert.equal(scripts.length, PAGE_SCRIPTS.length);
  assert.ok(scripts.every((s) => typeof s === 'string' && s.startsWith('file:')), 'every script is a file with the nonce');

  await v.send(payloadMessage(matrixWithSpecials()));
  await v.page.click('#tab-histogram');
  await v.page.click('#tab-heatmap');
  assert.deepEqual(await v.cspViolations(), [], 'the page itself needs nothing the CSP forbids');
  assert.deepEqual(v.pageErrors, []);

  // The policy is in force: an inline script does not run, a fetch does not leave the page.
  const probe = await v.page.evaluate(async () => {
    const s = document.createElement('script');
    s.textContent = 'window.__inlineRan = true';
    document.head.append(s);
    let fetched = 'no error';
    try {
      await fetch('https://example.com/x');
    } catch (e) {
      fetched = String(e);
    }
    return { inlineRan: !!(/** @type {any} */ (window).__inlineRan), fetched };
  });
  assert.equal(probe.inlineRan, false);
  assert.match(probe.fetched, /TypeError/);
  // securitypolicyviolation events are queued as tasks: wait for both rather than race them.
  const seen = await v.page
    .waitForFunction(() => /** @type {any} */ (window).__cspViolations.length >= 2, { timeout: 10000 })
    .then(() => v.cspViolations())
    .catch(async () => v.cspViolations());
  assert.ok(
    seen.some((/** @type {string} */ s) => s.startsWith('script-src')) && seen.some((/** @type {string} */ s) => s.startsWith('connect-src')),
    `both blocked by the CSP (reports: ${JSON.stringify(seen)})`,
  );
  assert.deepEqual(v.blocked, [], 'no request left for the network');
  assert.ok(v.requests.length >= 4);
  for (const url of v.requests) assert.match(url, /^(file|data|blob):/);
  await v.page.close();
});

test('a sequential matrix: known cells in viridis, NaN/+Inf/-Inf in their own colours, a legend', async () => {
  const v = await openViewer(browser);
  await v.send(payloadMessage(matrixWithSpecials()));
  // The scale's ends are matplotlib viridis' first and last colours.
  assertColour(await cellColourOnPage(v, 0, 0), [0x44, 0x01, 0x54], 'the minimum (0)');
  assertColour(await cellColourOnPage(v, 3, 4), [0xfd, 0xe7, 0x25], 'the maximum (19)');
  const scale = { kind: /** @type {const} */ ('sequential'), lo: 0, hi: 19 };
  for (const [r, c, value] of [
    [0, 3, 3],
    [1, 2, 7],
    [2, 4, 14],
    [3, 1, 16],
  ]) {
    assertColour(await cellColourOnPage(v, r, c), core.cellColour(scale, value), `cell (${r}, ${c}) = ${value}`);
  }
  // Middle cells really differ from each other (a broken scale would paint them alike).
  assert.notDeepEqual(await cellColourOnPage(v, 1, 2), await cellColourOnPage(v, 2, 4));
  assertColour(await cellColourOnPage(v, 1, 1), [255, 0, 255], 'NaN');
  assertColour(await cellColourOnPage(v, 2, 2), [0, 255, 0], '+Inf');
  assertColour(await cellColourOnPage(v, 3, 3), [0, 255, 255], '-Inf');
  const legend = await v.text('#legend');
  assert.match(legend, /NaN: 1 in the value/);
  assert.match(legend, /\+Inf: 1/);
  assert.match(legend, /−Inf: 1/);
  assert.match(legend, /sequential/);
  // The legend's swatches are the cells' colours.
  const swatch = await v.page.$eval('.swatch-nan', (e) => getComputedStyle(e).backgroundColor);
  assert.equal(swatch, 'rgb(255, 0, 255)');
  // The colour bar runs from the maximum (top) to the minimum (bottom), with ticks.
  const bar = await v.page.$eval('#colourbar', (e) => ({ h: e.getBoundingClientRect().height }));
  assertColour(await v.pixel('colourbar', 8, 8), [0xfd, 0xe7, 0x25], 'colour bar top');
  assertColour(await v.pixel('colourbar', 8, bar.h - 9), [0x44, 0x01, 0x54], 'colour bar bottom');
  assert.deepEqual(JSON.parse(await v.page.$eval('#colourbar', (e) => /** @type {HTMLElement} */ (e).dataset.scale || '')), scale);
  await v.page.close();
});

test('on a HiDPI screen (device pixel ratio 2) cells keep their colours and the canvas its resolution', async () => {
  const v = await openViewer(browser, { dpr: 2 });
  await v.send(payloadMessage(matrixWithSpecials()));
  const size = await v.page.$eval('#heatmap', (e) => [/** @type {HTMLCanvasElement} */ (e).width, e.getBoundingClientRect().width]);
  assert.equal(size[0], 2 * size[1]);
  assertColour(await cellColourOnPage(v, 0, 0), [0x44, 0x01, 0x54], 'the minimum');
  assertColour(await cellColourOnPage(v, 3, 4), [0xfd, 0xe7, 0x25], 'the maximum');
  assertColour(await cellColourOnPage(v, 1, 1), [255, 0, 255], 'NaN');
  assert.equal(await hover(v, 2, 3), '[2, 3] = 13');
  await v.page.close();
});

test('signed data gets the diverging scale, symmetric around 0', async () => {
  const v = await openViewer(browser);
  await v.send(payloadMessage(payloadOf([
    [-1, 0, 4],
    [2, -0.5, 1],
  ])));
  assertColour(await cellColourOnPage(v, 0, 1), [0xf7, 0xf7, 0xf7], '0 is the centre colour');
  assertColour(await cellColourOnPage(v, 0, 2), [0xb2, 0x18, 0x2b], '+4, the largest magnitude, is the red end');
  // Symmetric: -1 sits at 3/8 of [-4, 4], not at the blue end where min-max scaling would put it.
  const scale = { kind: /** @type {const} */ ('diverging'), lo: -4, hi: 4 };
  assertColour(await cellColourOnPage(v, 0, 0), core.colourAt('diverging', 3 / 8), '-1');
  assertColour(await cellColourOnPage(v, 1, 0), core.cellColour(scale, 2), '2');
  const minus1 = await cellColourOnPage(v, 0, 0);
  assert.ok(minus1[2] > minus1[0], 'negative values are blue');
  assert.match(await v.text('#legend'), /diverging scale, 0 at the centre/);
  assert.match(await v.text('#colourbar').catch(() => ''), /^$/); // a canvas: its ticks are drawn
  assert.deepEqual(JSON.parse(await v.page.$eval('#colourbar', (e) => /** @type {HTMLElement} */ (e).dataset.scale || '')), scale);

  // The colour select overrides the choice; the choice is kept with setState.
  await v.page.select('#scale', 'sequential');
  assertColour(await cellColourOnPage(v, 0, 0), [0x44, 0x01, 0x54], 'sequential: the minimum');
  assert.equal((await v.savedState()).scale, 'sequential');
  await v.page.close();
});

test('a slice with more cells than pixels keeps its single NaN cell visible; a tall matrix is not a sliver', async () => {
  const v = await openViewer(browser);
  const rows = 4000;
  const grid = Array.from({ length: rows }, (_, r) => [r, r + 1, r + 2, r + 3]);
  grid[2345][2] = NaN;
  await v.send(payloadMessage(payloadOf(grid)));
  const layout = await heatLayout(v);
  assert.ok(layout.cellH < 0.5, `rows are thinner than a pixel (${layout.cellH})`);
  const found = await v.page.evaluate((x) => {
    const c = /** @type {HTMLCanvasElement} */ (document.getElementById('heatmap'));
    const dpr = c.width / c.getBoundingClientRect().width;
    const d = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d')).getImageData(Math.floor(x * dpr), 0, 1, c.height).data;
    const hits = [];
    for (let y = 0; y < c.height; y++) if (d[y * 4] === 255 && d[y * 4 + 1] === 0 && d[y * 4 + 2] === 255) hits.push(y);
    return { hits, height: c.height };
  }, 2.5 * layout.cellW);
  assert.ok(found.hits.length >= 1, 'the NaN cell is drawn');
  const where = found.hits[0] / found.height;
  assert.ok(Math.abs(where - 2345 / rows) < 0.01, `at its place (${where.toFixed(3)})`);
  assert.ok(layout.cols * layout.cellW >= 100, `four columns get some width (${layout.cols * layout.cellW}px)`);
  assert.match(await hover(v, 2345, 2), /^\[23\d\d, 2\] = /);
  await v.page.close();
});

test('hover shows the element index in the full tensor and its value, as the dtype writes it', async () => {
  const v = await openViewer(browser);
  await v.send(payloadMessage(matrixWithSpecials()));
  assert.equal(await hover(v, 2, 3), '[2, 3] = 13');
  assert.equal(await hover(v, 1, 1), '[1, 1] = nan');
  assert.equal(await hover(v, 3, 3), '[3, 3] = -inf');
  assert.equal(await v.text('#tooltip'), '[3, 3] = -inf');

  // A 3-D value shown on axes 1 and 2 at index 2 of axis 0.
  await v.send(payloadMessage(payloadOf([
    [0.5, 1.25],
    [2.5, -3.75],
  ], { shape: [3, 2, 2], axes: [1, 2], index: [2, null, null] })));
  assert.equal(await hover(v, 1, 1), '[2, 1, 1] = -3.75');
  // Axes in the other order (columns are axis 0): the index follows the axes.
  await v.send(payloadMessage(payloadOf([[7, 8, 9]], { shape: [3, 1, 5], axes: [1, 0], index: [null, null, 4] })));
  assert.equal(await hover(v, 0, 2), '[2, 0, 4] = 9');

  // A downsampled zoomed region: each cell the mean of a 2x2 block, offset by the region.
  await v.send(payloadMessage(payloadOf([
    [1, 2],
    [3, 4.5],
  ], { shape: [100, 200], rows: 100, cols: 200, region: [[10, 14], [20, 24]], step: [2, 2] })));
  assert.equal(await hover(v, 1, 0), '[12:14, 20:22] = 3 (mean of 2×2 block)');
  assert.equal(await hover(v, 1, 1), '[12:14, 22:24] = 4.5 (mean of 2×2 block)');

  // Integers exactly, bools as True/False, floats to float32's digits.
  await v.send(payloadMessage(payloadOf([[30000000, -7]], { dtype: 'int32' })));
  assert.equal(await hover(v, 0, 0), '[0, 0] = 30000000');
  await v.send(payloadMessage(payloadOf([[30000000, 0.1]])));
  assert.equal(await hover(v, 0, 0), '[0, 0] = 3e+7');
  assert.equal(await hover(v, 0, 1), '[0, 1] = 0.1');
  await v.send(payloadMessage(payloadOf([[1, 0, 1]], { dtype: 'bool', shape: [3] })));
  assert.equal(await hover(v, 0, 1), '[1] = False');
  assert.equal(await hover(v, 0, 2), '[2] = True');
  await v.page.close();
});

test('slice controls post the request for the new slice, show loading, and the answer changes the picture', async () => {
  const v = await openViewer(browser);
  const first = payloadOf([
    [0, 1, 2],
    [3, 4, 5],
  ], { shape: [4, 2, 3], axes: [1, 2], index: [0, null, null] });
  await v.send(payloadMessage(first));
  assert.equal(await v.isHidden('#slice-controls'), false);
  const extent = await v.page.$eval('input[type=number][data-axis="0"]', (/** @type {HTMLInputElement} */ e) => [e.min, e.max, e.value]);
  assert.deepEqual(extent, ['0', '3', '0']);
  assert.equal(await v.isHidden('#overlay'), true);
  const before = await cellColourOnPage(v, 0, 0);

  // The number input of axis 0.
  await v.page.$eval('input[type=number][data-axis="0"]', (/** @type {HTMLInputElement} */ e) => {
    e.value = '2';
    e.dispatchEvent(new Event('change'));
  });
  assert.deepEqual(await lastPosted(v), { type: 'request', axes: [1, 2], index: [2, null, null], region: null, part: null });
  assert.equal(await v.isHidden('#overlay'), false, 'loading shows at once');

  // The answer: index 2 of axis 0, other numbers; the picture changes and loading ends.
  await v.send(payloadMessage(payloadOf([
    [50, 1, 2],
    [3, 4, 5],
  ], { shape: [4, 2, 3], axes: [1, 2], index: [2, null, null] })));
  assert.equal(await v.isHidden('#overlay'), true);
  assert.notDeepEqual(await cellColourOnPage(v, 0, 0), before);
  assertColour(await cellColourOnPage(v, 0, 0), [0xfd, 0xe7, 0x25], '50 is now the maximum');
  assert.equal(await v.page.$eval('input[type=range][data-axis="0"]', (/** @type {HTMLInputElement} */ e) => e.value), '2');

  // The slider of axis 0.
  await v.page.$eval('input[type=range][data-axis="0"]', (/** @type {HTMLInputElement} */ e) => {
    e.value = '3';
    e.dispatchEvent(new Event('input'));
    e.dispatchEvent(new Event('change'));
  });
  assert.deepEqual(await lastPosted(v), { type: 'request', axes: [1, 2], index: [3, null, null], region: null, part: null });

  // The row axis select: axis 0 becomes the rows, axis 1 gets an index input.
  await v.page.select('select[data-role=row-axis]', '0');
  assert.deepEqual(await lastPosted(v), { type: 'request', axes: [0, 2], index: [null, 0, null], region: null, part: null });
  // The controls show what was asked at once: axis 1 now has an index input, at 0.
  assert.deepEqual(await v.page.$$eval('input[data-role=index]', (els) => els.map((e) => /** @type {HTMLInputElement} */ (e).dataset.axis)), ['1']);
  // Picking the row axis as columns swaps them; the index of axis 0 (3) is kept for later.
  await v.page.select('select[data-role=col-axis]', '0');
  assert.deepEqual(await lastPosted(v), { type: 'request', axes: [2, 0], index: [null, 0, null], region: null, part: null });
  await v.page.select('select[data-role=row-axis]', '1');
  assert.deepEqual(await lastPosted(v), { type: 'request', axes: [1, 0], index: [null, null, 0], region: null, part: null });

  // A 2-D value has the axis selects only; a complex one the part select.
  await v.send(payloadMessage(payloadOf([[1, 2]], { shape: [1, 2], part: 'abs' })));
  assert.equal(await v.page.$$eval('input[data-role=index]', (els) => els.length), 0);
  await v.page.select('select[data-role=part]', 'angle');
  assert.deepEqual(await lastPosted(v), { type: 'request', axes: [0, 1], index: [null, null], region: null, part: 'angle' });
  // A 1-D value has none.
  await v.send(payloadMessage(payloadOf([[1, 2, 3]], { shape: [3] })));
  assert.equal(await v.isHidden('#slice-controls'), true);
  await v.page.close();
});

test('the histogram: summary figures, bars, and the log toggle changes bar heights', async () => {
  const v = await openViewer(browser);
  const p = payloadOf([[0, 1, NaN]]);
  p.histogram = { edges: [0, 1, 2, 3, 4], counts: [1000, 10, 1, 0], sampled: false };
  p.stats = { n: 1011, min: 0, max: 4, mean: 0.5, std: 0.25, nan: 3, posinf: 2, neginf: 1, zeros: 990, sampled: false };
  await v.send(payloadMessage(p));
  await v.page.click('#tab-histogram');
  assert.equal(await v.isHidden('#panel-histogram'), false);
  assert.equal(await v.isHidden('#panel-heatmap'), true);
  /** @param {string} k */
  const stat = (k) => v.page.$eval(`dd[data-stat="${k}"]`, (e) => /** @type {HTMLElement} */ (e).innerText);
  assert.equal(await stat('n'), '1,011');
  assert.equal(await stat('mean'), '0.5');
  assert.equal(await stat('NaN'), '3');
  assert.equal(await stat('+Inf'), '2');
  assert.equal(await stat('−Inf'), '1');
  assert.equal(await stat('zeros'), '990');

  /** Height in px of bar i, counted from the axis up while pixels have the bar's colour. @param {number} i */
  const barHeight = (i) =>
    v.page.evaluate((bin) => {
      const c = /** @type {HTMLCanvasElement} */ (document.getElementById('histogram'));
      const plot = JSON.parse(c.dataset.plot || '{}');
      const dpr = c.width / c.getBoundingClientRect().width; // plot is in CSS px, pixels are device px
      const ctx = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d'));
      const x = Math.floor((plot.left + (bin + 0.5) * (plot.width / plot.bins)) * dpr);
      const bottom = Math.floor((plot.top + plot.height) * dpr) - 1;
      const colour = [...ctx.getImageData(x, bottom, 1, 1).data].slice(0, 3);
      const bar = getComputedStyle(document.body).getPropertyValue('--tv-bar').trim();
      let h = 0;
      for (let y = bottom; y >= plot.top * dpr; y--) {
        const d = ctx.getImageData(x, y, 1, 1).data;
        if (Math.abs(d[0] - colour[0]) + Math.abs(d[1] - colour[1]) + Math.abs(d[2] - colour[2]) > 30) break;
        h++;
      }
      return { h: h / dpr, colour, bar, plotH: plot.height };
    }, i);
  const lin0 = await barHeight(0);
  const lin1 = await barHeight(1);
  assert.deepEqual(lin0.colour, [0x37, 0x94, 0xff], 'bars in the theme colour (--vscode-charts-blue fallback)');
  assert.ok(Math.abs(lin0.h - lin0.plotH) <= 1, `the tallest bar fills the plot (${lin0.h} of ${lin0.plotH})`);
  assert.ok(lin1.h <= 3, `linear: 10 of 1000 is a sliver (${lin1.h}px)`);

  await v.page.click('#log');
  assert.equal((await v.savedState()).log, true);
  const log0 = await barHeight(0);
  const log1 = await barHeight(1);
  const log2 = await barHeight(2);
  assert.ok(Math.abs(log0.h - log0.plotH) <= 1);
  const want1 = (Math.log10(11) / Math.log10(1001)) * log0.plotH;
  const want2 = (Math.log10(2) / Math.log10(1001)) * log0.plotH;
  assert.ok(Math.abs(log1.h - want1) <= 2, `log: bar 1 is ${log1.h}px, want ${want1.toFixed(1)}`);
  assert.ok(Math.abs(log2.h - want2) <= 2, `log: bar 2 is ${log2.h}px, want ${want2.toFixed(1)}`);
  assert.ok(log1.h > lin1.h + 20);

  // Hovering a bar gives its range and count.
  const box = await v.page.$eval('#histogram', (/** @type {any} */ e) => {
    const r = e.getBoundingClientRect();
    return { x: r.left, y: r.top, plot: JSON.parse(e.dataset.plot || '{}') };
  });
  await v.page.mouse.move(box.x + box.plot.left + 1.5 * (box.plot.width / 4), box.y + box.plot.top + box.plot.height - 2);
  assert.equal(await v.text('#hist-hover'), '[1, 2): 10');
  await v.page.close();
});

test('pin, save, compare (with the slice shown) and refresh post their messages', async () => {
  const v = await openViewer(browser);
  const request = { axes: [0, 1], index: [null, null], region: [[0, 2], [0, 3]], part: null };
  await v.send(payloadMessage(matrixWithSpecials(), { request }));
  await v.page.click('#pin');
  assert.deepEqual(await lastPosted(v), { type: 'pin', pinned: true });
  assert.equal(await v.page.$eval('#pin', (e) => e.getAttribute('aria-pressed')), 'true');
  await v.page.click('#pin');
  assert.deepEqual(await lastPosted(v), { type: 'pin', pinned: false });
  await v.page.click('#save');
  assert.deepEqual(await lastPosted(v), { type: 'saveNpy' });
  await v.page.click('#compare');
  // Compare keeps the slice shown: the other value opens with this request.
  assert.deepEqual(await lastPosted(v), { type: 'compare', request });
  await v.page.click('#refresh');
  assert.deepEqual(await lastPosted(v), { type: 'request', ...request });
  // A payload says whether the view is pinned.
  await v.send(payloadMessage(matrixWithSpecials(), { pinned: true }));
  assert.equal(await v.page.$eval('#pin', (e) => e.getAttribute('aria-pressed')), 'true');
  await v.page.close();
});

test('the payload it already shows, sent again (at ready), is not decoded and drawn again; its pin and view are taken', async () => {
  const v = await openViewer(browser);
  // counts the heatmap's draws (the page draws its picture with drawImage)
  await v.page.evaluate(() => {
    const w = /** @type {any} */ (window);
    w.__draws = 0;
    const draw = CanvasRenderingContext2D.prototype.drawImage;
    CanvasRenderingContext2D.prototype.drawImage = function (/** @type {any[]} */ ...a) {
      if (this.canvas.id === 'heatmap') w.__draws++;
      return draw.apply(this, /** @type {any} */ (a));
    };
  });
  const draws = () => v.page.evaluate(() => /** @type {any} */ (window).__draws);
  const view = { expression: 'x', title: 'x', session: 'Python: train', sig: 'c2lnbmF0dXJl' };
  const first = { ...payloadMessage(matrixWithSpecials()), view, n: 1 };
  await v.send(first);
  const drawn = await draws();
  assert.ok(drawn >= 1, 'the first payload is drawn');
  // The same payload (n) again, now pinned: not drawn again, the pin and the kept view follow.
  await v.send({ ...first, pinned: true });
  assert.equal(await draws(), drawn);
  assert.equal(await v.page.$eval('#pin', (e) => e.getAttribute('aria-pressed')), 'true');
  assert.equal((await v.savedState()).view.pinned, true);
  assert.equal(await v.isHidden('#message'), true);
  // A loading state is not cleared by the copy (a new fetch is under way).
  await v.send({ type: 'loading', expression: 'x' });
  await v.send({ ...first, pinned: true });
  assert.equal(await v.isHidden('#overlay'), false, 'still loading');
  // The next payload (n + 1) is drawn, and so is one with no number (an older extension).
  await v.send({ ...first, n: 2 });
  assert.equal(await v.isHidden('#overlay'), true);
  const drawn2 = await draws();
  assert.ok(drawn2 > drawn, 'a new payload is drawn');
  const unnumbered = /** @type {any} */ ({ ...first });
  delete unnumbered.n;
  await v.send(unnumbered);
  assert.ok((await draws()) > drawn2, 'a payload without n is drawn');
  assert.equal(await v.page.$eval('#pin', (e) => e.getAttribute('aria-pressed')), 'false');
  assert.deepEqual(v.pageErrors, []);
  await v.page.close();
});

test('image mode draws the RGBA grid; the tabs switch between image and heatmap', async () => {
  const v = await openViewer(browser);
  // Two 2x2 RGB tiles side by side: a 4 x 2 grid of known pixels.
  const px = [
    [255, 0, 0], [0, 255, 0], [10, 20, 30], [40, 50, 60],
    [0, 0, 255], [255, 255, 255], [70, 80, 90], [200, 100, 0],
  ];
  const rgba = Buffer.from(px.flatMap((c) => [...c, 255])).toString('base64');
  const image = { layout: 'NHWC', count: 2, columns: 2, tile: [2, 2], channels: 3, scale: 'uint8', rgba };
  await v.send(payloadMessage(payloadOf([[1, 2, 3, 4], [5, 6, 7, 8]], { shape: [2, 2, 2, 3], image, axes: [1, 2], index: [0, null, null, 0] })));
  assert.equal(await v.isHidden('#tab-image'), false);
  assert.equal(await v.isHidden('#panel-image'), false, 'an image opens on its image tab');
  const layout = JSON.parse(await v.page.$eval('#image', (/** @type {any} */ e) => e.dataset.layout || ''));
  assert.equal(layout.width, 4);
  assert.equal(layout.height, 2);
  const k = layout.scale;
  assert.ok(k >= 8, `small images are scaled up (${k})`);
  for (let y = 0; y < 2; y++) {
    for (let x = 0; x < 4; x++) {
      assertColour(await v.pixel('image', (x + 0.3) * k, (y + 0.3) * k), px[y * 4 + x], `image pixel (${y}, ${x})`);
    }
  }
  assert.match(await v.text('#image-info'), /2 images \(NHWC, 3 channels, 2×2\)/);
  await v.page.click('#tab-heatmap');
  assert.equal(await v.isHidden('#panel-image'), true);
  assert.equal(await v.isHidden('#panel-heatmap'), false);
  assertColour(await cellColourOnPage(v, 1, 3), [0xfd, 0xe7, 0x25], 'heatmap of the same value');
  assert.equal((await v.savedState()).tab, 'heatmap');
  await v.page.click('#tab-image');
  assert.equal(await v.isHidden('#panel-image'), false);
  await v.page.close();
});

test('errors, loading and stale states are shown', async () => {
  const v = await openViewer(browser);
  assert.equal(await v.isHidden('#overlay'), false, 'loading until the first payload');
  assert.equal(await v.isHidden('#panel-heatmap'), true);
  const err = { version: 1, error: 'symbolic tensor: no values inside a tf.function trace (set TF_DEBUG_REPR_EAGER=1)', summary: 'float32[None, 4] (symbolic)', dtype: 'float32', shape: [] };
  await v.send(payloadMessage(err));
  assert.equal(await v.isHidden('#message'), false);
  assert.match(await v.text('#message'), /Cannot show this value[\s\S]*symbolic tensor: no values/);
  assert.equal(await v.isHidden('#panel-heatmap'), true);
  assert.match(await v.text('#summary'), /symbolic/);

  await v.send({ type: 'loading', expression: 'x' });
  assert.equal(await v.isHidden('#overlay'), false);
  await v.send({ type: 'error', expression: 'x', message: 'The debug session is not paused.' });
  assert.equal(await v.isHidden('#overlay'), true);
  assert.match(await v.text('#message'), /x: The debug session is not paused\./);

  await v.send(payloadMessage(matrixWithSpecials()));
  assert.equal(await v.isHidden('#message'), true);
  assert.equal(await v.isHidden('#panel-heatmap'), false);
  await v.send({ type: 'stale', reason: 'the session is running' });
  assert.equal(await v.isHidden('#banner'), false);
  assert.match(await v.text('#banner'), /Stale: the session is running/);
  const filter = await v.page.$eval('#panel-heatmap .figure', (e) => getComputedStyle(e).filter);
  assert.match(filter, /grayscale\(1\)/);
  await v.send({ type: 'stale', reason: 'running' }); // the extension's word for it
  assert.equal(await v.text('#banner'), 'Stale: the program is running; this is the value at the last stop.');
  // The picture stays, greyed; the next payload clears it.
  assertColour(await cellColourOnPage(v, 1, 1), [255, 0, 255], 'the canvas keeps its picture');
  await v.send(payloadMessage(matrixWithSpecials()));
  assert.equal(await v.isHidden('#banner'), true);
  assert.equal(await v.page.$eval('#panel-heatmap .figure', (e) => getComputedStyle(e).filter), 'none');

  // An empty value has nothing to draw, and says so; a 0-D value is one cell.
  const empty = payloadOf([[0]], { shape: [0, 5] });
  Object.assign(empty.slice, { height: 0, width: 5, rows: 0, cols: 5, region: [[0, 0], [0, 5]], values: '', mask: '' });
  await v.send(payloadMessage(empty));
  assert.equal(await v.text('#hover'), 'No elements to draw: shape [0, 5].');
  assert.deepEqual(v.pageErrors, []);
  await v.send(payloadMessage(payloadOf([[2.5]], { shape: [], axes: [null, null], index: [] })));
  assert.equal(await hover(v, 0, 0), '[] = 2.5');
  await v.page.close();
});

test('without a mouse: Tab focuses the heatmap, arrow keys move a cell cursor read out below, past a zoomed edge it pans', async () => {
  const v = await openViewer(browser);
  await v.send(payloadMessage(matrixWithSpecials()));
  assert.equal(await v.page.$eval('#hover', (e) => e.getAttribute('aria-live')), 'polite');
  await v.page.focus('#heatmap');
  assert.equal(await v.text('#hover'), '[0, 0] = 0');
  assert.equal(await v.page.$eval('#cell-highlight', (e) => /** @type {HTMLElement} */ (e).hidden), false);
  await v.page.keyboard.press('ArrowRight');
  await v.page.keyboard.press('ArrowRight');
  await v.page.keyboard.press('ArrowDown');
  assert.equal(await v.text('#hover'), '[1, 2] = 7');
  await v.page.keyboard.press('ArrowLeft');
  assert.equal(await v.text('#hover'), '[1, 1] = nan');
  await v.page.keyboard.down('Shift');
  await v.page.keyboard.press('ArrowRight'); // ten cells: stops at the last column
  await v.page.keyboard.up('Shift');
  assert.equal(await v.text('#hover'), '[1, 4] = 9');
  assert.deepEqual(await heatLayout(v).then((l) => [l.r0, l.c0, l.rows, l.cols]), [0, 0, 4, 5], 'the whole slice: no pan');
  await v.page.keyboard.press('Home');
  assert.equal(await v.text('#hover'), '[0, 0] = 0');

  // Zoomed to rows 1-2, columns 1-3: stepping down past the last row pans the view one row.
  await v.page.evaluate(() => /** @type {HTMLElement} */ (document.activeElement).blur());
  const origin = await v.page.$eval('#heatmap', (/** @type {Element} */ e) => {
    const r = e.getBoundingClientRect();
    return { x: r.left, y: r.top };
  });
  const layout = await heatLayout(v);
  const at = (/** @type {number} */ row, /** @type {number} */ col) => ({ x: origin.x + (col + 0.5) * layout.cellW, y: origin.y + (row + 0.5) * layout.cellH });
  await v.page.mouse.move(at(1, 1).x, at(1, 1).y);
  await v.page.mouse.down();
  await v.page.mouse.move(at(2, 3).x, at(2, 3).y, { steps: 4 });
  await v.page.mouse.up();
  assert.deepEqual(await heatLayout(v).then((l) => [l.r0, l.c0, l.rows, l.cols]), [1, 1, 2, 3]);
  await v.page.focus('#heatmap');
  assert.equal(await v.text('#hover'), '[1, 1] = nan', 'the cursor starts at the view\'s first cell');
  await v.page.keyboard.press('ArrowDown');
  await v.page.keyboard.press('ArrowDown');
  assert.equal(await v.text('#hover'), '[3, 1] = 16');
  assert.deepEqual(await heatLayout(v).then((l) => [l.r0, l.c0, l.rows, l.cols]), [2, 1, 2, 3], 'panned one row');
  assert.deepEqual(v.pageErrors, []);
  await v.page.close();
});

test('zoom: drag-select and wheel zoom client-side; a downsampled slice asks for the region; reset', async () => {
  const v = await openViewer(browser);
  await v.send(payloadMessage(matrixWithSpecials()));
  const origin = await v.page.$eval('#heatmap', (/** @type {Element} */ e) => {
    const r = e.getBoundingClientRect();
    return { x: r.left, y: r.top };
  });
  let layout = await heatLayout(v);
  /** @param {number} row @param {number} col */
  const at = (row, col) => ({ x: origin.x + (col + 0.5) * layout.cellW, y: origin.y + (row + 0.5) * layout.cellH });
  const postedBefore = (await v.posted()).length;
  await v.page.mouse.move(at(1, 1).x, at(1, 1).y);
  await v.page.mouse.down();
  await v.page.mouse.move(at(2, 3).x, at(2, 3).y, { steps: 4 });
  await v.page.mouse.up();
  layout = await heatLayout(v);
  assert.deepEqual([layout.r0, layout.c0, layout.rows, layout.cols], [1, 1, 2, 3]);
  assertColour(await cellColourOnPage(v, 1, 1), [255, 0, 255], 'the zoomed view starts at the NaN cell');
  assert.equal(await hover(v, 2, 3), '[2, 3] = 13');
  assert.equal((await v.posted()).length, postedBefore, 'full-resolution data is not fetched again');
  assert.deepEqual((await v.savedState()).zoom.view, { r0: 1, r1: 3, c0: 1, c1: 4 });
  // Shift+drag pans the zoomed view (one cell left, one up), kept inside the slice.
  await v.page.keyboard.down('Shift');
  await v.page.mouse.move(origin.x + 1.5 * layout.cellW, origin.y + 0.5 * layout.cellH);
  await v.page.mouse.down();
  await v.page.mouse.move(origin.x + 2.5 * layout.cellW, origin.y + 1.5 * layout.cellH, { steps: 4 });
  await v.page.mouse.up();
  await v.page.keyboard.up('Shift');
  let panned = await heatLayout(v);
  assert.deepEqual([panned.r0, panned.c0, panned.rows, panned.cols], [0, 0, 2, 3]);
  // Arrow keys pan too.
  await v.page.keyboard.press('ArrowRight');
  await v.page.keyboard.press('ArrowDown');
  panned = await heatLayout(v);
  assert.deepEqual([panned.r0, panned.c0, panned.rows, panned.cols], [1, 1, 2, 3]);
  assert.equal((await v.posted()).length, postedBefore, 'panning full-resolution data fetches nothing');
  await v.page.click('#reset-zoom');
  layout = await heatLayout(v);
  assert.deepEqual([layout.r0, layout.c0, layout.rows, layout.cols], [0, 0, 4, 5]);

  // Wheel up zooms in around the cursor.
  const mid = { x: origin.x + 2.5 * layout.cellW, y: origin.y + 2 * layout.cellH };
  await v.page.mouse.move(mid.x, mid.y);
  await v.page.mouse.wheel({ deltaY: -100 });
  await v.page.waitForFunction(() => JSON.parse(/** @type {HTMLElement} */ (document.getElementById('heatmap')).dataset.layout || '{}').cols < 5);
  layout = await heatLayout(v);
  assert.ok(layout.rows < 4 && layout.cols < 5, `zoomed in to ${layout.rows}x${layout.cols}`);

  // A downsampled slice (2x4 blocks): a drag asks for the region at full resolution.
  await v.send(payloadMessage(payloadOf([
    [1, 2, 3, 4],
    [5, 6, 7, 8],
    [9, 10, 11, 12],
  ], { shape: [6, 16], step: [2, 4] })));
  layout = await heatLayout(v);
  const o2 = await v.page.$eval('#heatmap', (/** @type {Element} */ e) => {
    const r = e.getBoundingClientRect();
    return { x: r.left, y: r.top };
  });
  await v.page.mouse.move(o2.x + 1.5 * layout.cellW, o2.y + 0.5 * layout.cellH);
  await v.page.mouse.down();
  await v.page.mouse.move(o2.x + 2.5 * layout.cellW, o2.y + 1.5 * layout.cellH, { steps: 4 });
  await v.page.mouse.up();
  await v.page.waitForFunction(() => /** @type {any} */ (window).__posted.at(-1).type === 'request');
  assert.deepEqual(await lastPosted(v), { type: 'request', axes: [0, 1], index: [null, null], region: [[0, 4], [4, 12]], part: null });
  assert.equal(await v.isHidden('#overlay'), false);
  // The answer is the region at full resolution; reset asks for the whole slice again.
  await v.send(payloadMessage(payloadOf([[1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8], [1, 2, 3, 4, 5, 6, 7, 8]], { shape: [6, 16], rows: 6, cols: 16, region: [[0, 4], [4, 12]] })));
  assert.equal(await hover(v, 3, 7), '[3, 11] = 8');
  assert.match(await v.text('#zoom-info'), /rows 0–4 and columns 4–12 of 6×16/);
  await v.page.click('#reset-zoom');
  assert.deepEqual(await lastPosted(v), { type: 'request', axes: [0, 1], index: [null, null], region: null, part: null });
  await v.page.close();
});

test('a page opened again comes back as it was: tab, log scale, colours, zoom (setState)', async () => {
  const first = await openViewer(browser);
  const msg = payloadMessage(matrixWithSpecials());
  await first.send(msg);
  await first.page.click('#tab-histogram');
  await first.page.click('#log');
  const state = await first.savedState();
  await first.page.close();
  assert.equal(state.tab, 'histogram');
  assert.equal(state.log, true);

  const again = await openViewer(browser, { state: { ...state, zoom: { ...state.zoom, view: { r0: 2, r1: 4, c0: 0, c1: 2 } } } });
  await again.send(msg);
  assert.equal(await again.isHidden('#panel-histogram'), false);
  assert.equal(await again.page.$eval('#log', (/** @type {any} */ e) => e.checked), true);
  await again.page.click('#tab-heatmap');
  const layout = await heatLayout(again);
  assert.deepEqual([layout.r0, layout.c0, layout.rows, layout.cols], [2, 0, 2, 2]);
  await again.page.close();
});

test('the page keeps what the extension needs to rebuild the view after a reload (never the payload), and shows it at once', async () => {
  const first = await openViewer(browser);
  const view = { expression: 'model.w', title: 'model.w', session: 'Python: train', sig: 'c2lnbmF0dXJl' };
  const request = { axes: [1, 0], index: [null, null], region: [[0, 2], [1, 4]], part: null };
  await first.send({ ...payloadMessage(matrixWithSpecials(), { expression: 'model.w', request }), view });
  let state = await first.savedState();
  assert.deepEqual(state.view, { ...view, request, pinned: false });
  assert.equal(state.tab, 'heatmap', 'the keys the page had keep working');
  assert.ok(!JSON.stringify(state).includes(matrixWithSpecials().slice?.values ?? '@@'), 'no payload data in the saved state');
  assert.ok(JSON.stringify(state).length < 1000, `small: ${JSON.stringify(state).length} characters`);
  await first.page.click('#pin');
  state = await first.savedState();
  assert.equal(state.view.pinned, true, 'pinning is kept at once');
  await first.page.click('#tab-histogram');
  state = await first.savedState();
  assert.equal(state.tab, 'histogram');
  assert.equal(state.view.pinned, true);
  await first.page.close();

  // The restored page: its title and pin before any message; then the extension's "waiting".
  const again = await openViewer(browser, { state });
  assert.equal(await again.text('#title'), 'model.w');
  assert.equal(await again.page.$eval('#pin', (e) => e.getAttribute('aria-pressed')), 'true');
  await again.send({ type: 'waiting', expression: 'model.w', title: 'model.w', pinned: true, request, view, message: 'Waiting for a paused debug session: "model.w" is evaluated at the next stop.' });
  assert.equal(await again.isHidden('#overlay'), true);
  assert.match(await again.text('#message'), /Note[\s\S]*Waiting for a paused debug session: "model.w" is evaluated at the next stop\./);
  assert.deepEqual((await again.savedState()).view, { ...view, request, pinned: true });
  // Refresh asks for the saved slice.
  await again.page.click('#refresh');
  assert.deepEqual((await again.posted()).at(-1), { type: 'request', ...request });
  // The value comes: drawn, on the tab kept.
  await again.send({ ...payloadMessage(matrixWithSpecials(), { expression: 'model.w', pinned: true }), view });
  assert.equal(await again.isHidden('#message'), true);
  assert.equal(await again.isHidden('#panel-histogram'), false);
  assert.deepEqual(again.pageErrors, []);
  await again.page.close();
});

test("a view's full picture after its first (the same slice, more cells) keeps the part zoomed to", async () => {
  const v = await openViewer(browser);
  const grid = (/** @type {number} */ n) => Array.from({ length: n }, (_, r) => Array.from({ length: n }, (_, c) => r * n + c));
  // First picture: 4x4 cells of an 8x8 value (2x2 blocks).
  await v.send({ ...payloadMessage(payloadOf(grid(4), { shape: [8, 8], step: [2, 2] })), n: 1 });
  const origin = await v.page.$eval('#heatmap', (/** @type {Element} */ e) => {
    const r = e.getBoundingClientRect();
    return { x: r.left, y: r.top };
  });
  let layout = await heatLayout(v);
  await v.page.mouse.move(origin.x + 1.5 * layout.cellW, origin.y + 1.5 * layout.cellH);
  await v.page.mouse.down();
  await v.page.mouse.move(origin.x + 2.5 * layout.cellW, origin.y + 2.5 * layout.cellH, { steps: 4 });
  await v.page.mouse.up();
  layout = await heatLayout(v);
  assert.deepEqual([layout.r0, layout.c0, layout.rows, layout.cols], [1, 1, 2, 2], 'zoomed on the first picture');
  // The full picture: 8x8 cells, the same slice; the zoom covers the same part of the value.
  await v.send({ ...payloadMessage(payloadOf(grid(8), { shape: [8, 8] })), n: 2 });
  layout = await heatLayout(v);
  assert.deepEqual([layout.r0, layout.c0, layout.rows, layout.cols], [2, 2, 4, 4]);
  // Another slice of the value (another region): its whole.
  await v.send({ ...payloadMessage(payloadOf(grid(2), { shape: [8, 8], region: [[0, 2], [0, 2]] })), n: 3 });
  layout = await heatLayout(v);
  assert.deepEqual([layout.r0, layout.c0, layout.rows, layout.cols], [0, 0, 2, 2]);
  assert.deepEqual(v.pageErrors, []);
  await v.page.close();
});
