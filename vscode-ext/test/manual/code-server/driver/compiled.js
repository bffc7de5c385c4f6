// The pictures of docs/compiled-code.md (issue 32), in code-server at the README's size:
//  1. compiled-step-stop.png: a breakpoint on the last line of workspace/train_step.py's
//     `@tf.function` step, stopped at its first call: Variables and the Call Stack;
//  2. compiled-step-over.png: Step Over from there (the Call Stack says where it landed);
//  3. nan-compiled-step.png: workspace/nan_step.py under the "stop where a NaN is born" launch
//     configuration (TF_DEBUG_REPR_CHECK_NUMERICS=1), stopped by the NaN its compiled step makes.
// What each stop showed (Call Stack frames, Variables rows, the exception) is printed.
//   NODE_PATH=<driver>/node_modules node compiled.js --url URL --ws WS --raw DIR --out DIR --logs DIR
'use strict';
const { writeSettings, sleep, runCheck, PICTURE_SCREEN } = require('./screens.js');

runCheck(
  'compiled',
  async ({ args, page, ui }) => {
    const texts = (selector) => page.locator(selector).evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim()));
    const frames = () => texts('.debug-call-stack .monaco-list-row');
    const variables = () => texts('.debug-variables .monaco-list-row');
    /** The bottom (css px) of the last row of the Call Stack pane. */
    const callStackBottom = async () => Math.max(...(await page.locator('.debug-call-stack .monaco-list-row').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().bottom)))) + 8;
    /** Where a picture of the sidebar and editor ends: below the Call Stack and two lines below the stopped line. */
    const pictureBottom = async () => {
      const stopped = await page.locator('.part.editor .debug-top-stack-frame-line').first().boundingBox();
      return Math.max(await callStackBottom(), stopped ? stopped.y + 3 * stopped.height : 0);
    };

    await ui.open(args.url);
    await ui.command('Debug: Remove All Breakpoints');
    writeSettings({ 'tfDebugRepr.bundledPlugin': true });
    await sleep(2000);

    // 1. The first call of the compiled step stops on its last line.
    await ui.setBreakpoint('train_step.py', '# breakpoint: step');
    await ui.startDebugging();
    await ui.layoutDebugSidebar(['Watch', 'Breakpoints']);
    await sleep(2000);
    console.log(`STOP frames: ${JSON.stringify(await frames())}`);
    console.log(`STOP variables: ${JSON.stringify(await variables())}`);
    await ui.shotSidebarAndEditor('compiled-step-stop', await pictureBottom());

    // 2. Step Over, from the toolbar, until the top frame is no longer train_step (at most 8).
    let presses = 0;
    while (presses < 8) {
      const before = JSON.stringify(await frames());
      await page.locator('.codicon-debug-step-over').first().click();
      presses++;
      // paused again: the Call Stack lists frames again, and not the same ones (a line changed)
      let now = [];
      for (let waited = 0; waited < 120; waited++) {
        await sleep(1000);
        now = await frames();
        if (now.length && JSON.stringify(now) !== before && (await page.locator('.codicon-debug-continue').count())) break;
      }
      await sleep(2000);
      now = await frames();
      console.log(`STEP OVER ${presses}: ${JSON.stringify(now)}`);
      if (!now.some((f) => f.startsWith('train_step '))) break; // the function's name, then the file's
    }
    console.log(`STEP OVER presses to leave train_step: ${presses}`);
    await ui.shotSidebarAndEditor('compiled-step-over', await pictureBottom());
    await ui.stopDebugging();

    // 3. The NaN template on a compiled step: no breakpoint, VS Code's default exception filter.
    await ui.command('Debug: Remove All Breakpoints');
    await page.keyboard.press('Control+P');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type('nan_step.py', { delay: 10 });
    await sleep(1000);
    await page.keyboard.press('Enter');
    await sleep(2000);
    await ui.command('Debug: Select and Start Debugging');
    await page.keyboard.type('(stop where a NaN is born)', { delay: 10 });
    await sleep(800);
    await page.keyboard.press('Enter');
    await page.locator('.debug-top-stack-frame-line').first().waitFor({ state: 'attached', timeout: 300000 });
    await page.locator('.debug-variables .monaco-list-row').nth(1).waitFor({ timeout: 60000 });
    // From here on no key is pressed: Escape (which every palette command starts with) closes
    // the exception widget VS Code opened at the stop. Toasts are closed by their own buttons.
    await page.locator('.exception-widget').first().waitFor({ state: 'visible', timeout: 30000 }).catch(() => {});
    await sleep(4000);
    for (const close of await page.locator('.notifications-toasts .codicon-notifications-clear').all()) await close.click().catch(() => {});
    await ui.layoutDebugSidebar(['Watch', 'Breakpoints']);
    await sleep(2000);
    console.log(`NAN frames: ${JSON.stringify(await frames())}`);
    console.log(`NAN variables: ${JSON.stringify(await variables())}`);
    console.log(`NAN exception widget: ${JSON.stringify(await texts('.exception-widget'))}`);
    // down to the program's last line (or the Call Stack's last row, whichever is lower)
    const lastLine = Math.max(
      ...(await page.locator('.part.editor .view-lines .view-line').evaluateAll((els) => els.filter((e) => e.innerText.trim()).map((e) => e.getBoundingClientRect().bottom))),
    );
    const widget = await page.locator('.exception-widget').first().boundingBox().catch(() => null);
    const widgetBottom = widget ? widget.y + widget.height + 8 : 0;
    await ui.shotSidebarAndEditor('nan-compiled-step', Math.max(lastLine + 8, await callStackBottom(), widgetBottom));
    await ui.stopDebugging();
  },
  PICTURE_SCREEN,
);
