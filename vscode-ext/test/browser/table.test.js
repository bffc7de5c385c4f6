// @ts-check
'use strict';
/**
 * The Table tab in a real headless Chromium: the slice's numbers a page at a time, labelled with
 * their indexes, in the chosen format, NaN/±Inf marked; a block dragged over and copied exactly
 * (as the message the extension writes to the clipboard); paging; a downsampled slice's means and
 * its "Exact values" request.
 */
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { browserForFile, openViewer } = require('./harness.js');
const { payloadOf, payloadMessage, matrixWithSpecials } = require('./fixtures.js');

const browser = browserForFile();

/** The table as text: header row, then rows (first cell the row index). @param {any} v */
function tableCells(v) {
  return v.page.$$eval('#table tr', (/** @type {HTMLTableRowElement[]} */ rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
}

/** Classes of the data cell at slice (row, col). @param {any} v @param {number} r @param {number} c */
function cellClass(v, r, c) {
  return v.page.$eval(`#table td[data-r="${r}"][data-c="${c}"]`, (/** @type {HTMLElement} */ e) => e.className);
}

test('the Table lists the slice with its indexes, NaN/±Inf marked, in the chosen number format', async () => {
  const v = await openViewer(browser());
  await v.send(payloadMessage(matrixWithSpecials()));
  await v.page.click('#tab-table');
  assert.equal(await v.isHidden('#panel-table'), false);
  assert.equal(await v.page.$eval('#tab-table', (e) => e.getAttribute('aria-selected')), 'true');
  const rows = await tableCells(v);
  assert.deepEqual(rows[0], ['', '0', '1', '2', '3', '4']);
  assert.deepEqual(rows[1], ['0', '0', '1', '2', '3', '4']);
  assert.deepEqual(rows[2], ['1', '5', 'nan', '7', '8', '9']);
  assert.deepEqual(rows[3], ['2', '10', '11', '+inf', '13', '14']);
  assert.deepEqual(rows[4], ['3', '15', '16', '17', '-inf', '19']);
  assert.match(await cellClass(v, 1, 1), /cell-nan/);
  assert.match(await cellClass(v, 2, 2), /cell-posinf/);
  assert.match(await cellClass(v, 3, 3), /cell-neginf/);
  assert.equal(await cellClass(v, 0, 1), '');
  // NaN is drawn in the colour the heatmap gives it.
  const nanColour = await v.page.$eval('#table td.cell-nan', (e) => getComputedStyle(e).color);
  assert.equal(nanColour, 'rgb(255, 0, 255)');

  await v.page.select('#table-format', 'sci');
  assert.deepEqual((await tableCells(v))[2].slice(0, 3), ['1', '5e+0', 'nan']);
  await v.page.select('#table-format', 'fixed');
  assert.deepEqual((await tableCells(v))[2].slice(0, 3), ['1', '5.0000', 'nan']);
  assert.equal((await v.savedState()).tableFormat, 'fixed', 'the format is kept');
  assert.match(await v.text('#table-info'), /rows 0–3 of 4, columns 0–4 of 5/);
  assert.deepEqual(v.pageErrors, []);
  await v.page.close();
});

test('a block dragged over is copied exactly as text or CSV; without one, the page', async () => {
  const v = await openViewer(browser());
  const grid = [
    [0.1, 1 / 3, 2],
    [NaN, -1e-8, Infinity],
  ];
  await v.send(payloadMessage(payloadOf(grid)));
  await v.page.click('#tab-table');
  const centre = async (/** @type {number} */ r, /** @type {number} */ c) => {
    const box = await (await v.page.$(`#table td[data-r="${r}"][data-c="${c}"]`))?.boundingBox();
    assert.ok(box);
    return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  };
  const from = await centre(0, 1);
  const to = await centre(1, 2);
  await v.page.mouse.move(from.x, from.y);
  await v.page.mouse.down();
  await v.page.mouse.move(to.x, to.y, { steps: 4 });
  await v.page.mouse.up();
  assert.equal(await v.page.$$eval('#table td.sel', (els) => els.length), 4);
  await v.page.click('#copy-csv');
  let copied = (await v.posted()).filter((m) => m.type === 'copy');
  // float32 values with the fewest digits that read back as the same float32
  assert.deepEqual(copied.at(-1), { type: 'copy', text: '0.33333334,2\n-1e-8,inf\n', format: 'csv' });
  await v.page.click('#copy-tsv');
  copied = (await v.posted()).filter((m) => m.type === 'copy');
  assert.equal(copied.at(-1).text, '0.33333334\t2\n-1e-8\tinf\n');
  assert.match(await v.text('#table-note'), /Copied 2×2 values/);

  // A new payload (the value refreshed at a stop) drops the selection: Copy takes the page.
  await v.send(payloadMessage(payloadOf([[1, 2]], { shape: [1, 2] })));
  await v.page.click('#copy-tsv');
  copied = (await v.posted()).filter((m) => m.type === 'copy');
  assert.equal(copied.at(-1).text, '1\t2\n');
  assert.deepEqual(v.pageErrors, []);
  await v.page.close();
});

test('pages turn by rows and by columns, labelled with the value indexes', async () => {
  const v = await openViewer(browser(), { viewport: { width: 900, height: 760 } });
  const grid = Array.from({ length: 100 }, (_, r) => Array.from({ length: 50 }, (_, c) => r * 1000 + c));
  await v.send(payloadMessage(payloadOf(grid)));
  await v.page.click('#tab-table');
  let rows = await tableCells(v);
  const cols = rows[0].length - 1;
  assert.ok(cols >= 3 && cols < 50, `${cols} columns on a page`);
  assert.equal(rows.length - 1, 40, 'forty rows a page');
  assert.equal(await v.page.$eval('#table-up', (e) => /** @type {HTMLButtonElement} */ (e).disabled), true);
  await v.page.click('#table-down');
  rows = await tableCells(v);
  assert.equal(rows[1][0], '40');
  assert.equal(rows[1][1], '40000');
  await v.page.click('#table-right');
  rows = await tableCells(v);
  assert.equal(rows[0][1], String(cols));
  assert.equal(rows[1][1], String(40000 + cols));
  await v.page.click('#table-down');
  await v.page.click('#table-down');
  rows = await tableCells(v);
  assert.equal(rows.at(-1)?.[0], '99', 'the last page ends at the last row');
  assert.equal(await v.page.$eval('#table-down', (e) => /** @type {HTMLButtonElement} */ (e).disabled), true);
  assert.match(await v.text('#table-info'), /rows 80–99 of 100/);
  await v.page.close();
});

test("a downsampled slice lists block means, and 'Exact values' asks for the page's region", async () => {
  const v = await openViewer(browser());
  const grid = [
    [1, 2, 3],
    [4, 5, 6],
  ];
  await v.send(payloadMessage(payloadOf(grid, { shape: [4, 6], step: [2, 2] })));
  await v.page.click('#tab-table');
  const rows = await tableCells(v);
  assert.deepEqual(rows[0], ['', '0:2', '2:4', '4:6']);
  assert.deepEqual(rows[2][0], '2:4');
  assert.match(await v.text('#table-note'), /mean of a 2×2 block/);
  assert.equal(await v.isHidden('#table-exact'), false);
  await v.page.click('#table-exact');
  const request = (await v.posted()).filter((m) => m.type === 'request').at(-1);
  assert.deepEqual(request.region, [
    [0, 4],
    [0, 6],
  ]);
  await v.page.close();
});
