// @ts-check
'use strict';
/**
 * Launch templates for TensorFlow programs, for the Python Debugger's `debugpy` type.
 * Pure data and functions: no `require('vscode')`, so they are unit-tested with `node --test`.
 */

const DEFAULT_ATTACH_PORT = 5678;
const DEFAULT_WORKER_PORTS = /** @type {[number, number]} */ ([12345, 12346]);

/**
 * TF_CPP_MIN_LOG_LEVEL=1 hides the INFO lines of TensorFlow's C++ log ("This TensorFlow binary
 * is optimized to use available CPU instructions...") and keeps WARNING and ERROR, which a user
 * may need (a GPU library that failed to load, for instance). 2 would also hide warnings.
 * Remove the entry (or set "0") to see everything. No level hides the two lines TF >= 2.16 prints
 * while it is imported, "WARNING: All log messages before absl::InitializeLog() is called are
 * written to STDERR" and "I0000 ... port.cc] oneDNN custom operations are on": they go through
 * absl's log before anything reads this variable (TF 2.21, measured). TF_ENABLE_ONEDNN_OPTS=0
 * removes the second by turning oneDNN off, which changes results and speed: not set here.
 */
const QUIET_TF_LOG = Object.freeze({ TF_CPP_MIN_LOG_LEVEL: '1' });

const LOG_NOTE =
  'TF_CPP_MIN_LOG_LEVEL=1 hides the INFO lines of TensorFlow\'s C++ log and keeps warnings and errors; ' +
  'set it to "0" (or delete it) to see everything, "2" to hide warnings as well. ' +
  'No level hides the oneDNN and absl lines TensorFlow prints while it is imported.';

/**
 * @typedef {{ type: string, name: string, request: string, [key: string]: any }} DebugConfiguration
 * @typedef {{ name: string, configurations: string[], stopAll?: boolean, presentation?: object }} Compound
 * @typedef {{
 *   id: string,
 *   label: string,
 *   description: string,
 *   detail: string,
 *   comment: string[],
 *   configurations: DebugConfiguration[],
 *   compounds: Compound[],
 * }} Template
 * @typedef {{ module?: string, port?: number, host?: string, remoteRoot?: string,
 *   workerPorts?: [number, number], script?: string, bundleDir?: string }} TemplateOptions
 */

/**
 * @param {{ name: string, request: string, [key: string]: any }} config
 * @returns {DebugConfiguration}
 */
function base(config) {
  return Object.assign({ type: 'debugpy' }, config);
}

/**
 * The command that starts the debuggee inside the official TensorFlow Jupyter image.
 *
 * Inside the container debugpy must listen on 0.0.0.0: Docker's port publishing forwards to
 * the container's own network interface, so a server bound to the container's 127.0.0.1 is
 * unreachable through `-p`. What keeps the port off the network is the publishing side:
 * `-p 127.0.0.1:PORT:PORT` makes it reachable from the host's loopback only.
 * With bundleDir (the extension's bundled Python folder), the command also mounts it read-only
 * and puts it on PYTHONPATH, so tensors are presented without installing anything in the image.
 * The path changes when the extension is updated.
 * @param {{ port: number, remoteRoot: string, script: string, bundleDir?: string }} o
 */
function dockerCommand(o) {
  const bundle = o.bundleDir
    ? `-v "${o.bundleDir}":/opt/tf-debug-repr:ro -e PYTHONPATH=/opt/tf-debug-repr:/opt/tf-debug-repr/pydevd16 `
    : '';
  return (
    `docker run --rm -it -p 127.0.0.1:${o.port}:${o.port} -v "$PWD":${o.remoteRoot} -w ${o.remoteRoot} ${bundle}` +
    `tensorflow/tensorflow:latest-jupyter python -Xfrozen_modules=off -m debugpy --listen 0.0.0.0:${o.port} --wait-for-client ${o.script}`
  );
}

