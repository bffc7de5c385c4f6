// @ts-check
'use strict';
/**
 * End-to-end harness: drives a real `python -m debugpy.adapter` with Microsoft's DAP client
 * (@vscode/debugadapter-testsupport's DebugClient), the way VS Code does, and plays the part of
 * VS Code around it: variable substitution, the extension's resolver, and the integrated
 * terminal (runInTerminal is answered by spawning the command with its cwd and env).
 */
const cp = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { after } = require('node:test');
const { DebugClient } = require('@vscode/debugadapter-testsupport');
const { resolveConfiguration } = require('../../src/launch/pythonPath');

const EXT_ROOT = path.resolve(__dirname, '..', '..');
const REPO_ROOT = path.resolve(EXT_ROOT, '..');
const FIXTURES = path.join(EXT_ROOT, 'test', 'fixtures');
const BUNDLE_DIR = path.join(EXT_ROOT, 'python');
const TIMEOUT = 90_000;

/** The interpreter with TensorFlow and debugpy: $TFDR_PYTHON, else the repository's .venv. */
function mainPython() {
  const p = process.env.TFDR_PYTHON || path.join(REPO_ROOT, '.venv', process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');
  if (!fs.existsSync(p)) throw new Error(`no Python with TensorFlow and debugpy at ${p}; set TFDR_PYTHON`);
  return p;
}

/** process.env without PYTHONPATH, so that only what a configuration sets reaches the debuggee. */
function baseEnv() {
  const env = { ...process.env };
  delete env.PYTHONPATH;
  delete env.DEBUGPY_LOG_DIR;
  if (process.env.TFDR_E2E_LOG_DIR) env.DEBUGPY_LOG_DIR = process.env.TFDR_E2E_LOG_DIR;
  return env;
}

/**
 * VS Code's variable substitution for the variables the templates use.
 * @param {any} value
 * @param {{ file?: string, workspaceFolder: string, env?: NodeJS.ProcessEnv }} vars
 * @returns {any}
 */
function substitute(value, vars) {
  if (typeof value === 'string') {
    return value.replace(/\$\{(\w+)(?::([^}]*))?\}/g, (m, name, arg) => {
      switch (name) {
        case 'file':
          if (!vars.file) throw new Error('${file} used but no active file');
          return vars.file;
        case 'workspaceFolder':
          return vars.workspaceFolder;
        case 'workspaceFolderBasename':
          return path.basename(vars.workspaceFolder);
        case 'fileDirname':
          return path.dirname(/** @type {string} */ (vars.file));
        case 'fileBasename':
          return path.basename(/** @type {string} */ (vars.file));
        case 'env':
          return (vars.env ?? process.env)[arg] ?? '';
        case 'pathSeparator':
          return path.sep;
        default:
          throw new Error(`substitute: unsupported variable ${m}`);
      }
    });
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, vars));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, vars)]));
  }
  return value;
}

/**
 * A configuration as VS Code hands it to the debug adapter: variables substituted, then
 * the extension's resolveDebugConfigurationWithSubstitutedVariables (the same function
 * extension.js registers), then the interpreter the Python Debugger extension would fill in.
 * @param {object} config
 * @param {{ file?: string, workspaceFolder?: string, python?: string, bundledPlugin?: boolean, env?: NodeJS.ProcessEnv }} [o]
 */
function resolveAsVSCode(config, o = {}) {
  const env = o.env ?? baseEnv();
  const substituted = substitute(config, { file: o.file, workspaceFolder: o.workspaceFolder ?? FIXTURES, env });
  const resolved = resolveConfiguration(substituted, {
    bundledPlugin: o.bundledPlugin ?? true,
    bundleDir: BUNDLE_DIR,
    platform: process.platform,
    inheritedPythonPath: env.PYTHONPATH,
  });
  return { ...resolved, python: o.python ?? mainPython() };
}

/**
 * Line number (1-based) of the line containing `marker` in a fixture file.
 * @param {string} file @param {string} marker
 */
function lineOf(file, marker) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes(marker));
  if (i < 0) throw new Error(`${marker} not found in ${file}`);
  return i + 1;
}

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = /** @type {net.AddressInfo} */ (srv.address()).port;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * A running process whose output is collected (stands in for the integrated terminal).
 * @param {string} file @param {string[]} args @param {cp.SpawnOptions} opts
 */
