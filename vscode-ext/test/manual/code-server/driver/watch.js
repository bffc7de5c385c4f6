// Checks the Watch pane's "View Tensor" (VS Code >= 1.103 has a `debug/watch/context` menu) in a
// code-server: a watch on a tensor offers it and opens the viewer, a watch on an int does not;
// then the Variables pane's menu once more. Same arguments as screens.js; screenshots into --raw.
//   NODE_PATH=<driver>/node_modules node watch.js --url URL --ws WS --raw DIR --out DIR --logs DIR
'use strict';
const { writeSettings, sleep, runCheck } = require('./screens.js');

runCheck('watch', async ({ args, page, ui, shot }) => {
  const watchRow = (name) =>
    page.locator('.debug-watch .monaco-list-row[aria-level="1"]').filter({ has: page.locator('.name', { hasText: new RegExp(`^${name}\\s*[:=]?$`) }) });
  const menuItems = () => page.locator('.context-view .monaco-menu .action-label').allInnerTexts();
  await ui.open(args.url);
  await ui.setBreakpoint('train_digits.py', '# breakpoint here');
  writeSettings({ 'tfDebugRepr.bundledPlugin': true });
  await sleep(2000);
  await ui.startDebugging();
  for (const expr of ['confusion_rates', 'step']) {
    await page.locator('.pane-header', { hasText: /watch/i }).hover();
    await page.locator('.pane-header [aria-label="Add Expression"]').first().click();
    await sleep(500);
    await page.keyboard.type(expr, { delay: 10 });
    await page.keyboard.press('Enter');
    await sleep(2500);
  }
  await shot('pane');
  for (const expr of ['step', 'confusion_rates']) {
    await watchRow(expr).click({ button: 'right' });
    await page.locator('.context-view .monaco-menu .action-label').first().waitFor({ timeout: 10000 });
    await sleep(800);
    console.log(`WATCH MENU ${expr}: ${JSON.stringify(await menuItems())}`);
    await shot(`menu-${expr}`);
    if (expr === 'step') {
      await page.keyboard.press('Escape');
      await sleep(500);
    }
  }
  const before = await page.locator('iframe.webview').count();
  const entry = page.locator('.context-view .monaco-menu .action-label', { hasText: /^View Tensor$/ });
  await entry.hover();
  await entry.click();
  await page.waitForFunction((n) => document.querySelectorAll('iframe.webview').length > n, before, { timeout: 30000 });
  const viewer = ui.viewer(before);
  await viewer.locator('#summary').filter({ hasText: /\S/ }).waitFor({ timeout: 60000 });
  await viewer.locator('#overlay').waitFor({ state: 'hidden', timeout: 60000 });
  await sleep(1500);
  console.log(`VIEWER SUMMARY (watch): ${await viewer.locator('#summary').innerText()}`);
  console.log(`HEATMAP visible: ${await viewer.locator('#heatmap').isVisible()}`);
  await shot('viewer');
  await ui.closeViewers();

  await ui.viewTensor('confusion_rates');
  console.log(`VIEWER SUMMARY (variables): ${await ui.viewer(0).locator('#summary').innerText()}`);
  await shot('variables-viewer');
  await ui.closeViewers();

  // the editor's context menu: the expression at the cursor (line 55 holds `diag_part(confusion_rates)`)
  await page.keyboard.press('Control+P');
  await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
  await page.keyboard.type('train_digits.py', { delay: 10 });
  await sleep(1000);
  await page.keyboard.press('Enter');
  await sleep(1500);
  const word = page.locator('.view-lines .view-line', { hasText: 'diag_part(confusion_rates)' }).locator('span', { hasText: /^confusion_rates$/ });
  await word.first().click();
  await word.first().click({ button: 'right' });
  const item = page.locator('.context-view .monaco-menu .action-label', { hasText: /^View Tensor$/ });
  await item.waitFor({ timeout: 10000 });
  await sleep(800);
  await shot('editor-menu');
  const n = await page.locator('iframe.webview').count();
  await item.hover();
  await item.click();
  await page.waitForFunction((k) => document.querySelectorAll('iframe.webview').length > k, n, { timeout: 30000 });
  await ui.viewer(n).locator('#summary').filter({ hasText: /\S/ }).waitFor({ timeout: 60000 });
  await sleep(1500);
  console.log(`VIEWER SUMMARY (editor): ${await ui.viewer(n).locator('#summary').innerText()}`);
  await shot('editor-viewer');
  await ui.closeViewers();
  await ui.stopDebugging();
});
