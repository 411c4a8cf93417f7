// What operators see: structured JSON logs (one line per session event and failed command, never
// a request body) and Prometheus metrics at GET /metrics.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, leftoverBrowsers } from '../helpers/pages.ts';

/** The gateway's log lines so far, parsed (every line on its standard output is JSON). */
function logLines(gw: TestGateway): Record<string, unknown>[] {
  return gw
    .output()
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function stop(gw: TestGateway): Promise<void> {
  const pid = gw.process.pid!;
  await gw.stop();
  assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
}

describe('logs', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway();
  });
  after(() => stop(gw));

  test('one JSON line per session event and per failed command, naming session, command, error and duration; no bodies', async () => {
    const s = await gw.client.newSession();
    await s.fails('POST', '/execute/sync', { script: 'throw new Error("SECRET-" + "in-the-body")', args: ['SECRET-argument'] }, 'javascript error', 500);
    await s.end();
    await eventually(() => logLines(gw).some((l) => l.event === 'session ended'), 'no session ended line');
    const lines = logLines(gw);
    assert.ok(lines.every((l) => typeof l.level === 'string' && typeof l.time === 'string'));
    const created = lines.find((l) => l.event === 'session created');
    assert.equal(created?.sessionId, s.id);
    assert.equal(created?.backend, 'native');
    assert.equal(typeof created?.ms, 'number');
    const failed = lines.find((l) => l.event === 'command failed');
    assert.deepEqual({ sessionId: failed?.sessionId, command: failed?.command, error: failed?.error }, { sessionId: s.id, command: 'executeScript', error: 'javascript error' });
    assert.equal(typeof failed?.ms, 'number');
    const ended = lines.find((l) => l.event === 'session ended');
    assert.equal(ended?.sessionId, s.id);
    assert.match(String(ended?.reason), /deleted/);
    assert.ok(!gw.output().includes('SECRET'), 'a request body reached the log');
  });
});

describe('log level', () => {
  test('--log-level warn leaves out info lines', async () => {
    const gw = await startGateway(['--log-level', 'warn']);
    try {
      const s = await gw.client.newSession();
      await s.fails('GET', '/element/nope/text', undefined, 'no such element', 404);
      await s.end();
      // The start line is the only one, and the test helper found the port in it.
      assert.ok(!logLines(gw).some((l) => l.event === 'session created' || l.event === 'command failed'));
    } finally {
      await stop(gw);
    }
  });
});

describe('metrics', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway();
  });
  after(() => stop(gw));

  /** A sample's value from the exposition text (labels as written, in order). */
  function sample(text: string, name: string): number | undefined {
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.slice(name.length + 1));
  }

  test('GET /metrics is Prometheus text: sessions, pool, command latency by command name', async () => {
    const scrape = async () => {
      const res = await fetch(`${gw.url}/metrics`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
      return res.text();
    };
    const before = await scrape();
    assert.equal(sample(before, 'wdgate_sessions_active'), 0);
    const s = await gw.client.newSession();
    try {
      for (let i = 0; i < 3; i++) await s.get('/title');
      await s.fails('GET', '/element/nope/text', undefined, 'no such element', 404);
      const during = await scrape();
      assert.equal(sample(during, 'wdgate_sessions_active'), 1);
      assert.equal(sample(during, 'wdgate_sessions_queued'), 0);
      assert.equal(sample(during, 'wdgate_sessions_created_total'), 1);
      assert.equal(sample(during, 'wdgate_command_duration_seconds_count{command="getTitle"}'), 3);
      assert.equal(sample(during, 'wdgate_command_errors_total{command="getElementText",error="no such element"}'), 1);
      assert.match(during, /^wdgate_pool_browsers\{backend="native",key="[^\n]*"\} 1$/m);
      assert.match(during, /^wdgate_pool_contexts\{backend="native",key="[^\n]*",state="in_use"\} 1$/m);
    } finally {
      await s.end();
    }
  });

  test("GET /metrics has what the pool prepares ahead and New Session's wait for a context, per key", async () => {
    const scrape = () => fetch(`${gw.url}/metrics`).then((r) => r.text());
    /** The native key's samples of `name` (label sets as written, without the backend and key). */
    const samples = (text: string, name: string) =>
      new Map(
        [...text.matchAll(new RegExp(`^${name}\\{backend="native",key="[^\\n]*?"(?:,(le="[^"]*"))?\\} (\\S+)$`, 'gm'))].map((m) => [m[1] ?? '', Number(m[2])]),
      );
    const before = samples(await scrape(), 'wdgate_pool_lease_wait_seconds_count').get('') ?? 0;
    for (let i = 0; i < 2; i++) await (await gw.client.newSession()).end();
    const text = await scrape();
    const count = samples(text, 'wdgate_pool_lease_wait_seconds_count').get('');
    assert.equal(count, before + 2);
    // Buckets are cumulative, +Inf holds every wait, and the sum is of seconds (two leases: well under a minute).
    const buckets = [...samples(text, 'wdgate_pool_lease_wait_seconds_bucket')];
    assert.equal(buckets.at(-1)![0], 'le="+Inf"');
    assert.equal(buckets.at(-1)![1], count);
    assert.ok(buckets.every(([, n], i) => i === 0 || n >= buckets[i - 1]![1]), JSON.stringify(buckets));
    assert.ok(samples(text, 'wdgate_pool_lease_wait_seconds_sum').get('')! < 60);
    assert.match(text, /^# TYPE wdgate_pool_lease_wait_seconds histogram$/m);
    // The default key keeps minWarm (1) at least; it has seen New Sessions; a context takes a while to prepare.
    assert.ok(samples(text, 'wdgate_pool_prepared_target').get('')! >= 1);
    assert.ok(samples(text, 'wdgate_pool_new_session_rate').get('')! > 0);
    assert.ok(samples(text, 'wdgate_pool_prepare_seconds').get('')! > 0);
    assert.ok(samples(text, 'wdgate_pool_contexts_preparing').get('')! >= 0);
  });
});
