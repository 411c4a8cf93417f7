// The backend primitives a session's trace records from (issue 25): every request of the
// context's windows once it ended, uncaught page errors, and JPEG screenshots. Each driven backend
// (native Chromium, native Firefox, Playwright's Chromium and Firefox) is reached directly
// (test/helpers/driven.ts): the real backend, launch and contexts, without the server.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { DrivenBrowser, NetworkEntry, PageError } from '../../backends/backend.ts';
import { launchDriven, type DrivenKind, type DrivenProcess } from '../helpers/driven.ts';

const KINDS: DrivenKind[] = ['native', 'native-firefox', 'playwright-chromium', 'playwright-firefox'];
/** What each backend's engine reports of a response beside the rest (where not: '' or absent). */
const REPORTS = {
  native: { httpVersion: true, serverIPAddress: true },
  'native-firefox': { httpVersion: true, serverIPAddress: false },
  'playwright-chromium': { httpVersion: false, serverIPAddress: true },
  'playwright-firefox': { httpVersion: false, serverIPAddress: false },
} satisfies Record<DrivenKind, unknown>;

const CSS = `body { color: rgb(1, 2, 3) } /* ${'x'.repeat(900)} */`;
/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const MISSING = 'not found';
/** A bound on each test, so that an event that never comes fails it instead of hanging the run. */
const TEST_TIMEOUT_MS = 30_000;

/** The test's pages: each response says its length and is never cached (each test sees its own requests). */
function startSite(refused: string): Promise<Server> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const tag = url.searchParams.get('tag') ?? '';
    const send = (status: number, type: string, body: string | Buffer) => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
      res.end(body);
    };
    switch (url.pathname) {
      case '/page':
        // A stylesheet, an image, a fetch answered 404, and a fetch whose connection is refused.
        // The 404's body is read: Chromium may end a fetch only once its page has read the body.
        return send(
          200,
          'text/html; charset=utf-8',
          `<!doctype html><title>page</title><link rel="stylesheet" href="/style.css?tag=${tag}"><img src="/image.png?tag=${tag}">
<script>fetch('/missing?tag=${tag}').then((r) => r.text()); fetch('${refused}/refused?tag=${tag}').catch(() => {});</script>`,
        );
      case '/style.css':
        return send(200, 'text/css', CSS);
      case '/image.png':
        return send(200, 'image/png', PNG);
      case '/plain':
        return send(200, 'text/html; charset=utf-8', `<!doctype html><title>plain</title><p>${tag}`);
      case '/error':
        return send(
          200,
          'text/html; charset=utf-8',
          `<!doctype html><title>error</title><script>setTimeout(() => { throw new Error('boom from the page ${tag}') }); Promise.reject(new Error('rejected in the page ${tag}'));</script>`,
        );
      case '/picture':
        // Detail a JPEG's quality shows: fine stripes of many colours.
        return send(
          200,
          'text/html; charset=utf-8',
          `<!doctype html><body style="margin:0"><div style="width:100vw;height:100vh;background:repeating-linear-gradient(45deg,#f00 0 3px,#0f0 3px 5px,#00f 5px 9px,#ff0 9px 11px)"></div>`,
        );
      default:
        return send(404, 'text/plain', MISSING);
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Entries as they come, and a wait for one that matches. */
class Recorded<T> {
  readonly items: T[] = [];
  #waiters: { match: (item: T) => boolean; resolve: (item: T) => void }[] = [];
  readonly add = (item: T) => {
    this.items.push(item);
    for (const waiter of this.#waiters.filter((w) => w.match(item))) {
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve(item);
    }
  };
  /** The first item that matches, already come or still to come (the test's timeout bounds the wait). */
  until(match: (item: T) => boolean): Promise<T> {
    const found = this.items.find(match);
    return found ? Promise.resolve(found) : new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }
}

const urlHas = (text: string) => (entry: NetworkEntry) => entry.url.includes(text);
/** A MIME type without its parameters (engines differ in giving the charset). */
const essence = (mimeType: string) => mimeType.split(';')[0]!.trim();

/** A JPEG begins with SOI and ends with EOI. */
function isJpeg(base64: string): boolean {
  const bytes = Buffer.from(base64, 'base64');
  return bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff])) && bytes.subarray(-2).equals(Buffer.from([0xff, 0xd9]));
}

let site: Server;
let origin: string;
/** An address nothing listens on: connections to it are refused. */
let refused: string;

