// The pictures of a training run's history (issue 28), in code-server: workspace/train_step.py
// stopped in its Python loop after each call of the compiled step (six stops).
//  1. layer-output-row.png: at the last stop, the model's `hidden` layer expanded to its
//     `→ output` child (the layer's output in the last compiled step), the README's 300 px sidebar;
//  2. viewer-history.png: the tensor viewer's History tab for the `hidden` layer's kernel
//     (and viewer-history-compare.png: its Compare of stops 2 and 6),
//     opened and pinned at the first stop, after the sixth;
//  3. viewer-layer-output.png: View Tensor on that `→ output` row.
// What the rows and the viewer said is printed.
//   NODE_PATH=<driver>/node_modules node history.js --url URL --ws WS --raw DIR --out DIR --logs DIR
'use strict';
const { writeSettings, sleep, runCheck, PICTURE_SCREEN } = require('./screens.js');

const STOPS = 6; // 384 samples in batches of 64
const OUTPUT_ROW = /^→ output/;

runCheck(
  'history',
  async ({ args, page, ui }) => {
    const texts = (selector) => page.locator(selector).evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim()));
    const value = async (name) => (await ui.row(name).locator('.value').innerText()).trim();
    /** Continue from the toolbar, then wait for the loop's next stop (`step` reads `n`). */
    const continueTo = async (n) => {
      await page.locator('.codicon-debug-continue').first().click();
      for (let waited = 0; waited < 180; waited++) {
        await sleep(1000);
        if ((await ui.row('step').count()) && (await value('step').catch(() => '')) === String(n)) break;
      }
      if ((await value('step')) !== String(n)) throw new Error(`no stop with step = ${n}`);
      await sleep(3000); // the pinned view refreshes at the stop
    };

    await ui.open(args.url);
    await ui.command('Debug: Remove All Breakpoints');
    writeSettings({ 'tfDebugRepr.bundledPlugin': true });
    await sleep(2000);
    await ui.setBreakpoint('train_step.py', '# breakpoint: loop');
    await ui.startDebugging();
    await ui.layoutDebugSidebar();
    console.log(`STOP 1 kernel: ${await value('kernel')}`);

    // The kernel's view, pinned: it refreshes at every stop, and viewing starts its history.
    await ui.viewTensor('kernel');
    await ui.viewer(0).locator('#pin').click();
    await sleep(1000);
    for (let n = 1; n < STOPS; n++) {
      await continueTo(n);
      console.log(`STOP ${n + 1} kernel: ${await value('kernel')}`);
    }

    // 1. The layer's output in the last compiled step, under the model's row.
    await ui.setSidebar(true);
    await ui.expand('model');
    await ui.expand(/^hidden( \(Dense\))?\s*[:=]?$/, 3);
    console.log(`HIDDEN rows: ${JSON.stringify(await texts('.debug-variables .monaco-list-row[aria-level="4"]'))}`);
    await ui.shotVariables('layer-output-row', { name: OUTPUT_ROW, level: 4, extra: 1 });

    // 2. The History tab of the pinned kernel view (the README's viewer size).
    await ui.page.setViewportSize({ width: 1200, height: 820 });
    await ui.setPanel(false);
    await ui.viewerTab(0, 'history');
    const viewer = ui.viewer(0);
    console.log(`VIEWER summary: ${(await viewer.locator('#summary').innerText()).trim()}`);
    console.log(`VIEWER history: ${(await viewer.locator('#history-note').innerText()).trim()}; plots: ${JSON.stringify(await viewer.locator('#history-plots figcaption').allInnerTexts())}`);
    await ui.shotEditor('viewer-history');
    // 2b. Its Compare of two stops (first against last at first): the second stop chosen in
    //     the first select, as a user would, then the section scrolled into view.
    const compare = viewer.locator('#history-compare');
    await compare.scrollIntoViewIfNeeded();
    await viewer.locator('#compare-a').selectOption({ index: 1 });
    await sleep(3000);
    await compare.scrollIntoViewIfNeeded();
    console.log(`COMPARE: ${(await viewer.locator('#compare-a').inputValue())} vs ${(await viewer.locator('#compare-b').inputValue())}; ${(await viewer.locator('#compare-note').innerText()).trim()}; figures: ${(await viewer.locator('#compare-figures').innerText()).replace(/\s+/g, ' ').trim()}`);
    await ui.shotEditor('viewer-history-compare');
    await ui.closeViewers();

    // 3. The layer's output in the viewer: opened from the pane at the README's screen (its row
    //    is below an 820 px window's last row), pictured at the viewer's.
    await ui.page.setViewportSize({ width: PICTURE_SCREEN.width, height: PICTURE_SCREEN.height });
    await sleep(1500);
    await ui.viewTensor(OUTPUT_ROW, 4);
    await ui.page.setViewportSize({ width: 1200, height: 820 });
    await sleep(1500);
    console.log(`OUTPUT viewer: ${(await ui.viewer(0).locator('#summary').innerText()).trim()}`);
    await ui.shotEditor('viewer-layer-output');
    await ui.closeViewers();
    await ui.stopDebugging();
  },
  PICTURE_SCREEN,
);
