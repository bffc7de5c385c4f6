// @ts-check
'use strict';
/**
 * A picture of the viewer page with a realistic payload in VS Code's Dark Modern colours, to look
 * at by eye (not a test): `node test/browser/screenshot.js [out.png] [heatmap|histogram|image] [message.json]`.
 * The payload is an 8-head attention-logit tensor [8, 256, 256] downsampled 2x2, with a few NaNs,
 * or the `payload` message in message.json (e.g. one made with tf_debug_repr.viewer.payload.build).
 */
const fs = require('node:fs');
const { launch, openViewer } = require('./harness.js');
const { payloadOf, payloadMessage } = require('./fixtures.js');

/** VS Code Dark Modern's values of the variables the page reads. */
const DARK_MODERN = {
  '--vscode-foreground': '#cccccc',
  '--vscode-descriptionForeground': '#9d9d9d',
  '--vscode-editor-background': '#1f1f1f',
  '--vscode-sideBar-background': '#181818',
  '--vscode-panel-border': '#2b2b2b',
  '--vscode-charts-blue': '#3794ff',
  '--vscode-focusBorder': '#0078d4',
  '--vscode-font-family': 'system-ui, "Ubuntu", "Droid Sans", sans-serif',
  '--vscode-font-size': '13px',
  '--vscode-editor-font-family': '"Droid Sans Mono", "monospace", monospace',
  '--vscode-button-background': '#0078d4',
  '--vscode-button-foreground': '#ffffff',
  '--vscode-button-secondaryBackground': '#313131',
  '--vscode-button-secondaryForeground': '#cccccc',
  '--vscode-button-secondaryHoverBackground': '#3c3c3c',
  '--vscode-input-background': '#313131',
  '--vscode-input-foreground': '#cccccc',
  '--vscode-input-border': '#3c3c3c',
  '--vscode-badge-background': '#616161',
  '--vscode-badge-foreground': '#f8f8f8',
  '--vscode-editorHoverWidget-background': '#202020',
  '--vscode-editorHoverWidget-border': '#454545',
};

/** Attention logits of one head: a diagonal band, a few stripes, noise; mean over 2x2 blocks. */
function attentionPayload() {
  const n = 256;
  const step = 2;
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  /** @type {number[][]} */
  const grid = [];
  for (let i = 0; i < n / step; i++) {
    const row = [];
    for (let j = 0; j < n / step; j++) {
      const d = (i - j) / 6;
      const band = 3.2 * Math.exp(-d * d) + (j < i ? 0.4 : -1.1);
      const stripe = j % 32 === 0 ? 1.8 : 0;
      row.push(Math.round((band + stripe + 0.35 * rand() + 0.6 * Math.sin(i / 9)) * 1000) / 1000);
    }
    grid.push(row);
  }
  grid[40][90] = NaN;
  grid[41][90] = NaN;
  grid[100][12] = Infinity;
  const p = payloadOf(grid, { shape: [8, n, n], axes: [1, 2], index: [3, null, null], step: [step, step], rows: n, cols: n, bins: 48 });
  const st = p.stats;
  p.summary = `float32[8, 256, 256] CPU:0 n=524288 x∈[${st.min.toFixed(2)}, ${st.max.toFixed(2)}] μ=${st.mean.toFixed(3)} σ=${st.std.toFixed(2)} nan=14 +inf=2`;
  p.stats = { ...st, n: 524288, nan: 14, posinf: 2 };
  return p;
}

/** A batch of 16 grey 28x28 images (rings and bars), NHWC with one channel, as a 4x4 grid. */
function imagePayload() {
  const [count, columns, th, tw] = [16, 4, 28, 28];
  const gw = columns * tw;
  const gh = Math.ceil(count / columns) * th;
  const rgba = Buffer.alloc(gw * gh * 4);
  for (let k = 0; k < count; k++) {
    const ox = (k % columns) * tw;
    const oy = Math.floor(k / columns) * th;
    for (let y = 0; y < th; y++) {
      for (let x = 0; x < tw; x++) {
        const r = Math.hypot(x - 13.5, y - 13.5);
        const ring = Math.exp(-(((r - 4 - (k % 5) * 1.5) / 1.6) ** 2));
        const bar = k % 3 === 0 ? Math.exp(-(((x - y * (0.3 + k / 40) - 8) / 1.5) ** 2)) : 0;
        const g = Math.min(255, Math.round(255 * Math.max(ring, bar)));
        const o = ((oy + y) * gw + ox + x) * 4;
        rgba[o] = rgba[o + 1] = rgba[o + 2] = g;
        rgba[o + 3] = 255;
      }
    }
  }
  const image = { layout: 'NHWC', count, columns, tile: [th, tw], channels: 1, scale: 'unit', rgba: rgba.toString('base64') };
  const grid = Array.from({ length: th }, (_, y) => Array.from({ length: tw }, (_, x) => rgba[(y * gw + x) * 4] / 255));
  const p = payloadOf(grid, { shape: [count, th, tw, 1], axes: [1, 2], index: [0, null, null, 0], image, bins: 32 });
  p.summary = 'float32[16, 28, 28, 1] CPU:0 n=12544 x∈[0, 1] μ=0.21 σ=0.3';
  return p;
}

async function main() {
  const out = process.argv[2] || '/tmp/viewer-shot.png';
  const tab = process.argv[3] || 'heatmap';
  const browser = await launch();
  try {
    const v = await openViewer(browser, { viewport: { width: 1100, height: 820 }, theme: DARK_MODERN });
    const file = process.argv[4];
    if (file) {
      await v.send(JSON.parse(fs.readFileSync(file, 'utf8')));
      if (tab !== 'heatmap') await v.page.click(`#tab-${tab}`);
    } else if (tab === 'image') {
      await v.send(payloadMessage(imagePayload(), { expression: 'x_batch' }));
    } else {
      await v.send(payloadMessage(attentionPayload(), { expression: 'attn_logits', pinned: true }));
      if (tab !== 'heatmap') await v.page.click(`#tab-${tab}`);
    }
    if (tab === 'heatmap') {
      const box = await v.page.$eval('#heatmap', (e) => e.getBoundingClientRect().toJSON());
      await v.page.mouse.move(box.x + box.width * 0.55, box.y + box.height * 0.41);
    }
    await v.page.screenshot({ path: out });
    if (v.pageErrors.length) throw new Error(v.pageErrors.join('\n'));
    console.log(out);
  } finally {
    await browser.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
