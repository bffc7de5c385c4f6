// @ts-check
'use strict';
/** Which session takes up a view whose session has gone (viewerAdoption). */
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { adopts, configurationName, pausedSessionFor } = require('../../src/viewer/adoption');

test("a session's name: its launch configuration's, else its own", () => {
  assert.equal(configurationName({ id: '1', name: 'Python: train (2)', configuration: { name: 'Python: train' } }), 'Python: train');
  assert.equal(configurationName({ id: '1', name: 'Subprocess 42', configuration: {} }), 'Subprocess 42');
  assert.equal(configurationName({ id: '1', configuration: { name: 7 } }), undefined);
  assert.equal(configurationName(undefined), undefined);
});

test('adoption: the same name; another name only while none of the same name runs; no name: any', () => {
  assert.equal(adopts('chief', 'chief', ['chief', 'worker']), true);
  assert.equal(adopts('chief', 'worker', ['chief', 'worker']), false, 'the chief runs: its view waits for it');
  assert.equal(adopts('chief', 'worker', ['worker']), true, 'no chief runs: the first session that stops');
  assert.equal(adopts(undefined, 'worker', ['chief', 'worker']), true);
  assert.equal(adopts('chief', undefined, [undefined, 'chief']), false);
});

test('the paused session for a view without one: the active one, else one of its name, else the first', () => {
  const s = (/** @type {string} */ id, /** @type {string} */ name, paused = true, ended = false) => ({ session: { id, configuration: { name } }, paused, ended });
  const states = [s('a', 'worker', false), s('b', 'worker'), s('c', 'chief'), s('d', 'chief', true, true)];
  assert.equal(pausedSessionFor('chief', states, 'b')?.session.id, 'b', 'the active session when it is paused');
  assert.equal(pausedSessionFor('chief', states, 'a')?.session.id, 'c', 'the active one runs: one of the same name');
  assert.equal(pausedSessionFor('other', states, undefined)?.session.id, 'b', 'else the first paused');
  assert.equal(pausedSessionFor(undefined, states, undefined)?.session.id, 'b');
  assert.equal(pausedSessionFor('chief', [s('a', 'chief', false), s('d', 'chief', true, true)], 'd'), undefined, 'none paused: none (an ended one never)');
});
