// transcript.md (src/trace/transcript.ts): a session in plain Markdown, one line a step, what went
// wrong near each step beneath it, the final page, and the failure with the steps that led to it;
// a failed run of a test that passed before ends with the first step where the two differ.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareRuns, type RunTrace } from '../../src/trace/runs/align.ts';
import { transcript } from '../../src/trace/transcript.ts';
import type { NetworkEntry, Trace, TraceStep } from '../../src/trace/viewer/model.ts';

const T0 = Date.parse('2026-11-26T14:00:00.000Z');
const step = (n: number, name: string, extra: Partial<TraceStep> = {}): TraceStep => ({ n, kind: 'command', name, startedAt: T0 + n * 1000, durationMs: 12, ...extra });
const request = (at: number, url: string, status: number, extra: Partial<NetworkEntry> = {}): NetworkEntry => ({
  startedAt: T0 + at,
  durationMs: 3,
  method: 'GET',
  url,
  status,
  statusText: status === 404 ? 'Not Found' : 'OK',
  type: 'fetch',
  mimeType: 'application/json',
  size: 10,
  requestHeaders: [],
  responseHeaders: [],
  timings: {},
  ...extra,
});

function failedSession(): Pick<Trace, 'session' | 'steps' | 'console' | 'network'> {
  return {
    session: { id: 'abc-123', name: 'checkout buys the cart', result: 'failed', resultReason: 'findElement: no such element', startedAt: new Date(T0).toISOString(), durationMs: 9000, browserName: 'chrome', browserVersion: '156.0', engine: 'chromium', backend: 'native', principal: 'local', build: 'ci-42', tags: ['smoke'], endReason: 'it was deleted' },
    steps: [
      step(0, 'newSession', { params: { capabilities: {} }, result: '{"sessionId":"abc"}' }),
      step(1, 'navigateTo', { params: { url: 'http://shop.test/cart' }, url: 'http://shop.test/cart', title: 'Cart' }),
      step(2, 'findElement', { params: { using: 'css selector', value: '#user' }, result: '{"element-6066-11e4-a52e-4f735466cecf":"e-1"}' }),
      step(3, 'elementSendKeys', { element: 'e-1', params: { text: 'alice' } }),
      step(4, 'elementClick', { element: 'e-2', url: 'http://shop.test/pay', title: 'Pay\nnow' }),
      { n: 5, kind: 'marker', name: 'marker:add', startedAt: T0 + 5000, durationMs: 0, text: 'cart filled' },
      step(6, 'findElement', { params: { using: 'css selector', value: '#receipt' }, error: { code: 'no such element', message: 'no element matches "#receipt"' } }),
      { n: 7, kind: 'event', name: 'test:failed', startedAt: T0 + 7000, durationMs: 0, text: 'expected a receipt' },
      step(8, 'deleteSession'),
    ],
    console: [
      { type: 'console', level: 'log', text: 'cart ready', timestamp: T0 + 1500 },
      { type: 'console', level: 'error', text: 'price service\ndown', timestamp: T0 + 4200 },
      { type: 'pageerror', level: 'error', text: 'TypeError: total is undefined', timestamp: T0 + 4300 },
    ],
    network: [request(1100, 'http://shop.test/cart', 200), request(4100, 'http://shop.test/price', 404), request(4150, 'http://cdn.test/x.js', 0, { error: 'net::ERR_CONNECTION_REFUSED' })],
  };
}