before(async () => {
  const closed = await new Promise<Server>((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
  refused = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise((resolve) => closed.close(resolve));
  site = await startSite(refused);
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

after(async () => {
  site.closeAllConnections();
  await new Promise((resolve) => site.close(resolve));
});

for (const kind of KINDS) {
  describe(`trace primitives: ${kind}`, () => {
    let browser: DrivenProcess;
    let a: DrivenBrowser;
    const requests = new Recorded<NetworkEntry>();
    const errors = new Recorded<PageError>();

    before(async () => {
      browser = await launchDriven(kind);
      a = await browser.newContext();
      await a.onNetworkRequest!(requests.add);
      a.onPageError!(errors.add);
    });
    after(() => browser?.close());

    test('each request once it ended: the document, a stylesheet, an image, a fetch answered 404, one refused', { timeout: TEST_TIMEOUT_MS }, async () => {
      const started = Date.now();
      await a.navigate(a.initialWindow, `${origin}/page?tag=one`, 'normal', 30_000);
      const [page, css, image, missing, failed] = await Promise.all(
        ['/page?tag=one', '/style.css?tag=one', '/image.png?tag=one', '/missing?tag=one', '/refused?tag=one'].map((path) => requests.until(urlHas(path))),
      );
      const ended = Date.now();

      for (const entry of [page!, css!, image!, missing!, failed!]) {
        assert.equal(entry.method, 'GET');
        assert.equal(entry.window, a.initialWindow, entry.url);
        assert.ok(entry.startedAt >= started - 1000 && entry.startedAt <= ended, `${entry.url} started at ${entry.startedAt}, not within ${started}..${ended}`);
        assert.ok(entry.durationMs >= 0 && entry.startedAt + entry.durationMs <= ended + 1000, `${entry.url} took ${entry.durationMs} ms`);
        // HAR timings: each phase known (≥ 0) or -1; the known ones (ssl is within connect) fit in the request's time.
        const { ssl, ...phases } = entry.timings;
        for (const value of [ssl, ...Object.values(phases)]) assert.ok(value === -1 || value >= 0, `${entry.url} timings ${JSON.stringify(entry.timings)}`);
        const known = Object.values(phases).filter((v) => v >= 0);
        assert.ok(known.reduce((sum, v) => sum + v, 0) <= entry.durationMs + 2, `${entry.url} timings ${JSON.stringify(entry.timings)} exceed ${entry.durationMs} ms`);
        assert.ok(entry.requestHeaders.length > 0, `${entry.url} request headers`);
      }
      for (const entry of [page!, css!, image!, missing!]) {
        assert.equal(entry.error, undefined, entry.url);
        assert.equal(entry.fromCache, false, entry.url);
        assert.ok(entry.transferSize > entry.bodySize, `${entry.url}: ${entry.transferSize} bytes received (headers and body), ${entry.bodySize} of body`);
        assert.ok(entry.responseHeaders.some((h) => h.name.toLowerCase() === 'content-length'), `${entry.url} response headers`);
        assert.ok(entry.timings.wait >= 0, `${entry.url}: the wait for the response is timed`);
        if (REPORTS[kind].httpVersion) assert.equal(entry.httpVersion, 'HTTP/1.1');
        if (REPORTS[kind].serverIPAddress) assert.equal(entry.serverIPAddress, '127.0.0.1');
      }
      assert.deepEqual([page!.resourceType, page!.status, page!.statusText, essence(page!.mimeType)], ['document', 200, 'OK', 'text/html']);
      assert.deepEqual([css!.resourceType, css!.status, essence(css!.mimeType), css!.bodySize], ['stylesheet', 200, 'text/css', CSS.length]);
      assert.deepEqual([image!.resourceType, image!.status, essence(image!.mimeType), image!.bodySize], ['image', 200, 'image/png', PNG.length]);
      assert.deepEqual([missing!.resourceType, missing!.status, missing!.statusText, missing!.bodySize], ['fetch', 404, 'Not Found', MISSING.length]);
      assert.deepEqual([failed!.resourceType, failed!.status, failed!.transferSize], ['fetch', 0, -1]);
      assert.match(failed!.error ?? '', /REFUSED/i);
      // Each request once.
      assert.equal(requests.items.filter(urlHas('/missing?tag=one')).length, 1);
    });

    test('windows opened later, a new window and a popup of the page, are followed too', { timeout: TEST_TIMEOUT_MS }, async () => {
      const tab = await a.newWindow('tab');
      await a.navigate(tab, `${origin}/plain?tag=tab`, 'normal', 30_000);
      assert.equal((await requests.until(urlHas('/plain?tag=tab'))).window, tab);
      await a.navigate(a.initialWindow, `${origin}/plain?tag=opener`, 'normal', 30_000);
      await a.callFunction({ window: a.initialWindow, frames: [] }, `() => { window.open('/plain?tag=popup') }`, [], { userActivation: true });
      const popup = await requests.until(urlHas('/plain?tag=popup'));
      assert.ok(popup.window && popup.window !== tab && popup.window !== a.initialWindow, `the popup's own window: ${popup.window}`);
      assert.ok((await a.windowHandles()).includes(popup.window));
      await a.closeWindow(popup.window);
      await a.closeWindow(tab);
    });

    test("another context's requests never reach this context's listener", { timeout: TEST_TIMEOUT_MS }, async () => {
      const b = await browser.newContext();
      const other = new Recorded<NetworkEntry>();
      await b.onNetworkRequest!(other.add);
      await b.navigate(b.initialWindow, `${origin}/page?tag=other`, 'normal', 30_000);
      await other.until(urlHas('/missing?tag=other'));
      // This context's next request comes after the other's on the same connection: once it is
      // here, the other's would have been too.
      await a.navigate(a.initialWindow, `${origin}/plain?tag=after`, 'normal', 30_000);
      await requests.until(urlHas('/plain?tag=after'));
      assert.deepEqual(requests.items.filter((e) => e.url.includes('tag=other') || e.window === b.initialWindow), []);
      assert.deepEqual(other.items.filter((e) => e.window !== b.initialWindow || e.url.includes('tag=after')), []);
      await b.close();
    });

    test('an uncaught exception and an unhandled rejection of the page arrive with their messages', { timeout: TEST_TIMEOUT_MS }, async () => {
      await a.navigate(a.initialWindow, `${origin}/error?tag=x`, 'normal', 30_000);
      const thrown = await errors.until((e) => e.message.includes('boom from the page x'));
      assert.equal(thrown.window, a.initialWindow);
      assert.match(thrown.message, /Error: boom from the page x/);
      assert.ok(thrown.timestamp > Date.now() - 60_000 && thrown.timestamp <= Date.now(), `timestamp ${thrown.timestamp}`);
      const rejected = await errors.until((e) => e.message.includes('rejected in the page x'));
      assert.equal(rejected.window, a.initialWindow);
    });

    test("a popup's errors from its first script on arrive with the popup's window", { timeout: TEST_TIMEOUT_MS }, async () => {
      await a.navigate(a.initialWindow, `${origin}/plain?tag=opener-of-error`, 'normal', 30_000);
      await a.callFunction({ window: a.initialWindow, frames: [] }, `() => { window.open('/error?tag=popup') }`, [], { userActivation: true });
      // The rejection happens while the popup's document is parsed, before anything could attach to it late.
      const rejected = await errors.until((e) => e.message.includes('rejected in the page popup'));
      assert.ok(rejected.window && rejected.window !== a.initialWindow, `the popup's own window: ${rejected.window}`);
      const thrown = await errors.until((e) => e.message.includes('boom from the page popup'));
      assert.equal(thrown.window, rejected.window);
      await a.closeWindow(rejected.window);
    });

    test('a JPEG screenshot where asked, its quality heeded; PNG stays the default', { timeout: TEST_TIMEOUT_MS }, async () => {
      await a.navigate(a.initialWindow, `${origin}/picture`, 'normal', 30_000);
      const low = await a.screenshot(a.initialWindow, undefined, { type: 'jpeg', quality: 10 });
      const high = await a.screenshot(a.initialWindow, undefined, { type: 'jpeg', quality: 90 });
      assert.ok(isJpeg(low) && isJpeg(high), 'JPEG');
      assert.ok(low.length < high.length, `quality 10: ${low.length} base64 chars, quality 90: ${high.length}`);
      const png = Buffer.from(await a.screenshot(a.initialWindow), 'base64');
      assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
      const clipped = await a.screenshot(a.initialWindow, { x: 0, y: 0, width: 40, height: 30 }, { type: 'jpeg', quality: 80 });
      assert.ok(isJpeg(clipped) && clipped.length < high.length, 'a clip is a JPEG of the clip');
    });
  });
}
