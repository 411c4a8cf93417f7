// New Session, Delete Session, Status and the timeouts commands (spec §8, §9) against real
// Chromium through the server.
import { after, before, describe } from 'node:test';
import { test } from '../helpers/gaps.ts';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import type { Client, Session } from '../helpers/client.ts';
import { eventually, leftoverBrowsers } from '../helpers/pages.ts';

let gw: TestGateway;
let c: Client;
/** A long-lived session for the timeouts tests. */
let s: Session;

const MAX_SESSIONS = 3;
const installedVersion = /(\d+\.\d+\.\d+\.\d+)/.exec(execFileSync('/usr/bin/chromium', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))?.[1];

before(async () => {
  // No queue: a New Session past the limit is refused at once (the queue is pool.test.ts's).
  gw = await startGateway(['--max-sessions', String(MAX_SESSIONS)], { config: { maxQueuedSessions: 0 } });
  c = gw.client;
  s = await c.newSession();
});

after(async () => {
  await s?.end().catch(() => {});
  const pid = gw.process.pid!;
  await gw?.stop();
  assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
});

/** POST /session with raw parameters; the raw reply. */
const newSession = (params: unknown) => c.raw('POST', '/session', params);

describe('new session', () => {
  test('what WebdriverIO sends works; the reply has every standard capability and the BiDi socket on the gateway', async () => {
    const reply = await newSession({
      capabilities: {
        alwaysMatch: {
          browserName: 'chrome',
          'goog:chromeOptions': { args: ['--headless=new'] },
          webSocketUrl: true,
          'wdio:enforceWebDriverClassic': true,
        },
        firstMatch: [{}],
      },
    });
    assert.equal(reply.status, 200, JSON.stringify(reply.value));
    assert.equal(reply.contentType, 'application/json; charset=utf-8');
    const { sessionId, capabilities: caps } = reply.value;
    assert.equal(typeof sessionId, 'string');
    assert.ok(sessionId.length > 0);
    // The BiDi socket, on the gateway's own address (bidi.test.ts uses it).
    assert.equal(caps.webSocketUrl, `ws://127.0.0.1:${gw.port}/session/${sessionId}`);
    assert.equal(caps.browserName, 'chrome');
    assert.match(caps.browserVersion, /^\d+\.\d+\.\d+\.\d+$/);
    assert.equal(caps.browserVersion, installedVersion);
    assert.equal(caps.platformName, 'linux');
    assert.equal(caps.acceptInsecureCerts, false);
    assert.equal(caps.pageLoadStrategy, 'normal');
    assert.equal(caps.setWindowRect, true);
    assert.equal(caps.strictFileInteractability, false);
    assert.deepEqual(caps.timeouts, { implicit: 0, pageLoad: 300000, script: 30000 });
    assert.equal(caps.unhandledPromptBehavior, 'dismiss and notify');
    assert.deepEqual(caps['goog:chromeOptions'].args, ['--headless=new']);
    // The session drives a real browser of that version.
    const ua = await c.ok('POST', `/session/${sessionId}/execute/sync`, { script: 'return navigator.userAgent', args: [] });
    assert.match(ua, new RegExp(`Chrome/${installedVersion!.split('.')[0]}\\.`));
    assert.equal(await c.ok('DELETE', `/session/${sessionId}`), null);
  });

  test('what Selenium (Python) sends works, acceptInsecureCerts is echoed', async () => {
    const value = await c.ok('POST', '/session', {
      capabilities: {
        firstMatch: [{}],
        alwaysMatch: {
          browserName: 'chrome',
          pageLoadStrategy: 'normal',
          acceptInsecureCerts: true,
          'goog:chromeOptions': { extensions: [], args: ['--headless=new', '--window-size=800,600'] },
        },
      },
    });
    assert.equal(value.capabilities.acceptInsecureCerts, true);
    const rect = await c.ok('GET', `/session/${value.sessionId}/window/rect`);
    assert.deepEqual([rect.width, rect.height], [800, 600]);
    await c.ok('DELETE', `/session/${value.sessionId}`);
  });

  test('a browserName no backend serves is 500 session not created, naming the reason', async () => {
    const e = await c.fails('POST', '/session', { capabilities: { alwaysMatch: { browserName: 'internet explorer' } } }, 'session not created', 500);
    assert.match(e.message, /internet explorer/);
  });

  test('missing or malformed capabilities are 400 invalid argument', async () => {
    let e = await c.fails('POST', '/session', {}, 'invalid argument', 400);
    assert.match(e.message, /capabilities/);
    e = await c.fails('POST', '/session', { desiredCapabilities: { browserName: 'chrome' } }, 'invalid argument', 400);
    assert.match(e.message, /desiredCapabilities/);
    await c.fails('POST', '/session', { capabilities: [] }, 'invalid argument', 400);
    await c.fails('POST', '/session', { capabilities: { alwaysMatch: 'chrome' } }, 'invalid argument', 400);
    await c.fails('POST', '/session', { capabilities: { firstMatch: [] } }, 'invalid argument', 400);
    await c.fails('POST', '/session', { capabilities: { alwaysMatch: { pageLoadStrategy: 'fast' } } }, 'invalid argument', 400);
    await c.fails('POST', '/session', { capabilities: { alwaysMatch: { browser: 'chrome' } } }, 'invalid argument', 400);
    await c.fails('POST', '/session', { capabilities: { alwaysMatch: { 'goog:chromeOptions': { args: [5] } } } }, 'invalid argument', 400);
    await c.fails('POST', '/session', { capabilities: { alwaysMatch: { 'goog:chromeOptions': 'headless' } } }, 'invalid argument', 400);
  });

  test('a key in both alwaysMatch and firstMatch is invalid argument', async () => {
    const e = await c.fails(
      'POST',
      '/session',
      { capabilities: { alwaysMatch: { browserName: 'chrome' }, firstMatch: [{ browserName: 'chrome' }] } },
      'invalid argument',
      400,
    );
    assert.match(e.message, /browserName/);
  });

  test('the first firstMatch entry that matches wins', async () => {
    const value = await c.ok('POST', '/session', {
      capabilities: {
        alwaysMatch: { platformName: 'linux' },
        firstMatch: [
          { browserName: 'internet explorer', pageLoadStrategy: 'none' },
          { browserName: 'chrome', pageLoadStrategy: 'eager' },
          { browserName: 'chromium', pageLoadStrategy: 'none' },
        ],
      },
    });
    assert.equal(value.capabilities.browserName, 'chrome');
    assert.equal(value.capabilities.pageLoadStrategy, 'eager');
    await c.ok('DELETE', `/session/${value.sessionId}`);
    // When none matches, every entry's reason is named.
    const e = await c.fails(
      'POST',
      '/session',
      { capabilities: { firstMatch: [{ browserName: 'internet explorer' }, { browserVersion: '1.2' }] } },
      'session not created',
      500,
    );
    assert.match(e.message, /internet explorer/);
    assert.match(e.message, /1\.2/);
  });

  test('the timeouts and pageLoadStrategy capabilities are applied and echoed', async () => {
    const timeouts = { implicit: 1234, pageLoad: 56789, script: null };
    const value = await c.ok('POST', '/session', { capabilities: { alwaysMatch: { timeouts, pageLoadStrategy: 'none' } } });
    assert.deepEqual(value.capabilities.timeouts, timeouts);
    assert.equal(value.capabilities.pageLoadStrategy, 'none');
    assert.deepEqual(await c.ok('GET', `/session/${value.sessionId}/timeouts`), timeouts);
    await c.ok('DELETE', `/session/${value.sessionId}`);
    // A partial timeouts capability keeps the other defaults.
    const partial = await c.ok('POST', '/session', { capabilities: { alwaysMatch: { timeouts: { implicit: 5 } } } });
    assert.deepEqual(await c.ok('GET', `/session/${partial.sessionId}/timeouts`), { implicit: 5, pageLoad: 300000, script: 30000 });
    await c.ok('DELETE', `/session/${partial.sessionId}`);
    await c.fails('POST', '/session', { capabilities: { alwaysMatch: { timeouts: { implicit: -1 } } } }, 'invalid argument', 400);
  });

  test('goog:chromeOptions.binary outside the allowed list is invalid argument', async () => {
    for (const caps of [{ 'goog:chromeOptions': { binary: '/bin/sh' } }, { 'wdgate:options': { binary: '/bin/sh' } }]) {
      const e = await c.fails('POST', '/session', { capabilities: { alwaysMatch: caps } }, 'invalid argument', 400);
      assert.match(e.message, /\/bin\/sh/);
      assert.match(e.message, /not allowed/);
    }
  });

  test('browser args that take over the browser or the machine are invalid argument, naming the argument', async () => {
    for (const arg of [
      '--user-data-dir=/tmp/x',
      '--user-data-dir',
      '--remote-debugging-port=9222',
      '--remote-allow-origins=*',
      '--profile-directory=Other',
      '--load-extension=/tmp/ext',
      '--proxy-server=http://127.0.0.1:1',
      '--host-resolver-rules=MAP * 127.0.0.1',
      '--renderer-cmd-prefix=/bin/sh -c id',
    ]) {
      const e = await c.fails(
        'POST',
        '/session',
        { capabilities: { alwaysMatch: { 'goog:chromeOptions': { args: ['--headless=new', arg] } } } },
        'invalid argument',
        400,
      );
      assert.ok(e.message.includes(arg), e.message);
    }
  });

  test('an operator may allow a guarded browser switch by name (native.allowedArgs)', async () => {
    const open = await startGateway(['--headless'], { config: { native: { binary: '/usr/bin/chromium', allowedBinaries: ['/usr/bin/chromium'], allowedArgs: ['--proxy-server'] } } });
    try {
      const proxied = await open.client.newSession({ 'goog:chromeOptions': { args: ['--proxy-server=http://127.0.0.1:9'] } });
      await proxied.end();
      await open.client.fails('POST', '/session', { capabilities: { alwaysMatch: { 'goog:chromeOptions': { args: ['--load-extension=/tmp/x'] } } } }, 'invalid argument', 400);
    } finally {
      await open.stop();
    }
  });

  test('at the session limit New Session is session not created and /status is not ready', async () => {
    const extra: string[] = [];
    try {
      // `s` is already open.
      for (let i = 1; i < MAX_SESSIONS; i++) extra.push((await c.ok('POST', '/session', { capabilities: {} })).sessionId);
      const status = await c.ok('GET', '/status');
      assert.equal(status.ready, false);
      assert.equal(typeof status.message, 'string');
      const e = await c.fails('POST', '/session', { capabilities: {} }, 'session not created', 500);
      assert.match(e.message, new RegExp(String(MAX_SESSIONS)));
    } finally {
      for (const id of extra) await c.ok('DELETE', `/session/${id}`);
    }
    assert.equal((await c.ok('GET', '/status')).ready, true);
  });

  test('concurrent New Sessions cannot exceed the session limit', async () => {
    // `s` is open: MAX_SESSIONS - 1 more fit, the rest of a burst must be refused.
    const burst = MAX_SESSIONS + 1;
    const replies = await Promise.all(Array.from({ length: burst }, () => newSession({ capabilities: {} })));
    const created = replies.filter((r) => r.status === 200).map((r) => r.value.sessionId as string);
    try {
      assert.equal(created.length, MAX_SESSIONS - 1, JSON.stringify(replies.map((r) => r.value.error ?? 'ok')));
      for (const r of replies.filter((r) => r.status !== 200)) assert.equal(r.value.error, 'session not created');
    } finally {
      for (const id of created) await c.ok('DELETE', `/session/${id}`);
    }
  });
});

