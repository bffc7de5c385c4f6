// Drives code-server headless (Debian's chromium through playwright-core) and takes the README
// pictures. Started by ../make-screenshots.sh, which serves the workspace and passes the paths.
// Only keyboard and mouse input, as a user would: nothing in the page is changed or faked.
'use strict';
const { chromium } = require('playwright-core');
const fs = require('node:fs');
const path = require('node:path');

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith('--') ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
);
const { url, ws, raw, out, logs } = args;
const PROGRAM = 'train_digits.py';
const SCALE = Number(args.scale || 2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  fs.mkdirSync(raw, { recursive: true });
  fs.mkdirSync(out, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu'],
  });
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, deviceScaleFactor: SCALE });
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') fs.appendFileSync(path.join(logs, 'browser-console.log'), m.text() + '\n');
  });
  const ui = new Workbench(page);
  try {
    await ui.open(url);
    await ui.setBreakpoint(PROGRAM, '# breakpoint here');

    // 1. Stock debugpy: the workspace settings turn the bundled plugin off, and the Python has
    //    no tf-debug-repr of its own.
    writeSettings({ 'tfDebugRepr.bundledPlugin': false });
    await sleep(2000);
    await ui.startDebugging();
    await ui.layoutDebugSidebar();
    await ui.expand('per_class_accuracy');
    await ui.shotVariables('stock-debugpy-variables');
    await ui.stopDebugging();

    // 2-4. The same program with the plugin the .vsix bundles.
    writeSettings({ 'tfDebugRepr.bundledPlugin': true });
    await sleep(2000);
    await ui.startDebugging();
    await ui.expand('per_class_accuracy');
    await ui.shotVariables('tf-debug-repr-variables');
    await ui.collapse('per_class_accuracy');
    await ui.expand('kernel');
    await ui.expand('∇ gradient', 3);
    await ui.shotVariables('gradient-child', { name: '‖g‖ history', level: 4, extra: 3 });
    await ui.collapse('kernel');

    // 5-6. The tensor viewer, opened from the Variables pane's context menu.
    await ui.page.setViewportSize({ width: 1200, height: 820 });
    await ui.setPanel(false);
    await ui.viewTensor('confusion_rates');
    await ui.hoverHeatmap(0, { row: 1.5 / 10, col: 3.5 / 10 }); // a NaN row: class 1 is not in the batch
    await ui.shotEditor('viewer-heatmap', { keepHover: true });
    await ui.closeViewers();
    await ui.viewTensor('batch');
    await ui.viewerTab(0, 'image');
    await ui.shotEditor('viewer-image-batch');
    await ui.closeViewers();
    await ui.viewTensor('kernel');
    await ui.expand('kernel');
    await ui.viewTensor('∇ gradient', 3, 'View Tensor Beside');
    await ui.collapse('kernel');
    await ui.shotEditor('viewer-weight-and-gradient');
    await ui.closeViewers();

    await ui.debugConsole(['per_class_accuracy', 'kernel']);
    await ui.shotPanel('debug-console');
    await ui.stopDebugging();
  } catch (e) {
    await page.screenshot({ path: path.join(raw, 'failure.png') }).catch(() => {});
    throw e;
  } finally {
    await browser.close();
  }
}

function writeSettings(settings) {
  fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2) + '\n');
}

class Workbench {
  constructor(page) {
    this.page = page;
    this.n = 0;
  }

