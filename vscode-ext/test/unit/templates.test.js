// @ts-check
'use strict';
const assert = require('node:assert/strict');
const { test } = require('node:test');
const t = require('../../src/launch/templates');

test('every template: debugpy configurations with unique names, a label and a description', () => {
  const templates = t.getTemplates();
  assert.deepEqual(
    templates.map((x) => x.id),
    ['currentFile', 'module', 'pytestFile', 'stepIntoLibraries', 'eager', 'checkNumerics', 'attachDocker', 'attachRemote', 'multiWorker'],
  );
  const names = new Set();
  for (const tpl of templates) {
    assert.ok(tpl.label.startsWith('TensorFlow: '), tpl.label);
    assert.ok(tpl.description.length > 10 && tpl.detail.length > 20, `${tpl.id} says when to use it`);
    assert.ok(tpl.configurations.length >= 1);
    for (const c of tpl.configurations) {
      assert.equal(c.type, 'debugpy');
      assert.ok(['launch', 'attach'].includes(c.request));
      assert.ok(!names.has(c.name), `unique name ${c.name}`);
      names.add(c.name);
      if (c.request === 'launch') assert.equal(c.console, 'integratedTerminal', `${c.name} keeps print output in the terminal`);
      assert.equal(JSON.parse(JSON.stringify(c)).name, c.name, 'plain JSON');
    }
  }
});

test('launch templates: program / module / pytest targets', () => {
  assert.equal(t.getTemplate('currentFile').configurations[0].program, '${file}');
  const mod = t.getTemplate('module', { module: 'pkg.train' }).configurations[0];
  assert.equal(mod.module, 'pkg.train');
  assert.equal(mod.cwd, '${workspaceFolder}');
  assert.equal(mod.program, undefined);
  const py = t.getTemplate('pytestFile').configurations[0];
  assert.equal(py.module, 'pytest');
  assert.deepEqual(py.args, ['${file}']);
  assert.deepEqual(py.purpose, ['debug-test']);
});

test('step-into template turns justMyCode off and hides nothing; the others keep it on', () => {
  const step = t.getTemplate('stepIntoLibraries').configurations[0];
  assert.equal(step.justMyCode, false);
  assert.equal(step.env, undefined, 'no log level set: the user wants to see everything');
  for (const id of ['currentFile', 'module', 'pytestFile', 'eager', 'checkNumerics']) {
    const c = t.getTemplate(id).configurations[0];
    assert.equal(c.justMyCode, true);
    assert.equal(c.env.TF_CPP_MIN_LOG_LEVEL, '1', `${id}: INFO hidden, warnings kept`);
  }
});

test('eager template sets the switch tf-debug-repr reads', () => {
  const c = t.getTemplate('eager').configurations[0];
  assert.equal(c.env.TF_DEBUG_REPR_EAGER, '1');
  assert.equal(c.program, '${file}');
});

test('NaN/Inf template sets the check switch tf-debug-repr reads, keeps justMyCode on', () => {
  const c = t.getTemplate('checkNumerics').configurations[0];
  assert.equal(c.env.TF_DEBUG_REPR_CHECK_NUMERICS, '1');
  assert.equal(c.env.TF_DEBUG_REPR_EAGER, undefined, 'graphs stay graphs: their ops are checked too');
  assert.equal(c.program, '${file}');
  assert.equal(c.justMyCode, true, 'the stop shows the user\'s line, not TensorFlow\'s');
  assert.match(t.getTemplate('checkNumerics').comment[0], /Uncaught Exceptions/);
  assert.ok(t.getTemplate('multiWorker').comment.some((l) => /listen on every network interface/.test(l) && /unauthenticated/.test(l)), 'the multi-worker template says its servers are exposed');
});

test('attach templates: connect to localhost, path mappings, the debuggee command on loopback', () => {
  const docker = t.getTemplate('attachDocker');
  const c = docker.configurations[0];
  assert.deepEqual(c.connect, { host: 'localhost', port: 5678 });
  assert.deepEqual(c.pathMappings, [{ localRoot: '${workspaceFolder}', remoteRoot: '/tf/notebooks' }]);
  assert.equal(c.env, undefined);
  const cmd = docker.comment.find((l) => l.includes('docker run'));
  assert.ok(cmd);
  assert.match(cmd, /-p 127\.0\.0\.1:5678:5678 /, 'published on the host loopback only');
  assert.match(cmd, /-v "\$PWD":\/tf\/notebooks -w \/tf\/notebooks /);
  assert.match(cmd, /tensorflow\/tensorflow:latest-jupyter python -Xfrozen_modules=off -m debugpy --listen 0\.0\.0\.0:5678 --wait-for-client train\.py$/);
  assert.ok(docker.detail.includes(cmd.trim()), 'the quick pick detail shows the exact command');

  const withBundle = t.dockerCommand({ port: 5678, remoteRoot: '/tf/notebooks', script: 'a.py', bundleDir: '/ext/python' });
  assert.match(withBundle, /-v "\/ext\/python":\/opt\/tf-debug-repr:ro -e PYTHONPATH=\/opt\/tf-debug-repr:\/opt\/tf-debug-repr\/pydevd16 /);

  const remote = t.getTemplate('attachRemote', { port: 6000, remoteRoot: '/srv/app' });
  assert.deepEqual(remote.configurations[0].connect, { host: 'localhost', port: 6000 });
  assert.equal(remote.configurations[0].pathMappings[0].remoteRoot, '/srv/app');
  assert.ok(remote.comment.some((l) => l.trim() === 'python -Xfrozen_modules=off -m debugpy --listen 127.0.0.1:6000 --wait-for-client train.py'));
  assert.ok(remote.comment.some((l) => l.includes('ssh -N -L 6000:127.0.0.1:6000 ')));
});

test('multi-worker pair: chief and worker TF_CONFIG on localhost ports, and a compound', () => {
  const mw = t.getTemplate('multiWorker', { workerPorts: [2001, 2002] });
  assert.equal(mw.configurations.length, 2);
  const [chief, worker] = mw.configurations.map((c) => JSON.parse(c.env.TF_CONFIG));
  const cluster = { chief: ['localhost:2001'], worker: ['localhost:2002'] };
  assert.deepEqual(chief, { cluster, task: { type: 'chief', index: 0 } });
  assert.deepEqual(worker, { cluster, task: { type: 'worker', index: 0 } });
  assert.deepEqual(mw.compounds, [
    { name: 'TensorFlow: Multi-worker (chief + worker)', configurations: mw.configurations.map((c) => c.name), stopAll: true },
  ]);
  assert.deepEqual(JSON.parse(t.getTemplate('multiWorker').configurations[0].env.TF_CONFIG).cluster, {
    chief: ['localhost:12345'],
    worker: ['localhost:12346'],
  });
});

test('templates are fresh objects each time (callers may change them)', () => {
  const a = t.getTemplate('currentFile').configurations[0];
  a.env.X = '1';
  assert.equal(t.getTemplate('currentFile').configurations[0].env.X, undefined);
});
