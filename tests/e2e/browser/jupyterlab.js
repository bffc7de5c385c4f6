// @ts-check
'use strict';
/**
 * Drives a real JupyterLab in Debian's headless Chromium (puppeteer-core from vscode-ext's
 * node_modules): opens NOTEBOOK, runs all its cells, opens the Variable Inspector and prints
 * what it lists as JSON on stdout. With SHOTS set, writes screenshots of the Inspector, the
 * %tf_table output and a tensor's cell output there, in the light and dark themes.
 * Started by tests/e2e/test_jupyterlab_browser.py, which starts the server.
 *
 *   LAB_URL=http://127.0.0.1:8888 LAB_TOKEN=... NOTEBOOK=train.ipynb [SHOTS=dir] node jupyterlab.js
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const EXT = path.resolve(__dirname, '..', '..', '..', 'vscode-ext');
const puppeteer = require(path.join(EXT, 'node_modules', 'puppeteer-core'));
const CHROMIUM = process.env.TFDR_CHROMIUM || '/usr/bin/chromium';
const { LAB_URL, LAB_TOKEN, NOTEBOOK, SHOTS } = process.env;
const WAIT = { timeout: 90_000, polling: 250 };

async function main() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tfdr-lab-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: false, // --headless is in the flags
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--user-data-dir=${profile}`],
    defaultViewport: { width: 1400, height: 1000, deviceScaleFactor: 1 },
  });
  try {
    const page = await browser.newPage();
    await page.goto(`${LAB_URL}/lab/tree/${NOTEBOOK}?token=${LAB_TOKEN}`, { waitUntil: 'load' });
    // The notebook open, its kernel started and idle.
    await page.waitForFunction(() => {
      // @ts-ignore
      const app = window.jupyterapp;
      const panel = app && app.shell.currentWidget;
      const kernel = panel && panel.sessionContext && panel.sessionContext.session
        && panel.sessionContext.session.kernel;
      return kernel && kernel.status === 'idle';
    }, WAIT);
    await page.evaluate(() => {
      // @ts-ignore
      const app = window.jupyterapp;
      // @ts-ignore
      window.tfdrNotebook = app.shell.currentWidget.id;
      return app.commands.execute('notebook:run-all-cells');
    });
    await page.waitForFunction(() => {
      // @ts-ignore
      const panel = window.jupyterapp.shell.currentWidget;
      const cells = panel.content.widgets.filter((c) => c.model.type === 'code');
      return panel.sessionContext.session.kernel.status === 'idle'
        && cells.every((c) => c.model.executionCount !== null);
    }, WAIT);
    const errors = await page.evaluate(() => [...document.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"], .jp-RenderedText[data-mime-type="application/vnd.jupyter.error"]')].map((e) => e.textContent));
    const shots = [];
    for (const theme of ['JupyterLab Light', 'JupyterLab Dark']) {
      await page.evaluate((t) => {
        // @ts-ignore
        const app = window.jupyterapp;
        // @ts-ignore
        app.shell.activateById(window.tfdrNotebook);
        return app.commands.execute('apputils:change-theme', { theme: t });
      }, theme);
      await page.waitForFunction((t) => document.body.dataset.jpThemeName === t, WAIT, theme);
      await new Promise((r) => setTimeout(r, 1500)); // the theme's CSS applied
      const suffix = theme.endsWith('Dark') ? 'dark' : 'light';
      if (SHOTS) {
        for (const [name, marker] of [['cell-output', 'Variable'], ['tf-table', 'gradient']]) {
          const handle = await page.evaluateHandle((m) => {
            const outputs = [...document.querySelectorAll('.jp-OutputArea-output')];
            const hit = outputs.find((o) => o.querySelector('table') && o.textContent.includes(m));
            if (hit) hit.scrollIntoView();
            return hit ? hit.closest('.jp-Cell') : null;
          }, marker);
          const element = handle.asElement();
          if (element) {
            const file = path.join(SHOTS, `jupyter-${name}-${suffix}.png`);
            // @ts-ignore
            await element.screenshot({ path: file });
            shots.push(file);
          }
        }
      }
      await page.evaluate(() => {
        // @ts-ignore
        return window.jupyterapp.commands.execute('variableinspector:open');
      });
      await page.waitForFunction(() => [...document.querySelectorAll('#jp-variableinspector .jp-VarInspector-table-row')]
        .some((r) => r.textContent.includes('EagerTensor')), WAIT);
      await new Promise((r) => setTimeout(r, 1000));
      if (SHOTS) {
        const panel = await page.$('#jp-variableinspector');
        const file = path.join(SHOTS, `jupyter-inspector-${suffix}.png`);
        // @ts-ignore
        await panel.screenshot({ path: file });
        shots.push(file);
      }
    }
    const rows = await page.evaluate(() => [...document.querySelectorAll('#jp-variableinspector .jp-VarInspector-table-row')]
      .map((r) => [...r.querySelectorAll('jp-data-grid-cell')].map((c) => c.textContent.trim())));
    const outputs = await page.evaluate(() => [...document.querySelectorAll('.jp-OutputArea-output')].map((o) => ({
      mime: o.getAttribute('data-mime-type'),
      text: o.textContent.slice(0, 2000),
      images: o.querySelectorAll('img').length,
    })));
    process.stdout.write(JSON.stringify({ rows, outputs, errors, shots }));
  } finally {
    await browser.close();
    fs.rm(profile, { recursive: true, force: true, maxRetries: 5 }, () => {});
  }
}

main().catch((err) => {
  process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
