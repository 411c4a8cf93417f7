// Across runs: a test's verdict over its runs, the alignment of two runs step by step, and the
// first difference between a failed run and a passed one (pure); the index of tests on a directory;
// the viewer's side-by-side view: which pair it opens at, and the compare API's answer as it reads it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verdictOf, type Run } from '../../src/trace/runs/verdicts.ts';
import { align, compareRuns, differenceSummary, pageDifference, pageOf, stepKeys, type RunTrace, type TraceStepLike } from '../../src/trace/runs/align.ts';
import { compareWithin } from '../../src/trace/runs/compare.ts';
import { TestRuns, type EndedRun } from '../../src/trace/runs/index.ts';
import { differencePair, openingPair, readComparison } from '../../src/trace/viewer/pairs.ts';
import { TraceError } from '../../src/trace/viewer/model.ts';
import { silentLogger } from '../../src/base/log.ts';
import type { Principal } from '../../src/base/principal.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';

let clock = 0;
const run = (result: Run['result'], extra: Partial<Run> = {}): Run => ({ id: `r${++clock}`, result, startedAt: clock * 1000, trace: true, ...extra });
const fail = (code = 'no such element', command = 'findElement', extra: Partial<Run> = {}) => run('failed', { failure: { code, command, message: '' }, ...extra });

test('verdicts: new failure, flaky, always failing, fixed, stable', () => {
  // A failure whose error its last 5 runs did not have is new; the same error again is not.
  assert.equal(verdictOf([run('passed'), run('passed'), fail()]), 'new failure');
  assert.equal(verdictOf([fail(), run('passed'), fail()]), 'flaky', 'the same error again, flipping: flaky, not new');
  assert.equal(verdictOf([fail(), fail()]), 'always failing');
  assert.equal(verdictOf([fail('timeout', 'navigateTo'), fail()]), 'new failure', 'another error is new');
  assert.equal(verdictOf([fail(), run('passed'), run('passed'), run('passed'), run('passed'), run('passed'), fail()]), 'new failure', 'seen only more than 5 runs before: new again');
  // Both results within one build (a retry passed): flaky, whatever came before.
  assert.equal(verdictOf([run('passed', { build: 'b1' }), fail('no such element', 'findElement', { build: 'b2' }), run('passed', { build: 'b2' })]), 'flaky');
  assert.equal(verdictOf([run('passed', { build: 'b1' }), run('passed', { build: 'b2' }), fail('x', 'y', { build: 'b2' })]), 'flaky');
  // Flipped more often than half the pairs.
  assert.equal(verdictOf([run('passed'), fail(), run('passed'), fail(), run('passed')]), 'flaky');
  assert.equal(verdictOf([fail(), fail(), fail(), run('passed')]), 'fixed');
  // One failure between passes flips 2 of 3 pairs: flaky, by the rule, rather than fixed.
  assert.equal(verdictOf([run('passed'), run('passed'), fail(), run('passed')]), 'flaky');
  assert.equal(verdictOf([run('passed'), run('passed'), run('passed')]), 'stable');
  // A test that broke and keeps failing with the same error fails every time now, however long it
  // passed before; a failure that comes back alone between passes comes and goes: never stable.
  const passes = (n: number) => Array.from({ length: n }, () => run('passed'));
  assert.equal(verdictOf([...passes(8), fail(), fail(), fail()]), 'always failing');
  assert.equal(verdictOf([...passes(8), fail(), fail()]), 'always failing');
  assert.equal(verdictOf([fail(), ...passes(4), fail()]), 'flaky');
  // Skipped and unfinished runs do not count; nothing at all is stable.
  assert.equal(verdictOf([run('passed'), run('skipped'), run('unknown')]), 'stable');
  assert.equal(verdictOf([]), 'stable');
  // Only the window counts for flakiness: old flips are forgiven.
  const old = [run('passed'), fail(), run('passed'), fail()];
  assert.equal(verdictOf([...old, ...Array.from({ length: 10 }, () => run('passed'))]), 'stable');
  // A reported failure with no W3C error is one error kind ("failed (reported)").
  assert.equal(verdictOf([run('passed'), run('failed')]), 'new failure');
  assert.equal(verdictOf([run('failed'), run('failed')]), 'always failing');
});

const step = (n: number, name: string, extra: Partial<TraceStepLike> = {}): TraceStepLike => ({ n, kind: 'command', name, startedAt: n * 100, ...extra });
const ref = (id: string) => JSON.stringify({ 'element-6066-11e4-a52e-4f735466cecf': id });

