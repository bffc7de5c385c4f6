// @ts-check
'use strict';
/**
 * The viewer page in a real headless Chromium (Debian's /usr/bin/chromium, driven by
 * puppeteer-core): the page is the HTML of src/viewer/html.js over the real media/viewer files,
 * loaded from file://. The one stand-in is the webview host: `acquireVsCodeApi`, injected before
 * the page's scripts, records what the page posts and what it keeps with setState. Every request
 * the page makes is recorded; anything but file:, data: and blob: is aborted.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const puppeteer = require('puppeteer-core');
const { viewerHtml } = require('../../src/viewer/html.js');

const EXT_ROOT = path.resolve(__dirname, '..', '..');
const MEDIA = path.join(EXT_ROOT, 'media', 'viewer');
const CHROMIUM = process.env.TFDR_CHROMIUM || '/usr/bin/chromium';
const NONCE = 'testNonce0123456789abcdef';
const CSP_SOURCE = 'file:';
/** Device pixel ratio of the test page (2 checks a HiDPI screen). */
const DPR = Number(process.env.TFDR_TEST_DPR || 1);
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Fails loudly (never skips) when the browser is missing: scripts/test.sh installs it. */
function requireChromium() {
  assert.ok(
    fs.existsSync(CHROMIUM),
    `${CHROMIUM} is missing: the viewer page is tested in a real Chromium. Install it (apt-get install -y chromium), as scripts/test.sh does.`,
  );
}

/** @returns {Promise<import('puppeteer-core').Browser>} */
async function launch() {
  requireChromium();
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfdr-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: false, // --headless is in the flags, as given; puppeteer adds no mode of its own
    args: [...CHROMIUM_FLAGS, `--user-data-dir=${userDataDir}`],
    defaultViewport: { width: 1000, height: 760, deviceScaleFactor: DPR },
  });
  browser.once('disconnected', () => {
    // Chromium may still be writing its profile as it exits: best effort, a temp folder.
    setTimeout(() => fs.rm(userDataDir, { recursive: true, force: true, maxRetries: 5 }, () => {}), 200);
  });
  return browser;
}

/** The page as the extension builds it, written to a temp folder. */
function writePage() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfdr-viewer-'));
  const html = viewerHtml({
    scriptUri: pathToFileURL(path.join(MEDIA, 'viewer.js')).href,
    styleUri: pathToFileURL(path.join(MEDIA, 'viewer.css')).href,
    cspSource: CSP_SOURCE,
    nonce: NONCE,
  });
  const file = path.join(dir, 'index.html');
  fs.writeFileSync(file, html);
  return { file, html, url: pathToFileURL(file).href };
}

/**
 * Opens the viewer page in a new tab.
 * @param {import('puppeteer-core').Browser} browser
 * @param {{ state?: any, viewport?: { width: number, height: number }, dpr?: number, theme?: Record<string, string> }} [opts]
 */
async function openViewer(browser, opts = {}) {
  const page = await browser.newPage();
  if (opts.viewport || opts.dpr) {
    await page.setViewport({ ...(opts.viewport ?? { width: 1000, height: 760 }), deviceScaleFactor: opts.dpr ?? DPR });
  }
  /** @type {string[]} */
  const requests = [];
  /** @type {string[]} */
  const blocked = [];
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    const url = req.url();
    requests.push(url);
    if (/^(file|data|blob):/.test(url)) req.continue();
    else {
      blocked.push(url);
      req.abort();
    }
  });
  /** @type {string[]} */
  const pageErrors = [];
  page.on('pageerror', (err) => pageErrors.push(String(err)));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  await page.evaluateOnNewDocument(
    (initialState, themeVars) => {
      const w = /** @type {any} */ (window);
      w.__posted = [];
      w.__state = initialState;
      w.__cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) => w.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
      let acquired = false;
      w.acquireVsCodeApi = () => {
        if (acquired) throw new Error('acquireVsCodeApi called twice');
        acquired = true;
        return {
          postMessage: (/** @type {any} */ m) => w.__posted.push(JSON.parse(JSON.stringify(m))),
          getState: () => w.__state,
          setState: (/** @type {any} */ s) => (w.__state = JSON.parse(JSON.stringify(s))),
        };
      };
      if (themeVars) {
        // What VS Code puts on <html> for a dark theme: the page must read these variables.
        document.addEventListener('DOMContentLoaded', () => {
          document.body.classList.add('vscode-dark');
          for (const [k, v] of Object.entries(themeVars)) document.documentElement.style.setProperty(k, v);
        });
      }
    },
    opts.state ?? undefined,
    opts.theme ?? null,
  );
  const { url, html } = writePage();
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => /** @type {any} */ (window).__posted.some((/** @type {any} */ m) => m.type === 'ready'));

  return {
    page,
    html,
    requests,
    blocked,
    pageErrors,
    /** Messages the page posted so far. @returns {Promise<any[]>} */
    posted: () => page.evaluate(() => /** @type {any} */ (window).__posted),
    /** What the page keeps with setState. */
    savedState: () => page.evaluate(() => /** @type {any} */ (window).__state),
    cspViolations: () => page.evaluate(() => /** @type {any} */ (window).__cspViolations),
    /** Sends a message as the extension does and waits until the page has handled it. @param {any} msg */
    send: (msg) =>
      page.evaluate(
        (m) =>
          new Promise((resolve) => {
            window.addEventListener('message', () => setTimeout(resolve, 0), { once: true });
            window.postMessage(m, '*');
          }),
        msg,
      ),
    /**
     * RGB of the canvas pixel at CSS (x, y).
     * @param {string} id @param {number} x @param {number} y @returns {Promise<number[]>}
     */
    pixel: (id, x, y) =>
      page.evaluate(
        (canvasId, px, py) => {
          const c = /** @type {HTMLCanvasElement} */ (document.getElementById(canvasId));
          const dpr = c.width / c.getBoundingClientRect().width;
          const d = /** @type {CanvasRenderingContext2D} */ (c.getContext('2d')).getImageData(Math.floor(px * dpr), Math.floor(py * dpr), 1, 1).data;
          return [d[0], d[1], d[2]];
        },
        id,
        x,
        y,
      ),
    /** Text of an element. @param {string} selector */
    text: (selector) => page.$eval(selector, (e) => /** @type {HTMLElement} */ (e).innerText),
    /** Whether an element is hidden (display none). @param {string} selector */
    isHidden: (selector) => page.$eval(selector, (e) => getComputedStyle(e).display === 'none'),
  };
}

/**
 * One headless Chromium for a test file: launched before its tests, closed after them.
 * @returns {() => import('puppeteer-core').Browser} the browser, once launched
 */
function browserForFile() {
  const { before, after } = require('node:test');
  /** @type {import('puppeteer-core').Browser | undefined} */
  let browser;
  before(async () => {
    browser = await launch();
  });
  after(async () => {
    if (browser) await browser.close();
  });
  return () => {
    if (!browser) throw new Error('the browser is not launched yet');
    return browser;
  };
}

module.exports = { launch, browserForFile, openViewer, writePage, requireChromium, CHROMIUM, CHROMIUM_FLAGS, NONCE, CSP_SOURCE };
