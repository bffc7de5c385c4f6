// @ts-check
'use strict';
/**
 * Which rows of the Variables pane "View Tensor" is offered on. VS Code reads a variable's
 * (undeclared) `__vscodeVariableMenuContext` into the `debugProtocolVariableMenuContext` context
 * key of the Variables pane's context menu; a debug adapter tracker sets it on the rows of
 * `variables` responses whose `type` is a TensorFlow or numpy array type. The Watch pane reads
 * no such key, only the row's type (`variableType`), so its when-clause matches WATCH_TYPE_PATTERN.
 *
 * The type strings are what debugpy reports (the class name, never qualified), as seen in a real
 * session with the plugin: tensors, variables of every family, the plugin's gradient child and
 * numpy arrays.
 */

const contract = require('../../media/viewer/viewerContract.js');

/** The value of debugProtocolVariableMenuContext on rows "View Tensor" applies to. */
const MENU_CONTEXT = 'tfDebugRepr.tensor';

/**
 * Class names that are always array-like TF or numpy values, from the viewer contract
 * (src/tf_debug_repr/viewer/contract.json, where each is named with its kind and checked against
 * the plugin's catalog). EagerTensor: tf.constant and every eager op result. ResourceVariable /
 * UninitializedVariable: tf.Variable. MirroredVariable / SyncOnReadVariable / DistributedVariable:
 * tf.distribute. PerReplica: a value per replica (strategy.run's result). AutoCastVariable:
 * tf-keras mixed precision. IndexedSlices: sparse gradients (embeddings). SparseTensor and
 * RaggedTensor: the values they hold. SymbolicTensor / KerasTensor: a tensor inside a trace or a
 * functional model, which has no values there; its view says how to get them. GradientInfo: the
 * plugin's "∇ gradient" child. TensorArray: an eager one is viewed as its elements stacked.
 * ndarray: numpy arrays (each variable's "numpy" child).
 */
const VIEWABLE_TYPES = contract.viewableTypes;

/**
 * Keras 3's variable class is plainly `Variable`, a name other libraries use too: it counts
 * only when its value reads like a variable's (the plugin's summary "float32[2, 3] x∈[…] … Variable
 * 'dense/kernel'", which names the variable last, or Keras's own repr "<Variable path=dense/kernel, …>").
 * @type {Readonly<Record<string, RegExp>>}
 */
const AMBIGUOUS_TYPES = Object.freeze(
  Object.fromEntries(Object.entries(contract.ambiguousTypes).map(([name, pattern]) => [name, new RegExp(/** @type {string} */ (pattern))])),
);

/**
 * Rows of a viewable type whose value says they hold no numbers to draw (a string tensor, a
 * resource handle, a numpy array of bytes objects): the viewer would only say so, so the menu
 * is not offered there. From the contract's `no_numbers`, type -> pattern of the value.
 * @type {Readonly<Record<string, RegExp>>}
 */
const NO_NUMBERS = Object.freeze(
  Object.fromEntries(Object.entries(contract.noNumbers).map(([name, pattern]) => [name, new RegExp(/** @type {string} */ (pattern))])),
);

/** The Watch pane's when-clause regex (a when-clause cannot look at the value). */
const WATCH_TYPE_PATTERN = `^(${[...VIEWABLE_TYPES, ...Object.keys(AMBIGUOUS_TYPES)].join('|')})$`;

/**
 * The menu context for one DAP variable: MENU_CONTEXT when "View Tensor" applies, else undefined.
 * @param {{ type?: string, value?: string }} variable
 * @returns {string | undefined}
 */
function menuContextFor(variable) {
  const type = variable?.type;
  if (typeof type !== 'string') return undefined;
  if (VIEWABLE_TYPES.includes(type)) {
    const noNumbers = /** @type {{ [k: string]: RegExp }} */ (NO_NUMBERS)[type];
    return noNumbers && typeof variable.value === 'string' && noNumbers.test(variable.value) ? undefined : MENU_CONTEXT;
  }
  const valuePattern = /** @type {{ [k: string]: RegExp }} */ (AMBIGUOUS_TYPES)[type];
  if (valuePattern && typeof variable.value === 'string' && valuePattern.test(variable.value)) return MENU_CONTEXT;
  return undefined;
}

/**
 * Tags the rows of a successful `variables` response in place (VS Code reads the same object
 * after the tracker has seen it) and returns how many were tagged. Any other message is left
 * alone. A menu context the adapter set itself is kept.
 * @param {any} message a DAP message as a DebugAdapterTracker's onDidSendMessage receives it
 * @returns {number}
 */
function tagVariables(message) {
  if (!message || message.type !== 'response' || message.command !== 'variables' || !message.success) return 0;
  const variables = message.body?.variables;
  if (!Array.isArray(variables)) return 0;
  let tagged = 0;
  for (const v of variables) {
    if (!v || v.__vscodeVariableMenuContext) continue;
    const context = menuContextFor(v);
    if (context) {
      v.__vscodeVariableMenuContext = context;
      tagged++;
    }
  }
  return tagged;
}

module.exports = { MENU_CONTEXT, VIEWABLE_TYPES, AMBIGUOUS_TYPES, NO_NUMBERS, WATCH_TYPE_PATTERN, menuContextFor, tagVariables };