test('alignment: the same command on the same target is the same step, whatever the element ids and the server port', () => {
  const a = [
    step(0, 'navigateTo', { params: { url: 'http://127.0.0.1:4001/shop?x=1' } }),
    step(1, 'findElement', { params: { using: 'css selector', value: '#buy' }, result: ref('a-1') }),
    step(2, 'elementClick', { element: 'a-1' }),
    step(3, 'getTitle'),
  ];
  const b = [
    step(0, 'navigateTo', { params: { url: 'http://127.0.0.1:5002/shop?x=1' } }),
    step(1, 'findElement', { params: { using: 'css selector', value: '#buy' }, result: ref('b-9') }),
    step(2, 'elementClick', { element: 'b-9' }),
    step(3, 'getTitle'),
  ];
  assert.deepEqual(stepKeys(a), stepKeys(b));
  // A step inserted in one run is left without a partner; the rest stays paired.
  assert.deepEqual(align(['n', 'f', 'c', 't'], ['n', 'f', 'x', 'c', 't']), [[0, 0], [1, 1], [null, 2], [2, 3], [3, 4]]);
  assert.deepEqual(align(['a', 'b'], []), [[0, null], [1, null]]);
});

function trace(steps: TraceStepLike[], snapshots: Record<string, string> = {}, requests: RunTrace['requests'] = []): RunTrace {
  return { steps, requests, snapshot: (name) => snapshots[name] };
}

test('the first difference: the page that differed, not an earlier step nor the failing one', () => {
  const page = (button: string) => `<html><head><style>b{}</style></head><body><h1>Shop</h1><button id="buy">${button}</button><script>x()</script></body></html>`;
  const passed = trace(
    [
      step(0, 'navigateTo', { params: { url: 'http://h/' }, url: 'http://h/', title: 'Home', snapshot: 's0' }),
      step(1, 'navigateTo', { params: { url: 'http://h/shop' }, url: 'http://h/shop', title: 'Shop', snapshot: 's1' }),
      step(2, 'findElement', { params: { using: 'xpath', value: '//button[text()="Buy"]' }, result: ref('p') }),
      step(3, 'elementClick', { element: 'p', snapshot: 's3' }),
    ],
    { s0: '<body><p>home</p></body>', s1: page('Buy'), s3: page('Bought') },
  );
  const failed = trace(
    [
      step(0, 'navigateTo', { params: { url: 'http://h/' }, url: 'http://h/', title: 'Home', snapshot: 's0' }),
      step(1, 'navigateTo', { params: { url: 'http://h/shop' }, url: 'http://h/shop', title: 'Shop', snapshot: 's1' }),
      step(2, 'findElement', { params: { using: 'xpath', value: '//button[text()="Buy"]' }, error: { code: 'no such element', message: 'none' } }),
    ],
    { s0: '<body><p>home</p></body>', s1: page('Purchase') },
  );
  const { first, aligned } = compareRuns(failed, passed);
  assert.equal(first?.kind, 'page');
  assert.equal(first?.failedStep, 1);
  assert.equal(first?.passedStep, 1);
  assert.match(first!.text, /"Purchase" where the passed run showed "Buy"/);
  assert.deepEqual(aligned.slice(0, 3), [[0, 0], [1, 1], [2, 2]]);

  // Pages alike: the error is the first difference; and then a step the failed run never reached.
  const same = trace(failed.steps, { s0: '<body><p>home</p></body>', s1: page('Buy') });
  assert.equal(compareRuns(same, passed).first?.kind, 'error');
  assert.equal(compareRuns(same, passed).first?.failedStep, 2);
  // Another URL, another title, a request that failed where it had not.
  const moved = trace([step(0, 'navigateTo', { params: { url: 'http://h/' }, url: 'http://h/login', title: 'Home', snapshot: 's0' })], {}, []);
  assert.equal(compareRuns(moved, passed).first?.kind, 'url');
  const broken = trace([step(0, 'navigateTo', { params: { url: 'http://h/' }, url: 'http://h/', title: 'Home' })], {}, [{ startedAt: 10, method: 'GET', url: 'http://h/api/price', status: 500 }]);
  const whole = trace(passed.steps, {}, [{ startedAt: 10, method: 'GET', url: 'http://other:1/api/price', status: 200 }]);
  assert.match(compareRuns(broken, whole).first!.text, /GET \/api\/price answered 500, in the passed run 200/);
  // Another command where the passed run had another.
  const other = trace([step(0, 'navigateTo', { params: { url: 'http://h/' }, url: 'http://h/', title: 'Home' }), step(1, 'getTitle')]);
  assert.equal(compareRuns(other, passed).first?.kind, 'command');
  assert.equal(compareRuns(other, passed).first?.failedStep, 1);
});

