// The pool: warm browsers leased as isolated contexts, the admission queue, idle reaping and
// crash recovery, against real Chromium through the real server.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Session } from '../helpers/client.ts';
import { SPEC_TABLE } from '../helpers/spec-errors.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { browserMains, eventually, leftoverBrowsers, processesUsing, profileOf, startPageServer, type PageServer } from '../helpers/pages.ts';

/** A gateway with these settings (keys as in config/default.json). */
function gatewayWith(config: Record<string, unknown>): Promise<TestGateway> {
  return startGateway([], { config });
}

async function stop(gw: TestGateway): Promise<void> {
  const pid = gw.process.pid!;
  await gw.stop();
  assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
}

async function status(gw: TestGateway) {
  return gw.client.ok('GET', '/status');
}

/**
 * A session in the one warm browser, and that browser's pid. With one session per browser the
 * pool launches the next warm browser as soon as this one is leased, so "the first browser found"
 * may be either: the session's browser is the one that was there, alone and ready, before.
 */
async function sessionInWarmBrowser(gw: TestGateway, capabilities: Record<string, unknown> = {}): Promise<[Session, number]> {
  await eventually(async () => {
    const [key] = (await status(gw)).pool;
    return key?.browsers === 1 && key.free >= 1 && (await browserMains(gw.process.pid!)).length === 1;
  }, 'the warm browser was not ready alone');
  const [browser] = await browserMains(gw.process.pid!);
  const session = await gw.client.newSession(capabilities);
  return [session, browser!];
}

/** What these processes are, for a failure message. */
function commandLines(pids: number[]): string {
  const line = (pid: number) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').slice(0, 400);
    } catch {
      return '(gone)';
    }
  };
  return pids.map((pid) => `${pid}: ${line(pid)}`).join('\n');
}

/** Children of `pid` that are zombies (exited, never waited for). */
function zombieChildren(pid: number): number[] {
  const out: number[] = [];
  for (const proc of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${proc}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state === 'Z' && Number(parent) === pid) out.push(Number(proc));
  }
  return out;
}