test('a failed session: a heading with its result, who and what, the final page, the failure with the steps before it, every step one line', () => {
  const md = transcript(failedSession());
  const lines = md.split('\n');
  assert.equal(lines[0], '# checkout buys the cart — failed');
  assert.ok(lines.includes('- **Result:** failed — findElement: no such element'), md);
  assert.ok(lines.includes('- **Browser:** chrome 156.0, engine chromium, backend native'), md);
  assert.ok(lines.includes('- **Final page:** http://shop.test/pay — "Pay now" (after step 5)'), md);
  // The failure: the command, its code and message, and the five steps before it, as in the list.
  const failure = md.slice(md.indexOf('## Failure'), md.indexOf('## Steps'));
  assert.match(failure, /Step 7, \*\*findElement\*\*, failed: \*\*no such element\*\* — no element matches "#receipt"/);
  assert.deepEqual(failure.split('\n').filter((l) => /^\d+\. /.test(l)).map((l) => l.split(' ')[0]), ['2.', '3.', '4.', '5.', '6.', '7.']);
  // Every step is one line: number, time from the start, command, target, value, outcome, duration.
  const steps = md.slice(md.indexOf('## Steps')).split('\n').filter((l) => /^\d+\. /.test(l));
  assert.equal(steps.length, 9);
  assert.equal(steps[1], '2. +1.000 s **navigateTo** http://shop.test/cart — ok (12 ms)');
  assert.equal(steps[2], '3. +2.000 s **findElement** css selector "#user" — → {"element-6066-11e4-a52e-4f735466cecf":"e-1"} (12 ms)');
  // An element by the locator that found it; one no step found by its reference.
  assert.equal(steps[3], '4. +3.000 s **elementSendKeys** css selector "#user" (found in step 3) value "alice" — ok (12 ms)');
  assert.equal(steps[4], '5. +4.000 s **elementClick** element e-2 — ok (12 ms)');
  assert.equal(steps[5], '6. +5.000 s ⚑ marker marker:add: cart filled');
  assert.equal(steps[6], '7. +6.000 s **findElement** css selector "#receipt" — **ERROR no such element**: no element matches "#receipt" (12 ms)');
  assert.equal(steps[7], '8. +7.000 s event test:failed: expected a receipt');
  // Beneath the click: its console error, its page error and its failed requests (not the log line, not the 200).
  const click = md.slice(md.lastIndexOf('5. +4.000 s'), md.lastIndexOf('6. +5.000 s'));
  assert.deepEqual(
    click.split('\n').filter((l) => l.startsWith('    - ')),
    [
      '    - console error +4.200 s: price service down',
      '    - page error +4.300 s: TypeError: total is undefined',
      '    - request failed +4.100 s: GET http://shop.test/price → 404 Not Found',
      '    - request failed +4.150 s: GET http://cdn.test/x.js → net::ERR_CONNECTION_REFUSED',
    ],
  );
  assert.doesNotMatch(md, /cart ready/);
});

test('a failure the client reported, a browser gone, a session that passed', () => {
  const reported = failedSession();
  reported.steps = reported.steps.map(({ error: _e, ...s }) => s);
  assert.match(transcript(reported), /## Failure\n\nThe client reported the test failed: findElement: no such element\.\n\nThe steps that led to it:\n\n3\. /);
  const crashed = failedSession();
  crashed.session = { ...crashed.session, endCause: 'crashed', endReason: 'its browser went away (it crashed or was killed)' };
  assert.match(transcript(crashed), /## Failure\n\nThe browser went away: its browser went away \(it crashed or was killed\)/);
  const passed = failedSession();
  passed.session = { ...passed.session, result: 'passed', resultReason: '' };
  assert.doesNotMatch(transcript(passed), /## Failure/);
});

test('a failed run of a test that passed before ends with one paragraph: since the last pass, the first difference, at the step the list numbers so', () => {
  const failed = failedSession();
  // The last pass: the same commands, but the click led to the receipt.
  const steps = failed.steps.filter((s) => s.n < 5).map((s) => (s.n === 4 ? { ...s, url: 'http://shop.test/receipt', title: 'Receipt' } : s));
  const run = (t: Pick<Trace, 'steps' | 'network'>): RunTrace => ({ steps: t.steps as RunTrace['steps'], requests: t.network, snapshot: () => undefined });
  const { first } = compareRuns(run(failed), run({ steps, network: [] }));
  assert.equal(first?.failedStep, 4);
  const md = transcript(failed, { session: 'pass-99', first });
  const paragraph = 'Since the last pass (session pass-99): first difference at step 5: after step 5 (elementClick) the page was /pay, in the passed run /receipt. Side by side: /ui/trace?session=abc-123&compare=pass-99';
  assert.ok(md.endsWith(`\n## Since the last pass\n\n${paragraph}\n`), md);
  assert.match(md, /\n5\. \+4\.000 s \*\*elementClick\*\*/, 'step 5 of the list is the step the paragraph names');
  // Nothing found between them; and no paragraph without a last pass.
  assert.ok(transcript(failed, { session: 'pass-99' }).endsWith('Since the last pass (session pass-99): no difference found between the two runs. Side by side: /ui/trace?session=abc-123&compare=pass-99\n'));
  assert.doesNotMatch(transcript(failed), /Since the last pass/);
});
