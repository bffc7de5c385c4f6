const vscode = require('vscode');
const PY = process.env.STANDIN_PYTHON || '/work/main/.venv/bin/python';
const LOG_DIR = process.env.STANDIN_LOG_DIR || '/tmp/vscode-smoke/logs/debugpy';
function activate(context) {
  const out = vscode.window.createOutputChannel('debugpy stand-in');
  context.subscriptions.push(vscode.debug.registerDebugAdapterDescriptorFactory('debugpy', {
    createDebugAdapterDescriptor(session) {
      out.appendLine('starting adapter for ' + JSON.stringify(session.configuration));
      return new vscode.DebugAdapterExecutable(PY, ['-m', 'debugpy.adapter', '--log-dir', LOG_DIR]);
    },
  }));
  context.subscriptions.push(vscode.debug.registerDebugConfigurationProvider('debugpy', {
    resolveDebugConfiguration(folder, config) {
      if (!config.type && !config.request && !config.name) return undefined;
      if (config.request === 'launch' && !config.python) config.python = PY;
      return config;
    },
  }));
}
module.exports = { activate, deactivate() {} };
