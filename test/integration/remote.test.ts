// The remote backend: sessions on upstream W3C servers, their commands forwarded through the
// gateway. Real upstreams: a chromedriver and WebKitWebDriver the gateway starts itself, and
// another wdgate. A small W3C server of the test's own stands in for an upstream that stalls and
// shows what reaches an upstream (headers, paths).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '../helpers/client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, leftoverBrowsers, ownedProcesses, startPageServer, type PageServer } from '../helpers/pages.ts';
import { commandTour } from '../helpers/tour.ts';

const TOKENS = { alice: 'alice-3c9e1a7f5b2d8e40c6', bob: 'bob-8a2f6c0e4b1d7f9a35' };
const REMOTE = { 'wdgate:options': { backend: 'remote' } };
const WEBKIT = { browserName: 'webkit' };

/** A W3C server of the test's own: it records what reaches it; `/url` never answers. */
interface Seen {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function startFakeUpstream(): Promise<{ url: string; seen: Seen[]; abandoned: () => number; close(): void }> {
  const seen: Seen[] = [];
  let abandoned = 0;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    seen.push({ method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
    const reply = (value: unknown) => res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ value }));
    if (req.method === 'POST' && req.url === '/session') {
      return reply({
        sessionId: 'upstream-id-1',
        capabilities: {
          browserName: 'fake',
          // Addresses behind the gateway, which clients must never get.
          webSocketUrl: 'ws://10.9.8.7:4444/session/upstream-id-1',
          'se:cdp': 'ws://10.9.8.7:4444/cdp',
          'goog:chromeOptions': { debuggerAddress: '10.9.8.7:9222' },
        },
      });
    }
    if (req.url === '/session/upstream-id-1/title') return reply('fake title');
    // Stalls; counts the requests given up on (their connection closed before an answer).
    if (req.url === '/session/upstream-id-1/url') return void res.on('close', () => abandoned++);
    if (req.method === 'DELETE') return reply(null);
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ value: { error: 'unknown command', message: 'no', stacktrace: '' } }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
        seen,
        abandoned: () => abandoned,
        close: () => {
          server.closeAllConnections();
          server.close();
        },
      }),
    ),
  );
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** The temporary directories of a gateway's managed drivers. */
const driverDirs = (pid: number) => readdirSync(tmpdir()).filter((name) => name.startsWith(`wdgate-driver-${pid}-`));