test('a page is its visible text and its structure: styles, scripts and attributes do not count', () => {
  const a = pageOf('<div class="x" data-t="1"><p>Hello&nbsp; <b>world</b></p><script>var secret</script></div>');
  assert.deepEqual(a.text, ['Hello', 'world']);
  assert.equal(pageDifference(a, pageOf('<div class="y"><p>Hello <b>world</b></p></div>')), undefined);
  assert.match(pageDifference(a, pageOf('<div><p>Hello <i>world</i></p></div>'))!, /arranged differently/);
});

test('the side-by-side view opens at the pair of the first difference: both steps, or the gap of a step one run lacks', () => {
  const aligned: [number | null, number | null][] = [[0, 0], [1, 1], [2, null], [null, 2], [3, 3]];
  assert.equal(differencePair(aligned, { kind: 'page', failedStep: 1, passedStep: 1, text: '' }), 1);
  assert.equal(differencePair(aligned, { kind: 'command', failedStep: 2, text: '' }), 2, "a step the last pass lacks: the failed step's row");
  assert.equal(differencePair(aligned, { kind: 'missing', passedStep: 2, failedStep: 3, text: '' }), 3, "a step the failed run lacks: the passed step's row, not the failed run's next step");
  assert.equal(differencePair(aligned, undefined), undefined);
  // No difference: the failed run's first failed step, else the first pair.
  const comparison = { session: 'f', with: 'p', summary: differenceSummary(undefined), aligned };
  assert.equal(openingPair(comparison, new Set([3])), 4);
  assert.equal(openingPair(comparison, new Set()), 0);
  // The summary numbers steps from 1, as the viewer's lists do.
  assert.equal(differenceSummary({ kind: 'page', failedStep: 1, passedStep: 1, text: 'x' }), 'first difference at step 2: x');
  assert.equal(differenceSummary({ kind: 'missing', passedStep: 4, text: 'y' }), 'first difference at step 5: y');
});

test("the compare API's answer as the viewer reads it; anything else is refused with why", () => {
  const value = { session: 'f', with: 'p', summary: 's', aligned: [[0, 0], [null, 1]], firstDifference: { kind: 'missing', passedStep: 1, text: 't' }, links: {} };
  assert.deepEqual(readComparison({ value }), { session: 'f', with: 'p', summary: 's', aligned: [[0, 0], [null, 1]], firstDifference: value.firstDifference });
  assert.equal(readComparison({ value: { ...value, with: null, aligned: [] } }).with, null);
  for (const bad of [null, {}, { value: { ...value, aligned: [[null, null]] } }, { value: { ...value, aligned: [[0]] } }, { value: { ...value, aligned: [[-1, 0]] } }, { value: { ...value, summary: 1 } }]) {
    assert.throws(() => readComparison(bad), TraceError, JSON.stringify(bad));
  }
});

test('inside the gateway, the comparison runs a slice at a time and gives up past its deadline', async () => {
  const steps = Array.from({ length: 6 }, (_, n) => step(n, 'navigateTo', { params: { url: `http://h/${n}` }, snapshot: `s${n}` }));
  const slow = (button: string): RunTrace => ({
    steps,
    requests: [],
    snapshot(name) {
      // Each page takes 12 ms to read: longer than a slice.
      for (const end = performance.now() + 12; performance.now() < end; );
      return `<p>${name}</p><button>${name === 's5' ? button : 'same'}</button>`;
    },
  });
  const done = await compareWithin(slow('Purchase'), slow('Buy'), Date.now() + 60_000);
  assert.deepEqual(done, compareRuns(slow('Purchase'), slow('Buy')));
  assert.equal(done?.first?.failedStep, 5);
  assert.equal(await compareWithin(slow('Purchase'), slow('Buy'), Date.now() - 1), undefined);
});

// The index of tests (TestRuns) on a directory of its own: what it lists, and what it reads again at start.
const ended = (id: string, result: EndedRun['result'], at: number, extra: Partial<EndedRun> = {}): EndedRun => ({
  id,
  name: 'checkout',
  principal: 'alice',
  browserName: 'chrome',
  result,
  startedAt: new Date(Date.UTC(2026, 10, 1) + at * 60_000).toISOString(),
  trace: false,
  ...extra,
});
const alice: Principal = { name: 'alice', maxSessions: null, admin: false, share: 1 };

