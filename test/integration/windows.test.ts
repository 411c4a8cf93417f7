// Contexts (spec §11) against real Chromium through the server: window handles, New Window,
// Switch To Window, Close Window, and the window rect and state commands.
import { after, before, describe } from 'node:test';
import { test } from '../helpers/gaps.ts';
import assert from 'node:assert/strict';
import type { TestGateway } from '../helpers/gateway.ts';
import { closeSessionFixture, openSessionFixture } from '../helpers/fixture.ts';
import type { Session } from '../helpers/client.ts';
import type { PageServer } from '../helpers/pages.ts';

let gw: TestGateway;
let pages: PageServer;
let s: Session;
let initial: string;

before(async () => {
  ({ gw, pages, s } = await openSessionFixture());
  initial = await s.get('/window');
});

after(() => closeSessionFixture({ gw, pages, s }));

/** Poll `read` until `ok` holds (window.open and resizes land asynchronously). */
async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  let value = await read();
  for (let i = 0; i < 100 && !ok(value); i++) {
    await new Promise((r) => setTimeout(r, 50));
    value = await read();
  }
  assert.ok(ok(value), `${what}: ${JSON.stringify(value)}`);
  return value;
}

/** Close every window but the initial one and make it current again. */
async function onlyInitialWindow(): Promise<void> {
  for (const handle of await s.get('/window/handles')) {
    if (handle === initial) continue;
    await s.post('/window', { handle });
    await s.delete('/window');
  }
  await s.post('/window', { handle: initial });
}

describe('window handles', () => {
  test('a new session has one window, which is current', async () => {
    assert.equal(typeof initial, 'string');
    assert.ok(initial.length > 0);
    assert.deepEqual(await s.get('/window/handles'), [initial]);
  });

  test('New Window gives {handle, type}, does not switch, and the handle is listed', async () => {
    const tab = await s.post('/window/new', { type: 'tab' });
    assert.deepEqual(Object.keys(tab).sort(), ['handle', 'type']);
    assert.equal(tab.type, 'tab');
    const win = await s.post('/window/new', { type: 'window' });
    assert.equal(win.type, 'window');
    // The type is a hint: anything else (or nothing) still opens one.
    const other = await s.post('/window/new', { type: 'popup' });
    const none = await s.post('/window/new', { type: null });
    assert.ok(['tab', 'window'].includes(other.type));
    assert.ok(['tab', 'window'].includes(none.type));
    const empty = await s.post('/window/new', {});
    assert.ok(['tab', 'window'].includes(empty.type));
    const handles = await s.get('/window/handles');
    assert.equal(handles.length, 6);
    for (const h of [initial, tab.handle, win.handle, other.handle, none.handle, empty.handle]) assert.ok(handles.includes(h), h);
    assert.equal(new Set(handles).size, 6);
    assert.equal(await s.get('/window'), initial);
    for (const type of [5, true, [], {}]) await s.fails('POST', '/window/new', { type }, 'invalid argument', 400);
    await onlyInitialWindow();
    assert.deepEqual(await s.get('/window/handles'), [initial]);
  });

  test('switching to a window makes commands act on it; switching back works', async () => {
    await s.navigate(pages.page('<p>first</p>', 'first window'));
    const { handle } = await s.post('/window/new', { type: 'tab' });
    assert.equal(await s.post('/window', { handle }), null);
    assert.equal(await s.get('/window'), handle);
    assert.equal(await s.get('/url'), 'about:blank');
    await s.navigate(pages.page('<p>second</p>', 'second window'));
    assert.equal(await s.get('/title'), 'second window');
    assert.equal(await s.execute('return document.visibilityState'), 'visible');
    await s.post('/window', { handle: initial });
    assert.equal(await s.get('/window'), initial);
    assert.equal(await s.get('/title'), 'first window');
    await s.post('/window', { handle });
    assert.equal(await s.get('/title'), 'second window');
    await onlyInitialWindow();
  });

  test('switching to an unknown handle is no such window; a non-string handle is invalid argument', async () => {
    await s.fails('POST', '/window', { handle: 'no-such-window' }, 'no such window', 404);
    for (const body of [{ handle: 5 }, { handle: null }, {}, { handle: [initial] }, { name: initial }]) {
      await s.fails('POST', '/window', body, 'invalid argument', 400);
    }
    assert.equal(await s.get('/window'), initial);
  });

  test('window.open() from the page adds a handle', async () => {
    await s.navigate(pages.page('<p>opener</p>', 'opener'));
    await s.execute('window.open("about:blank", "_blank")');
    // window.open() returns once the browser made the window: its handle is there at once.
    const handles = await s.get('/window/handles');
    assert.equal(handles.length, 2);
    const popup = handles.find((h: string) => h !== initial)!;
    await s.post('/window', { handle: popup });
    await s.navigate(pages.page('<p>popup</p>', 'popup'));
    assert.equal(await s.get('/title'), 'popup');
    await onlyInitialWindow();
  });
});

