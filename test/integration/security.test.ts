// Who may drive the gateway (spec-independent: wdgate's security gate), through the real server:
// tokens as principals from another machine (a network namespace) and on loopback, sessions
// owned by their principal, per-principal limits, and the Host / Origin / Content-Type checks
// that keep web pages from driving it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '../helpers/client.ts';
import { BidiSocket } from '../helpers/bidi.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { createNamespace, namespaceUnavailable, type Namespace } from '../helpers/netns.ts';
import { eventually, leftoverBrowsers } from '../helpers/pages.ts';

const TOKENS = {
  alice: 'alice-7f3a9c1e5b2d4f60a8',
  bob: 'bob-0c4e8a2f6b1d9e3c57a',
  plain: 'plain-5d2b8e0a4c6f1a9e3b',
};
const CHALLENGE = 'Basic realm="wdgate", Bearer';

const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A token file: alice may have one session at once, bob five, the unnamed token no own limit. */
function tokenFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wdgate-tokens-'));
  dirs.push(dir);
  const file = join(dir, 'tokens');
  writeFileSync(file, `# principals\nalice ${TOKENS.alice} 1\n\nbob ${TOKENS.bob} 5\n${TOKENS.plain}\n`, { mode: 0o600 });
  return file;
}

async function stop(gw: TestGateway): Promise<void> {
  const pid = gw.process.pid!;
  await gw.stop();
  assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
}

interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  value: any;
}

/** One request with exactly these headers (fetch adds and normalizes some). */
function request(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        let value: any;
        try {
          value = JSON.parse(text).value;
        } catch {
          value = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, text, value });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A W3C error body with this status and code; returns its message. */
function assertError(reply: { status: number; value: any; text: string }, status: number, code: string): string {
  assert.equal(reply.status, status, reply.text);
  assert.deepEqual(Object.keys(reply.value ?? {}).sort(), ['error', 'message', 'stacktrace'], reply.text);
  assert.equal(reply.value.error, code, reply.text);
  return reply.value.message;
}

describe('tokens open the gateway to other machines', () => {
  let gw: TestGateway;
  let ns: Namespace | undefined;
  let unavailable: string | null;
  before(async () => {
    unavailable = await namespaceUnavailable();
    [gw, ns] = await Promise.all([
      startGateway(['--listen-address', '0.0.0.0', '--auth-token-file', tokenFile()]),
      unavailable ? undefined : createNamespace(),
    ]);
  });
  after(async () => {
    await ns?.close();
    await stop(gw);
  });
  const from = (path: string, args: string[] = []) => ns!.curl(`http://${ns!.hostAddress}:${gw.port}${path}`, args);

  test('without a token, or with a wrong one, a remote client is 401 with the challenge', async (t) => {
    if (unavailable) return t.skip(unavailable);
    for (const args of [[], ['-H', 'Authorization: Bearer not-a-token-of-anyone'], ['-u', `alice:${TOKENS.alice}x`], ['-H', 'Authorization: Digest x']]) {
      const reply = await from('/status', args);
      const message = assertError(reply, 401, 'unknown error');
      assert.match(reply.headers, new RegExp(`^www-authenticate: ${CHALLENGE.replace(/[".,]/g, '\\$&')}\\r?$`, 'im'), args.join(' '));
      assert.match(message, args.length === 0 ? /a token is required/ : /not valid/);
    }
  });

  test('a Bearer token or HTTP Basic with the token as password is served, a whole session long', async (t) => {
    if (unavailable) return t.skip(unavailable);
    const status = await from('/status', ['-H', `Authorization: Bearer ${TOKENS.bob}`]);
    assert.equal(status.status, 200, status.text);
    assert.equal(status.value.ready, true);
    // What Selenium clients send for http://user:token@host:port.
    const basic = ['-u', `anyone:${TOKENS.bob}`, '-H', 'Content-Type: application/json'];
    const created = await from('/session', [...basic, '-d', JSON.stringify({ capabilities: {} })]);
    assert.equal(created.status, 200, created.text);
    const id = created.value.sessionId;
    assert.equal((await from(`/session/${id}/url`, basic)).value, 'about:blank');
    assert.equal((await from(`/session/${id}`, [...basic, '-X', 'DELETE'])).status, 200);
  });

  test('loopback clients are still served without a token', async () => {
    const reply = await request(gw.port, 'GET', '/status');
    assert.equal(reply.status, 200, reply.text);
  });
});