test('the tests listed: a failed run links to its comparison only where a pass with a trace came before it; a reported failure says why; a build summary ignores the verdict filter', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wdgate-runs-unit-'));
  try {
    const runs = new TestRuns(dir, silentLogger);
    await runs.load(() => []);
    runs.add(ended('f1', 'failed', 1, { build: 'b1', failure: { code: 'no such element', command: 'findElement', message: 'gone' } }));
    runs.add(ended('p1', 'passed', 2, { build: 'b1' })); // its trace not kept
    runs.add(ended('f2', 'failed', 3, { build: 'b2', resultReason: 'the Buy button is gone' }));
    runs.add(ended('p2', 'passed', 4, { build: 'b3', trace: true }));
    runs.add(ended('f3', 'failed', 5, { build: 'b4', trace: true, failure: { code: 'timeout', command: 'navigateTo', message: 'slow' } }));
    runs.add(ended('s1', 'passed', 6, { name: 'search', build: 'b4' }));
    const [checkout] = runs.list(alice, { limit: 10, offset: 0, name: 'check' }).tests;
    assert.deepEqual(
      checkout!.runs.map((r) => [r.id, r.links.compare ?? null]),
      [['f1', null], ['p1', null], ['f2', null], ['p2', null], ['f3', '/wdgate/sessions/f3/compare']],
    );
    assert.equal(checkout!.runs[2]!.reason, 'the Buy button is gone');
    assert.equal(checkout!.runs[4]!.links.viewer, '/ui/trace?session=f3');
    assert.equal(checkout!.verdict, 'new failure');
    // Build b4: both tests in it, one a new failure; with verdict=stable only "search" is listed, the summary the same.
    const summary = { name: 'b4', tests: 2, passed: 1, failed: 1, flaky: 0, newFailures: 1 };
    assert.deepEqual(runs.list(alice, { limit: 10, offset: 0, build: 'b4' }).build, summary);
    const stable = runs.list(alice, { limit: 10, offset: 0, build: 'b4', verdict: 'stable' });
    assert.deepEqual([stable.tests.map((t) => t.name), stable.total, stable.build], [['search'], 1, summary]);
    // Another principal's tests are not listed.
    assert.equal(runs.list({ ...alice, name: 'bob' }, { limit: 10, offset: 0 }).total, 0);
    await runs.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('at start the index is read again as saved: which runs keep a trace comes from the entries, and runs past the newest 50 are not added again', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wdgate-runs-unit-'));
  const lines: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  try {
    const entries = Array.from({ length: 60 }, (_, i) => ended(`r${i}`, 'passed', i, { trace: i >= 58 }));
    const first = new TestRuns(dir, log);
    await first.load(() => entries);
    assert.deepEqual([...first.baselines()], ['r59']);
    await first.close();
    assert.equal(lines.filter((l) => l.includes('tests index rebuilt')).length, 1);
    // The newest pass's entry went while the index was not written (a crash): the one before is the baseline.
    const second = new TestRuns(dir, log);
    await second.load(() => entries.filter((e) => e.id !== 'r59'));
    assert.deepEqual([...second.baselines()], ['r58']);
    await second.close();
    // Read again with nothing changed: nothing rebuilt (the 10 runs older than the newest 50 stay out).
    lines.length = 0;
    const third = new TestRuns(dir, log);
    await third.load(() => entries.filter((e) => e.id !== 'r59'));
    assert.deepEqual(lines.filter((l) => l.includes('tests index rebuilt')), []);
    assert.equal(third.testOf('r10')?.runs.length, 50);
    assert.equal(third.testOf('r9'), undefined);
    await third.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("how a client reported its result is not a step of the comparison (Grid's se/event in one run, sauce:job-result in the other)", () => {
  const base = [step(0, 'navigateTo', { params: { url: 'http://h/' }, url: 'http://h/', title: 'Home' }), step(1, 'getTitle')];
  const a = trace([...base, step(2, 'sessionEvent', { params: { eventType: 'test:failed' } })]);
  const b = trace([...base, step(2, 'executeScript', { params: { script: 'sauce:job-result=passed', args: [] } })]);
  const { first, aligned } = compareRuns(a, b);
  assert.equal(first, undefined);
  assert.deepEqual(aligned, [[0, 0], [1, 1]]);
  // An ordinary script is a step like any other.
  assert.equal(compareRuns(a, trace([...base, step(2, 'executeScript', { params: { script: 'return 1', args: [] } })])).first?.kind, 'missing');
});