describe('remote backend: sessions on upstream W3C servers', () => {
  let gw: TestGateway;
  let inner: TestGateway;
  let pages: PageServer;
  let fake: Awaited<ReturnType<typeof startFakeUpstream>>;
  let client: Client;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wdgate-remote-test-'));
    writeFileSync(join(dir, 'tokens'), `alice ${TOKENS.alice} 10\nbob ${TOKENS.bob} 10\n`, { mode: 0o600 });
    [inner, pages, fake] = await Promise.all([startGateway([], { config: { pool: { minWarm: 0, maxBrowsers: 1, sessionsPerBrowser: 4, idleTimeout: 60000 } } }), startPageServer(), startFakeUpstream()]);
    const fakeUrl = new URL(fake.url);
    fakeUrl.username = 'grid-user';
    fakeUrl.password = 'grid-secret';
    gw = await startGateway(['--auth-token-file', join(dir, 'tokens')], {
      config: {
        pool: { minWarm: 0, maxBrowsers: 2, sessionsPerBrowser: 4, idleTimeout: 60000 },
        remote: {
          upstreams: { inner: inner.url, fake: fakeUrl.toString(), refusing: `http://127.0.0.1:${await closedPort()}` },
          idleTimeout: 300,
          commandTimeout: 8000, // every forwarded command of this gateway: room for a loaded CI machine
        },
      },
    });
    client = gw.client.withToken(TOKENS.alice);
  });

  after(async () => {
    const pid = gw?.process.pid;
    await gw?.stop();
    await inner?.stop();
    await pages?.close();
    fake?.close();
    rmSync(dir, { recursive: true, force: true });
    if (pid) {
      assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
      assert.deepEqual(await ownedProcesses(pid), [], 'drivers, their browsers or Xvfb outlived the gateway');
      assert.deepEqual(driverDirs(pid), [], "drivers' temporary directories outlived the gateway");
    }
  });

  test('wdgate:options.backend "remote" runs the session on a chromedriver the gateway starts; every command goes through', async () => {
    const s = await client.newSession(REMOTE);
    assert.equal(s.capabilities.browserName, 'chrome');
    assert.deepEqual(s.capabilities['wdgate:options'], { backend: 'remote', upstream: 'chromedriver' });
    assert.equal(s.capabilities['goog:chromeOptions'].debuggerAddress, undefined, 'the browser debugging address stays behind the gateway');
    await commandTour(s, pages, 'chromedriver');
    await s.delete('');
    const late = await s.raw('GET', '/title');
    assert.equal(late.status, 404);
    assert.equal(late.value.error, 'invalid session id');
    assert.match(late.value.message, /it was deleted/);
    // The managed chromedriver ends once no session needs it (remote.idleTimeout), its browser with it.
    await eventually(async () => (await ownedProcesses(gw.process.pid!)).length === 0, 'the idle chromedriver did not end');
  });

  test('legacy clients on /wd/hub: a pass-through session is made and driven there, and the upstream gets its own paths', async () => {
    const hub = new Client(`${gw.url}/wd/hub`, client.headers);
    const s = await hub.newSession(REMOTE);
    assert.deepEqual(s.capabilities['wdgate:options'], { backend: 'remote', upstream: 'chromedriver' });
    await s.navigate(pages.page('<h1 id=t>through the hub path</h1>', 'hub path'));
    assert.equal(await s.get('/title'), 'hub path');
    const h1 = await s.find('#t');
    assert.equal(await s.get(`/element/${h1}/text`), 'through the hub path');
    assert.ok((await s.get('/screenshot')).startsWith('iVBOR'), 'a PNG comes back');
    // The same session without the prefix: one session, whichever path names it.
    assert.equal(await client.ok('GET', `/session/${s.id}/title`), 'hub path');
    await s.delete('');
    const late = await s.raw('GET', '/title');
    assert.equal(late.status, 404);
    assert.equal(late.value.error, 'invalid session id');

    // What reaches the upstream has no /wd/hub (a W3C server need not know it).
    const asked = fake.seen.length;
    const f = await hub.newSession({ 'wdgate:options': { backend: 'remote', upstream: 'fake' } });
    assert.equal(await f.get('/title'), 'fake title');
    await f.delete('');
    assert.deepEqual(
      fake.seen.slice(asked).map((r) => `${r.method} ${r.path}`),
      ['POST /session', 'GET /session/upstream-id-1/title', 'DELETE /session/upstream-id-1'],
    );
  });

  test('WebKit through WebKitWebDriver (browserName "webkit"), one driver per session, ended with it', async () => {
    const s = await client.newSession(WEBKIT);
    assert.equal(s.capabilities.browserName, 'MiniBrowser');
    assert.deepEqual(s.capabilities['wdgate:options'], { backend: 'remote', upstream: 'webkit' });
    await commandTour(s, pages, 'webkit');
    await s.delete('');
    await eventually(async () => !(await ownedProcesses(gw.process.pid!)).some((p) => /WebKit|MiniBrowser/.test(p)), 'the WebKit driver outlived its session');
  });

  test('sessions on three backends at once: native, chromedriver and WebKit', async () => {
    const [native, chromedriver, webkit] = await Promise.all([client.newSession(), client.newSession(REMOTE), client.newSession(WEBKIT)]);
    assert.deepEqual(
      [native, chromedriver, webkit].map((s) => s.capabilities['wdgate:options'].backend),
      ['native', 'remote', 'remote'],
    );
    await Promise.all(
      [native, chromedriver, webkit].map(async (s, i) => {
        await s.navigate(pages.page('<p>hi</p>', `backend ${i}`));
        assert.equal(await s.get('/title'), `backend ${i}`);
      }),
    );
    const own = (await client.ok('GET', '/status')).sessions.own.map((o: { id: string }) => o.id).sort();
    assert.deepEqual(own, [native.id, chromedriver.id, webkit.id].sort());
    await Promise.all([native, chromedriver, webkit].map((s) => s.delete('')));
  });

  test('another wdgate is an upstream like any W3C server', async () => {
    const s = await client.newSession({ 'wdgate:options': { backend: 'remote', upstream: 'inner' } });
    assert.deepEqual(s.capabilities['wdgate:options'], { backend: 'remote', upstream: 'inner' });
    await s.navigate(pages.page('<p>through two gateways</p>', 'chained'));
    assert.equal(await s.get('/title'), 'chained');
    assert.equal((await inner.client.ok('GET', '/status')).sessions.active, 1, 'the session runs on the inner gateway');
    await s.delete('');
    await eventually(async () => (await inner.client.ok('GET', '/status')).sessions.active === 0, 'Delete Session did not reach the inner gateway');
  });

  test('only the command reaches the upstream: session ids mapped, neither token nor cookie; its addresses never reach the client', async () => {
    const before = fake.seen.length;
    const s = await client.newSession({ 'wdgate:options': { backend: 'remote', upstream: 'fake' }, webSocketUrl: true });
    assert.notEqual(s.id, 'upstream-id-1');
    for (const key of ['webSocketUrl', 'se:cdp']) assert.equal(s.capabilities[key], undefined, `${key} is not passed on`);
    assert.equal(s.capabilities['goog:chromeOptions'].debuggerAddress, undefined);
    assert.equal((await client.raw('GET', `/session/${s.id}/title`, undefined, { headers: { cookie: 'sid=client-secret' } })).value, 'fake title');
    await s.delete('');
    const requests = fake.seen.slice(before);
    assert.deepEqual(
      requests.map((r) => `${r.method} ${r.path}`),
      ['POST /session', 'GET /session/upstream-id-1/title', 'DELETE /session/upstream-id-1'],
    );
    for (const r of requests) {
      assert.equal(r.headers.authorization, `Basic ${Buffer.from('grid-user:grid-secret').toString('base64')}`, "the upstream's own credentials, never the client's token");
      assert.equal(r.headers.cookie, undefined);
    }
    // wdgate's own options and the BiDi request stay with the gateway.
    assert.deepEqual(JSON.parse(requests[0]!.body), { capabilities: { alwaysMatch: {} } });
    assert.equal(requests[0]!.headers['content-type'], 'application/json; charset=utf-8');
  });

  test('an upstream that refuses is session not created naming it; one that stalls is a timeout error, and the session goes on', async () => {
    const refused = await client.fails('POST', '/session', { capabilities: { alwaysMatch: { 'wdgate:options': { backend: 'remote', upstream: 'refusing' } } } }, 'session not created', 500);
    assert.match(refused.message, /upstream refusing .*ECONNREFUSED/);
    const s = await client.newSession({ 'wdgate:options': { backend: 'remote', upstream: 'fake' } });
    const stalled = await s.fails('GET', '/url', undefined, 'timeout', 500);
    assert.match(stalled.message, /did not answer within 8000 ms/);
    assert.equal(await s.get('/title'), 'fake title');
    await s.delete('');
    const unknown = await client.fails('POST', '/session', { capabilities: { alwaysMatch: { 'wdgate:options': { backend: 'remote', upstream: 'nowhere' } } } }, 'session not created', 500);
    assert.match(unknown.message, /no upstream named "nowhere"/);
  });

  test('a client that goes away mid-command: its request upstream is given up, and the session goes on', async () => {
    const s = await client.newSession({ 'wdgate:options': { backend: 'remote', upstream: 'fake' } });
    const before = fake.abandoned();
    const asked = fake.seen.length;
    const leaving = new AbortController();
    const stalled = fetch(`${gw.url}/session/${s.id}/url`, { headers: client.headers, signal: leaving.signal }).catch((e: Error) => e);
    await eventually(async () => fake.seen.slice(asked).some((r) => r.path.endsWith('/url')), 'the command reached the upstream');
    leaving.abort();
    assert.ok((await stalled) instanceof Error);
    // Well before the gateway's own bound (remote.commandTimeout 8000 ms here) would end it.
    await eventually(async () => fake.abandoned() > before, 'the upstream request was not given up', 4000);
    assert.equal(await s.get('/title'), 'fake title');
    await s.delete('');
  });

  test("a path with dot segments is not forwarded: it could name another of the upstream's sessions", async () => {
    const s = await client.newSession({ 'wdgate:options': { backend: 'remote', upstream: 'fake' } });
    const before = fake.seen.length;
    for (const rest of ['/../other/title', '/%2e%2e/%2E%2E/status', '/./title']) {
      // node:http sends a `path` as written (a URL, or fetch, would have the dots resolved first).
      const reply = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port: gw.port, path: `/session/${s.id}${rest}`, headers: { authorization: `Bearer ${TOKENS.alice}` } }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(reply.status, 400, rest);
      assert.equal(JSON.parse(reply.body).value.error, 'invalid argument', rest);
    }
    assert.equal(fake.seen.length, before, 'nothing reached the upstream');
    await s.delete('');
  });

  test("a remote session belongs to its principal: another token's requests never reach the upstream", async () => {
    const s = await client.newSession({ 'wdgate:options': { backend: 'remote', upstream: 'fake' } });
    const before = fake.seen.length;
    const bob = gw.client.withToken(TOKENS.bob);
    for (const [method, path] of [['GET', '/title'], ['DELETE', '']] as const) {
      const e = await bob.fails(method, `/session/${s.id}${path}`, undefined, 'invalid session id', 404);
      assert.match(e.message, /no active session/);
    }
    assert.equal(fake.seen.length, before);
    assert.equal(await s.get('/title'), 'fake title');
    await s.delete('');
  });

  test('capabilities cannot take over the machine through chromedriver either', async () => {
    for (const [options, named] of [
      [{ args: ['--remote-debugging-port=9999'] }, /--remote-debugging-port=9999 is reserved/],
      [{ debuggerAddress: '127.0.0.1:9222' }, /debuggerAddress is refused/],
      [{ binary: '/bin/sh' }, /"\/bin\/sh" is not allowed/],
    ] as const) {
      const e = await client.fails('POST', '/session', { capabilities: { alwaysMatch: { ...REMOTE, 'goog:chromeOptions': options } } }, 'invalid argument', 400);
      assert.match(e.message, named);
    }
  });

  test('a managed driver that dies ends its sessions: the next command says the upstream went away', async () => {
    const s = await client.newSession(REMOTE);
    const { readdir, readFile } = await import('node:fs/promises');
    let driver = 0;
    for (const proc of await readdir('/proc')) {
      if (!/^\d+$/.test(proc)) continue;
      const environ = await readFile(`/proc/${proc}/environ`, 'latin1').catch(() => '');
      const cmdline = await readFile(`/proc/${proc}/cmdline`, 'utf8').catch(() => '');
      if (environ.split('\0').includes(`WDGATE_OWNER=${gw.process.pid}`) && cmdline.startsWith('/usr/bin/chromedriver')) driver = Number(proc);
    }
    assert.ok(driver, 'the chromedriver process was found');
    // What it wrote (the profile it made, which a killed chromedriver leaves) goes with it.
    const ownDirs = driverDirs(gw.process.pid!);
    assert.ok(ownDirs.length > 0, "the driver's temporary directory was found");
    process.kill(driver, 'SIGKILL');
    await eventually(() => driverDirs(gw.process.pid!).every((d) => !ownDirs.includes(d)), "the dead driver's temporary directory was not removed");
    await eventually(async () => (await s.raw('GET', '/title')).status === 404, 'the session outlived its driver');
    const e = await s.fails('GET', '/title', undefined, 'invalid session id', 404);
    assert.match(e.message, /upstream chromedriver went away/);
    await eventually(async () => (await ownedProcesses(gw.process.pid!)).every((p) => !p.includes('chrom')), "the dead driver's browser was not ended");
    // The next session starts another driver.
    const next = await client.newSession(REMOTE);
    await next.navigate(pages.page('<p>again</p>', 'again'));
    assert.equal(await next.get('/title'), 'again');
    await next.delete('');
  });
});
