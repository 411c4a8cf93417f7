// Spec "get the prompt handler" (§16): the unhandledPromptBehavior capability, both forms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getPromptHandler } from '../../src/webdriver/prompts.ts';

const accept = { handler: 'accept', notify: false };
const acceptNotify = { handler: 'accept', notify: true };
const dismiss = { handler: 'dismiss', notify: false };
const dismissNotify = { handler: 'dismiss', notify: true };
const ignore = { handler: 'ignore', notify: true };

test('string form: every simple dialog; beforeUnload is accepted whatever the string', () => {
  for (const [keyword, config] of [
    ['accept', accept],
    ['accept and notify', acceptNotify],
    ['dismiss', dismiss],
    ['dismiss and notify', dismissNotify],
    ['ignore', ignore],
  ] as const) {
    for (const type of ['alert', 'confirm', 'prompt'] as const) assert.deepEqual(getPromptHandler(keyword, type), config, `${keyword} ${type}`);
    assert.deepEqual(getPromptHandler(keyword, 'beforeUnload'), accept, `${keyword} beforeUnload`);
  }
});

test('object form: the type, then "default", then beforeUnload accept, then dismiss and notify', () => {
  const behavior = { alert: 'ignore', beforeUnload: 'dismiss' };
  assert.deepEqual(getPromptHandler(behavior, 'alert'), ignore);
  assert.deepEqual(getPromptHandler(behavior, 'beforeUnload'), dismiss);
  assert.deepEqual(getPromptHandler(behavior, 'confirm'), dismissNotify);
  assert.deepEqual(getPromptHandler({ confirm: 'accept' }, 'beforeUnload'), accept);
  // "default" covers beforeUnload too when it is not named.
  const withDefault = { default: 'accept and notify', prompt: 'dismiss' };
  assert.deepEqual(getPromptHandler(withDefault, 'alert'), acceptNotify);
  assert.deepEqual(getPromptHandler(withDefault, 'prompt'), dismiss);
  assert.deepEqual(getPromptHandler(withDefault, 'beforeUnload'), acceptNotify);
  assert.deepEqual(getPromptHandler({}, 'alert'), dismissNotify);
});
