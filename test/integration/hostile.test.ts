// Hostile input through the real server: each limit with its clear error, stalled connections
// closed, and a fuzz run of thousands of malformed requests during which a live session keeps
// working and the gateway's memory stays bounded.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { connect } from 'node:net';
import { matchRoute, routes } from '../../src/webdriver/routes.ts';
import type { Session } from '../helpers/client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { leftoverBrowsers, startPageServer, type PageServer } from '../helpers/pages.ts';
import { SPEC_TABLE } from '../helpers/spec-errors.ts';

const LIMITS = { maxBodyBytes: 65536, maxUrlLength: 1024, maxJsonDepth: 16, maxHeaderBytes: 8192 };

let gw: TestGateway;
let pages: PageServer;
let live: Session;
let page: string;
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

before(async () => {
  [gw, pages] = await Promise.all([
    startGateway([], { config: { ...LIMITS, newSessionsPerSecond: 5, maxSessions: 3, sessionQueueTimeout: 500, pool: { minWarm: 1 } } }),
    startPageServer(),
  ]);
  live = await gw.client.newSession({ timeouts: { script: 200, implicit: 0, pageLoad: 5000 } });
  page = pages.page('<p id="p">still here</p>', 'live');
  await live.navigate(page);
});

after(async () => {
  agent.destroy();
  const pid = gw.process.pid!;
  await live?.end().catch(() => {});
  await gw.stop();
  await pages.close();
  assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
});

interface Reply {
  status: number;
  type: string;
  text: string;
}