describe('close window', () => {
  test('returns the remaining handles; then commands are no such window until a switch', async () => {
    const { handle } = await s.post('/window/new', { type: 'tab' });
    await s.post('/window', { handle });
    assert.deepEqual(await s.delete('/window'), [initial]);
    assert.deepEqual(await s.get('/window/handles'), [initial]);
    await s.fails('GET', '/window', undefined, 'no such window', 404);
    await s.fails('GET', '/title', undefined, 'no such window', 404);
    await s.fails('GET', '/url', undefined, 'no such window', 404);
    await s.fails('POST', '/url', { url: 'about:blank' }, 'no such window', 404);
    // Before the URL is even looked at (spec Navigate To steps 2 and 3).
    await s.fails('POST', '/url', { url: 'not a url' }, 'no such window', 404);
    await s.fails('POST', '/back', {}, 'no such window', 404);
    await s.fails('POST', '/refresh', {}, 'no such window', 404);
    await s.fails('POST', '/execute/sync', { script: 'return 1', args: [] }, 'no such window', 404);
    await s.fails('GET', '/window/rect', undefined, 'no such window', 404);
    await s.fails('POST', '/window/rect', { width: 600 }, 'no such window', 404);
    await s.fails('POST', '/window/maximize', {}, 'no such window', 404);
    await s.fails('DELETE', '/window', undefined, 'no such window', 404);
    await s.fails('POST', '/window/new', {}, 'no such window', 404);
    // Session-wide commands still work.
    assert.deepEqual(await s.get('/window/handles'), [initial]);
    assert.equal(typeof (await s.get('/timeouts')).implicit, 'number');
    await s.post('/window', { handle: initial });
    assert.equal(await s.get('/window'), initial);
  });

  test('a closed handle is no such window for Switch To Window', async () => {
    const { handle } = await s.post('/window/new', { type: 'window' });
    await s.post('/window', { handle });
    await s.delete('/window');
    await s.fails('POST', '/window', { handle }, 'no such window', 404);
    await s.post('/window', { handle: initial });
  });

  test('closing the last window ends the session and gives its browser context back', async () => {
    const before = await gw.client.leasedContexts();
    const t = await gw.client.newSession();
    assert.equal(await gw.client.leasedContexts(), before + 1);
    const [only] = await t.get('/window/handles');
    assert.deepEqual(await t.delete('/window'), []);
    await t.fails('GET', '/window/handles', undefined, 'invalid session id', 404);
    await t.fails('GET', '/window', undefined, 'invalid session id', 404);
    await t.fails('POST', '/window', { handle: only }, 'invalid session id', 404);
    await gw.client.fails('DELETE', `/session/${t.id}`, undefined, 'invalid session id', 404);
    // Its context is given back right after the answer.
    await eventually(() => gw.client.leasedContexts(), (n) => n === before, 'the context outlived its last window');
  });
});