describe('a warm pool shared by isolated sessions', () => {
  let gw: TestGateway;
  let pages: PageServer;
  before(async () => {
    [gw, pages] = await Promise.all([gatewayWith({ pool: { minWarm: 1, sessionsPerBrowser: 4, maxBrowsers: 2 } }), startPageServer()]);
  });
  after(async () => {
    await stop(gw);
    await pages.close();
  });

  test('the default kind of browser is warm before the first session: a context is prepared, none leased', async () => {
    await eventually(async () => {
      const [key] = (await status(gw)).pool;
      return key?.free === 1;
    }, 'no context was prepared at start');
    const [key] = (await status(gw)).pool;
    assert.deepEqual({ browsers: key.browsers, inUse: key.inUse, free: key.free }, { browsers: 1, inUse: 0, free: 1 });
    assert.equal(key.backend, 'native');
  });

  test('two sessions at once share one browser process and see nothing of each other', async () => {
    const a = await gw.client.newSession();
    const b = await gw.client.newSession();
    try {
      // One browser process for both (the pool leased two contexts of it).
      const mains = await browserMains(gw.process.pid!);
      assert.equal(mains.length, 1, commandLines(mains));
      const [key] = (await status(gw)).pool;
      assert.equal(key.inUse, 2);
      // Same origin in both: cookies, localStorage, sessionStorage and IndexedDB stay apart.
      const page = pages.page('<title>isolation</title><p>x</p>');
      await Promise.all([a.navigate(page), b.navigate(page)]);
      await a.post('/cookie', { cookie: { name: 'who', value: 'a' } });
      await a.execute('localStorage.setItem("who", "a"); sessionStorage.setItem("who", "a")');
      await a.execute(`return new Promise((resolve, reject) => {
        const open = indexedDB.open('isolation', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('s');
        open.onsuccess = () => { const tx = open.result.transaction('s', 'readwrite'); tx.objectStore('s').put('a', 'who'); tx.oncomplete = () => resolve(); };
        open.onerror = () => reject(open.error);
      })`);
      assert.deepEqual(await b.get('/cookie'), []);
      assert.equal(await b.execute('return localStorage.getItem("who")'), null);
      assert.equal(await b.execute('return sessionStorage.getItem("who")'), null);
      assert.deepEqual(await b.execute('return indexedDB.databases().then((dbs) => dbs.map((d) => d.name))'), []);
      assert.equal((await a.get('/cookie'))[0].value, 'a');
      // Windows: each session lists only its own, and another session's handle is no such window.
      const aWindows = await a.get('/window/handles');
      await a.post('/window/new', { type: 'tab' });
      assert.equal((await a.get('/window/handles')).length, 2);
      const bWindows = await b.get('/window/handles');
      assert.equal(bWindows.length, 1);
      assert.ok(!aWindows.includes(bWindows[0]));
      await b.fails('POST', '/window', { handle: aWindows[0] }, 'no such window', 404);
      // A window a page opens belongs to its own session.
      await b.execute('window.open("about:blank")');
      await eventually(async () => (await b.get('/window/handles')).length === 2, 'the opened window did not appear');
      assert.equal((await a.get('/window/handles')).length, 2);
    } finally {
      await a.end();
      await b.end();
    }
  });

  test('the HTTP cache and permissions of one session are not another’s', async () => {
    // A script the browser may cache for an hour: a second fetch in one session comes from its cache.
    let fetches = 0;
    const server = createServer((req, res) => {
      if (req.url === '/cached.js') {
        fetches++;
        res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'public, max-age=3600' });
        return res.end('window.cachedScriptRan = true;');
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<title>cache</title><script src="/cached.js"></script>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const page = `http://127.0.0.1:${(server.address() as AddressInfo).port}/page`;
    const a = await gw.client.newSession();
    const b = await gw.client.newSession();
    try {
      await a.navigate(page);
      await a.navigate(`${page}?again`);
      assert.equal(await a.execute('return window.cachedScriptRan'), true);
      assert.equal(fetches, 1, 'the script was not cached within a session');
      await b.navigate(page);
      assert.equal(await b.execute('return window.cachedScriptRan'), true);
      assert.equal(fetches, 2, 'the second session was served from the first one’s cache');

      // A permission the page asked for (headless denies it) stays with the session that asked.
      const state = 'return navigator.permissions.query({ name: "notifications" }).then((p) => p.state)';
      assert.equal(await a.execute(state), 'prompt');
      assert.equal(await a.execute('return Notification.requestPermission()'), 'denied');
      assert.equal(await a.execute(state), 'denied');
      assert.equal(await b.execute(state), 'prompt');
    } finally {
      await a.end();
      await b.end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  test('a session ends into a fresh context: nothing of the previous one is left', async () => {
    const page = pages.page('<title>fresh</title>');
    const first = await gw.client.newSession();
    await first.navigate(page);
    await first.post('/cookie', { cookie: { name: 'left', value: 'behind' } });
    await first.execute('localStorage.setItem("left", "behind")');
    await first.end();
    const next = await gw.client.newSession();
    try {
      assert.equal((await next.get('/window/handles')).length, 1);
      assert.equal(await next.get('/url'), 'about:blank');
      await next.navigate(page);
      assert.deepEqual(await next.get('/cookie'), []);
      assert.equal(await next.execute('return localStorage.getItem("left")'), null);
    } finally {
      await next.end();
    }
  });

  test('sessions ending as the next ones begin do not make the pool launch another browser', async () => {
    // Three sessions and the prepared context fill the browser (sessionsPerBrowser 4). Contexts
    // still being closed after Delete Session serve nobody, so they leave room for the next ones.
    for (let round = 0; round < 3; round++) {
      const sessions = await Promise.all([0, 1, 2].map(() => gw.client.newSession()));
      await Promise.all(sessions.map((s) => s.end()));
    }
    const mains = await browserMains(gw.process.pid!);
    assert.equal(mains.length, 1, commandLines(mains));
    assert.equal((await status(gw)).pool[0].browsers, 1);
  });

  test('capabilities a shared browser cannot honour (browser args) get a browser of their own', async () => {
    const plain = await gw.client.newSession();
    const own = await gw.client.newSession({ 'goog:chromeOptions': { args: ['--lang=de'] } });
    try {
      const mains = await browserMains(gw.process.pid!);
      assert.equal(mains.length, 2, commandLines(mains));
      const keys = (await status(gw)).pool;
      assert.equal(keys.length, 2);
      assert.ok(keys.some((k: { key: { args: string[] } }) => k.key.args.includes('--lang=de')));
    } finally {
      await plain.end();
      await own.end();
    }
  });
});

describe('capacity: a FIFO queue for New Session past the maximum', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await gatewayWith({ maxSessions: 1, sessionQueueTimeout: 1500, pool: { minWarm: 1 } });
  });
  after(() => stop(gw));

  test('a request past the maximum waits and gets the slot the first session frees', async () => {
    const first = await gw.client.newSession();
    assert.equal((await status(gw)).ready, false);
    let created = false;
    const second = gw.client.newSession().then((s) => {
      created = true;
      return s;
    });
    await eventually(async () => (await status(gw)).sessions.queued === 1, 'the request did not queue');
    assert.equal(created, false);
    await first.end();
    const s = await second;
    assert.equal((await status(gw)).sessions.queued, 0);
    assert.equal(await s.get('/url'), 'about:blank');
    await s.end();
    await eventually(async () => (await status(gw)).ready === true, 'the slot was not given back');
  });

  test('a request that waits past the queue timeout is session not created, saying so', async () => {
    const first = await gw.client.newSession();
    try {
      const e = await gw.client.fails('POST', '/session', { capabilities: {} }, 'session not created', 500);
      assert.match(e.message, /timed out after 1500 ms in the queue/);
      assert.equal((await status(gw)).sessions.queued, 0);
    } finally {
      await first.end();
    }
  });

  test('a client that goes away leaves the queue at once', async () => {
    const first = await gw.client.newSession();
    try {
      const gone = new AbortController();
      const request = fetch(`${gw.url}/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"capabilities":{}}', signal: gone.signal }).catch(() => 'aborted');
      await eventually(async () => (await status(gw)).sessions.queued === 1, 'the request did not queue');
      gone.abort();
      assert.equal(await request, 'aborted');
      await eventually(async () => (await status(gw)).sessions.queued === 0, 'the abandoned request stayed in the queue', 1000);
    } finally {
      await first.end();
    }
    // The slot the abandoned request would have had is free for the next one.
    const next = await gw.client.newSession();
    await next.end();
  });
});

describe('idle sessions', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await gatewayWith({ sessionIdleTimeout: 800, pool: { minWarm: 1, sessionsPerBrowser: 4 } });
  });
  after(() => stop(gw));

  test('a session idle past the idle timeout is ended and its context released', async () => {
    const s: Session = await gw.client.newSession();
    assert.equal((await status(gw)).sessions.active, 1);
    await eventually(async () => (await status(gw)).sessions.active === 0, 'the idle session was not reaped', 5000);
    const e = await s.fails('GET', '/url', undefined, 'invalid session id', 404);
    assert.match(e.message, /idle timeout/);
    const [key] = (await status(gw)).pool;
    assert.equal(key.inUse, 0);
  });

  test('a session that keeps working is not reaped', async () => {
    const s = await gw.client.newSession();
    try {
      // Longer than the idle timeout in all, never idle for as long.
      const started = Date.now();
      while (Date.now() - started < 1600) await s.execute('return new Promise((r) => setTimeout(r, 200))');
      assert.equal(await s.get('/url'), 'about:blank');
    } finally {
      await s.end();
    }
  });

});

describe('a browser that goes away', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await gatewayWith({ pool: { minWarm: 1, sessionsPerBrowser: 4 } });
  });
  after(() => stop(gw));

  test('a browser that is killed ends its sessions, is replaced, and leaves no zombie', async () => {
    const [a, browser] = await sessionInWarmBrowser(gw);
    const b = await gw.client.newSession();
    const profile = await profileOf(browser);
    process.kill(browser, 'SIGKILL');
    for (const s of [a, b]) {
      await eventually(async () => (await s.raw('GET', '/url')).status === 404, 'the session outlived its browser');
      const e = await s.fails('GET', '/url', undefined, 'invalid session id', 404);
      assert.match(e.message, /browser went away/);
    }
    // Replaced: a new session works at once, in a new browser.
    const c = await gw.client.newSession();
    assert.equal(await c.get('/url'), 'about:blank');
    const mains = await browserMains(gw.process.pid!);
    assert.ok(!mains.includes(browser));
    await c.end();
    // Its helper processes and its profile are gone, and it was waited for: no zombie child.
    await eventually(async () => (await processesUsing(profile)) === 0 && !existsSync(profile), 'the dead browser left processes or its profile');
    await eventually(() => zombieChildren(gw.process.pid!).length === 0, 'a zombie child of the gateway is left');
  });
});

describe('a browser that dies while it starts', () => {
  test('the session waiting for it is served by another browser; a browser that cannot start twice in a row is session not created, saying why', async () => {
    // The operator's Chromium, through a wrapper that dies at its first start (as a browser that
    // crashes while it starts) and starts Chromium after that; with no warm browser, New Session
    // launches it.
    const dir = mkdtempSync(join(tmpdir(), 'wdgate-test-dying-'));
    // The browsers' user (browsers.user) runs the wrapper: it must be able to leave its mark.
    chmodSync(dir, 0o777);
    const died = join(dir, 'died');
    /** A browser binary answering --version as Chromium does, and starting as `start` says. */
    const binary = (name: string, start: string) => {
      const path = join(dir, name);
      writeFileSync(path, `#!/bin/sh\n[ "$1" = --version ] && exec /usr/bin/chromium --version\n${start}\n`);
      chmodSync(path, 0o755);
      return path;
    };
    const diesOnce = binary('dies-once', `if [ ! -e '${died}' ]; then : > '${died}'; exit 1; fi\nexec /usr/bin/chromium "$@"`);
    const neverStarts = binary('never-starts', 'exit 1');
    const gw = await gatewayWith({ pool: { minWarm: 0 }, native: { binary: diesOnce, allowedBinaries: [diesOnce, neverStarts] } });
    try {
      const s = await gw.client.newSession();
      assert.ok(existsSync(died), 'the first start did not happen');
      assert.equal(await s.get('/url'), 'about:blank');
      await s.end();
      // A browser that never starts: the second failure is the session's error, with the reason.
      const e = await gw.client.fails('POST', '/session', { capabilities: { alwaysMatch: { 'goog:chromeOptions': { binary: neverStarts } } } }, 'session not created', 500);
      assert.match(e.message, /^could not start .*never-starts: /);
      await eventually(() => zombieChildren(gw.process.pid!).length === 0, 'a browser that died was not waited for');
    } finally {
      await stop(gw);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a browser killed just before shutdown', () => {
  test('SIGTERM while its replacement is being prepared ends the gateway cleanly (exit 0), leaving no browser', async () => {
    const gw = await gatewayWith({ pool: { minWarm: 1, sessionsPerBrowser: 1 } });
    const [s, browser] = await sessionInWarmBrowser(gw);
    process.kill(browser, 'SIGKILL');
    await eventually(async () => (await s.raw('GET', '/url')).status === 404, 'the session outlived its browser');
    // The pool is preparing a replacement now: shutdown must not wait for it, nor launch more.
    const pid = gw.process.pid!;
    assert.equal(await gw.stop(), 0, `the gateway did not end on its own (forced exit):\n${gw.output().slice(-2000)}`);
    assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
  });
});

describe('a browser killed in the middle of a command', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await gatewayWith({ pool: { minWarm: 1, sessionsPerBrowser: 1 } });
  });
  after(() => stop(gw));

  test('the command answers with an error at once (not at its script timeout), and the session is gone', async () => {
    // The script tells a server of ours it runs (commands of a session run one at a time, so
    // the session itself cannot be asked), then waits for a callback that never comes.
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const server = createServer((_req, res) => {
      started();
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const [s, browser] = await sessionInWarmBrowser(gw, { timeouts: { script: 600_000 } });
    const pending = s.raw('POST', '/execute/async', { script: `fetch('http://127.0.0.1:${port}/started', { mode: 'no-cors' })`, args: [] });
    await running;
    server.close();
    process.kill(browser, 'SIGKILL');
    let timer: NodeJS.Timeout | undefined;
    const reply = await Promise.race([
      pending,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('the command never answered after its browser was killed')), 30_000))),
    ]).finally(() => clearTimeout(timer));
    assert.notEqual(reply.status, 200, JSON.stringify(reply.value));
    assert.equal(typeof reply.value.error, 'string');
    assert.equal(reply.status, SPEC_TABLE[reply.value.error], JSON.stringify(reply.value));
    await eventually(async () => (await s.raw('GET', '/url')).status === 404, 'the session outlived its browser');
  });
});

