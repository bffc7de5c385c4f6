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
      const text = `image ${tile}, pixel (${py % im.tile[0]}, ${px % im.tile[1]}): rgba(${rgba[o]}, ${rgba[o + 1]}, ${rgba[o + 2]}, ${rgba[o + 3]})`;
      showTooltip(text, e);
    };
    el.image.onmouseleave = hideTooltip;
  }

  return { render: renderImage };
})();
