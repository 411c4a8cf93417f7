// Loaded before every test file (node --import, package.json and scripts/test-backends.sh): a test
// or hook with no timeout of its own gets one, so a hang fails at once with its name instead of
// holding the run (a hung test once ran 28 minutes). node:test's --test-timeout would not do: on
// Node 20 it bounds each file's process as a whole and names no test.
// 3 minutes (WDGATE_TEST_TIMEOUT, ms, sets another): the slowest passing integration test here took
// under one on a busy machine; a test that needs longer says so itself (the fleet's).
import { createRequire, syncBuiltinESMExports } from 'node:module';

const require = createRequire(import.meta.url);
const nodeTest = require('node:test') as typeof import('node:test');
const timeout = Number(process.env.WDGATE_TEST_TIMEOUT ?? 180_000);

type Fn = (...args: unknown[]) => unknown;

/** `fn(name?, options?, body?)` with `timeout` added to its options unless they set one. */
function withTimeout<F>(fn: F): F {
  const wrapped = function (this: unknown, ...args: unknown[]) {
    const at = args.findIndex((a) => typeof a === 'object' && a !== null);
    if (at >= 0) {
      if ((args[at] as { timeout?: number }).timeout === undefined) args[at] = { ...(args[at] as object), timeout };
    } else {
      const body = args.findIndex((a) => typeof a === 'function');
      args.splice(body < 0 ? args.length : body, 0, { timeout });
    }
    return (fn as Fn).apply(this, args);
  };
  // test.skip, test.todo, test.only as they are.
  return Object.assign(wrapped, fn) as F;
}

/** Hooks take (fn, options): the options come second. */
function hookWithTimeout<F>(fn: F): F {
  return function (this: unknown, body: unknown, options?: { timeout?: number }) {
    return (fn as Fn).call(this, body, { timeout, ...options });
  } as F;
}

// Named imports of node:test (`import { test } from 'node:test'`) are live bindings of these
// properties once synced; test files import nothing from here.
const mutable = nodeTest as unknown as Record<string, unknown>;
for (const name of ['test', 'it'] as const) mutable[name] = withTimeout(nodeTest[name]);
for (const name of ['before', 'after', 'beforeEach', 'afterEach'] as const) mutable[name] = hookWithTimeout(nodeTest[name]);
syncBuiltinESMExports();
