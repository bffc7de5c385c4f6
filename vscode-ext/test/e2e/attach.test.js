// @ts-check
'use strict';
/**
 * The attach templates: the debuggee is started with the command from the template's own
 * description (taken from the template, not re-typed here), run locally: the
 * `python -m debugpy --listen HOST:PORT --wait-for-client SCRIPT` part, on a free port.
 * For the Docker template the in-container listen address 0.0.0.0 is replaced by 127.0.0.1,
 * because here there is no container around it; the docker run part itself (image, port
 * publishing) is not exercised (no Docker daemon in the test environment).
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');
const { getTemplate } = require('../../src/launch/templates');
const h = require('./harness');

const PROGRAM = path.join(h.FIXTURES, 'attach_program.py');

/**
 * @param {string} id template id
 * @param {(port: number) => string} listenHostFor
 */
async function attachWithTemplateCommand(id, listenHostFor) {
  const port = await h.freePort();
  const template = getTemplate(id, { port, script: 'attach_program.py', remoteRoot: h.FIXTURES });
  const commandLine = template.comment.find((c) => c.includes('-m debugpy --listen'));
  assert.ok(commandLine, 'the template documents the debuggee command');
  const m = /python (-Xfrozen_modules=off) -m debugpy --listen (\S+):(\d+) --wait-for-client (\S+)$/.exec(commandLine.trim());
  assert.ok(m, `command has the expected shape: ${commandLine}`);
  assert.equal(Number(m[3]), port);
  const listenHost = listenHostFor(port);
  const debuggee = h.spawnCaptured(h.mainPython(), [m[1], '-m', 'debugpy', '--listen', `${listenHost}:${m[3]}`, '--wait-for-client', m[4]], {
    cwd: h.FIXTURES,
    env: h.baseEnv(),
  });
  const config = h.resolveAsVSCode(template.configurations[0], { workspaceFolder: h.FIXTURES });
  assert.equal(config.request, 'attach');
  assert.equal(config.env, undefined, 'attach configurations are passed through untouched (no env)');
  assert.deepEqual(config.pathMappings, [{ localRoot: h.FIXTURES, remoteRoot: h.FIXTURES }]);
  const s = new h.Session();
  try {
    const line = h.lineOf(PROGRAM, 'BREAK-HERE');
    const processEvent = s.dc.waitForEvent('process');
    /** @type {any} */
    let stopped;
    try {
      stopped = await s.start('attach', config, [{ path: PROGRAM, lines: [line] }]);
    } catch (e) {
      // Say what the debuggee did: a port taken by another process between freePort() and
      // debugpy's bind shows up here as "Address already in use".
      throw new Error(`${/** @type {Error} */ (e).message}; debuggee exit=${debuggee.child.exitCode}, output:\n${debuggee.stdout}${debuggee.stderr}`);
    }
    const proc = /** @type {any} */ (await h.withTimeout(processEvent, 10_000, 'process event'));
    assert.equal(proc.body.systemProcessId, debuggee.child.pid, 'attached to the process started with the template command');
    const { top } = await s.topFrame(stopped.body.threadId);
    assert.equal(top.line, line);
    assert.equal(path.resolve(top.source?.path ?? ''), PROGRAM);
    const vars = await s.locals(top.id);
    assert.equal(vars.grid.type, 'EagerTensor');
    const terminated = s.dc.waitForEvent('terminated');
    await s.dc.continueRequest({ threadId: stopped.body.threadId });
    await h.withTimeout(terminated, h.TIMEOUT, 'terminated event');
    await h.withTimeout(debuggee.exited, 30_000, 'debuggee exit');
    assert.match(debuggee.stdout, /TFDR-ATTACH-END \[3\.0, 12\.0\]/);
  } finally {
    await s.close();
    if (debuggee.child.exitCode === null) debuggee.child.kill();
  }
}

test('template "attachRemote": attaches to `python -m debugpy --listen 127.0.0.1:PORT --wait-for-client ...`', { timeout: h.TIMEOUT * 2 }, async () => {
  await attachWithTemplateCommand('attachRemote', () => '127.0.0.1');
});

test('template "attachDocker": attaches to the in-container command (run here on 127.0.0.1)', { timeout: h.TIMEOUT * 2 }, async () => {
  const docker = getTemplate('attachDocker').comment.join('\n');
  assert.match(docker, /docker run .*-p 127\.0\.0\.1:5678:5678 /, 'published to the host loopback only');
  assert.match(docker, /tensorflow\/tensorflow:latest-jupyter python -Xfrozen_modules=off -m debugpy --listen 0\.0\.0\.0:5678 --wait-for-client /);
  await attachWithTemplateCommand('attachDocker', () => '127.0.0.1');
});
