// @ts-check
'use strict';
/**
 * Image mode's hover in a real headless Chromium: a pixel reads the tensor's values there (each
 * channel, its index in the value), not the colour it is drawn in; where the values come at a
 * coarser step than the light, the block it lies in and its mean.
 */
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { browserForFile, openViewer } = require('./harness.js');
const { payloadOf, payloadMessage } = require('./fixtures.js');

const browser = browserForFile();

/** base64 of little-endian float32s. @param {number[]} values */
function floats(values) {
  const b = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => b.writeFloatLE(v, i * 4));
  return b.toString('base64');
}

/** Moves the mouse to pixel (y, x) of the image grid and returns the hover line. @param {any} v @param {number} y @param {number} x */
async function hoverPixel(v, y, x) {
  const layout = JSON.parse(await v.page.$eval('#image', (/** @type {HTMLElement} */ e) => e.dataset.layout || ''));
  const box = await v.page.$eval('#image', (/** @type {Element} */ e) => e.getBoundingClientRect().toJSON());
  await v.page.mouse.move(box.x + (x + 0.5) * layout.scale, box.y + (y + 0.5) * layout.scale);
  return v.text('#image-hover');
}

test("hovering an image reads the tensor's values there, with their index", async () => {
  const v = await openViewer(browser());
  // Two 2x2 RGB images (NHWC [2, 2, 2, 3]); the light is unrelated to the values on purpose.
  const rgba = Buffer.from(Array.from({ length: 8 }, () => [128, 128, 128, 255]).flat()).toString('base64');
  const values = Array.from({ length: 2 * 2 * 2 * 3 }, (_, i) => i / 8 - 1); // [n, y, x, c] row-major
  const image = { layout: 'NHWC', count: 2, columns: 2, tile: [2, 2], channels: 3, scale: 'normalised', rgba, step: [1, 1], values: { tile: [2, 2], step: [1, 1], data: floats(values) } };
  await v.send(payloadMessage(payloadOf([[1, 2], [3, 4]], { shape: [2, 2, 2, 3], image, axes: [1, 2], index: [0, null, null, 0] })));
  // image 1 is the right tile: grid pixel (1, 2) is its (1, 0)
  const first = ((1 * 2 + 1) * 2 + 0) * 3;
  assert.equal(await hoverPixel(v, 1, 2), `[1, 1, 0, :] = (${values.slice(first, first + 3).join(', ')})`);
  assert.doesNotMatch(await v.text('#image-hover'), /rgba/);
  assert.equal(await hoverPixel(v, 0, 0), '[0, 0, 0, :] = (-1, -0.875, -0.75)');
  await v.page.close();
});

test('values sent at a coarser step than the light read as the mean of their block', async () => {
  const v = await openViewer(browser());
  // One 4x4 grey image (HWC [4, 4, 1]), values as 2x2 block means
  const rgba = Buffer.from(Array.from({ length: 16 }, () => [50, 50, 50, 255]).flat()).toString('base64');
  const image = { layout: 'HWC', count: 1, columns: 1, tile: [4, 4], channels: 1, scale: 'unit', rgba, step: [1, 1], values: { tile: [2, 2], step: [2, 2], data: floats([0.25, 0.5, 0.75, NaN]) } };
  await v.send(payloadMessage(payloadOf([[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]], { shape: [4, 4, 1], image, axes: [0, 1], index: [null, null, 0] })));
  assert.equal(await hoverPixel(v, 3, 1), '[2:4, 0:2, :] = 0.75 (mean of a 2×2 block)');
  assert.equal(await hoverPixel(v, 2, 3), '[2:4, 2:4, :] = nan (mean of a 2×2 block)');
  await v.page.close();
});

test('an image payload without values (an older plugin) still says the light', async () => {
  const v = await openViewer(browser());
  const rgba = Buffer.from([10, 20, 30, 255, 40, 50, 60, 255, 70, 80, 90, 255, 1, 2, 3, 255]).toString('base64');
  const image = { layout: 'HWC', count: 1, columns: 1, tile: [2, 2], channels: 3, scale: 'uint8', rgba };
  await v.send(payloadMessage(payloadOf([[1, 2], [3, 4]], { shape: [2, 2, 3], image, axes: [0, 1], index: [null, null, 0] })));
  assert.equal(await hoverPixel(v, 1, 0), 'image 0, pixel (1, 0): rgba(70, 80, 90, 255)');
  await v.page.close();
});
