// Times "View Tensor" as a user meets it, in a real code-server: from the release of the mouse
// on the context menu's "View Tensor" to the heatmap painted in the webview, n times for
// each value of workspace/view_open.py (a small tensor, a 10^6-element weight, a wide Dense
// kernel) and each way a view opens: `new` (no view open: a new webview), `again` (the same
// value, its view open) and `other` (another value while an unpinned view is open: the extension
// shows it in that page, tfDebugRepr.viewer.reuseView). One view at a time (closed after each
// value's three opens). The first picture comes from a smaller payload; `full` is when the last
// payload message (the full picture, where the first was reduced) reached the page. Started by
// `make-screenshots.sh viewtime`; same arguments as screens.js, plus --n (opens per value,
// default 10) and --json FILE (every open's timeline).
//
// What is recorded, all wall-clock milliseconds (Date.now(), one clock for every process here):
//   click    the mouseup on the menu entry (a capture listener in the workbench page);
//   frame    the webview's inner document created (its performance.timeOrigin);
//   payload  the payload message reaching the page's message listener;
//   handled  that listener returned (decoded, drawn);
//   painted  the first frame after the heatmap canvas was drawn (rAF, then a task);
// and, from the times the debugpy stand-in notes in the extension host (--dap FILE), when each
// `view_payload` evaluate request left for the adapter and when its answer came back: the DAP
// round trip (the adapter, pydevd, and the payload built in the debuggee).
// The page is measured by an init script Playwright puts in every frame before the page's own
// scripts: it wraps CanvasRenderingContext2D.drawImage and window 'message' listeners to note
// the time, and changes nothing they do.
//   NODE_PATH=<driver>/node_modules node viewtime.js --url URL --ws WS --raw DIR --out DIR --logs DIR
'use strict';
const fs = require('node:fs');
const { sleep, runCheck, writeSettings } = require('./screens.js');

const PROGRAM = 'view_open.py';
const VALUES = ['small', 'weight', 'wide'];

/** Runs in every frame before its scripts (Playwright's addInitScript): notes the times. */
function timingProbe() {
  if (window.__tfdrT) return;
  const T = (window.__tfdrT = { payloads: [] });
  const draw = CanvasRenderingContext2D.prototype.drawImage;
  CanvasRenderingContext2D.prototype.drawImage = function (...a) {
    const r = draw.apply(this, a);
    if (!T.drawn && this.canvas && this.canvas.id === 'heatmap') {
      T.drawn = Date.now();
      requestAnimationFrame(() => setTimeout(() => (T.painted = Date.now()), 0));
    }
    return r;
  };
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, fn, opts) {
    if (type === 'message' && this === window && typeof fn === 'function' && String(fn).includes("'payload'")) {
      T.listening = Date.now();
      const listener = fn;
      fn = function (e) {
        const isPayload = e && e.data && e.data.type === 'payload';
        if (isPayload) T.payloads.push(Date.now());
        const r = listener.apply(this, arguments);
        if (isPayload && !T.handled) T.handled = Date.now();
        return r;
      };
    }
    return add.call(this, type, fn, opts);
  };
}

/**
 * The `view_payload` evaluates the stand-in noted (STANDIN_DAP_TIMES, one JSON line per request
 * or response seen in the extension host): [{ expr, t0, t1, ms, bytes }] in the order sent.
 */
