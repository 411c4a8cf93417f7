// The HTTP edge, through the real server: routing errors, body parsing, the body size limit,
// the wire shape of every answer, and the security gate (Origin, Host, non-loopback peers).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { createNamespace, namespaceUnavailable } from '../helpers/netns.ts';
import { leftoverBrowsers } from '../helpers/pages.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const MAX_BODY = 2048;

let gw: TestGateway;
let configDir: string;

interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

/** One HTTP request with full control of method, headers and body bytes (fetch hides some). */
function request(
  method: string,
  path: string,
  options: { body?: string | Buffer; headers?: Record<string, string>; agent?: http.Agent; port?: number } = {},
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: options.port ?? gw.port, method, path, headers: options.headers ?? {}, agent: options.agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: any;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode!, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Every answer: JSON content type and exactly {value: {error, message, stacktrace}} for errors. */
function assertError(reply: RawReply, status: number, code: string): string {
  assert.equal(reply.status, status, reply.text);
  assert.equal(reply.headers['content-type'], JSON_TYPE);
  assert.deepEqual(Object.keys(reply.json), ['value'], reply.text);
  assert.deepEqual(Object.keys(reply.json.value).sort(), ['error', 'message', 'stacktrace'], reply.text);
  assert.equal(reply.json.value.error, code, reply.text);
  assert.equal(typeof reply.json.value.message, 'string');
  assert.ok(reply.json.value.message.length > 0);
  assert.equal(typeof reply.json.value.stacktrace, 'string');
  return reply.json.value.message;
}

function assertStatus(reply: RawReply): void {
  assert.equal(reply.status, 200, reply.text);
  assert.equal(reply.headers['content-type'], JSON_TYPE);
  assert.deepEqual(Object.keys(reply.json), ['value']);
  assert.deepEqual(Object.keys(reply.json.value).sort(), ['bidi', 'message', 'pool', 'ready', 'sessions']);
  assert.deepEqual(reply.json.value.bidi, { connections: 0 });
  assert.equal(reply.json.value.ready, true);
  assert.equal(typeof reply.json.value.message, 'string');
}

before(async () => {
  configDir = await mkdtemp(join(tmpdir(), 'wdgate-http-test-'));
  const config = join(configDir, 'config.json');
  // No test here makes a session: nothing warm (pool.minWarm 0), no browser launched for nothing.
  await writeFile(config, JSON.stringify({ maxBodyBytes: MAX_BODY, pool: { minWarm: 0 } }));
  gw = await startGateway(['--config', config]);
});

after(async () => {
  const pid = gw?.process.pid;
  await gw?.stop();
  await rm(configDir, { recursive: true, force: true });
  if (pid) assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
});

describe('routing', () => {
  test('GET /status answers {ready, message}', async () => {
    assertStatus(await request('GET', '/status'));
  });

  test('an unknown path is 404 unknown command', async () => {
    for (const path of ['/', '/nope', '/session/abc/nope', '/session/abc/element/def/nope', '/wd/hub', '/status/x']) {
      const message = assertError(await request('GET', path), 404, 'unknown command');
      assert.match(message, /GET/, path);
    }
  });

  test('a known path with the wrong method is 405 unknown method', async () => {
    assertError(await request('POST', '/status'), 405, 'unknown method');
    assertError(await request('GET', '/session'), 405, 'unknown method');
    assertError(await request('PUT', '/session/abc/url', { body: '{}' }), 405, 'unknown method');
    const message = assertError(await request('DELETE', '/session/abc/url'), 405, 'unknown method');
    assert.match(message, /GET/);
    assert.match(message, /POST/);
  });

  test('a HEAD request gets headers only, and the connection stays usable', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const head = await request('HEAD', '/status', { agent });
      assert.equal(head.status, 405);
      assert.equal(head.headers['content-type'], JSON_TYPE);
      assert.equal(head.text, '');
      assertStatus(await request('GET', '/status', { agent }));
    } finally {
      agent.destroy();
    }
  });

  test('a trailing slash is tolerated', async () => {
    assertStatus(await request('GET', '/status/'));
    assertStatus(await request('GET', '/status?verbose=1'));
    assertError(await request('GET', '/session/abc/url/'), 404, 'invalid session id');
  });

  test('the /wd/hub prefix reaches the same commands', async () => {
    assertStatus(await request('GET', '/wd/hub/status'));
    assertError(await request('GET', '/wd/hub/session/abc/url'), 404, 'invalid session id');
    assertError(await request('POST', '/wd/hub/session', { body: '{}' }), 400, 'invalid argument');
  });

  test('a session command for an unknown session is 404 invalid session id', async () => {
    assertError(await request('GET', '/session/no-such-session/title'), 404, 'invalid session id');
    assertError(await request('DELETE', '/session/no-such-session'), 404, 'invalid session id');
    // Parameters are not looked at before the session is known.
    assertError(await request('POST', '/session/no-such-session/url', { body: '{"url": 5}' }), 404, 'invalid session id');
  });
});

