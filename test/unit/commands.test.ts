// Every endpoint of the route table has an implementation, and every implementation a route:
// no W3C classic endpoint answers `unsupported operation`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { routes } from '../../src/webdriver/routes.ts';
import { commandTable } from '../../src/app.ts';
import type { History } from '../../src/trace/index.ts';
import type { Metrics } from '../../src/ops/metrics.ts';
import type { Recordings } from '../../src/ops/recordings.ts';

// The table as the gateway assembles it (the rooms' commands only close over their objects).
const commands = commandTable({ history: {} as History, metrics: {} as Metrics, recordings: {} as Recordings });

test('every routed command is implemented', () => {
  assert.deepEqual(routes.filter((r) => !Object.hasOwn(commands, r.command)).map((r) => `${r.method} ${r.path}`), []);
});

test('every implemented command is routed', () => {
  assert.deepEqual(Object.keys(commands).filter((name) => !routes.some((r) => r.command === name)), []);
});