describe('with --require-auth-on-loopback, loopback clients need a token too', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway(['--auth-token-file', tokenFile(), '--require-auth-on-loopback']);
  });
  after(() => stop(gw));

  test('no token is 401; a token of the file is served', async () => {
    const refused = await request(gw.port, 'GET', '/status');
    assertError(refused, 401, 'unknown error');
    assert.equal(refused.headers['www-authenticate'], CHALLENGE);
    assert.equal((await request(gw.port, 'GET', '/status', { authorization: `Bearer ${TOKENS.plain}` })).status, 200);
  });
});

describe('BiDi sockets pass the same gate', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway(['--auth-token-file', tokenFile(), '--require-auth-on-loopback']);
  });
  after(() => stop(gw));

  test("no token is 401; a token opens only its own principal's sessions, and direct connections", async () => {
    const alice = gw.client.withToken(TOKENS.alice);
    const s = await alice.newSession({ webSocketUrl: true });
    try {
      const url = s.capabilities.webSocketUrl as string;
      await assert.rejects(BidiSocket.open(url), (e: { status: number }) => e.status === 401);
      await assert.rejects(BidiSocket.open(url, { Authorization: `Bearer ${TOKENS.bob}` }), (e: { status: number; body: string }) => e.status === 404 && /invalid session id/.test(e.body));
      await assert.rejects(BidiSocket.open(`ws://127.0.0.1:${gw.port}/session`), (e: { status: number }) => e.status === 401);
      const own = await BidiSocket.open(url, { Authorization: `Bearer ${TOKENS.alice}` });
      assert.equal((await own.call('browsingContext.getTree')).contexts.length, 1);
      own.close();
      // A direct session is its principal's: alice's limit (1 session) counts it.
      const direct = await BidiSocket.open(`ws://127.0.0.1:${gw.port}/session`, { Authorization: `Bearer ${TOKENS.alice}` });
      const refused = await direct.command('session.new', { capabilities: {} });
      assert.equal(refused.error, 'session not created');
      direct.close();
    } finally {
      await s.end();
    }
  });
});

describe('tokens are principals: a session belongs to the token that created it', () => {
  let gw: TestGateway;
  let alice: Client;
  let bob: Client;
  before(async () => {
    gw = await startGateway(['--auth-token-file', tokenFile()], { env: { ...process.env, WDGATE_TOKEN: 'env-token-9b7d5f3a1c0e2468' } });
    alice = gw.client.withToken(TOKENS.alice);
    bob = gw.client.withToken(TOKENS.bob);
  });
  after(() => stop(gw));

  test('another principal naming the id gets invalid session id and learns nothing', async () => {
    const session = await alice.newSession();
    try {
      const unknown = await bob.fails('GET', '/session/no-such-session/url', undefined, 'invalid session id', 404);
      for (const client of [bob, gw.client, gw.client.withToken('env-token-9b7d5f3a1c0e2468')]) {
        const other = await client.fails('GET', `/session/${session.id}/url`, undefined, 'invalid session id', 404);
        // The same answer as for an id that never was.
        assert.equal(other.message, unknown.message.replace('no-such-session', session.id));
        await client.fails('DELETE', `/session/${session.id}`, undefined, 'invalid session id', 404);
        await client.fails('POST', `/session/${session.id}/url`, { url: 'about:blank#x' }, 'invalid session id', 404);
      }
      // Nothing above touched alice's session.
      assert.equal(await alice.ok('GET', `/session/${session.id}/url`), 'about:blank');
      // /status shows each principal its own sessions only.
      assert.deepEqual((await alice.ok('GET', '/status')).sessions.own.map((s: { id: string }) => s.id), [session.id]);
      assert.deepEqual((await bob.ok('GET', '/status')).sessions.own, []);
      assert.deepEqual((await gw.client.ok('GET', '/status')).sessions.own, []);
    } finally {
      await session.end();
    }
    // Even how it ended is alice's to know.
    const ended = await bob.fails('GET', `/session/${session.id}/url`, undefined, 'invalid session id', 404);
    assert.doesNotMatch(ended.message, /ended|deleted/);
    assert.match((await alice.fails('GET', `/session/${session.id}/url`, undefined, 'invalid session id', 404)).message, /deleted/);
  });

  test("a named token's max-sessions is its own maximum", async () => {
    const first = await alice.newSession();
    try {
      const refused = await alice.fails('POST', '/session', { capabilities: {} }, 'session not created', 500);
      assert.match(refused.message, /alice has 1 sessions, its maximum/);
      // Others are not held back by alice's maximum.
      const other = await bob.newSession();
      await other.end();
    } finally {
      await first.end();
    }
    const again = await alice.newSession();
    await again.end();
  });

  test('the log names the principal, never the token', async () => {
    const session = await bob.newSession();
    await session.end();
    await bob.fails('GET', '/session/nope/title', undefined, 'invalid session id');
    const log = gw.output();
    const created = log.split('\n').find((line) => line.includes('"session created"') && line.includes(session.id));
    assert.ok(created, 'no session created line');
    assert.equal(JSON.parse(created).principal, 'bob');
    assert.ok(log.split('\n').some((line) => line.includes('"command failed"') && line.includes('"principal":"bob"')));
    for (const token of [...Object.values(TOKENS), 'env-token-9b7d5f3a1c0e2468']) assert.ok(!log.includes(token), 'a token is in the log');
  });
});

