import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Admission } from '../../src/webdriver/admission.ts';
import { WebDriverError } from '../../src/webdriver/errors.ts';

const sessionNotCreated = (pattern: RegExp) => (e: unknown) =>
  e instanceof WebDriverError && e.code === 'session not created' && pattern.test(e.message);

test('below the maximum a slot is given at once; a released slot is reused', async () => {
  const admission = new Admission({ maxSessions: 2, maxQueued: 10, queueTimeout: 1000 });
  const a = await admission.admit();
  await admission.admit();
  assert.equal(admission.full, true);
  a.release();
  a.release(); // twice is once
  assert.equal(admission.active, 1);
  assert.equal(admission.full, false);
});

test('waiters are admitted first come, first served', async () => {
  const admission = new Admission({ maxSessions: 1, maxQueued: 10, queueTimeout: 10_000 });
  const first = await admission.admit();
  const order: string[] = [];
  const b = admission.admit().then((t) => (order.push('b'), t));
  const c = admission.admit().then((t) => (order.push('c'), t));
  assert.equal(admission.queued, 2);
  first.release();
  (await b).release();
  (await c).release();
  assert.deepEqual(order, ['b', 'c']);
  assert.equal(admission.active, 0);
});

test('a waiter past the queue timeout is session not created, and leaves the queue', async () => {
  const admission = new Admission({ maxSessions: 1, maxQueued: 10, queueTimeout: 20 });
  await admission.admit();
  await assert.rejects(admission.admit(), sessionNotCreated(/timed out after 20 ms in the queue/));
  assert.equal(admission.queued, 0);
});

test('a waiter whose client went away leaves the queue at once, and never takes a slot', async () => {
  const admission = new Admission({ maxSessions: 1, maxQueued: 10, queueTimeout: 10_000 });
  const first = await admission.admit();
  const gone = new AbortController();
  const waiting = admission.admit(gone.signal);
  gone.abort();
  await assert.rejects(waiting, sessionNotCreated(/went away/));
  assert.equal(admission.queued, 0);
  first.release();
  assert.equal(admission.active, 0);
  await assert.rejects(admission.admit(gone.signal), sessionNotCreated(/went away/));
});

test('past the queue length New Session is refused at once', async () => {
  const admission = new Admission({ maxSessions: 1, maxQueued: 0, queueTimeout: 10_000 });
  await admission.admit();
  await assert.rejects(admission.admit(), sessionNotCreated(/maximum number of active sessions reached \(1\) and the queue is full/));
});
