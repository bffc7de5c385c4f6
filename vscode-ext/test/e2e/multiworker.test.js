// @ts-check
'use strict';
/**
 * The multi-worker pair: both configurations of the template (chief and worker, each with its
 * TF_CONFIG), started together as the compound does (one adapter per configuration, as VS Code
 * starts them), on a MultiWorkerMirroredStrategy program. Each process stops at its breakpoint
 * after a cross-process all-reduce, which completes only if the two formed a cluster.
 * The ports are free ones picked here (the template's 12345/12346 could be taken on a CI host);
 * the template code is the same, parameterised.
 */
const assert = require('node:assert/strict');
const path = require('node:path');
const { test } = require('node:test');
const { getTemplate } = require('../../src/launch/templates');
const h = require('./harness');

const PROGRAM = path.join(h.FIXTURES, 'multi_worker.py');

test('template "multiWorker": chief and worker both stop at their breakpoints after an all-reduce', { timeout: h.TIMEOUT * 2 }, async () => {
  const ports = /** @type {[number, number]} */ ([await h.freePort(), await h.freePort()]);
  const template = getTemplate('multiWorker', { workerPorts: ports });
  assert.equal(template.compounds.length, 1);
  const compound = template.compounds[0];
  const configs = compound.configurations.map((name) => {
    const c = template.configurations.find((x) => x.name === name);
    assert.ok(c, `compound member ${name} is one of the template's configurations`);
    return h.resolveAsVSCode(c, { file: PROGRAM });
  });
  const line = h.lineOf(PROGRAM, 'BREAK-HERE');
  const sessions = configs.map((c) => new h.Session({ name: c.name }));
  try {
    const stops = await Promise.all(sessions.map((s, i) => s.start('launch', configs[i], [{ path: PROGRAM, lines: [line] }])));
    const roles = [];
    for (let i = 0; i < sessions.length; i++) {
      const s = sessions[i];
      const { top } = await s.topFrame(stops[i].body.threadId);
      assert.equal(top.line, line);
      const vars = await s.locals(top.id);
      assert.equal(vars.total.type, 'EagerTensor');
      assert.equal(await s.evaluate('float(total)', top.id), '2.0', 'the all-reduce summed over both processes');
      roles.push(JSON.parse(configs[i].env.TF_CONFIG).task.type);
      assert.equal(await s.evaluate('task["type"]', top.id), `'${roles[i]}'`, 'each process got its own TF_CONFIG');
    }
    assert.deepEqual(roles, ['chief', 'worker']);
    await Promise.all(sessions.map((s, i) => s.finish(stops[i].body.threadId)));
    assert.match(sessions[0].terminalOutput(), /TFDR-MW-END chief 2\.0/);
    assert.match(sessions[1].terminalOutput(), /TFDR-MW-END worker 2\.0/);
  } finally {
    await Promise.all(sessions.map((s) => s.close()));
  }
});