  async open(address) {
    await this.page.goto(address);
    await this.page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    await this.page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 90000 });
    await sleep(5000);
    await this.command('Notifications: Clear All Notifications');
  }

  async palette(text) {
    await this.page.keyboard.press('Escape');
    await this.page.keyboard.press('F1');
    await this.page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await this.page.keyboard.type(text, { delay: 10 });
    await sleep(800);
  }

  async command(text) {
    await this.palette(text);
    await this.page.keyboard.press('Enter');
    await sleep(800);
  }

  async setBreakpoint(file, marker) {
    const line = fs.readFileSync(path.join(ws, file), 'utf8').split('\n').findIndex((l) => l.includes(marker)) + 1;
    if (line === 0) throw new Error(`no "${marker}" in ${file}`);
    await this.page.keyboard.press('Control+P');
    await this.page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await this.page.keyboard.type(file, { delay: 10 });
    await sleep(1000);
    await this.page.keyboard.press('Enter');
    await sleep(2000);
    await this.page.keyboard.press('Control+G');
    await this.page.keyboard.type(String(line), { delay: 10 });
    await this.page.keyboard.press('Enter');
    await sleep(500);
    await this.page.keyboard.press('F9');
    await this.page.waitForSelector('.codicon-debug-breakpoint', { timeout: 10000 });
  }

  async startDebugging() {
    await this.page.locator('.part.editor .monaco-editor').first().click({ position: { x: 300, y: 200 } });
    await this.page.keyboard.press('F5');
    const stopped = this.page.locator('.debug-top-stack-frame-line');
    await stopped.first().waitFor({ state: 'attached', timeout: 180000 });
    await this.page.locator('.debug-variables .monaco-list-row').nth(1).waitFor({ timeout: 60000 });
    await sleep(3000);
    await this.command('Notifications: Clear All Notifications');
  }

  async stopDebugging() {
    await this.page.keyboard.press('Escape');
    await this.page.keyboard.press('Shift+F5');
    await this.page.locator('.debug-top-stack-frame-line').first().waitFor({ state: 'detached', timeout: 30000 });
    await sleep(3000);
  }

  /**
   * Only the Variables pane open (or every pane but those in `collapse`), the sidebar left at
   * VS Code's default width (what a new user has: 300 px at this viewport); the width is printed.
   */
  async layoutDebugSidebar(collapse = ['Watch', 'Call Stack', 'Breakpoints']) {
    for (const title of collapse) {
      const header = this.page.locator('.part.sidebar .pane-header').filter({ has: this.page.locator('h3.title', { hasText: new RegExp(`^${title}$`, 'i') }) });
      if ((await header.count()) && (await header.first().getAttribute('aria-expanded')) === 'true') await header.first().click();
    }
    await sleep(1500);
    const side = await this.page.locator('.part.sidebar').boundingBox();
    console.log(`sidebar: ${side.width} css px wide (viewport ${this.page.viewportSize().width} px)`);
  }

  /** A row of the Variables pane by its name, or by a RegExp its name element matches. */
  row(name, level = 2) {
    // the name element reads `name =` (or `name:` in older VS Code)
    const exact = name instanceof RegExp ? name : new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*[:=]?$`);
    return this.page
      .locator(`.debug-variables .monaco-list-row[aria-level="${level}"]`)
      .filter({ has: this.page.locator('.name', { hasText: exact }) })
      .first();
  }

  async expand(name, level = 2) {
    const row = this.row(name, level);
    await row.waitFor({ timeout: 30000 });
    if ((await row.getAttribute('aria-expanded')) !== 'true') await row.locator('.monaco-tl-twistie').click();
    await this.page.waitForFunction(
      (el) => el.getAttribute('aria-expanded') === 'true' && el.nextElementSibling !== null,
      await row.elementHandle(),
    );
    await sleep(2500); // the children's values arrive after the rows
  }

  async collapse(name, level = 2) {
    const row = this.row(name, level);
    if ((await row.getAttribute('aria-expanded')) === 'true') await row.locator('.monaco-tl-twistie').click();
    await sleep(800);
  }

  async setSidebar(visible) {
    if ((await this.page.locator('.part.sidebar').isVisible()) !== visible) {
      await this.command('View: Toggle Primary Side Bar Visibility');
      await sleep(1000);
    }
  }

  async setPanel(visible) {
    if ((await this.page.locator('.part.panel').isVisible()) !== visible) {
      await this.command(visible ? 'View: Toggle Panel Visibility' : 'View: Hide Panel');
      await sleep(1000);
    }
  }

  /** Right-click a row of the Variables pane, choose `item`, wait for the viewer to draw. */
  async viewTensor(name, level = 2, item = 'View Tensor') {
    await this.setSidebar(true);
    const before = await this.page.locator('iframe.webview').count();
    await this.row(name, level).click({ button: 'right' });
    const entry = this.page.locator('.context-view .monaco-menu .action-label', { hasText: new RegExp(`^${item}$`) });
    await entry.waitFor({ timeout: 10000 });
    await sleep(700); // a menu ignores a click that comes too soon after it opened
    await entry.hover();
    await entry.click();
    await this.page.waitForFunction((n) => document.querySelectorAll('iframe.webview').length > n, before, { timeout: 30000 });
    const page = this.viewer(before);
    await page.locator('#summary').filter({ hasText: /\S/ }).waitFor({ timeout: 60000 });
    await page.locator('#overlay').waitFor({ state: 'hidden', timeout: 60000 });
    await sleep(1500);
  }

  /** The page inside the n-th webview (VS Code nests it in two iframes). */
  viewer(n) {
    return this.page.frameLocator('iframe.webview').nth(n).frameLocator('#active-frame');
  }

  async viewerTab(n, tab) {
    const button = this.viewer(n).locator(`#tab-${tab}`);
    if ((await button.getAttribute('aria-selected')) !== 'true') await button.click();
    await sleep(1000);
  }

  /** Hover the heatmap at a fraction of its height and width (the page shows index and value). */
  async hoverHeatmap(n, at) {
    await this.editorOnly();
    const box = await this.viewer(n).locator('#heatmap').boundingBox();
    await this.page.mouse.move(box.x + box.width * at.col, box.y + box.height * at.row, { steps: 5 });
    await sleep(800);
  }

  async closeViewers() {
    await this.command('View: Close All Editors');
    await sleep(1000);
  }

  /** The editor area (its tabs and webviews), without the sidebar. */
  async editorOnly() {
    await this.setSidebar(false);
    await this.command('View: Reset Editor Group Sizes'); // side-by-side editors get half each
    await sleep(1500);
  }

  /** keepHover: the mouse stays where hoverHeatmap put it (after editorOnly). */
  async shotEditor(name, { keepHover = false } = {}) {
    if (!keepHover) {
      await this.editorOnly();
      // the bottom right corner, blank in the viewer: no hover in the picture
      await this.page.mouse.move(this.page.viewportSize().width - 20, this.page.viewportSize().height - 40);
      await sleep(1000);
    }
    await this.clip(name, await this.page.locator('.part.editor').boundingBox());
  }

  /** The Debug Console alone, as wide as a reader's screen. */
  async debugConsole(expressions) {
    await this.setSidebar(false);
    await this.page.setViewportSize({ width: 1100, height: 900 });
    await this.command('Debug: Focus on Debug Console View');
    await this.command('View: Toggle Maximized Panel');
    await this.command('Debug: Focus on Debug Console View');
    for (const e of expressions) {
      await this.page.keyboard.type(e, { delay: 10 });
      await sleep(500);
      await this.page.keyboard.press('Escape'); // close the suggestion widget
      await this.page.keyboard.press('Enter');
      await sleep(3000);
    }
  }

  async raw(name) {
    const file = path.join(raw, `${String(++this.n).padStart(2, '0')}-${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  async clip(name, box) {
    await this.raw(name);
    const file = path.join(out, `${name}.png`);
    const rounded = { x: Math.floor(box.x), y: Math.floor(box.y), width: Math.ceil(box.width), height: Math.ceil(box.height) };
    await this.page.screenshot({ path: file, clip: rounded });
    console.log('wrote', file, `${rounded.width}x${rounded.height} css px`);
  }

  /**
   * The sidebar, from its title down to just below the last row of the Variables pane, or to
   * `extra` rows below the row `until` = {name, level}.
   */
  async shotVariables(name, until) {
    await this.page.mouse.move(1500, 950); // no hover highlight in the picture
    await sleep(500);
    const side = await this.page.locator('.part.sidebar').boundingBox();
    // the Variables pane ends where the next (collapsed) pane's header starts
    const pane = await this.page.locator('.debug-variables').boundingBox();
    const headers = await this.page.locator('.part.sidebar .pane-header').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().top));
    const paneBottom = Math.min(pane.y + pane.height, ...headers.filter((top) => top > pane.y));
    // down to the last row shown whole (rows scrolled past the pane's bottom are cut off)
    const rows = await this.page.locator('.debug-variables .monaco-list-row').evaluateAll((els) =>
      els.map((e) => e.getBoundingClientRect().bottom),
    );
    let whole = rows.filter((b) => b <= paneBottom);
    if (until) {
      const last = await this.row(until.name, until.level).evaluate((e) => e.getBoundingClientRect().bottom);
      whole = whole.filter((b) => b <= last + 0.5).concat(whole.filter((b) => b > last + 0.5).sort((a, b) => a - b).slice(0, until.extra));
    }
    const lastBottom = Math.max(...whole);
    // a margin below the last row, unless another row follows (no sliver of it in the picture)
    const bottom = Math.min(rows.some((b) => b > lastBottom + 0.5) ? lastBottom : lastBottom + 8, paneBottom);
    await this.clip(name, { x: side.x, y: side.y, width: side.width, height: bottom - side.y });
  }

  /**
   * The sidebar and the editor area side by side (the panel hidden first), from their top down
   * to `bottom` css px, or to the editor area's bottom.
   */
  async shotSidebarAndEditor(name, bottom) {
    await this.setPanel(false);
    await this.page.mouse.move(this.page.viewportSize().width - 20, this.page.viewportSize().height - 40);
    await sleep(1000);
    const side = await this.page.locator('.part.sidebar').boundingBox();
    const editor = await this.page.locator('.part.editor').boundingBox();
    const top = Math.min(side.y, editor.y);
    const end = Math.min(bottom ?? editor.y + editor.height, editor.y + editor.height);
    await this.clip(name, { x: side.x, y: top, width: editor.x + editor.width - side.x, height: end - top });
  }

  /** The panel, down to just below the Debug Console's last answer. */
  async shotPanel(name) {
    await this.page.mouse.move(5, 5);
    await sleep(500);
    const panel = await this.page.locator('.part.panel').boundingBox();
    const rows = await this.page.locator('.part.panel .repl .monaco-list-row').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().bottom));
    const bottom = Math.min(Math.max(...rows) + 12, panel.y + panel.height);
    await this.clip(name, { x: panel.x, y: panel.y, width: panel.width, height: bottom - panel.y });
  }
}

/**
 * For the checks that reuse the Workbench (watch.js, persist.js, and the pictures of compiled.js,
 * history.js, inline.js): the command line's --name value pairs, a headless chromium page on it
 * (1400x900 at scale 1 unless `screen` says otherwise: the pictures use the README's 1600x1000 at
 * scale 2), and `shot(name)` into --raw as PREFIX-name.png.
 * @param {string} prefix @param {{ width: number, height: number, scale: number }} [screen]
 */
async function openCheck(prefix, screen = { width: 1400, height: 900, scale: 1 }) {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  for (const dir of [args.raw, args.out]) if (dir) fs.mkdirSync(dir, { recursive: true });
  const context = await browser.newContext({ viewport: { width: screen.width, height: screen.height }, deviceScaleFactor: screen.scale });
  const page = await context.newPage();
  const shot = (name) => page.screenshot({ path: path.join(args.raw, `${prefix}-${name}.png`) });
  return { args, browser, page, ui: new Workbench(page), shot };
}

/**
 * Runs a check: `body` gets what openCheck gives; on a failure a PREFIX-failure.png is taken and
 * the process exits with 1; the browser is closed either way.
 * @param {string} prefix @param {(c: Awaited<ReturnType<typeof openCheck>>) => Promise<void>} body
 * @param {Parameters<typeof openCheck>[1]} [screen]
 */
async function runCheck(prefix, body, screen) {
  const check = await openCheck(prefix, screen);
  try {
    await body(check);
  } catch (e) {
    await check.shot('failure').catch(() => {});
    console.error('FAILED', e);
    process.exitCode = 1;
  } finally {
    await check.browser.close();
  }
}

// watch.js and persist.js reuse the Workbench; run on its own, this makes the README pictures
if (require.main === module) {
  main().catch((e) => {
    console.error('FAILED', e);
    process.exit(1);
  });
}
/** The screen the README pictures are taken at (VS Code's default layout: a 300 px sidebar). */
const PICTURE_SCREEN = { width: 1600, height: 1000, scale: SCALE };
module.exports = { Workbench, writeSettings, sleep, openCheck, runCheck, PICTURE_SCREEN };
