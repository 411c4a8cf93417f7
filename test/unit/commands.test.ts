// Every endpoint of the route table has an implementation, and every implementation a route:
// no W3C classic endpoint answers `unsupported operation`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { routes } from '../../src/server/routes.ts';
import { commands } from '../../src/server/commands.ts';

test('every routed command is implemented', () => {
  assert.deepEqual(routes.filter((r) => !Object.hasOwn(commands, r.command)).map((r) => `${r.method} ${r.path}`), []);
});

test('every implemented command is routed', () => {
  assert.deepEqual(Object.keys(commands).filter((name) => !routes.some((r) => r.command === name)), []);
});
