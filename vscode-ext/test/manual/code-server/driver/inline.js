// The picture of the extension's inline values (issue 29), in code-server at the README's size:
// workspace/train_digits.py stopped on its `# breakpoint here` line, the editor area with each
// line's TF values at its end (inline-values.png). The decorations' texts are printed.
//   NODE_PATH=<driver>/node_modules node inline.js --url URL --ws WS --raw DIR --out DIR --logs DIR
'use strict';
const { writeSettings, sleep, runCheck, PICTURE_SCREEN } = require('./screens.js');

runCheck(
  'inline',
  async ({ args, page, ui }) => {
    await ui.open(args.url);
    await ui.command('Debug: Remove All Breakpoints');
    writeSettings({ 'tfDebugRepr.bundledPlugin': true });
    await sleep(2000);
    await ui.setBreakpoint('train_digits.py', '# breakpoint here');
    await ui.startDebugging();
    await ui.setPanel(false);
    // VS Code's inline value decorations (`debug.inlineValues` is "auto": on where a provider is)
    const decorations = page.locator('.part.editor .debug-inline-value');
    await decorations.first().waitFor({ timeout: 60000 });
    await sleep(3000);
    const lines = await page.locator('.part.editor .view-line').evaluateAll((els) =>
      els
        .filter((e) => e.querySelector('.debug-inline-value'))
        .map((e) => e.innerText.replace(/\s+/g, ' ').trim()),
    );
    console.log(`INLINE lines (${lines.length}):\n${lines.join('\n')}`);
    await page.mouse.move(page.viewportSize().width - 20, page.viewportSize().height - 40);
    await sleep(1000);
    // the editor area, down to two lines below the stopped line
    const editor = await page.locator('.part.editor').boundingBox();
    const stopped = await page.locator('.part.editor .debug-top-stack-frame-line').first().boundingBox();
    const bottom = Math.min(editor.y + editor.height, stopped.y + 3 * stopped.height);
    await ui.clip('inline-values', { x: editor.x, y: editor.y, width: editor.width, height: bottom - editor.y });
    await ui.stopDebugging();
  },
  PICTURE_SCREEN,
);
