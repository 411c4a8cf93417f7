// Navigation (spec §10) against real Chromium through the server: Navigate To with each page
// load strategy and the page load timeout, history traversal, refresh, fragments, failures.
import { after, before, describe } from 'node:test';
import { test } from '../helpers/gaps.ts';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import type { TestGateway } from '../helpers/gateway.ts';
import { closeSessionFixture, openSessionFixture } from '../helpers/fixture.ts';
import type { Session } from '../helpers/client.ts';
import { eventually, type PageServer } from '../helpers/pages.ts';

let gw: TestGateway;
let pages: PageServer;
let s: Session;

before(async () => {
  ({ gw, pages, s } = await openSessionFixture());
});

after(() => closeSessionFixture({ gw, pages, s }));

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A page whose response is held until `release()` (or 30 s): lets a test tell "the command
 * returned before the page arrived" without timing anything.
 */
async function heldPage(html: string) {
  const waiting: ServerResponse[] = [];
  let released = false;
  let arrived!: () => void;
  const requested = new Promise<void>((resolve) => (arrived = resolve));
  const server = createHttpServer((_req, res) => {
    arrived();
    if (released) return res.end(html);
    waiting.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const release = () => {
    if (released) return;
    released = true;
    clearTimeout(fallback);
    for (const res of waiting.splice(0)) res.writeHead(200, { 'content-type': 'text/html' }).end(html);
  };
  const fallback = setTimeout(release, 30_000);
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/held`,
    get released() {
      return released;
    },
    /** Resolves when the browser's request for the page has arrived (the navigation is under way). */
    requested,
    release,
    close: () =>
      new Promise<void>((resolve) => {
        release();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The session still navigates and runs script (after an error). */
async function assertWorks(session: Session): Promise<void> {
  const url = pages.page('<p>alive</p>', 'alive');
  await session.navigate(url);
  assert.equal(await session.get('/title'), 'alive');
  assert.equal(await session.get('/url'), url);
}

describe('navigate to', () => {
  test('title and URL reflect the new page', async () => {
    const url = pages.page('<p>hi</p>', 'First page');
    assert.equal(await s.navigate(url), null);
    assert.equal(await s.get('/url'), url);
    assert.equal(await s.get('/title'), 'First page');
    await s.navigate('about:blank');
    assert.equal(await s.get('/url'), 'about:blank');
    assert.equal(await s.get('/title'), '');
    await s.navigate('data:text/html,<title>from data</title>');
    assert.equal(await s.get('/title'), 'from data');
  });

  test('a URL that is not absolute, or not a string, is invalid argument', async () => {
    for (const url of ['not a url', '/relative/path', 'example.com', '', '//host/path']) {
      const e = await s.fails('POST', '/url', { url }, 'invalid argument', 400);
      assert.match(e.message, /url/, url);
    }
    for (const body of [{}, { url: 5 }, { url: null }, { url: ['http://127.0.0.1/'] }]) {
      await s.fails('POST', '/url', body, 'invalid argument', 400);
    }
  });

  test('normal strategy waits for the load event', async () => {
    await s.navigate(`${pages.url}/slow-image?ms=1500`);
    assert.equal(await s.execute('return document.readyState'), 'complete');
    assert.equal(await s.execute('return document.images[0].complete && document.images[0].naturalWidth === 0'), true);
    assert.equal(await s.get('/title'), 'slow image');
  });

  test('eager strategy returns at DOMContentLoaded, before subresources load', async () => {
    const eager = await gw.client.newSession({ pageLoadStrategy: 'eager' });
    try {
      assert.equal(eager.capabilities.pageLoadStrategy, 'eager');
      // The image takes 20 s: a return before then is the eager strategy, not luck.
      await eager.navigate(`${pages.url}/slow-image?ms=20000`);
      assert.equal(await eager.execute('return document.readyState'), 'interactive');
      assert.equal(await eager.get('/title'), 'slow image');
      assert.equal(await eager.execute('return document.images.length'), 1);
    } finally {
      await eager.end();
    }
  });

  test('none strategy returns at once; commands then see the new document', async () => {
    const held = await heldPage('<title>held</title><p>arrived</p>');
    const none = await gw.client.newSession({ pageLoadStrategy: 'none' });
    try {
      await none.navigate(pages.page('<p>x</p>', 'before'));
      await none.navigate(held.url);
      // The reply came while the server still held the response: the navigation had not ended.
      assert.equal(held.released, false);
      // Chromium holds commands for the page until the navigation commits, and so does the
      // gateway on Firefox: a command caught at the switch (issued while the response is held)
      // answers from the new document — its title, or "" while the title is not parsed yet —
      // never from the old one, never an error.
      await held.requested;
      const title = none.get('/title');
      held.release();
      const caught = await title;
      assert.ok(['held', ''].includes(caught), `the title was ${JSON.stringify(caught)}`);
      await eventually(async () => (await none.get('/title')) === 'held', 'the new document never showed its title');
      assert.equal(await none.get('/url'), held.url);
    } finally {
      held.release();
      await none.end();
      await held.close();
    }
  });

  test('none strategy: Find Element right after Navigate To acts on the new document, never the old one or an error', async () => {
    const held = await heldPage('<title>held</title><p id="new">arrived</p>');
    const none = await gw.client.newSession({ pageLoadStrategy: 'none' });
    try {
      // The next document served at once: the old one is replaced under the find (Firefox
      // answered "no such window", its realm gone); the find waits for the new one.
      await none.post('/timeouts', { implicit: 5000 });
      for (const id of ['a', 'b', 'c']) {
        await none.navigate(pages.page(`<p id="${id}">${id}</p>`, id));
        assert.equal(await none.get(`/element/${await none.find(`#${id}`)}/text`), id);
      }
      // Held: a find issued before the response came answers from the new document. It cannot
      // answer while the response is held (Chromium holds it until the new document commits):
      // from the old document it would, within a second even on a busy machine.
      await none.post('/timeouts', { implicit: 0 });
      await none.navigate(held.url);
      await held.requested;
      const find = none.raw('POST', '/element', { using: 'css selector', value: '#c' });
      let timer: NodeJS.Timeout | undefined;
      const early = await Promise.race([find.then((reply) => reply.value), new Promise((resolve) => (timer = setTimeout(resolve, 1000, 'held')))]);
      clearTimeout(timer);
      held.release();
      assert.equal(early, 'held', `answered before the new document came: ${JSON.stringify(early)}`);
      assert.equal((await find).value.error, 'no such element');
      await eventually(async () => (await none.post('/elements', { using: 'css selector', value: '#new' })).length === 1, 'the new document never showed #new');
    } finally {
      held.release();
      await none.end();
      await held.close();
    }
  });

  test('a page load timeout shorter than the load is 500 timeout; the session still works', async () => {
    await s.post('/timeouts', { pageLoad: 500 });
    try {
      const e = await s.fails('POST', '/url', { url: `${pages.url}/slow?ms=3000` }, 'timeout', 500);
      assert.match(e.message, /500/);
      // The normal strategy waits for subresources too.
      await s.fails('POST', '/url', { url: `${pages.url}/slow-image?ms=3000` }, 'timeout', 500);
    } finally {
      await s.post('/timeouts', { pageLoad: 300000 });
    }
    await assertWorks(s);
  });

  test('a page load timeout of 0 times out at once', async () => {
    await s.post('/timeouts', { pageLoad: 0 });
    try {
      await s.fails('POST', '/url', { url: `${pages.url}/slow?ms=3000` }, 'timeout', 500);
    } finally {
      await s.post('/timeouts', { pageLoad: 300000 });
    }
    await assertWorks(s);
  });

  test('a page load timeout past the timer range is not taken as "now"', async () => {
    await s.post('/timeouts', { pageLoad: Number.MAX_SAFE_INTEGER });
    try {
      await assertWorks(s);
      await s.navigate(`${pages.url}/slow?ms=300`);
      assert.equal(await s.get('/title'), 'slow');
      await s.navigate(pages.page('<p>a</p>', 'a'));
      await s.post('/back');
      await s.post('/refresh');
      assert.equal(await s.get('/title'), 'slow');
    } finally {
      await s.post('/timeouts', { pageLoad: 300000 });
    }
  });

  test('a refused connection is unknown error naming the engine\'s connection-refused error; the session still works', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/refused`;
    const e = await s.fails('POST', '/url', { url }, 'unknown error', 500);
    assert.match(e.message, /net::ERR_CONNECTION_REFUSED|NS_ERROR_CONNECTION_REFUSED/); // Chromium's name, Firefox's
    // The error page stands for the URL that failed (as chromedriver answers), not chrome-error://.
    assert.equal(await s.get('/url'), url);
    await assertWorks(s);
  });
});