function dapEvaluates(file) {
  if (!file || !fs.existsSync(file)) return [];
  const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const out = [];
  for (const q of lines.filter((l) => l.dir === 'request' && /view_payload/.test(l.expression || ''))) {
    const r = lines.find((l) => l.dir === 'response' && l.request_seq === q.seq && l.t >= q.t);
    if (r) out.push({ expr: /view_payload\(\((\w+)\)/.exec(q.expression)?.[1] ?? '?', t0: q.t, t1: r.t, ms: r.t - q.t, bytes: r.bytes });
  }
  return out;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

runCheck('viewtime', async ({ args, page, ui }) => {
  const n = Number(args.n || 10);
  await page.context().addInitScript(timingProbe);
  await ui.open(args.url);
  await ui.setBreakpoint(PROGRAM, '# breakpoint here');
  writeSettings({ 'tfDebugRepr.bundledPlugin': true });
  await sleep(2000);
  await ui.startDebugging();
  for (const title of ['Watch', 'Call Stack', 'Breakpoints']) {
    const header = page.locator('.part.sidebar .pane-header').filter({ has: page.locator('h3.title', { hasText: new RegExp(`^${title}$`, 'i') }) });
    if ((await header.count()) && (await header.first().getAttribute('aria-expanded')) === 'true') await header.first().click();
  }
  await ui.closeViewers(); // the source editor too: every view opens into the same empty layout
  const opens = [];
  /**
   * One "View Tensor" on the row `name`, timed: `new` into no view (a new webview), `again` while
   * its view is open (VS Code reveals that page and the extension fetches into it).
   */
  const timeOpen = async (name, i, mode) => {
    await ui.setSidebar(true);
    const before = await page.locator('iframe.webview').count();
    // a page already open starts its timeline afresh
    await Promise.all(page.frames().map((f) => f.evaluate(() => window.__tfdrT && Object.assign(window.__tfdrT, { drawn: undefined, painted: undefined, handled: undefined, payloads: [] })).catch(() => {})));
    await ui.row(name).click({ button: 'right' });
    const entry = page.locator('.context-view .monaco-menu .action-label', { hasText: /^View Tensor$/ });
    await entry.waitFor({ timeout: 10000 });
    await sleep(700); // a menu ignores a click that comes too soon after it opened
    await entry.hover();
    await page.evaluate(() => {
      window.__tfdrClick = undefined;
      window.addEventListener('mouseup', () => (window.__tfdrClick ??= Date.now()), { capture: true, once: true });
    });
    const nodeClick = Date.now();
    await entry.click();
    let t;
    for (const deadline = Date.now() + 90000; Date.now() < deadline; ) {
      for (const f of page.frames()) {
        t = await f.evaluate(() => (window.__tfdrT && window.__tfdrT.painted ? { ...window.__tfdrT, frame: performance.timeOrigin } : undefined)).catch(() => undefined);
        if (t) break;
      }
      if (t) break;
      await sleep(50);
    }
    if (!t) throw new Error(`${name}: no heatmap painted within 90 s`);
    const click = (await page.evaluate(() => window.__tfdrClick)) ?? nodeClick;
    await sleep(2500); // the full picture's payload message, where one comes, is counted too
    const after = (await Promise.all(page.frames().map((f) => f.evaluate(() => (window.__tfdrT && window.__tfdrT.painted ? window.__tfdrT.payloads : [])).catch(() => [])))).flat();
    const counts = [after.length];
    // where the webview's documents spent the time: each frame's start and its resources'
    // fetches (ms after the click), for the --json file
    const frames =
      mode !== 'new'
        ? []
        : await Promise.all(
            page
              .frames()
              .filter((f) => f !== page.mainFrame())
              .map((f) =>
                f
                  .evaluate(() => ({
                    url: location.pathname.split('/').pop() + location.search.slice(0, 40),
                    origin: performance.timeOrigin,
                    resources: performance.getEntriesByType('resource').map((e) => [e.name.split('?')[0].split('/').slice(-2).join('/'), Math.round(e.startTime), Math.round(e.responseEnd), Math.round(e.workerStart)]),
                  }))
                  .catch(() => undefined),
              ),
          );
    const summary = await ui.viewer(mode === 'new' ? before : 0).locator('#summary').innerText().catch(() => '?');
    const o = {
      name,
      mode,
      i,
      at: click,
      total: t.painted - click,
      frame: mode === 'new' ? Math.round(t.frame - click) : undefined,
      listening: mode === 'new' ? t.listening - click : undefined,
      payload: t.payloads[0] - click,
      handled: t.handled - click,
      drawn: t.drawn - click,
      painted: t.painted - click,
      payloadMessages: Math.max(t.payloads.length, ...counts),
      full: Math.max(...t.payloads, ...after) - click,
      summary: summary.replace(/\s+/g, ' ').slice(0, 100),
      frames: frames.filter(Boolean).map((f) => ({
        ...f,
        origin: Math.round(f.origin - click),
        resources: f.resources.map(([n, a, b, w]) => [n, Math.round(f.origin - click + a), Math.round(f.origin - click + b), w ? Math.round(f.origin - click + w) : 0]),
      })),
    };
    opens.push(o);
    console.log(JSON.stringify({ ...o, frames: undefined }));
    if (i === 0 && mode === 'new') for (const f of o.frames) console.log(`  frame ${f.url} at ${f.origin}: ${f.resources.map(([n, a, b, w]) => `${n} ${a}-${b}${w ? ` (worker ${w})` : ''}`).join(', ')}`);
  };
  for (let i = 0; i < n; i++) {
    for (const name of VALUES) {
      await timeOpen(name, i, 'new');
      await sleep(1000);
      await timeOpen(name, i, 'again');
      await sleep(1000);
      await timeOpen(VALUES[(VALUES.indexOf(name) + 1) % VALUES.length], i, 'other');
      await ui.closeViewers();
      await sleep(1000);
    }
  }
  await ui.stopDebugging();
  await sleep(2000);
  // each open's evaluate: the one sent between its click and its paint (more than one: a refetch)
  const dap = dapEvaluates(args.dap);
  for (const o of opens) {
    const mine = dap.filter((d) => d.t0 >= o.at && d.t1 <= o.at + o.painted);
    o.evaluates = mine.length;
    if (mine.length) {
      o.dapSent = mine[0].t0 - o.at;
      o.dap = mine[0].ms;
      o.dapBytes = mine[0].bytes;
    }
  }
  for (const o of opens) console.log(`${o.name} ${o.mode} #${o.i}: ${o.total} ms; evaluate sent at ${o.dapSent}, DAP ${o.dap} ms (${o.evaluates} evaluates, ${o.dapBytes} chars); payload in page at ${o.payload}, painted at ${o.painted}; ${o.payloadMessages} payload messages, the last at ${o.full}`);
  if (args.json) fs.writeFileSync(args.json, JSON.stringify({ opens, dap }, null, 1));
  const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`\nload average at the end: ${load}`);
  console.log('value | opened | n | click→painted median (min–max) | first | click→evaluate sent | DAP round trip | click→payload in page | payload→painted | click→frame created | payload messages | click→last payload (full picture)');
  for (const mode of ['new', 'again', 'other']) {
    for (const name of VALUES) {
      const os = opens.filter((o) => o.name === name && o.mode === mode);
      const col = (k) => os.map((o) => o[k]).filter((x) => typeof x === 'number');
      const m = (k) => (col(k).length ? Math.round(median(col(k))) : '-');
      const pageMs = os.map((o) => o.painted - o.payload);
      console.log(
        `${name} | ${mode} | ${os.length} | ${m('total')} (${Math.min(...col('total'))}–${Math.max(...col('total'))}) | ${os[0]?.total} | ${m('dapSent')} | ${m('dap')} | ${m('payload')} | ${Math.round(median(pageMs))} | ${m('frame')} | ${m('payloadMessages')} | ${m('full')}`,
      );
    }
  }
});