describe('request bodies', () => {
  test('a body that is not JSON, or JSON but not an object, is 400 invalid argument', async () => {
    for (const body of ['{bad', 'capabilities', '{"a":1', '[]', '[{"capabilities":{}}]', '"a string"', '42', 'null', 'true']) {
      const message = assertError(await request('POST', '/session', { body, headers: { 'content-type': 'application/json' } }), 400, 'invalid argument');
      assert.match(message, /JSON/, body);
    }
  });

  test('an empty POST body is invalid argument (spec §6.3: it is no JSON), chunked or not', async () => {
    for (const headers of [{}, { 'content-type': 'application/json' }, { 'transfer-encoding': 'chunked' }] as Record<string, string>[]) {
      const message = assertError(await request('POST', '/session', { headers }), 400, 'invalid argument');
      assert.match(message, /JSON object/);
    }
    // The parser answers, not New Session (which would name the missing capabilities).
    assert.match(assertError(await request('POST', '/session', { body: '{}' }), 400, 'invalid argument'), /capabilities/);
  });

  test(`a body over maxBodyBytes (${MAX_BODY}) is 400 invalid argument and the server keeps serving`, async () => {
    const big = JSON.stringify({ capabilities: { alwaysMatch: { 'x:pad': 'x'.repeat(MAX_BODY) } } });
    let message = assertError(await request('POST', '/session', { body: big }), 400, 'invalid argument');
    assert.match(message, new RegExp(String(MAX_BODY)));
    // Megabytes, sent chunked (no Content-Length to judge by).
    message = assertError(
      await request('POST', '/session', { body: Buffer.alloc(4 << 20, 0x20), headers: { 'transfer-encoding': 'chunked' } }),
      400,
      'invalid argument',
    );
    // On a kept-alive connection, the next request is answered normally.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      assertError(await request('POST', '/session', { body: big, agent }), 400, 'invalid argument');
      assertStatus(await request('GET', '/status', { agent }));
    } finally {
      agent.destroy();
    }
    assertStatus(await request('GET', '/status'));
    // Just under the limit is parsed (and then judged by the command).
    const fits = JSON.stringify({ capabilities: { alwaysMatch: { browserName: 5, 'x:pad': 'x'.repeat(MAX_BODY - 100) } } });
    assert.ok(Buffer.byteLength(fits) <= MAX_BODY);
    message = assertError(await request('POST', '/session', { body: fits }), 400, 'invalid argument');
    assert.match(message, /browserName/);
  });
});

describe('security gate', () => {
  test('a request with an Origin header is 403', async () => {
    for (const origin of ['http://evil.example', 'http://127.0.0.1:9', 'null']) {
      const reply = await request('GET', '/status', { headers: { origin } });
      assert.equal(reply.status, 403, origin);
      assert.equal(reply.headers['content-type'], JSON_TYPE);
      assert.deepEqual(Object.keys(reply.json.value).sort(), ['error', 'message', 'stacktrace']);
      assert.match(reply.json.value.message, /Origin/);
    }
    // Refused before anything runs: not even New Session's parameters are looked at.
    const reply = await request('POST', '/session', { body: '{bad', headers: { origin: 'http://evil.example' } });
    assert.equal(reply.status, 403);
  });

  test('a Host header with a DNS name is 403; localhost and IP literals are fine', async () => {
    for (const host of [`evil.example:${gw.port}`, 'evil.example', `localhost.evil.example:${gw.port}`, `127.0.0.1.nip.io:${gw.port}`]) {
      const reply = await request('GET', '/status', { headers: { host } });
      assert.equal(reply.status, 403, host);
      assert.equal(reply.headers['content-type'], JSON_TYPE);
      assert.match(reply.json.value.message, /Host/);
    }
    for (const host of [`localhost:${gw.port}`, `LocalHost:${gw.port}`, `127.0.0.1:${gw.port}`, 'localhost']) {
      assertStatus(await request('GET', '/status', { headers: { host } }));
    }
  });

  test('IPv6 loopback clients are served, on an IPv6 or dual-stack listener', async () => {
    for (const address of ['::1', '::']) {
      const v6 = await startGateway(['--listen-address', address], { config: { pool: { minWarm: 0 } } });
      try {
        const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = http.request({ host: '::1', family: 6, port: v6.port, path: '/status', headers: { host: `[::1]:${v6.port}` } }, (res) => {
            let body = '';
            res.on('data', (c) => (body += c));
            res.on('end', () => resolve({ status: res.statusCode!, body }));
          });
          req.on('error', reject);
          req.end();
        });
        assert.equal(reply.status, 200, `${address}: ${reply.body}`);
        assert.equal(JSON.parse(reply.body).value.ready, true);
        // IPv4 loopback reaches the dual-stack listener as an IPv4-mapped address.
        if (address === '::') assertStatus(await request('GET', '/status', { port: v6.port }));
      } finally {
        await v6.stop();
      }
    }
  });

  test('a peer that is not on loopback is 403 (from another network namespace)', async (t) => {
    const unavailable = await namespaceUnavailable();
    if (unavailable) return t.skip(unavailable);
    const ns = await createNamespace();
    const open = await startGateway(['--listen-address', '0.0.0.0'], { config: { pool: { minWarm: 0 } } });
    try {
      const outside = await ns.curl(`http://${ns.hostAddress}:${open.port}/status`);
      assert.equal(outside.status, 403);
      assert.equal(outside.type, JSON_TYPE);
      assert.deepEqual(Object.keys(outside.value).sort(), ['error', 'message', 'stacktrace']);
      assert.ok(outside.value.message.includes(ns.peerAddress), outside.value.message);
      assert.match(outside.value.message, /--auth-token-file/);
      assert.equal((await ns.curl(`http://${ns.hostAddress}:${open.port}/session/abc/url`)).status, 403);
      // The same gateway serves loopback clients.
      assertStatus(await request('GET', '/status', { port: open.port }));
    } finally {
      await ns.close();
      await open.stop();
    }
  });
});
