// @ts-check
'use strict';
/**
 * The launch side wired to the editor: the debugpy configuration providers (the bundled plugin
 * on PYTHONPATH; the dynamic configurations), "TensorFlow: Add Debug Configuration…", and the
 * template completions inside launch.json. The pure parts live beside this file (templates,
 * launchJson, pythonPath, completion).
 */
const fs = require('node:fs');
const path = require('node:path');
const vscode = require('vscode');
const { getTemplates, getTemplate, dockerCommand, remoteCommand, DEFAULT_ATTACH_PORT } = require('./templates');
const { addTemplates, minimalEdit } = require('./launchJson');
const { resolveConfiguration } = require('./pythonPath');
const { canComplete, templateSnippet, commasAround } = require('./completion');
const { showError, showInfo, showWarning } = require('../notify');

const SECTION = 'tfDebugRepr';
const COMMAND_ADD = 'tfDebugRepr.addDebugConfiguration';
const COMMAND_ADD_COMPOUNDS = 'tfDebugRepr.internal.addCompounds';
/** Templates offered as dynamic configurations (Run and Debug view, no launch.json needed). */
const DYNAMIC_TEMPLATES = ['currentFile', 'stepIntoLibraries', 'eager', 'pytestFile'];

/**
 * Registers the launch side; returns its disposables.
 * @param {vscode.ExtensionContext} context @param {vscode.OutputChannel} log
 * @returns {vscode.Disposable[]}
 */
function registerLaunch(context, log) {
  const bundleDir = context.asAbsolutePath('python');
  const bundlePresent = fs.existsSync(path.join(bundleDir, 'pydevd_plugins', 'extensions'));
  if (!bundlePresent) log.appendLine(`bundled Python folder missing at ${bundleDir}; run "npm run bundle-python"`);
  return [
    vscode.debug.registerDebugConfigurationProvider('debugpy', {
      // Only the hook that runs after variable substitution and after the Python Debugger's own
      // resolveDebugConfiguration: the empty F5 configuration is filled in by that extension
      // before this sees it, and env holds what its resolution merged (envFile, PYTHONPATH).
      resolveDebugConfigurationWithSubstitutedVariables(folder, config) {
        const enabled = vscode.workspace.getConfiguration(SECTION, folder?.uri).get('bundledPlugin', true);
        const resolved = resolveConfiguration(config, {
          bundledPlugin: enabled && bundlePresent,
          bundleDir,
          platform: process.platform,
          inheritedPythonPath: process.env.PYTHONPATH,
        });
        if (resolved !== config) log.appendLine(`"${config.name}": PYTHONPATH=${resolved.env.PYTHONPATH}`);
        return resolved;
      },
    }),
    vscode.debug.registerDebugConfigurationProvider(
      'debugpy',
      {
        provideDebugConfigurations() {
          return getTemplates()
            .filter((t) => DYNAMIC_TEMPLATES.includes(t.id))
            .map((t) => t.configurations[0]);
        },
      },
      vscode.DebugConfigurationProviderTriggerKind.Dynamic,
    ),
    vscode.commands.registerCommand(COMMAND_ADD, (/** @type {vscode.Uri | undefined} */ uri) => addDebugConfiguration(uri, bundleDir)),
    vscode.commands.registerCommand(COMMAND_ADD_COMPOUNDS, addCompounds),
    vscode.languages.registerCompletionItemProvider({ language: 'jsonc', pattern: '**/launch.json' }, { provideCompletionItems }),
  ];
}

/**
 * "TensorFlow: Add Debug Configuration…": pick templates, write them into .vscode/launch.json.
 * @param {vscode.Uri | undefined} uri @param {string} bundleDir
 */