describe('new sessions per second, per principal', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway([], { config: { newSessionsPerSecond: 1, authTokens: [{ name: 'ci', token: TOKENS.plain }] } });
  });
  after(() => stop(gw));

  test('past the rate New Session is session not created; another principal and a later second are served', async () => {
    // Two at once: the bucket holds one.
    const replies = await Promise.all([0, 1].map(() => gw.client.raw('POST', '/session', { capabilities: {} })));
    const served = replies.filter((r) => r.status === 200);
    try {
      assert.equal(served.length, 1, JSON.stringify(replies.map((r) => r.value)));
      const refused = replies.find((r) => r.status !== 200)!;
      assert.equal(refused.status, 500);
      assert.equal(refused.value.error, 'session not created');
      assert.match(refused.value.message, /too many new sessions: local may ask for 1 per second/);
      const ci = await gw.client.withToken(TOKENS.plain).newSession();
      await ci.end();
    } finally {
      for (const r of served) await gw.client.ok('DELETE', `/session/${r.value.sessionId}`);
    }
    // The bucket refills: a later request is served (retried until then, never a fixed sleep).
    let later: Awaited<ReturnType<Client['newSession']>> | undefined;
    await eventually(async () => {
      const reply = await gw.client.raw('POST', '/session', { capabilities: {} });
      if (reply.status === 200) later = { id: reply.value.sessionId } as never;
      return reply.status === 200;
    }, 'the rate never let another session through');
    await gw.client.ok('DELETE', `/session/${later!.id}`);
  });
});

describe('web pages cannot drive the gateway: Host, Origin and Content-Type', () => {
  let gw: TestGateway;
  before(async () => {
    // No session here: nothing warm (pool.minWarm 0).
    gw = await startGateway(['--allow-hosts', 'wdgate.example', '--allow-origins', 'https://ci.example:8443'], { config: { pool: { minWarm: 0 } } });
  });
  after(() => stop(gw));

  test('a POST a page can send cross-site without a preflight is 403, whatever the case and parameters', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'Text/Plain; charset=utf-8']) {
      const reply = await request(gw.port, 'POST', '/session', { 'content-type': type }, JSON.stringify({ capabilities: {} }));
      const message = assertError(reply, 403, 'unknown error');
      assert.match(message, /Content-Type .* is refused .* send application\/json/);
    }
    assert.equal((await gw.client.ok('GET', '/status')).sessions.active, 0, 'a refused request created a session');
  });

  test('JSON, or no Content-Type at all (some clients send none), is served', async () => {
    for (const headers of [{ 'content-type': 'application/json; charset=utf-8' }, {} as Record<string, string>]) {
      const reply = await request(gw.port, 'POST', '/session/none/url', headers, JSON.stringify({ url: 'about:blank' }));
      assertError(reply, 404, 'invalid session id');
    }
  });

  test('a Host that is not an IP address, localhost or an allowed name is 403 (DNS rebinding)', async () => {
    const refused = await request(gw.port, 'GET', '/status', { host: `evil.example:${gw.port}` });
    assert.match(assertError(refused, 403, 'unknown error'), /Host header .*evil\.example.* --allow-hosts/);
    for (const host of [`wdgate.example:${gw.port}`, 'WDGATE.example', `localhost:${gw.port}`, `127.0.0.1:${gw.port}`, `[::1]:${gw.port}`]) {
      assert.equal((await request(gw.port, 'GET', '/status', { host })).status, 200, host);
    }
  });

  test('an Origin that is not allowed is 403; an allowed one is served', async () => {
    const refused = await request(gw.port, 'GET', '/status', { origin: 'https://evil.example' });
    assert.match(assertError(refused, 403, 'unknown error'), /Origin https:\/\/evil\.example.* --allow-origins/);
    assert.equal((await request(gw.port, 'GET', '/status', { origin: 'https://ci.example' })).status, 403, 'the port is part of the origin');
    assert.equal((await request(gw.port, 'GET', '/status', { origin: 'https://ci.example:8443' })).status, 200);
  });
});
