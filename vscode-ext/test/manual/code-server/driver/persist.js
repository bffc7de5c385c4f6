// Checks that a "View Tensor" view outlives its debug session and a window reload, in a
// code-server: pin a view of `weights`, stop, run the program again (its value changes each
// run), then "Developer: Reload Window" and run once more. Same arguments as screens.js (the
// workspace is workspace-persist/); screenshots into --raw, what the pages say on stdout.
//   NODE_PATH=<driver>/node_modules node persist.js --url URL --ws WS --raw DIR --out DIR --logs DIR
'use strict';
const { sleep, runCheck } = require('./screens.js');

runCheck('persist', async ({ args, page, ui, shot }) => {
  /** What the (only) viewer page shows: title, summary, banner, message, pin. */
  const says = async (when) => {
    const v = ui.viewer(0);
    const text = async (sel) => ((await v.locator(sel).isVisible()) ? (await v.locator(sel).innerText()).replace(/\s+/g, ' ').trim() : '(hidden)');
    const report = { title: await text('#title'), summary: await text('#summary'), banner: await text('#banner'), message: await text('#message'), pin: await v.locator('#pin').getAttribute('aria-pressed') };
    console.log(`${when}: ${JSON.stringify(report)}`);
    return report;
  };
  const waitFor = async (what, pred) => {
    for (let i = 0; i < 120; i++) {
      const r = await says(`  (waiting for ${what})`).catch(() => undefined);
      if (r && pred(r)) return r;
      await sleep(1000);
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  await ui.open(args.url);
  await ui.setBreakpoint('rerun.py', '# breakpoint here');
  await ui.startDebugging();
  await ui.viewTensor('weights');
  const run1 = await says('run 1, viewed');
  await ui.viewer(0).locator('#pin').click();
  await sleep(1000);
  await says('run 1, pinned');
  await shot('1-pinned');
  await ui.stopDebugging();
  await waitFor('the ended banner', (r) => /ended/.test(r.banner));
  await shot('2-ended');

  await ui.startDebugging();
  const run2 = await waitFor('run 2 in the pinned view', (r) => r.summary !== run1.summary && r.banner === '(hidden)');
  await shot('3-run2');
  await ui.stopDebugging();

  console.log('Developer: Reload Window');
  await ui.command('Developer: Reload Window');
  await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
  await sleep(10000);
  await waitFor('the restored view', (r) => r.title !== '(hidden)' && r.title !== 'Tensor viewer');
  await shot('4-restored');
  await ui.startDebugging();
  await waitFor('run 3 in the restored view', (r) => r.message === '(hidden)' && r.summary !== run2.summary && r.summary !== '');
  await says('run 3, after the reload');
  await shot('5-run3');
  await ui.stopDebugging();
});
