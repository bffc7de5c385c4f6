// @ts-check
'use strict';
/* exported TfImage */
/**
 * The image tab: the payload's RGBA grid of images, scaled by whole steps, tiles outlined.
 */
const TfImage = (() => {
  const core = /** @type {typeof import('../viewerCore')} */ (/** @type {any} */ (window).TfViewerCore);
  const { el, theme, sizeCanvas, showTooltip, hideTooltip, showMessage } = TfDom;
  const { cur } = TfState;

  function renderImage() {
    const im = cur.payload && cur.payload.image;
    if (!im) return;
    let rgba;
    try {
      rgba = core.decodeBase64(im.rgba || '');
    } catch (e) {
      showMessage(`The payload's image cannot be read: ${/** @type {Error} */ (e).message}`, 'error');
      return;
    }
    let values = null;
    try {
      values = im.values ? decodeFloats(im.values.data) : null;
    } catch {
      values = null; // the hover falls back to the pixel's light
    }
    const gw = im.columns * im.tile[1];
    const gh = Math.floor(rgba.length / 4 / Math.max(gw, 1));
    if (!gw || !gh) return;
    const off = document.createElement('canvas');
    off.width = gw;
    off.height = gh;
    const octx = /** @type {CanvasRenderingContext2D} */ (off.getContext('2d'));
    const data = octx.createImageData(gw, gh);
    data.data.set(rgba.subarray(0, gw * gh * 4));
    octx.putImageData(data, 0, 0);
    const figure = /** @type {HTMLElement} */ (el.image.parentElement);
    const availW = Math.max(figure.clientWidth - 8, 80);
    const availH = Math.max(window.innerHeight - figure.getBoundingClientRect().top - 60, 140);
    let k = Math.min(availW / gw, availH / gh);
    if (k >= 1) k = Math.min(Math.floor(k), 16);
    const w = gw * k;
    const h = gh * k;
    const ctx = sizeCanvas(el.image, w, h);
    ctx.imageSmoothingEnabled = k < 1;
    ctx.drawImage(off, 0, 0, gw, gh, 0, 0, w, h);
    if (im.count > 1) {
      ctx.strokeStyle = theme().bg;
      ctx.lineWidth = Math.max(1, Math.min(k, 2));
      ctx.beginPath();
      for (let c = 1; c < im.columns; c++) (ctx.moveTo(c * im.tile[1] * k, 0), ctx.lineTo(c * im.tile[1] * k, h));
      for (let r = 1; r * im.tile[0] < gh; r++) (ctx.moveTo(0, r * im.tile[0] * k), ctx.lineTo(w, r * im.tile[0] * k));
      ctx.stroke();
    }
    el.image.dataset.layout = JSON.stringify({ scale: k, width: gw, height: gh });
    const scaleText = { uint8: 'bytes as they are', pixels: 'values in [0, 255] as they are', unit: 'values in [0, 1] ×255', normalised: 'min–max normalised over the batch' };
    el.imageInfo.textContent = `${im.count} image${im.count > 1 ? 's' : ''} (${im.layout}, ${im.channels} channel${im.channels > 1 ? 's' : ''}, ${im.tile[0]}×${im.tile[1]}), ${/** @type {any} */ (scaleText)[im.scale] || im.scale}`;
    el.image.onmousemove = (e) => {
      const rect = el.image.getBoundingClientRect();
      const px = Math.floor((e.clientX - rect.left) / k);
      const py = Math.floor((e.clientY - rect.top) / k);
      if (px < 0 || py < 0 || px >= gw || py >= gh) return;
      const tile = Math.floor(py / im.tile[0]) * im.columns + Math.floor(px / im.tile[1]);
      if (tile >= im.count) return;
      const o = (py * gw + px) * 4;
      const ty = py % im.tile[0];
      const tx = px % im.tile[1];
      const text = values
        ? describeValue(im, values, tile, ty, tx)
        : `image ${tile}, pixel (${ty}, ${tx}): rgba(${rgba[o]}, ${rgba[o + 1]}, ${rgba[o + 2]}, ${rgba[o + 3]})`;
      el.imageHover.textContent = text;
      showTooltip(text, e);
    };
    el.image.onmouseleave = hideTooltip;
  }

  /** Little-endian float32s of base64 text. @param {string} text */
  function decodeFloats(text) {
    const bytes = core.decodeBase64(text);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const out = new Float32Array(Math.floor(bytes.length / 4));
    for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
    return out;
  }

  /**
   * What a pixel of tile `tile` at (ty, tx) stands for: its index in the value (a block's range
   * where the values come downsampled) and the value of each channel there.
   * @param {import('../protocol').Image} im @param {Float32Array} values @param {number} tile @param {number} ty @param {number} tx
   */
  function describeValue(im, values, tile, ty, tx) {
    const shape = (cur.payload && cur.payload.shape) || [];
    const [height, width] = im.layout.endsWith('CHW') ? shape.slice(-2) : shape.slice(-3, -1);
    const v = /** @type {import('../protocol').ImageValues} */ (im.values);
    const step = im.step || [1, 1];
    const vy = Math.min(Math.floor((ty * step[0]) / v.step[0]), v.tile[0] - 1);
    const vx = Math.min(Math.floor((tx * step[1]) / v.step[1]), v.tile[1] - 1);
    /** @param {number} i @param {number} s @param {number} n */
    const range = (i, s, n) => (s > 1 ? `${i * s}:${Math.min((i + 1) * s, n)}` : `${i}`);
    const y = range(vy, v.step[0], height);
    const x = range(vx, v.step[1], width);
    const at = { NHWC: `[${tile}, ${y}, ${x}, :]`, NCHW: `[${tile}, :, ${y}, ${x}]`, HWC: `[${y}, ${x}, :]`, CHW: `[:, ${y}, ${x}]` }[im.layout] || `[${y}, ${x}]`;
    const first = ((tile * v.tile[0] + vy) * v.tile[1] + vx) * im.channels;
    const dtype = (cur.payload && cur.payload.dtype) || 'float32';
    const mean = v.step[0] > 1 || v.step[1] > 1;
    const channels = Array.from(values.subarray(first, first + im.channels), (value) => core.formatValue(value, 0, dtype, mean));
    const shown = channels.length === 1 ? channels[0] : `(${channels.join(', ')})`;
    return `${at} = ${shown}${mean ? ` (mean of a ${v.step[0]}×${v.step[1]} block)` : ''}`;
  }

  return { render: renderImage };
})();