describe('sessionsPerBrowser 1: a process of its own for every session', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await gatewayWith({ pool: { minWarm: 1, sessionsPerBrowser: 1 } });
  });
  after(() => stop(gw));

  test('two sessions run in two browsers, and a used browser ends with its session', async () => {
    const [a, aBrowser] = await sessionInWarmBrowser(gw);
    const b = await gw.client.newSession();
    assert.ok((await browserMains(gw.process.pid!)).length >= 2);
    await a.end();
    await b.end();
    // Both used browsers end; one warm browser (never used) stays prepared for the next session.
    await eventually(async () => !(await browserMains(gw.process.pid!)).includes(aBrowser), 'a used browser was kept');
    await eventually(async () => (await browserMains(gw.process.pid!)).length === 1, 'not exactly one warm browser is left');
  });
});

describe('preparing ahead in proportion to the New Session rate', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await gatewayWith({ pool: { minWarm: 1, sessionsPerBrowser: 8, maxBrowsers: 2, idleTimeout: 2000 } });
  });
  after(() => stop(gw));

  test('sessions coming one after another make the pool keep more contexts prepared than minWarm, in the browser it has; when they stop, the extra ones go', async () => {
    // A test suite's worker: a session per test, as fast as they come.
    let rose = false;
    for (let i = 0; i < 60 && !rose; i++) {
      await (await gw.client.newSession()).end();
      const [key] = (await status(gw)).pool;
      rose = key.target >= 2 && key.free + key.preparing >= 2;
    }
    assert.ok(rose, `the pool kept no more than minWarm prepared: ${JSON.stringify((await status(gw)).pool[0])}`);
    await eventually(async () => (await status(gw)).pool[0].free >= 2, 'the contexts prepared for the rate did not become ready');
    // Not a rate to launch another browser for: the extra contexts filled the one there is.
    assert.equal((await status(gw)).pool[0].browsers, 1);
    assert.equal((await browserMains(gw.process.pid!)).length, 1);
    // The rate falls; past the idle timeout the pool is back to minWarm.
    await eventually(
      async () => {
        const [key] = (await status(gw)).pool;
        return key.target === 1 && key.free === 1 && key.preparing === 0;
      },
      'the extra prepared contexts were kept',
      60_000,
    );
  });
});