async function addDebugConfiguration(uri, bundleDir) {
  const folder = await pickFolder(uri);
  if (!folder) return;
  const picks = getTemplates().map((t) => ({ label: t.label, description: t.description, detail: t.detail, id: t.id }));
  const chosen = await vscode.window.showQuickPick(picks, {
    canPickMany: true,
    title: 'TensorFlow: Add Debug Configuration',
    placeHolder: 'Choose the configurations to add to .vscode/launch.json',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!chosen || chosen.length === 0) return;

  /** @type {import('./templates').TemplateOptions} */
  const options = { bundleDir };
  if (chosen.some((c) => c.id === 'module')) {
    const module = await vscode.window.showInputBox({
      title: 'TensorFlow: Module',
      prompt: 'Module to run with python -m',
      value: guessModule(folder),
      validateInput: (v) => (/^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$/.test(v.trim()) ? undefined : 'A dotted module name, such as your_package.train'),
    });
    if (module === undefined) return;
    options.module = module.trim();
  }
  const templates = chosen.map((c) => getTemplate(c.id, options));

  const launchUri = vscode.Uri.joinPath(folder.uri, '.vscode', 'launch.json');
  let result;
  try {
    result = await editLaunchJson(launchUri, (text) => addTemplates(text, templates));
  } catch (e) {
    showError(`TensorFlow: ${/** @type {Error} */ (e).message}`);
    return;
  }
  const doc = await vscode.workspace.openTextDocument(launchUri);
  await vscode.window.showTextDocument(doc, { preview: false });

  const parts = [];
  if (result.added.length) parts.push(`Added ${result.added.map((n) => `"${n}"`).join(', ')} to launch.json.`);
  if (result.skipped.length) parts.push(`Already there: ${result.skipped.map((n) => `"${n}"`).join(', ')}.`);
  const commands = [];
  const port = DEFAULT_ATTACH_PORT;
  if (chosen.some((c) => c.id === 'attachDocker')) commands.push({ label: 'Copy Docker command', text: dockerCommand({ port, remoteRoot: '/tf/notebooks', script: 'train.py', bundleDir }) });
  if (chosen.some((c) => c.id === 'attachRemote')) commands.push({ label: 'Copy remote command', text: remoteCommand({ port, script: 'train.py' }) });
  const action = await showInfo(parts.join(' '), ...commands.map((c) => c.label));
  const copy = commands.find((c) => c.label === action);
  if (copy) {
    await vscode.env.clipboard.writeText(copy.text);
    showInfo('Copied. Run it where the program lives, then start the attach configuration.');
  }
}

/**
 * Applies `change` to launch.json: through the open document when there is one (unsaved edits
 * kept, one undo step), else on disk; creates the file when it is missing.
 * @param {vscode.Uri} launchUri
 * @param {(text: string | undefined) => import('./launchJson').AddResult} change
 */
async function editLaunchJson(launchUri, change) {
  let exists = true;
  try {
    await vscode.workspace.fs.stat(launchUri);
  } catch {
    exists = false;
  }
  if (!exists) {
    const result = change(undefined);
    await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(launchUri, '..'));
    await vscode.workspace.fs.writeFile(launchUri, Buffer.from(result.text, 'utf8'));
    return result;
  }
  const doc = await vscode.workspace.openTextDocument(launchUri);
  const before = doc.getText();
  const result = change(before);
  if (result.text !== before) {
    const e = minimalEdit(before, result.text);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(launchUri, new vscode.Range(doc.positionAt(e.offset), doc.positionAt(e.offset + e.length)), e.content);
    await vscode.workspace.applyEdit(edit);
    await doc.save();
  }
  return result;
}

/** @param {vscode.Uri | undefined} uri */
async function pickFolder(uri) {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) {
    showError('TensorFlow: open a folder first; debug configurations live in its .vscode/launch.json.');
    return undefined;
  }
  const fromUri = uri && vscode.workspace.getWorkspaceFolder(uri);
  if (fromUri) return fromUri;
  const active = vscode.window.activeTextEditor?.document.uri;
  const fromEditor = active && vscode.workspace.getWorkspaceFolder(active);
  if (fromEditor) return fromEditor;
  if (folders.length === 1) return folders[0];
  return (await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Add the configurations to which folder?' })) ?? undefined;
}

/** A module name from the active Python file, relative to the folder. @param {vscode.WorkspaceFolder} folder */
function guessModule(folder) {
  const doc = vscode.window.activeTextEditor?.document;
  if (!doc || doc.languageId !== 'python') return 'your_package.train';
  const rel = path.relative(folder.uri.fsPath, doc.uri.fsPath);
  if (rel.startsWith('..') || path.isAbsolute(rel)) return 'your_package.train';
  let mod = rel.replace(/\.py$/, '').split(path.sep);
  if (mod[0] === 'src' && mod.length > 1) mod = mod.slice(1);
  if (mod[mod.length - 1] === '__main__' || mod[mod.length - 1] === '__init__') mod.pop();
  return mod.join('.') || 'your_package.train';
}

/**
 * Completion items for the templates inside launch.json's "configurations" array.
 * @param {vscode.TextDocument} document @param {vscode.Position} position
 */
function provideCompletionItems(document, position) {
  const text = document.getText();
  const offset = document.offsetAt(position);
  if (!canComplete(document.fileName, text, offset)) return [];
  const commas = commasAround(text, offset);
  return getTemplates().map((t, i) => {
    const item = new vscode.CompletionItem(t.label, vscode.CompletionItemKind.Snippet);
    item.detail = t.description;
    item.documentation = new vscode.MarkdownString().appendText(t.detail);
    item.insertText = new vscode.SnippetString(commas.before + templateSnippet(t) + commas.after);
    item.sortText = `tf-${String(i).padStart(2, '0')}`;
    item.filterText = `${t.label} tensorflow debugpy ${t.id}`;
    if (t.compounds.length) {
      item.command = { title: 'Add compound', command: COMMAND_ADD_COMPOUNDS, arguments: [document.uri, t.id] };
    }
    return item;
  });
}

/**
 * After a completion inserted a template's configurations: add its compounds.
 * @param {vscode.Uri} uri @param {string} id
 */
async function addCompounds(uri, id) {
  const t = getTemplate(id);
  const compoundsOnly = { ...t, configurations: [], comment: [] };
  try {
    await editLaunchJson(uri, (text) => addTemplates(text, [compoundsOnly]));
  } catch (e) {
    showWarning(`TensorFlow: could not add the compound: ${/** @type {Error} */ (e).message}`);
  }
}

module.exports = { registerLaunch, COMMAND_ADD, COMMAND_ADD_COMPOUNDS };