function send(method: string, path: string, body?: Buffer | string, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<Reply> {
  // Node sends a GET's body without framing unless told its length (then no server can read on).
  if (body !== undefined) headers = { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: gw.port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'] ?? '', text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A W3C error with the spec's status for its code; returns it. */
function assertW3CError(reply: Reply, what: string): { error: string; message: string } {
  let json: any;
  assert.doesNotThrow(() => (json = JSON.parse(reply.text)), `${what}: not JSON: ${reply.text.slice(0, 200)}`);
  const value = json.value;
  assert.deepEqual(Object.keys(value ?? {}).sort(), ['error', 'message', 'stacktrace'], `${what}: ${reply.text.slice(0, 200)}`);
  assert.ok(value.error in SPEC_TABLE, `${what}: unknown error code ${value.error}`);
  assert.equal(reply.status, SPEC_TABLE[value.error], `${what}: ${value.error} with status ${reply.status}`);
  return value;
}

/** The live session still answers commands correctly (the fuzz may have navigated it or entered a frame). */
async function liveSessionWorks(): Promise<void> {
  await live.post('/frame', { id: null });
  await live.navigate(page);
  assert.equal(await live.get('/title'), 'live');
  assert.equal(await live.get(`/element/${await live.find('#p')}/text`), 'still here');
}

describe('limits: each refused with a clear error, and the gateway keeps serving', () => {
  test('a path past maxUrlLength, headers past maxHeaderBytes, JSON nested past maxJsonDepth are invalid argument', async () => {
    const long = assertW3CError(await send('GET', `/session/${'a'.repeat(LIMITS.maxUrlLength)}/url`), 'long path');
    assert.equal(long.error, 'invalid argument');
    assert.match(long.message, /longer than 1024 bytes \(maxUrlLength\)/);

    const big = assertW3CError(await send('GET', '/status', undefined, { 'x-big': 'b'.repeat(LIMITS.maxHeaderBytes) }), 'big headers');
    assert.equal(big.error, 'invalid argument');
    assert.match(big.message, /more than 8192 \(maxHeaderBytes\)/);
    // Past twice the limits the request never reaches the gate: uWS's parser answers it (src/server/uws.ts).
    const huge = await send('GET', '/status', undefined, { 'x-big': 'b'.repeat(2 * (LIMITS.maxUrlLength + LIMITS.maxHeaderBytes)) });
    assert.equal(huge.status, 431, huge.text);

    const nest = (depth: number) => '{"url":'.repeat(1) + '['.repeat(depth - 1) + ']'.repeat(depth - 1) + '}';
    const deep = assertW3CError(await send('POST', `/session/${live.id}/url`, nest(LIMITS.maxJsonDepth + 1)), 'deep JSON');
    assert.equal(deep.error, 'invalid argument');
    assert.match(deep.message, /nests deeper than 16 levels \(maxJsonDepth\)/);
    // At the limit the body is parsed, and the command says what is wrong with it.
    const atLimit = assertW3CError(await send('POST', `/session/${live.id}/url`, nest(LIMITS.maxJsonDepth)), 'JSON at the limit');
    assert.equal(atLimit.error, 'invalid argument');
    assert.doesNotMatch(atLimit.message, /nests deeper/);
    // Deeply nested far past any stack (a recursive parser would die here).
    assert.equal(assertW3CError(await send('POST', '/session', '['.repeat(60_000)), 'very deep').error, 'invalid argument');
    await liveSessionWorks();
  });

  test('a stalled request (slowloris: headers or body never finished) is closed by the server', async () => {
    const stalled = (data: string) =>
      new Promise<{ answer: string; closed: boolean }>((resolve) => {
        const socket = connect(gw.port, '127.0.0.1', () => socket.write(data));
        let answer = '';
        socket.on('data', (c) => (answer += c));
        socket.on('close', () => resolve({ answer, closed: true }));
        socket.on('error', () => {});
      });
    const [headers, body] = await Promise.all([
      stalled('GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n'),
      stalled(`POST /session/${live.id}/url HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"url":`),
    ]);
    // Closed by the server (the test waits for that, with no timer of its own), with no answer.
    assert.deepEqual(headers, { answer: '', closed: true });
    assert.deepEqual(body, { answer: '', closed: true });
    await liveSessionWorks();
  });

  test('one request in flight per connection: pipelined requests answered at once come in order; a pipeline behind a browser command closes the connection', async () => {
    /** Write `data` in one piece; resolve when the server closed the connection or `responses` answers came. */
    const pipelined = (data: string, responses: number) =>
      new Promise<{ statuses: string[]; closed: boolean }>((resolve) => {
        const socket = connect(gw.port, '127.0.0.1', () => socket.write(data));
        let text = '';
        const statuses = () => text.match(/HTTP\/1\.1 \d+/g) ?? [];
        socket.on('data', (c) => {
          text += c;
          if (statuses().length === responses && text.endsWith('}')) {
            socket.destroy();
            resolve({ statuses: statuses(), closed: false });
          }
        });
        socket.on('close', () => resolve({ statuses: statuses(), closed: true }));
        socket.on('error', () => {});
      });
    const status = 'GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    // Requests answered at once: in order, each after the one before.
    assert.deepEqual(await pipelined(status.repeat(50), 50), { statuses: Array(50).fill('HTTP/1.1 200'), closed: false });
    // uWebSockets.js cannot hold requests behind one answered later (a browser command, with or
    // without a body): the connection is closed at once, nothing half-answered, and the gateway
    // and the session go on. No WebDriver client pipelines; one that does can send one by one.
    const title = `GET /session/${live.id}/title HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    const body = JSON.stringify({ script: 'return 1', args: [] });
    const post = `POST /session/${live.id}/execute/sync HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    for (const first of [title, post]) assert.deepEqual(await pipelined(first + status.repeat(50), 51), { statuses: [], closed: true });
    await liveSessionWorks();
  });
});

// ── Fuzz ─────────────────────────────────────────────────────────────────────────────────────

/** A small deterministic PRNG (mulberry32): a failure replays with the same seed. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Commands that would end, leave or slow down the live session on purpose: sent to other ids only. */
const NOT_ON_LIVE = new Set(['deleteSession', 'closeWindow', 'newWindow', 'setTimeouts', 'switchToWindow', 'performActions', 'adminEndSession']);
/** What an admin does on purpose to every session (the local user is one here): not hostile input. */
const ADMIN_ACTIONS = new Set(['adminEndAllSessions', 'adminDrain']);

function fuzzCases(seed: number, count: number, liveId: string): { method: string; path: string; body?: Buffer | string; headers: Record<string, string> }[] {
  const random = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const int = (n: number) => Math.floor(random() * n);
  const strings = ['', 'a', '\u0000', '\ud800', '😀'.repeat(3), '"', '\\', '%00', '../../etc/passwd', 'x'.repeat(5000), '<script>', 'about:blank', 'css selector', '#p', 'p'];
  const numbers = [0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER, 65536, -0];
  const keys = ['url', 'using', 'value', 'script', 'args', 'text', 'id', 'cookie', 'name', 'handle', 'type', 'actions', 'capabilities', 'x', 'width', '__proto__', 'constructor'];
  const value = (depth: number): unknown => {
    const kind = int(depth > 3 ? 4 : 6);
    if (kind === 0) return pick(strings);
    if (kind === 1) return pick(numbers);
    if (kind === 2) return pick([true, false, null]);
    if (kind === 3) return pick(strings).repeat(1 + int(3));
    if (kind === 4) return Array.from({ length: int(4) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: 1 + int(3) }, () => [pick(keys), value(depth + 1)]));
  };
  const bodies: (() => Buffer | string)[] = [
    () => JSON.stringify(value(0)),
    () => JSON.stringify({ [pick(keys)]: value(1) }),
    () => JSON.stringify(value(0)).slice(0, 1 + int(20)), // broken JSON
    () => '{"a":1e400, "b": 123456789012345678901234567890}',
    () => Buffer.from([0x7b, 0x22, 0x75, 0x72, 0x6c, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]), // {"url":"<invalid UTF-8>"}
    () => '['.repeat(20 + int(5000)),
    () => `{"url":"${'u'.repeat(LIMITS.maxBodyBytes + int(1000))}"}`, // over maxBodyBytes
    () => '',
    () => 'null',
    () => '\u0000\u0001\u0002',
  ];
  const ids = [liveId, 'no-such-session', '', '%2e%2e', '..', '%00', '%E2%82%AC', 'x'.repeat(200), '00000000-0000-0000-0000-000000000000'];
  const segment = () => pick(['', '%', '%zz', '%2F', '..', 'a'.repeat(int(3000)), '%F0%9F%98%80', 'element', String(int(1e6))]);
  const cases = [];
  for (let i = 0; i < count; i++) {
    const route = pick(routes);
    const id = pick(ids);
    let path = route.path.replace('{sessionId}', id).replace(/\{[a-zA-Z]+\}/g, () => segment());
    if (random() < 0.15) path = pick(['/', '//', '/session/', `/session/${id}/${segment()}/${segment()}`, '/wd/hub/%', `/${segment()}`, '/status?x=%zz']);
    const method = random() < 0.8 ? route.method : pick(['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'TRACE']);
    // Ending or leaving the live session on purpose is not hostile input: it is the test's witness.
    const target = matchRoute(method, path);
    if (path.includes(liveId) && target.kind === 'found' && NOT_ON_LIVE.has(target.route.command)) continue;
    if (target.kind === 'found' && ADMIN_ACTIONS.has(target.route.command)) continue;
    const headers: Record<string, string> = { 'content-type': pick(['application/json', 'application/json; charset=utf-8', 'application/json;charset=latin1']) };
    const body = method === 'POST' || random() < 0.1 ? pick(bodies)() : undefined;
    cases.push({ method, path, body, headers });
  }
  return cases;
}

function rssBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
  return Number(kb) * 1024;
}

describe('fuzz: thousands of malformed requests', () => {
  test('each gets a W3C error with the spec status (or a success), the live session keeps working, memory stays bounded', async () => {
    const pid = gw.process.pid!;
    const seed = Number(process.env.WDGATE_FUZZ_SEED ?? 20261124);
    const cases = fuzzCases(seed, 3000, live.id);
    const samples: number[] = [];
    let successes = 0;
    for (let at = 0; at < cases.length; at += 500) {
      const batch = cases.slice(at, at + 500);
      // Eight at a time over kept-alive connections.
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < batch.length) {
            const c = batch[next++]!;
            const what = `seed ${seed}: ${c.method} ${c.path.slice(0, 120)} ${String(c.body ?? '').slice(0, 80)}`;
            const reply = await send(c.method, c.path, c.body, c.headers).catch((e) => assert.fail(`${what}: ${e.message}`));
            if (reply.status === 200) {
              successes++;
              // JSON {value} — or the Prometheus text of GET /metrics.
              if (reply.type.startsWith('application/json')) assert.ok('value' in JSON.parse(reply.text), what);
              else assert.match(reply.text, /^# HELP/, what);
            } else {
              assertW3CError(reply, what);
            }
          }
        }),
      );
      await liveSessionWorks();
      samples.push(rssBytes(pid));
    }
    // Memory: after the first batches warmed things up, it does not keep growing with requests.
    const growth = samples.at(-1)! - samples[1]!;
    assert.ok(growth < 48 * 2 ** 20, `the gateway grew by ${Math.round(growth / 2 ** 20)} MB over 2000 requests (${samples.map((s) => Math.round(s / 2 ** 20)).join(', ')} MB)`);
    assert.ok(successes < cases.length / 2, 'most fuzz requests should have been refused');
  });

  test('a flood of New Session requests: each is a session or session not created, and the live session keeps working', async () => {
    const replies = await Promise.all(Array.from({ length: 30 }, () => send('POST', '/session', JSON.stringify({ capabilities: {} }))));
    const created = replies.filter((r) => r.status === 200).map((r) => JSON.parse(r.text).value.sessionId as string);
    for (const reply of replies.filter((r) => r.status !== 200)) {
      assert.equal(assertW3CError(reply, 'flooded New Session').error, 'session not created');
    }
    // At most the rate's burst got through, and no more than the free slots (the live one holds one).
    assert.ok(created.length >= 1 && created.length <= 2, `${created.length} sessions were created`);
    for (const id of created) assert.equal((await send('DELETE', `/session/${id}`)).status, 200);
    await liveSessionWorks();
  });
});