describe('delete session', () => {
  test('after Delete Session every command is 404 invalid session id, and its browser context is given back', async () => {
    const inUse = () => c.leasedContexts();
    const before = await inUse();
    const t = await c.newSession();
    const handle = await t.get('/window');
    assert.equal(await inUse(), before + 1);
    assert.equal(await t.end(), null);
    // Answered at once; the context (and every window of it) is disposed of right after.
    await eventually(async () => (await inUse()) === before, 'the context was not given back after Delete Session');
    const e = await t.fails('GET', '/title', undefined, 'invalid session id', 404);
    assert.match(e.message, /has ended: it was deleted/);
    await t.fails('POST', '/url', { url: 'about:blank' }, 'invalid session id', 404);
    await t.fails('GET', '/window/handles', undefined, 'invalid session id', 404);
    await c.fails('DELETE', `/session/${t.id}`, undefined, 'invalid session id', 404);
    // Other sessions are untouched, and the deleted session's window is nobody's.
    assert.equal(typeof (await s.get('/window')), 'string');
    await s.fails('POST', '/window', { handle }, 'no such window', 404);
  });

  test('an unknown session id is invalid session id, whatever the command', async () => {
    await c.fails('GET', '/session/00000000-0000-0000-0000-000000000000/url', undefined, 'invalid session id', 404);
    await c.fails('POST', '/session/nope/timeouts', { implicit: 1 }, 'invalid session id', 404);
    await c.fails('GET', '/session/nope/element/e/text', undefined, 'invalid session id', 404);
  });
});