/** @param {{ port: number, script: string }} o */
function remoteCommand(o) {
  return `python -Xfrozen_modules=off -m debugpy --listen 127.0.0.1:${o.port} --wait-for-client ${o.script}`;
}

/**
 * TF_CONFIG for one task of a chief + worker cluster on localhost.
 * @param {'chief' | 'worker'} type
 * @param {[number, number]} ports
 */
function tfConfig(type, ports) {
  return JSON.stringify({
    cluster: { chief: [`localhost:${ports[0]}`], worker: [`localhost:${ports[1]}`] },
    task: { type, index: 0 },
  });
}

/**
 * All templates, in the order the quick pick shows them.
 * @param {TemplateOptions} [options]
 * @returns {Template[]}
 */
function getTemplates(options = {}) {
  const port = options.port ?? DEFAULT_ATTACH_PORT;
  const host = options.host ?? 'localhost';
  const remoteRoot = options.remoteRoot ?? '/tf/notebooks';
  const moduleName = options.module ?? 'your_package.train';
  const script = options.script ?? 'train.py';
  const workerPorts = options.workerPorts ?? DEFAULT_WORKER_PORTS;
  const docker = dockerCommand({ port, remoteRoot, script, bundleDir: options.bundleDir });
  const remote = remoteCommand({ port, script });

  return [
    {
      id: 'currentFile',
      label: 'TensorFlow: Current File',
      description: 'Debug the Python file in the active editor',
      detail: 'Everyday choice for a training script or notebook-turned-script. A breakpoint inside a @tf.function or a Keras train_step stops with values: tf-debug-repr runs that function eagerly while the breakpoint is there, the rest stays compiled. Output goes to the integrated terminal; TensorFlow\'s C++ INFO lines are hidden.',
      comment: [LOG_NOTE],
      configurations: [
        base({
          name: 'TensorFlow: Current File',
          request: 'launch',
          program: '${file}',
          console: 'integratedTerminal',
          justMyCode: true,
          env: { ...QUIET_TF_LOG },
        }),
      ],
      compounds: [],
    },
    {
      id: 'module',
      label: 'TensorFlow: Module',
      description: 'Debug `python -m <module>` from the workspace folder',
      detail: 'For code laid out as a package (python -m your_package.train). The module is asked for when the configuration is added.',
      comment: [LOG_NOTE],
      configurations: [
        base({
          name: `TensorFlow: Module ${moduleName}`,
          request: 'launch',
          module: moduleName,
          cwd: '${workspaceFolder}',
          console: 'integratedTerminal',
          justMyCode: true,
          env: { ...QUIET_TF_LOG },
        }),
      ],
      compounds: [],
    },
    {
      id: 'pytestFile',
      label: 'TensorFlow: Pytest Current File',
      description: 'Debug the tests in the active file; also used by the Test Explorer\'s "Debug Test"',
      detail: 'Runs pytest on the active file. "purpose": ["debug-test"] makes the Python extension use this configuration\'s env, console and justMyCode when you debug a test from the Testing view (it supplies its own program and arguments then).',
      comment: ['"purpose": ["debug-test"]: the Testing view\'s "Debug Test" uses this configuration\'s settings (env, console, justMyCode).', LOG_NOTE],
      configurations: [
        base({
          name: 'TensorFlow: Pytest Current File',
          request: 'launch',
          module: 'pytest',
          args: ['${file}'],
          cwd: '${workspaceFolder}',
          console: 'integratedTerminal',
          justMyCode: true,
          purpose: ['debug-test'],
          env: { ...QUIET_TF_LOG },
        }),
      ],
      compounds: [],
    },
    {
      id: 'stepIntoLibraries',
      label: 'TensorFlow: Current File, step into TensorFlow/Keras',
      description: 'justMyCode off: step into and stop inside TensorFlow and Keras sources',
      detail: 'When the bug may be in how you call TensorFlow or Keras: breakpoints and "Step Into" work in library code, and exceptions raised inside TensorFlow stop where they are raised. Nothing is hidden from the C++ log.',
      comment: ['justMyCode false: stepping enters TensorFlow/Keras sources, and exceptions stop inside the library.'],
      configurations: [
        base({
          name: 'TensorFlow: Current File (step into TensorFlow/Keras)',
          request: 'launch',
          program: '${file}',
          console: 'integratedTerminal',
          justMyCode: false,
        }),
      ],
      compounds: [],
    },
    {
      id: 'eager',
      label: 'TensorFlow: Current File, functions run eagerly',
      description: 'Every @tf.function and Dataset.map function runs as plain Python',
      detail: 'Not needed for a breakpoint in a @tf.function or a Keras train_step: without it, the function holding the breakpoint runs eagerly by itself. TF_DEBUG_REPR_EAGER=1 makes tf-debug-repr call tf.config.run_functions_eagerly(True) and tf.data.experimental.enable_debug_mode() when TensorFlow is imported, so every tf.function and tf.data function (Dataset.map too) runs as plain Python. Slower; use it to find a bug, not to train.',
      comment: [
        'TF_DEBUG_REPR_EAGER=1: every tf.function and tf.data function (Dataset.map too) runs as plain Python (slower than graph mode). Without it, a tf.function holding a breakpoint already runs eagerly by itself.',
        LOG_NOTE,
      ],
      configurations: [
        base({
          name: 'TensorFlow: Current File (functions run eagerly)',
          request: 'launch',
          program: '${file}',
          console: 'integratedTerminal',
          justMyCode: true,
          env: { TF_DEBUG_REPR_EAGER: '1', ...QUIET_TF_LOG },
        }),
      ],
      compounds: [],
    },
    {
      id: 'checkNumerics',
      label: 'TensorFlow: Current File, stop where a NaN is born',
      description: 'Stops at the line whose TensorFlow op first produced a NaN or Inf',
      detail: 'TF_DEBUG_REPR_CHECK_NUMERICS=1 makes tf-debug-repr check every floating output of every TensorFlow op. The first NaN raises where the op ran, and VS Code\'s default exception breakpoint (Uncaught Exceptions) stops at your line: which op, device, how many bad values and where, its inputs, and expressions that give the op\'s tensors. Inf and -Inf pass (attention masks, log(0)), except an Inf made by a division by zero; set the variable to nan,inf to stop at them too. Inside tf.function it names the op and the line that created it. Slower; values are unchanged.',
      comment: [
        'TF_DEBUG_REPR_CHECK_NUMERICS=1: the first NaN produced by a TensorFlow op stops the program at your line that ran the op (VS Code\'s default "Uncaught Exceptions" breakpoint is all it needs). Inf and -Inf pass, except a division by zero\'s; "nan,inf" stops at them too. Every op\'s output is checked: slower, values unchanged.',
        LOG_NOTE,
      ],
      configurations: [
        base({
          name: 'TensorFlow: Current File (stop where a NaN is born)',
          request: 'launch',
          program: '${file}',
          console: 'integratedTerminal',
          justMyCode: true,
          env: { TF_DEBUG_REPR_CHECK_NUMERICS: '1', ...QUIET_TF_LOG },
        }),
      ],
      compounds: [],
    },
    {
      id: 'attachDocker',
      label: 'TensorFlow: Attach to Docker container',
      description: `Attach to a program in a container (tensorflow/tensorflow:*-jupyter), port ${port} on the host's loopback`,
      detail: `Start the program in the container with:  ${docker}   then start this configuration. The workspace folder maps to ${remoteRoot}.`,
      comment: [
        'Start the program in the container first (from the workspace folder; the port is published on the host\'s loopback only):',
        `  ${docker}`,
        'debugpy listens on 0.0.0.0 inside the container because Docker forwards published ports to the container\'s own interface; 127.0.0.1 there would be unreachable.',
        options.bundleDir
          ? 'The -v/-e PYTHONPATH part mounts the extension\'s bundled tf-debug-repr so tensors are presented; its path changes when the extension is updated (or pip install tf-debug-repr in the image and drop that part).'
          : 'Tensors are presented as plain repr() unless the container can import tf-debug-repr: pip install tf-debug-repr there, or mount the extension\'s bundled folder and put it on PYTHONPATH (see the extension\'s README).',
      ],
      configurations: [
        base({
          name: 'TensorFlow: Attach to Docker container',
          request: 'attach',
          connect: { host, port },
          pathMappings: [{ localRoot: '${workspaceFolder}', remoteRoot }],
          justMyCode: true,
        }),
      ],
      compounds: [],
    },
    {
      id: 'attachRemote',
      label: 'TensorFlow: Attach to remote machine (SSH tunnel)',
      description: `Attach through an SSH tunnel to a program on another machine, port ${port}`,
      detail: `On the remote machine:  ${remote}   here:  ssh -N -L ${port}:127.0.0.1:${port} user@remote-host   then start this configuration. Set remoteRoot to the program's folder there.`,
      comment: [
        'On the remote machine, in the program\'s folder (bound to its loopback, never reachable from the network):',
        `  ${remote}`,
        'Here, forward the port through SSH:',
        `  ssh -N -L ${port}:127.0.0.1:${port} user@remote-host`,
        'Set remoteRoot to the program\'s folder on the remote machine.',
      ],
      configurations: [
        base({
          name: 'TensorFlow: Attach to remote machine',
          request: 'attach',
          connect: { host, port },
          pathMappings: [{ localRoot: '${workspaceFolder}', remoteRoot: options.remoteRoot ?? '/home/user/project' }],
          justMyCode: true,
        }),
      ],
      compounds: [],
    },
    {
      id: 'multiWorker',
      label: 'TensorFlow: Multi-worker pair (chief + worker) on this machine',
      description: 'Two processes with TF_CONFIG, for MultiWorkerMirroredStrategy code',
      detail: `Adds a chief and a worker configuration running the active file, each with its TF_CONFIG (localhost:${workerPorts[0]} and localhost:${workerPorts[1]}), and a compound that starts both. Breakpoints hit in either process.`,
      comment: [
        `Chief and worker on this machine (ports ${workerPorts[0]} and ${workerPorts[1]}); start both with the compound "TensorFlow: Multi-worker (chief + worker)".`,
        `Note: TensorFlow's gRPC servers listen on every network interface (whatever TF_CONFIG says) and are unauthenticated: anyone who reaches ports ${workerPorts[0]}-${workerPorts[1]} can run ops in these processes. Use a trusted network or a firewall.`,
      ],
      configurations: [
        base({
          name: 'TensorFlow: Multi-worker chief',
          request: 'launch',
          program: '${file}',
          console: 'integratedTerminal',
          justMyCode: true,
          env: { TF_CONFIG: tfConfig('chief', workerPorts), ...QUIET_TF_LOG },
        }),
        base({
          name: 'TensorFlow: Multi-worker worker',
          request: 'launch',
          program: '${file}',
          console: 'integratedTerminal',
          justMyCode: true,
          env: { TF_CONFIG: tfConfig('worker', workerPorts), ...QUIET_TF_LOG },
        }),
      ],
      compounds: [
        {
          name: 'TensorFlow: Multi-worker (chief + worker)',
          configurations: ['TensorFlow: Multi-worker chief', 'TensorFlow: Multi-worker worker'],
          stopAll: true,
        },
      ],
    },
  ];
}

/**
 * @param {string} id
 * @param {TemplateOptions} [options]
 */
function getTemplate(id, options) {
  const t = getTemplates(options).find((x) => x.id === id);
  if (!t) throw new Error(`unknown template ${id}`);
  return t;
}

module.exports = {
  getTemplates,
  getTemplate,
  dockerCommand,
  remoteCommand,
  tfConfig,
  QUIET_TF_LOG,
  DEFAULT_ATTACH_PORT,
  DEFAULT_WORKER_PORTS,
};
