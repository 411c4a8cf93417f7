// The default maxSessions follows the machine (src/pool/capacity.ts), and the pool has browsers
// enough for it unless the config says how many.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { machineMaxSessions, RESERVED_MIB, SESSION_MIB, SESSIONS_PER_CORE } from '../../src/pool/capacity.ts';
import { resolveConfig } from '../../src/config.ts';

const GiB = 2 ** 30;

test('maxSessions by default: what memory holds at a busy session’s share, at most what the cores serve', () => {
  // Memory bounds a small machine, cores a big one.
  assert.equal(machineMaxSessions({ memoryBytes: 4 * GiB, cores: 8 }), Math.floor((4096 - RESERVED_MIB) / SESSION_MIB));
  assert.equal(machineMaxSessions({ memoryBytes: 16 * GiB, cores: 2 }), 2 * SESSIONS_PER_CORE);
  assert.equal(machineMaxSessions({ memoryBytes: 16 * GiB, cores: 16 }), Math.floor((16384 - RESERVED_MIB) / SESSION_MIB));
  // Never none, never past the setting's limit.
  assert.equal(machineMaxSessions({ memoryBytes: 256 * 2 ** 20, cores: 1 }), 1);
  assert.equal(machineMaxSessions({ memoryBytes: 4096 * GiB, cores: 512 }), 1000);
});

test('the pool has browsers enough for maxSessions and one more for contexts prepared ahead, unless pool.maxBrowsers says; a set maxSessions is kept', () => {
  const config = resolveConfig({ maxSessions: 40, pool: { sessionsPerBrowser: 16 } });
  assert.equal(config.maxSessions, 40);
  assert.equal(config.pool.maxBrowsers, 4);
  assert.equal(resolveConfig({ maxSessions: 40, pool: { maxBrowsers: 2 } }).pool.maxBrowsers, 2);
  const machine = resolveConfig();
  assert.ok(Number.isInteger(machine.maxSessions) && machine.maxSessions >= 1);
  assert.equal(machine.pool.maxBrowsers, Math.ceil(machine.maxSessions / machine.pool.sessionsPerBrowser) + 1);
  assert.throws(() => resolveConfig({ maxSessions: 0 }), /maxSessions/);
});