describe('history', () => {
  test('back and forward move through history', async () => {
    const a = pages.page('<p>a</p>', 'A');
    const b = pages.page('<p>b</p>', 'B');
    await s.navigate(a);
    await s.navigate(b);
    assert.equal(await s.post('/back'), null);
    assert.equal(await s.get('/url'), a);
    assert.equal(await s.get('/title'), 'A');
    assert.equal(await s.post('/forward'), null);
    assert.equal(await s.get('/url'), b);
    assert.equal(await s.get('/title'), 'B');
    // At the end of history, forward is a no-op.
    await s.post('/forward');
    assert.equal(await s.get('/url'), b);
  });

  test('refresh re-runs the page (a sessionStorage counter counts loads)', async () => {
    const url = pages.page(
      `<script>
        const n = Number(sessionStorage.getItem('loads') || 0) + 1;
        sessionStorage.setItem('loads', String(n));
        document.title = 'load ' + n;
      </script>`,
      'counter',
    );
    await s.navigate(url);
    assert.equal(await s.get('/title'), 'load 1');
    await s.execute('window.notReloaded = true');
    assert.equal(await s.post('/refresh'), null);
    assert.equal(await s.get('/title'), 'load 2');
    assert.equal(await s.execute('return window.notReloaded === undefined'), true);
    await s.post('/refresh', {});
    assert.equal(await s.get('/title'), 'load 3');
    assert.equal(await s.get('/url'), url);
  });

  test('back waits for the previous page to load (normal strategy)', async () => {
    await s.navigate(`${pages.url}/slow-image?ms=1000`);
    await s.navigate(pages.page('<p>next</p>', 'next'));
    await s.post('/back');
    assert.equal(await s.execute('return document.readyState'), 'complete');
    assert.equal(await s.get('/title'), 'slow image');
  });

  test('back with no history is a no-op', async () => {
    const original = await s.get('/window');
    const { handle } = await s.post('/window/new', { type: 'tab' });
    await s.post('/window', { handle });
    try {
      assert.equal(await s.get('/url'), 'about:blank');
      assert.equal(await s.post('/back'), null);
      assert.equal(await s.get('/url'), 'about:blank');
      assert.equal(await s.post('/forward'), null);
      assert.equal(await s.get('/url'), 'about:blank');
    } finally {
      await s.delete('/window');
      await s.post('/window', { handle: original });
    }
  });

  test('fragment navigation stays in the document; back returns to the unfragmented URL', async () => {
    const url = pages.page('<p id="top">top</p><div style="height:5000px"></div><p id="far">far</p>', 'fragments');
    await s.navigate(url);
    await s.execute('window.marker = 42');
    await s.navigate(`${url}#far`);
    assert.equal(await s.get('/url'), `${url}#far`);
    assert.equal(await s.execute('return window.marker'), 42);
    assert.equal(await s.execute('return location.hash'), '#far');
    assert.ok((await s.execute('return window.scrollY')) > 1000);
    await s.post('/back');
    assert.equal(await s.get('/url'), url);
    assert.equal(await s.execute('return window.marker'), 42);
    await s.post('/forward');
    assert.equal(await s.get('/url'), `${url}#far`);
    assert.equal(await s.execute('return window.marker'), 42);
  });

  test('a traversal that brings no new document is not a page load: it succeeds under a short page load timeout', async () => {
    // The page replaced addEventListener: nothing the driver relies on may go through it.
    const url = pages.page('<script>EventTarget.prototype.addEventListener = () => { throw new Error("replaced"); };</script><p>x</p>', 'no-load');
    await s.navigate(url);
    await s.navigate(`${url}#far`);
    await s.post('/timeouts', { pageLoad: 1000 });
    try {
      await s.post('/back');
      assert.equal(await s.get('/url'), url);
      await s.post('/forward');
      assert.equal(await s.get('/url'), `${url}#far`);
      assert.equal(await s.post('/forward'), null); // no such entry
      assert.equal(await s.get('/url'), `${url}#far`);
    } finally {
      await s.post('/timeouts', { pageLoad: 300000 });
    }
  });

  test('back and forward through history.pushState entries stay in the document', async () => {
    const url = pages.page('<p>spa</p>', 'spa');
    await s.navigate(url);
    await s.execute('window.marker = 7; history.pushState({}, "", "?view=2")');
    assert.equal(await s.get('/url'), `${url}?view=2`);
    await s.post('/back');
    assert.equal(await s.get('/url'), url);
    assert.equal(await s.execute('return window.marker'), 7);
    await s.post('/forward');
    assert.equal(await s.get('/url'), `${url}?view=2`);
    assert.equal(await s.execute('return window.marker'), 7);
  });

  test('history commands take {}; no body at all is invalid argument (spec §6.3) and nothing moves', async () => {
    await s.navigate(pages.page('<p>x</p>', 'x'));
    await s.navigate(pages.page('<p>y</p>', 'y'));
    for (const command of ['/back', '/forward', '/refresh']) await s.fails('POST', command, undefined, 'invalid argument', 400);
    assert.equal(await s.get('/title'), 'y');
    assert.equal(await s.post('/back', {}), null);
    assert.equal(await s.get('/title'), 'x');
    assert.equal(await s.post('/forward', {}), null);
    assert.equal(await s.post('/refresh', {}), null);
    assert.equal(await s.get('/title'), 'y');
  });
});
