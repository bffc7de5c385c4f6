// @ts-check
'use strict';
/**
 * Reading evaluate answers: a base64 payload, and the exceptions debugpy reports in its place
 * (with context "clipboard" a failed evaluation still succeeds, `type` = the exception class),
 * each turned into a message the user can act on. The exception answers below are the ones a
 * real debugpy 1.8.22 session gave.
 */
const assert = require('node:assert/strict');
const { test } = require('node:test');
const r = require('../../src/viewer/result');

/** An evaluate body as debugpy sends a returned str: its repr. @param {object} payload */
function answer(payload) {
  return { result: `'${Buffer.from(JSON.stringify(payload), 'utf8').toString('base64')}'`, type: 'str', variablesReference: 0 };
}

test('a payload: quotes stripped, base64 then UTF-8 then JSON', () => {
  const payload = { version: 1, error: null, kind: 'tensor', summary: 'float32[2, 2] x∈[-2, 3] μ=0.625', dtype: 'float32', shape: [2, 2], stats: { n: 4 } };
  assert.deepEqual(r.decodePayload(answer(payload), 'w'), payload);
  const withError = { version: 1, error: 'symbolic tensor: no values here (TF_DEBUG_REPR_EAGER=1)' };
  assert.deepEqual(r.decodePayload(answer(withError), 't'), withError, 'a payload with error set is still a payload (the page shows it)');
});

test('exceptions from the debuggee become messages that say what to do', () => {
  const cases = [
    [{ result: 'ModuleNotFoundError("No module named \'tf_debug_repr\'")', type: 'ModuleNotFoundError' }, /pip install tf-debug-repr/],
    [{ result: 'ImportError("cannot import name \'x\' from \'tf_debug_repr\'")', type: 'ImportError' }, /pip install tf-debug-repr/],
    [{ result: 'AttributeError("module \'tf_debug_repr\' has no attribute \'view_payload\'")', type: 'AttributeError' }, /too old.*pip install -U tf-debug-repr/],
    [{ result: 'NameError("name \'nope_name\' is not defined")', type: 'NameError' }, /^name 'nope_name' is not defined in the selected frame: select the frame where "nope_name"/],
    [{ result: "ZeroDivisionError('division by zero')", type: 'ZeroDivisionError' }, /^nope_name: ZeroDivisionError: division by zero$/],
    [{ result: 'KeyboardInterrupt()', type: 'KeyboardInterrupt' }, /KeyboardInterrupt: $/],
  ];
  for (const [body, pattern] of cases) {
    assert.throws(() => r.decodePayload(/** @type {any} */ (body), 'nope_name'), (e) => e instanceof r.ViewerError && /** @type {RegExp} */ (pattern).test(e.message), JSON.stringify(body));
  }
});

test('answers that are not a payload say so', () => {
  const bad = [
    [{ result: 'None', type: 'NoneType' }, /Unexpected answer.*NoneType/],
    [{ result: "'not base64!'", type: 'str' }, /Unexpected answer/],
    [{ result: `'${Buffer.from('{"version": 1, "trunc').toString('base64')}'`, type: 'str' }, /Could not read the payload/],
    [answer([1, 2]), /not an object/],
    [answer({ version: 2 }), /version 2; this extension reads version 1/],
  ];
  for (const [body, pattern] of bad) assert.throws(() => r.decodePayload(/** @type {any} */ (body), 'w'), /** @type {RegExp} */ (pattern));
});

test('pyStr reads Python str reprs', () => {
  assert.equal(r.pyStr("'plain'"), 'plain');
  assert.equal(r.pyStr(`"it's"`), "it's");
  assert.equal(r.pyStr("'a\\'b\\\\c\\nd\\te'"), "a'b\\c\nd\te");
  assert.equal(r.pyStr("'\\x41\\u2207\\U0001F600\\0'"), 'A∇😀\0');
  assert.equal(r.pyStr('no quotes'), undefined);
  assert.equal(r.pyStr("'bad \\x4'"), undefined);
});

test('save_npy answers: the report, or the error', () => {
  assert.equal(r.decodeSaveResult({ result: "'saved float32[2, 2] (144 bytes) to C:\\\\t\\\\w.npy'", type: 'str' }, 'w'), 'saved float32[2, 2] (144 bytes) to C:\\t\\w.npy');
  assert.throws(() => r.decodeSaveResult({ result: "PermissionError(13, 'Permission denied')", type: 'PermissionError' }, 'w'), /PermissionError/);
});

test('failed requests: ended session, program running again, other', () => {
  assert.match(r.describeRequestError(new Error('whatever'), { ended: true }), /session has ended/);
  // What debugpy 1.8.22 answers an evaluate sent while the program runs:
  assert.match(r.describeRequestError(new Error('Unable to find thread for evaluation.')), /not paused/);
  assert.match(r.describeRequestError(new Error('Unable to find thread to evaluate variable reference.')), /not paused/);
  assert.match(r.describeRequestError(new Error('Thread 1 is not suspended')), /not paused/);
  assert.match(r.describeRequestError(new Error('Request evaluate was cancelled')), /cancelled/);
  assert.match(r.describeRequestError('socket closed'), /could not evaluate the expression: socket closed/);
});
