// A session never sees anything of an earlier one (issue 31), whatever the pool does with
// contexts: session A leaves every kind of state behind, and session B, made in the same browser
// once A's context went back to the pool, finds none of it; then B leaves the same and C finds
// none. A and C belong to one principal, B to another (tokens). On native Chromium and on native
// Firefox (user contexts of one process).
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { BidiSocket } from '../helpers/bidi.ts';
import type { Client, Session } from '../helpers/client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, leftoverBrowsers } from '../helpers/pages.ts';

const TOKENS = { alice: 'isolation-alice-5f0c9a7e3b1d4826', bob: 'isolation-bob-8e2a6c4f0d9b1735' };

/**
 * The sites the sessions visit: pages on 127.0.0.1, a frame from localhost (another site, so its
 * cookie is partitioned), a script the browser may cache for an hour, a service worker, a file to
 * download. Every request is counted, with the cookies it carried.
 */
interface Site {
  top: string;
  other: string;
  requests: { path: string; cookie: string }[];
  close(): Promise<void>;
}

async function startSite(): Promise<Site> {
  const requests: Site['requests'] = [];
  const html = (res: ServerResponse, body: string, headers: Record<string, string | string[]> = {}) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers });
    res.end(body);
  };
  let port = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push({ path: url.pathname, cookie: req.headers.cookie ?? '' });
    switch (url.pathname) {
      case '/page':
        // An http-only cookie only the server can see, and a frame from another site that sets a partitioned one.
        return html(res, `<title>page ${url.search}</title><script src="/cached.js"></script><iframe src="http://localhost:${port}/frame" onload="window.frameLoaded = true"></iframe>`, {
          'set-cookie': ['httponly=a; HttpOnly; Path=/; Max-Age=3600'],
        });
      case '/frame':
        return html(res, '<p>frame</p>', { 'set-cookie': ['partitioned=a; Secure; SameSite=None; Partitioned; Path=/; Max-Age=3600'] });
      case '/cached.js':
        res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'public, max-age=3600' });
        return res.end('window.cachedScriptRan = true;');
      case '/sw.js':
        res.writeHead(200, { 'content-type': 'text/javascript' });
        return res.end("self.addEventListener('fetch', () => {});");
      case '/download':
        res.writeHead(200, { 'content-type': 'application/x-wdgate-test', 'content-disposition': 'attachment; filename="left-behind.txt"' });
        return res.end('left behind');
      default:
        return html(res, '<title>blank</title>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    top: `http://127.0.0.1:${port}`,
    other: `http://localhost:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What a session left: its capabilities asked for non-defaults, and the rest it did. */
const LEAVING_CAPABILITIES = {
  timeouts: { implicit: 1234, pageLoad: 56789, script: 9012 },
  unhandledPromptBehavior: 'accept',
  pageLoadStrategy: 'eager',
};

interface Engine {
  name: string;
  capabilities: Record<string, unknown>;
}

const ENGINES: Engine[] = [
  { name: 'native Chromium', capabilities: {} },
  { name: 'native Firefox', capabilities: { browserName: 'firefox' } },
];

for (const engine of ENGINES) {
  describe(`isolation between sessions, ${engine.name}`, () => {
    let gw: TestGateway;
    let site: Site;
    let alice: Client;
    let bob: Client;
    before(async () => {
      [gw, site] = await Promise.all([
        startGateway([], { config: { authTokens: [{ name: 'alice', token: TOKENS.alice }, { name: 'bob', token: TOKENS.bob }], requireAuthOnLoopback: true } }),
        startSite(),
      ]);
      alice = gw.client.withToken(TOKENS.alice);
      bob = gw.client.withToken(TOKENS.bob);
    });
    after(async () => {
      const pid = gw.process.pid!;
      await gw.stop();
      await site.close();
      assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
    });

    /** A session of `client` for this engine, downloads kept (se:downloadsEnabled). */
    const open = (client: Client, extra: Record<string, unknown> = {}) => client.newSession({ ...engine.capabilities, 'se:downloadsEnabled': true, ...extra });

    /** Once the last session's context went back to the pool (a design that reused it would have reset it by then). */
    const returned = () => eventually(async () => (await alice.leasedContexts()) === 0, 'the context was not given back');

    /** What a new session has: its window's rect, and its history's length after its first navigation. */
    interface Fresh {
      rect: unknown;
      history: number;
    }

    /** Leave every kind of state behind in `s`; returns what it had as new. */
    async function leaveEverything(s: Session, bidi: BidiSocket | undefined): Promise<Fresh> {
      const rect = await s.get('/window/rect');
      // History: three more entries.
      await s.navigate(`${site.top}/page?1`);
      const history = await s.execute('return history.length');
      // The frame's response (its cookie) is in before the next navigation, whatever the load strategy.
      await eventually(() => s.execute('return window.frameLoaded === true'), 'the frame did not load');
      await s.navigate(`${site.top}/page?2`);
      await eventually(() => site.requests.some((r) => r.path === '/frame' && r.cookie.includes('partitioned=a')), 'the frame’s partitioned cookie was not kept');
      const fetchesBefore = site.requests.filter((r) => r.path === '/cached.js').length;
      await s.navigate(`${site.top}/page?3`);
      assert.equal(await s.execute('return history.length'), history + 2);
      // The HTTP cache: the second and third pages took the script from it.
      assert.equal(await s.execute('return window.cachedScriptRan'), true);
      assert.equal(site.requests.filter((r) => r.path === '/cached.js').length, fetchesBefore, 'the script was not cached within the session');
      // Cookies: one set by WebDriver, one by script, the http-only one from the server, and the frame's partitioned one.
      await s.post('/cookie', { cookie: { name: 'webdriver', value: 'a' } });
      await s.execute('document.cookie = "script=a; max-age=3600"');
      const cookies = (await s.get('/cookie')).map((c: { name: string }) => c.name).sort();
      assert.deepEqual(cookies, ['httponly', 'script', 'webdriver']);
      // Storage of every kind, and a service worker.
      await s.execute(`return (async () => {
        localStorage.setItem('left', 'a');
        sessionStorage.setItem('left', 'a');
        await new Promise((resolve, reject) => {
          const open = indexedDB.open('left', 1);
          open.onupgradeneeded = () => open.result.createObjectStore('s');
          open.onsuccess = () => { const tx = open.result.transaction('s', 'readwrite'); tx.objectStore('s').put('a', 'k'); tx.oncomplete = () => { open.result.close(); resolve(); }; };
          open.onerror = () => reject(open.error);
        });
        await (await caches.open('left')).put('/left', new Response('a'));
        await navigator.serviceWorker.register('/sw.js');
        await navigator.serviceWorker.ready;
      })()`);
      assert.equal((await s.execute('return navigator.serviceWorker.getRegistrations().then((r) => r.length)')), 1);
      // A permission: granted over BiDi where the engine's BiDi can (Firefox), else the page's own
      // request, which headless Chromium denies and remembers.
      const permission = 'return navigator.permissions.query({ name: PERMISSION }).then((p) => p.state)';
      if (bidi) {
        await bidi.call('permissions.setPermission', { descriptor: { name: 'geolocation' }, state: 'granted', origin: site.top });
        assert.equal(await s.execute(permission.replace('PERMISSION', '"geolocation"')), 'granted');
      } else {
        assert.equal(await s.execute('return Notification.requestPermission()'), 'denied');
        assert.equal(await s.execute(permission.replace('PERMISSION', '"notifications"')), 'denied');
      }
      // A download.
      await s.navigate(`${site.top}/blank`);
      await s.execute(`const a = document.createElement('a'); a.href = '/download'; a.download = 'left-behind.txt'; document.body.append(a); a.click();`);
      await eventually(async () => (await s.get('/se/files')).names.includes('left-behind.txt'), 'the download did not finish');
      // More windows, and this one's size and place; timeouts changed again.
      await s.post('/window/new', { type: 'tab' });
      await s.execute('window.open("/blank")');
      await eventually(async () => (await s.get('/window/handles')).length === 3, 'the windows did not open');
      await s.post('/window/rect', { x: 33, y: 44, width: 777, height: 555 });
      assert.deepEqual(await s.get('/window/rect'), { x: 33, y: 44, width: 777, height: 555 });
      await s.post('/timeouts', { implicit: 4321 });
      return { rect, history };
    }

    /** Nothing of what leaveEverything left is seen in `s` (a session of defaults). */
    async function findNothing(s: Session, fresh: Fresh): Promise<void> {
      // Its own settings, not the last session's.
      assert.deepEqual(await s.get('/timeouts'), { implicit: 0, pageLoad: 300000, script: 30000 });
      assert.equal(s.capabilities.pageLoadStrategy, 'normal');
      assert.equal(s.capabilities.unhandledPromptBehavior, 'dismiss and notify');
      // One window, at the size and place a new one has, with one history entry.
      assert.equal((await s.get('/window/handles')).length, 1);
      assert.deepEqual(await s.get('/window/rect'), fresh.rect);
      assert.equal(await s.get('/url'), 'about:blank');
      assert.equal(await s.execute('return history.length'), 1);
      // Nothing downloaded.
      assert.deepEqual((await s.get('/se/files')).names, []);
      // The page again: its script fetched again (no HTTP cache), and no cookie sent with any request.
      const before = site.requests.length;
      await s.navigate(`${site.top}/page?fresh`);
      const seen = site.requests.slice(before);
      assert.ok(seen.some((r) => r.path === '/cached.js'), 'the script came from the last session’s HTTP cache');
      assert.ok(seen.some((r) => r.path === '/frame'), 'the frame was not requested');
      // The page's and the frame's requests carry no cookie (the http-only one the page's answer
      // sets again goes with the requests after it: the script, the icon).
      const firstOf = (path: string) => seen.find((r) => r.path === path);
      assert.deepEqual([firstOf('/page')?.cookie, firstOf('/frame')?.cookie], ['', ''], 'a request carried the last session’s cookies');
      assert.ok(!seen.some((r) => /webdriver=|script=|partitioned=/.test(r.cookie)), 'a request carried the last session’s cookies');
      assert.equal(await s.execute('return history.length'), fresh.history);
      // Storage of every kind, service workers and the permission as new.
      assert.deepEqual(
        await s.execute(`return (async () => ({
          localStorage: localStorage.getItem('left'),
          sessionStorage: sessionStorage.getItem('left'),
          indexedDB: (await indexedDB.databases()).map((d) => d.name),
          caches: await caches.keys(),
          serviceWorkers: (await navigator.serviceWorker.getRegistrations()).length,
          geolocation: (await navigator.permissions.query({ name: 'geolocation' })).state,
          notifications: (await navigator.permissions.query({ name: 'notifications' })).state,
        }))()`),
        { localStorage: null, sessionStorage: null, indexedDB: [], caches: [], serviceWorkers: 0, geolocation: 'prompt', notifications: 'prompt' },
      );
      // The prompt handler is its own: an alert is dismissed and the next command says so.
      await s.execute('window.alert("left")');
      await s.fails('GET', '/title', undefined, 'unexpected alert open', 500);
    }

    test('what one session leaves, the next never sees: cookies (http-only, partitioned), storage, caches, service workers, permissions, history, windows, downloads, window size and settings', async () => {
      // A (alice) leaves everything, B (bob) sees none of it and leaves everything, C (alice) sees none of B's.
      const bidiOf = async (s: Session, client: Client) => (s.capabilities.webSocketUrl ? BidiSocket.open(s.capabilities.webSocketUrl, client.headers) : undefined);
      // A BiDi socket for Firefox's permissions (its user context is the session's, in the shared process).
      const withBidi = engine.capabilities.browserName === 'firefox' ? { webSocketUrl: true } : {};
      const a = await open(alice, { ...LEAVING_CAPABILITIES, ...withBidi });
      let fresh: Fresh;
      const aBidi = await bidiOf(a, alice);
      try {
        assert.deepEqual(a.capabilities.timeouts, LEAVING_CAPABILITIES.timeouts);
        fresh = await leaveEverything(a, aBidi);
      } finally {
        aBidi?.close();
        await a.end();
      }
      await returned();
      const b = await open(bob, withBidi);
      const bBidi = await bidiOf(b, bob);
      try {
        await findNothing(b, fresh!);
        await leaveEverything(b, bBidi);
      } finally {
        bBidi?.close();
        await b.end();
      }
      await returned();
      const c = await open(alice);
      try {
        await findNothing(c, fresh!);
      } finally {
        await c.end();
      }
      // All three in one browser process (the pool's), so the isolation was the contexts'.
      const firefox = engine.capabilities.browserName === 'firefox';
      const [key, ...others] = (await alice.ok('GET', '/status')).pool.filter((k: { key: { engine?: string } }) => firefox === (k.key.engine === 'firefox'));
      assert.equal(others.length, 0);
      assert.equal(key.browsers, 1);
    });
  });
}
