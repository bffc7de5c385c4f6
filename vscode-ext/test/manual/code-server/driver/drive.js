const { chromium } = require('playwright-core');
const fs = require('fs');
const SHOT = '/tmp/vscode-smoke/shots';
fs.mkdirSync(SHOT, { recursive: true });
const stage = process.argv[2] || 'all';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  page.on('console', (m) => { if (m.type() === 'error') fs.appendFileSync('/tmp/vscode-smoke/logs/browser-console.log', m.text() + '\n'); });
  let n = 0;
  const shot = async (name) => { const p = `${SHOT}/${String(++n).padStart(2, '0')}-${name}.png`; await page.screenshot({ path: p }); console.log('shot', p); };
  await page.goto('http://127.0.0.1:8123/?folder=/tmp/vscode-smoke/ws');
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  await sleep(8000);
  await shot('loaded');
  const palette = async (text) => {
    await page.keyboard.press('F1');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type(text, { delay: 20 });
    await sleep(1000);
  };
  if (stage === 'all' || stage === 'add') {
    await palette('TensorFlow: Add Debug Configuration');
    await shot('palette');
    await page.keyboard.press('Enter');
    await sleep(4000);
    await shot('quickpick');
    // tick "TensorFlow: Current File" (exact) in the multi-select
    const rows = page.locator('.quick-input-list .monaco-list-row');
    const cnt = await rows.count();
    console.log('rows', cnt);
    for (let i = 0; i < cnt; i++) console.log('row', i, await rows.nth(i).getAttribute('aria-label'));
    const row = rows.filter({ hasText: 'Debug the Python file in the active editor' }).first();
    await row.locator('.quick-input-list-checkbox, input[type=checkbox], .monaco-custom-toggle').first().click();
    await sleep(500);
    await shot('ticked');
    await page.keyboard.press('Enter');
    await sleep(4000);
    await shot('after-add');
  }
  if (stage === 'all' || stage === 'debug') {
    await page.keyboard.press('Control+P');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type('train.py', { delay: 20 });
    await sleep(1000);
    await page.keyboard.press('Enter');
    await sleep(3000);
    await page.keyboard.press('Control+G');
    await page.keyboard.type('6', { delay: 20 });
    await page.keyboard.press('Enter');
    await sleep(500);
    await page.keyboard.press('F9');
    await sleep(1000);
    await shot('breakpoint');
    await palette('Debug: Select and Start Debugging');
    await page.keyboard.press('Enter');
    await sleep(2000);
    await shot('select-config');
    await page.keyboard.type('TensorFlow: Current File', { delay: 20 });
    await sleep(1000);
    await shot('select-config-typed');
    await page.keyboard.press('Enter');
    for (let i = 0; i < 12; i++) {
      await sleep(5000);
      const stopped = await page.locator('.debug-top-stack-frame-line, .debug-top-stack-frame-column').count();
      console.log('t', (i + 1) * 5, 'top-frame markers', stopped);
      if (stopped > 0) break;
    }
    await sleep(3000);
    await shot('stopped');
    const vars = await page.locator('.debug-variables .monaco-list-row').allInnerTexts().catch(() => []);
    console.log('VARIABLES:\n' + vars.join('\n---\n'));
    await sleep(1000);
    const sash = await page.locator('.part.sidebar + .monaco-sash.vertical, .monaco-sash.vertical').evaluateAll(els => els.map(e => e.getBoundingClientRect()).filter(r => r.x > 200 && r.x < 600 && r.height > 400).map(r => ({x: r.x, y: r.y}))[0] || null).catch(() => null);
    console.log('sash', JSON.stringify(sash));
    if (sash) { await page.mouse.move(sash.x + 2, 300); await page.mouse.down(); await page.mouse.move(1000, 300, { steps: 10 }); await page.mouse.up(); }
    await sleep(1500);
    await shot('stopped-wide');
  }
  await browser.close();
})().catch(async (e) => { console.error('FAILED', e); process.exit(1); });