describe('window rect and state', () => {
  test('Get Window Rect is {x, y, width, height} of the window', async () => {
    const rect = await s.get('/window/rect');
    assert.deepEqual(Object.keys(rect).sort(), ['height', 'width', 'x', 'y']);
    for (const v of Object.values(rect)) assert.ok(Number.isInteger(v));
    assert.deepEqual([rect.width, rect.height], [1280, 800]);
    // The page agrees on the outer size.
    assert.deepEqual(await s.execute('return [window.outerWidth, window.outerHeight]'), [rect.width, rect.height]);
  });

  test('Set Window Rect sets what is given and returns the new rect', async () => {
    const rect = await s.post('/window/rect', { x: 10, y: 20, width: 700, height: 500 });
    assert.deepEqual(rect, { x: 10, y: 20, width: 700, height: 500 });
    assert.deepEqual(await s.get('/window/rect'), rect);
    assert.deepEqual(await s.execute('return [window.screenX, window.screenY, window.outerWidth, window.outerHeight]'), [10, 20, 700, 500]);
    // Selenium sends x and y as null when only the size changes.
    assert.deepEqual(await s.post('/window/rect', { x: null, y: null, width: 640, height: 480 }), { x: 10, y: 20, width: 640, height: 480 });
    assert.deepEqual(await s.post('/window/rect', { x: 30, y: 40 }), { x: 30, y: 40, width: 640, height: 480 });
    // Each pair applies only whole (spec: "if width and height are not null", "if x and y …").
    for (const lone of [{ height: 450 }, { width: 600 }, { x: 70 }, { y: 80 }, { x: 70, y: null, width: 600 }, {}]) {
      assert.deepEqual(await s.post('/window/rect', lone), { x: 30, y: 40, width: 640, height: 480 }, JSON.stringify(lone));
    }
    assert.deepEqual(await s.post('/window/rect', { width: 640, height: 450 }), { x: 30, y: 40, width: 640, height: 450 });
    // Numbers are allowed, not only integers (spec; WPT): fractions are dropped.
    assert.deepEqual(await s.post('/window/rect', { x: 50.7, y: 60, width: 550.5, height: 420.9 }), { x: 50, y: 60, width: 550, height: 420 });
    await s.post('/window/rect', { x: 0, y: 0, width: 1280, height: 800 });
  });

  test('bad rect values are invalid argument and change nothing', async () => {
    const before = await s.get('/window/rect');
    for (const body of [
      { width: -1 },
      { height: -2 },
      { width: '500' },
      { x: 'a' },
      { y: true },
      { width: [] },
      { height: {} },
      { width: 2 ** 31 },
      { x: -(2 ** 31) - 1 },
      { x: Number.MAX_SAFE_INTEGER },
      { width: 600, height: -1 },
    ]) {
      await s.fails('POST', '/window/rect', body, 'invalid argument', 400);
    }
    assert.deepEqual(await s.get('/window/rect'), before);
  });

  test('maximize, minimize and fullscreen each return a rect; Set Window Rect restores the normal state', async () => {
    await s.navigate(pages.page('<p>states</p>', 'states'));
    const normal = await s.post('/window/rect', { x: 10, y: 10, width: 500, height: 400 });
    assert.deepEqual(normal, { x: 10, y: 10, width: 500, height: 400 });
    const page = () =>
      s.execute('return {visibility: document.visibilityState, fullscreen: document.fullscreenElement === document.documentElement, width: outerWidth, height: outerHeight}');
    const screen = await s.execute('return {width: screen.width, height: screen.height, availWidth: screen.availWidth, availHeight: screen.availHeight}');
    const normalPage = { visibility: 'visible', fullscreen: false, width: 500, height: 400 };
    const restore = async () => {
      assert.deepEqual(await s.post('/window/rect', { x: 10, y: 10, width: 500, height: 400 }), normal);
      await eventually(page, (v) => JSON.stringify(v) === JSON.stringify(normalPage), 'the page sees the normal window');
    };

    // Maximized: the screen's available area (headless Chromium has an 800x600 screen).
    const maximized = await s.post('/window/maximize');
    assert.deepEqual(maximized, { x: 0, y: 0, width: screen.availWidth, height: screen.availHeight });
    assert.deepEqual(await s.get('/window/rect'), maximized);
    await eventually(page, (v) => v.width === screen.availWidth && v.visibility === 'visible' && !v.fullscreen, 'the page sees the maximized window');
    assert.deepEqual(await s.post('/window/maximize'), maximized, 'maximizing twice is a no-op');
    await restore();

    // Minimized: the rect is the restored window's; the document is hidden.
    const minimized = await s.post('/window/minimize');
    assert.deepEqual(minimized, normal);
    await eventually(page, (v) => v.visibility === 'hidden', 'the document is hidden when minimized');
    assert.equal(await s.execute('return document.hidden'), true);
    await restore();

    // Fullscreen: the document element is fullscreen and the window covers the screen.
    const fullscreen = await s.post('/window/fullscreen');
    assert.deepEqual(fullscreen, { x: 0, y: 0, width: screen.width, height: screen.height });
    await eventually(page, (v) => v.fullscreen && v.visibility === 'visible', 'the document is fullscreen');
    assert.deepEqual(await s.post('/window/fullscreen'), fullscreen, 'fullscreen twice is a no-op');
    await restore();

    // From one state straight to another, each leaving the previous one.
    await s.post('/window/minimize');
    assert.deepEqual(await s.post('/window/fullscreen'), fullscreen);
    await eventually(page, (v) => v.fullscreen && v.visibility === 'visible', 'fullscreen after minimized');
    assert.deepEqual(await s.post('/window/maximize'), maximized);
    await eventually(page, (v) => !v.fullscreen && v.width === screen.availWidth, 'maximized after fullscreen');
    assert.deepEqual(await s.post('/window/minimize'), normal);
    await eventually(page, (v) => v.visibility === 'hidden', 'minimized after maximized');
    await restore();
    await s.post('/window/rect', { x: 0, y: 0, width: 1280, height: 800 });
  });

  test('Maximize and Fullscreen Window restore a minimized window first (spec), and answer their rect', async () => {
    const screen = await s.execute('return {width: screen.width, height: screen.height, availWidth: screen.availWidth, availHeight: screen.availHeight}');
    const maximized = { x: 0, y: 0, width: screen.availWidth, height: screen.availHeight };
    const fullscreen = { x: 0, y: 0, width: screen.width, height: screen.height };
    const normal = await s.post('/window/rect', { x: 10, y: 10, width: 500, height: 400 });
    await s.post('/window/minimize');
    assert.deepEqual(await s.post('/window/fullscreen'), fullscreen);
    await s.post('/window/minimize');
    assert.deepEqual(await s.post('/window/maximize'), maximized);
    assert.deepEqual(await s.post('/window/fullscreen'), fullscreen);
    assert.deepEqual(await s.post('/window/maximize'), maximized);
    assert.deepEqual(await s.post('/window/rect', { x: 10, y: 10, width: 500, height: 400 }), normal);
    await s.post('/window/rect', { x: 0, y: 0, width: 1280, height: 800 });
  });

  test('no body, or a JSON null, is invalid argument (spec §6.3) and changes nothing, where every parameter may be absent', async () => {
    const rect = await s.get('/window/rect');
    const timeouts = await s.get('/timeouts');
    for (const body of [undefined, 'null']) {
      for (const command of ['/window/new', '/window/rect', '/timeouts', '/window/maximize', '/window/minimize', '/window/fullscreen']) {
        await s.fails('POST', command, body, 'invalid argument', 400);
      }
    }
    assert.deepEqual(await s.get('/window/handles'), [initial]);
    assert.deepEqual(await s.get('/window/rect'), rect);
    assert.deepEqual(await s.get('/timeouts'), timeouts);
  });

  test('window commands act on the current window, not another one', async () => {
    const { handle } = await s.post('/window/new', { type: 'window' });
    await s.post('/window', { handle });
    await s.post('/window/rect', { x: 5, y: 5, width: 500, height: 400 });
    await s.post('/window', { handle: initial });
    const mine = await s.get('/window/rect');
    assert.deepEqual([mine.width, mine.height], [1280, 800]);
    await s.post('/window', { handle });
    assert.deepEqual(await s.get('/window/rect'), { x: 5, y: 5, width: 500, height: 400 });
    await onlyInitialWindow();
  });
});