describe('timeouts', () => {
  test('Get Timeouts has exactly implicit, pageLoad and script', async () => {
    const value = await s.get('/timeouts');
    assert.deepEqual(Object.keys(value).sort(), ['implicit', 'pageLoad', 'script']);
    assert.deepEqual(value, { implicit: 0, pageLoad: 300000, script: 30000 });
  });

  test('Set Timeouts sets any subset; script may be null; unknown keys are ignored', async () => {
    assert.equal(await s.post('/timeouts', { implicit: 250 }), null);
    assert.deepEqual(await s.get('/timeouts'), { implicit: 250, pageLoad: 300000, script: 30000 });
    await s.post('/timeouts', { script: null, pageLoad: 1000, somethingElse: 'x', type: 'implicit', ms: 9 });
    assert.deepEqual(await s.get('/timeouts'), { implicit: 250, pageLoad: 1000, script: null });
    await s.post('/timeouts', {});
    assert.deepEqual(await s.get('/timeouts'), { implicit: 250, pageLoad: 1000, script: null });
    await s.post('/timeouts', { implicit: 0, pageLoad: Number.MAX_SAFE_INTEGER, script: 0 });
    assert.deepEqual(await s.get('/timeouts'), { implicit: 0, pageLoad: Number.MAX_SAFE_INTEGER, script: 0 });
    await s.post('/timeouts', { implicit: 0, pageLoad: 300000, script: 30000 });
  });

  test('a script timeout past the timer range is not taken as "now"', async () => {
    await s.post('/timeouts', { script: Number.MAX_SAFE_INTEGER });
    try {
      assert.equal(await s.execute('return new Promise(r => setTimeout(() => r("waited"), 100))'), 'waited');
      assert.equal(await s.post('/execute/async', { script: 'setTimeout(() => arguments[0]("async"), 100)', args: [] }), 'async');
    } finally {
      await s.post('/timeouts', { script: 30000 });
    }
  });

  test('a body that is JSON but not an object is invalid argument on every command with parameters', async () => {
    const before = await s.get('/timeouts');
    const handles = await s.get('/window/handles');
    for (const path of ['/timeouts', '/window/new', '/window/rect', '/url', '/execute/sync', '/cookie', '/actions', '/window']) {
      for (const body of ['null', '[]', '"x"', '1']) {
        const reply = await s.raw('POST', path, body);
        assert.equal(reply.status, 400, `${path} ${body}: ${JSON.stringify(reply.value)}`);
        assert.equal(reply.value.error, 'invalid argument', `${path} ${body}`);
      }
    }
    // Nothing was done: no timeouts changed, no window opened.
    assert.deepEqual(await s.get('/timeouts'), before);
    assert.deepEqual(await s.get('/window/handles'), handles);
  });

  test('bad values are invalid argument and change nothing', async () => {
    const bad = [
      { implicit: -1 },
      { pageLoad: '100' },
      { script: 1.5 },
      { implicit: 2 ** 53 },
      { pageLoad: null },
      { implicit: null },
      { script: true },
      { script: [] },
      { implicit: 10, pageLoad: -5 },
    ];
    for (const body of bad) {
      const e = await s.fails('POST', '/timeouts', body, 'invalid argument', 400);
      assert.ok(Object.keys(body).some((k) => e.message.includes(k)), e.message);
    }
    assert.deepEqual(await s.get('/timeouts'), { implicit: 0, pageLoad: 300000, script: 30000 });
  });
});