function spawnCaptured(file, args, opts) {
  const child = cp.spawn(file, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const t = { child, stdout: '', stderr: '', exited: new Promise((r) => child.on('exit', (code) => r(code))) };
  child.stdout?.on('data', (d) => (t.stdout += d));
  child.stderr?.on('data', (d) => (t.stderr += d));
  return t;
}

/** Every process the harness started, killed after the test file so a hung test cannot hang the run. */
/** @type {Set<cp.ChildProcess>} */
const children = new Set();
after(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

class Session {
  /** @param {{ python?: string, name?: string, exceptionFilters?: string[] }} [o] */
  constructor(o = {}) {
    this.name = o.name ?? 'session';
    /** @type {ReturnType<typeof spawnCaptured>[]} */
    this.terminals = [];
    /** @type {any[]} */
    this.runInTerminalRequests = [];
    /** @type {string[]} */
    this.consoleOutput = [];
    /** The exception breakpoints set at start (VS Code's default with debugpy: ['uncaught']). @type {string[]} */
    this.exceptionFilters = o.exceptionFilters ?? [];
    this.dc = new DebugClient(o.python ?? mainPython(), '-mdebugpy.adapter', 'debugpy', { env: baseEnv() }, !!process.env.TFDR_E2E_VERBOSE);
    this.dc.defaultTimeout = TIMEOUT;
    const dc = /** @type {any} */ (this.dc);
    const dispatch = dc.dispatch.bind(dc);
    // DebugClient drops reverse requests; answer runInTerminal like VS Code's terminal does.
    dc.dispatch = (/** @type {string} */ body) => {
      const msg = JSON.parse(body);
      if (msg.type === 'request') return this.onReverseRequest(msg);
      return dispatch(body);
    };
    this.dc.on('output', (/** @type {any} */ e) => this.consoleOutput.push(e.body.output));
  }

  /** @param {any} req */
  onReverseRequest(req) {
    const dc = /** @type {any} */ (this.dc);
    /** @param {boolean} success @param {any} [body] @param {string} [message] */
    const respond = (success, body, message) => {
      const json = JSON.stringify({ type: 'response', seq: 0, request_seq: req.seq, command: req.command, success, body, message });
      dc.outputStream.write(`Content-Length: ${Buffer.byteLength(json, 'utf8')}\r\n\r\n${json}`, 'utf8');
    };
    if (req.command !== 'runInTerminal') return respond(false, undefined, `unsupported reverse request ${req.command}`);
    this.runInTerminalRequests.push(req.arguments);
    const a = req.arguments;
    const env = { ...baseEnv() };
    for (const [k, v] of Object.entries(a.env ?? {})) {
      if (v === null) delete env[k];
      else env[k] = String(v);
    }
    const t = spawnCaptured(a.args[0], a.args.slice(1), { cwd: a.cwd, env });
    this.terminals.push(t);
    respond(true, { processId: t.child.pid });
  }

  /** Everything the program wrote to the "terminal" so far. */
  terminalOutput() {
    return this.terminals.map((t) => t.stdout + t.stderr).join('');
  }

  /**
   * initialize, launch/attach, breakpoints, configurationDone; resolves at the first stop.
   * @param {'launch' | 'attach'} request
   * @param {object} config
   * @param {{ path: string, lines: number[] }[]} breakpoints
   */
  async start(request, config, breakpoints) {
    const connect = /** @type {any} */ (config).connect;
    if (request === 'attach' && connect) {
      // For attach with "connect", VS Code does not start an adapter: the debugpy extension
      // hands it a DebugAdapterServer(host, port), the adapter that `python -m debugpy --listen`
      // started next to the program. DebugClient.start(port) does the same. (DebugClient has
      // no timeouts in that mode; withTimeout below puts them back.)
      await connectWithRetry(this.dc, connect.port, 30_000);
    } else {
      await this.dc.start();
      const adapter = /** @type {any} */ (this.dc)._adapterProcess;
      if (adapter) children.add(adapter);
    }
    const init = await this.dc.initializeRequest({
      adapterID: 'debugpy',
      clientID: 'vscode',
      clientName: 'Visual Studio Code',
      linesStartAt1: true,
      columnsStartAt1: true,
      pathFormat: 'path',
      supportsVariableType: true,
      supportsRunInTerminalRequest: true,
      supportsStartDebuggingRequest: false,
    });
    this.capabilities = init.body;
    const initialized = this.dc.waitForEvent('initialized');
    const stopped = this.dc.waitForEvent('stopped');
    /** @type {Promise<any>} */
    const started = request === 'launch' ? this.dc.launchRequest(/** @type {any} */ (config)) : this.dc.attachRequest(/** @type {any} */ (config));
    started.catch(() => {});
    await withTimeout(Promise.race([initialized, started.then(() => initialized)]), TIMEOUT, 'initialized event');
    for (const bp of breakpoints) {
      const r = await this.dc.setBreakpointsRequest({ source: { path: bp.path }, breakpoints: bp.lines.map((line) => ({ line })) });
      this.breakpointResponse = r.body;
    }
    await this.dc.setExceptionBreakpointsRequest({ filters: this.exceptionFilters });
    await this.dc.configurationDoneRequest();
    await withTimeout(started, TIMEOUT, `${request} response`);
    return /** @type {any} */ (await withTimeout(stopped, TIMEOUT, 'stopped event'));
  }

  /** @param {number} threadId */
  async topFrame(threadId) {
    const st = await this.dc.stackTraceRequest({ threadId, startFrame: 0, levels: 20 });
    return { top: st.body.stackFrames[0], frames: st.body.stackFrames };
  }

  /** The frame's local variables by name. @param {number} frameId */
  async locals(frameId) {
    const scopes = await this.dc.scopesRequest({ frameId });
    const local = scopes.body.scopes.find((s) => /local/i.test(s.name)) ?? scopes.body.scopes[0];
    const vars = await this.dc.variablesRequest({ variablesReference: local.variablesReference });
    return Object.fromEntries(vars.body.variables.map((v) => [v.name, v]));
  }

  /** @param {string} expression @param {number} frameId */
  async evaluate(expression, frameId) {
    const r = await this.dc.evaluateRequest({ expression, frameId, context: 'repl' });
    return r.body.result;
  }

  /** Continue and wait for the program to end and the terminal to close. @param {number} threadId */
  async finish(threadId) {
    const terminated = this.dc.waitForEvent('terminated');
    await this.dc.continueRequest({ threadId });
    await withTimeout(terminated, TIMEOUT, 'terminated event');
    await Promise.all(this.terminals.map((t) => withTimeout(t.exited, 30_000, 'terminal process did not exit')));
  }

  async close() {
    try {
      await withTimeout(this.dc.stop(), 10_000, 'stop');
    } catch {
      /* the adapter may be gone already */
    }
    for (const t of this.terminals) if (t.child.exitCode === null) t.child.kill();
  }
}

/**
 * Connects the client to a DAP server on 127.0.0.1:port, retrying while nothing listens yet.
 * What DebugClient.start(port) does, plus the retry (its own connect has no error handler, and a
 * probe connection cannot be used: debugpy's listening adapter takes the first client it gets).
 * @param {DebugClient} dc @param {number} port @param {number} ms
 */
async function connectWithRetry(dc, port, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    /** @type {net.Socket | null} */
    const sock = await new Promise((resolve) => {
      const c = net.createConnection(port, '127.0.0.1', () => resolve(c));
      c.on('error', () => resolve(null));
    });
    if (sock) {
      const anyDc = /** @type {any} */ (dc);
      anyDc._socket = sock;
      anyDc.connect(sock, sock);
      return;
    }
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** @template T @param {Promise<T>} p @param {number} ms @param {string} what @returns {Promise<T>} */
function withTimeout(p, ms, what) {
  /** @type {NodeJS.Timeout} */
  let timer;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    }),
  ]);
}

/** The stock repr of an EagerTensor starts like this; the plugin's summary does not. */
const STOCK_REPR = '<tf.Tensor';

module.exports = {
  EXT_ROOT,
  REPO_ROOT,
  FIXTURES,
  BUNDLE_DIR,
  TIMEOUT,
  STOCK_REPR,
  Session,
  baseEnv,
  freePort,
  lineOf,
  mainPython,
  resolveAsVSCode,
  spawnCaptured,
  substitute,
  withTimeout,
  tmpdir: () => fs.mkdtempSync(path.join(os.tmpdir(), 'tfdr-e2e-')),
};
