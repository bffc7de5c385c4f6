const fs = require('fs');
const vscode = require('vscode');
const PY = process.env.STANDIN_PYTHON || '/work/main/.venv/bin/python';
// `none`: no debugpy logs (they format every message, a 1 MB payload too, and slow what is timed)
const LOG_DIR = process.env.STANDIN_LOG_DIR || '/tmp/vscode-smoke/logs/debugpy';
// When set: one JSON line per `evaluate` request and response seen in the extension host,
// {t: Date.now(), dir, seq, bytes, expression}: the DAP round trip of driver/viewtime.js.
const DAP_TIMES = process.env.STANDIN_DAP_TIMES;
function activate(context) {
  const out = vscode.window.createOutputChannel('debugpy stand-in');
  context.subscriptions.push(vscode.debug.registerDebugAdapterDescriptorFactory('debugpy', {
    createDebugAdapterDescriptor(session) {
      out.appendLine('starting adapter for ' + JSON.stringify(session.configuration));
      const logArgs = LOG_DIR === 'none' ? [] : ['--log-dir', LOG_DIR];
      return new vscode.DebugAdapterExecutable(PY, ['-m', 'debugpy.adapter', ...logArgs]);
    },
  }));
  if (DAP_TIMES) {
    const note = (dir, m) => fs.appendFileSync(DAP_TIMES, JSON.stringify({ t: Date.now(), dir, seq: m.seq, request_seq: m.request_seq,
      bytes: dir === 'response' ? String(m.body && m.body.result).length : undefined,
      expression: dir === 'request' ? String(m.arguments && m.arguments.expression).slice(0, 80) : undefined }) + '\n');
    context.subscriptions.push(vscode.debug.registerDebugAdapterTrackerFactory('debugpy', {
      createDebugAdapterTracker() {
        return {
          onWillReceiveMessage(m) { if (m && m.type === 'request' && m.command === 'evaluate') note('request', m); },
          onDidSendMessage(m) { if (m && m.type === 'response' && m.command === 'evaluate') note('response', m); },
        };
      },
    }));
  }
  context.subscriptions.push(vscode.debug.registerDebugConfigurationProvider('debugpy', {
    resolveDebugConfiguration(folder, config) {
      if (!config.type && !config.request && !config.name) return undefined;
      if (config.request === 'launch' && !config.python) config.python = PY;
      return config;
    },
  }));
}
module.exports = { activate, deactivate() {} };
