// Switch To Frame / Switch To Parent Frame (spec §11.6), commands in the current browsing
// context when it is a frame (same-origin and out-of-process cross-origin ones), and web frame /
// web window references (spec "WindowProxy reference object", "JSON deserialize"), against real
// Chromium through the server.
import { after, before, describe } from 'node:test';
import { test } from '../helpers/gaps.ts';
import assert from 'node:assert/strict';
import type { TestGateway } from '../helpers/gateway.ts';
import { closeSessionFixture, openSessionFixture } from '../helpers/fixture.ts';
import { elementRef, type Session } from '../helpers/client.ts';
import { eventually, type PageServer } from '../helpers/pages.ts';
import { colours, decodePng } from '../helpers/png.ts';

const WINDOW = 'window-fcc6-11e5-b4f8-330a88ab9d7f';
const FRAME = 'frame-075b-4da1-b6ba-e579c2d3230a';
const frameRef = (id: unknown) => ({ [FRAME]: id });
const windowRef = (id: unknown) => ({ [WINDOW]: id });

let gw: TestGateway;
let pages: PageServer;
let s: Session;

before(async () => {
  ({ gw, pages, s } = await openSessionFixture());
});

after(() => closeSessionFixture({ gw, pages, s }));

/** A page's URL; `crossOrigin`: the same page from http://localhost (the tests' pages are on 127.0.0.1). */
function url(html: string, crossOrigin = false): string {
  const u = pages.page(html);
  return crossOrigin ? u.replace('//127.0.0.1:', '//localhost:') : u;
}

const iframe = (src: string, attrs = '') => `<iframe src="${src}" ${attrs}></iframe>`;

const switchTo = (id: unknown) => s.post('/frame', { id });
const parentFrame = () => s.post('/frame/parent');
const text = async (css: string): Promise<string> => s.get(`/element/${await s.find(css)}/text`);

/**
 * top: <p id=where>top</p>, frame 0 (#one): <p id=where>one</p> holding frame 0 (#two):
 * <p id=where>two</p>; frame 1 (#side): <p id=where>side</p>.
 */
async function nestedPage(): Promise<void> {
  const two = url('<p id="where">two</p>');
  const one = url(`<p id="where">one</p>${iframe(two, 'id="two"')}`);
  const side = url('<p id="where">side</p>');
  await s.navigate(url(`<p id="where">top</p>${iframe(one, 'id="one"')}${iframe(side, 'id="side"')}`));
}

describe('switch to frame', () => {
  test('by index, by element and back to the top with null; finds act in the current frame', async () => {
    await nestedPage();
    assert.equal(await text('#where'), 'top');
    assert.equal(await switchTo(0), null);
    assert.equal(await text('#where'), 'one');
    await switchTo(0);
    assert.equal(await text('#where'), 'two');
    assert.equal(await switchTo(null), null);
    assert.equal(await text('#where'), 'top');
    // Index 1 is the second child browsing context (window.frames[1]).
    await switchTo(1);
    assert.equal(await text('#where'), 'side');
    await switchTo(null);
    await switchTo(elementRef(await s.find('#one')));
    await switchTo(elementRef(await s.find('#two')));
    assert.equal(await text('#where'), 'two');
    assert.equal(await s.execute('return document.getElementById("where").textContent'), 'two');
  });

  test('frame elements of a frameset, and an iframe in a shadow tree, by element', async () => {
    // (A data: page may not load frames from loopback addresses: local network access checks.)
    const a = 'data:text/html,<p id=where>a</p>';
    const b = 'data:text/html,<p id=where>b</p>';
    await s.navigate(`data:text/html,${encodeURIComponent(`<frameset cols="50%,50%"><frame id="a" src="${a}"><frame id="b" src="${b}"></frameset>`)}`);
    await switchTo(elementRef(await s.find('#b')));
    assert.equal(await text('#where'), 'b');
    await switchTo(null);
    await switchTo(0);
    assert.equal(await text('#where'), 'a');
    await s.navigate(url(`<div id="host"></div><script>host.attachShadow({mode: 'open'}).innerHTML = '<iframe src="${url('<p id="where">shadow</p>')}"></iframe>'</script>`));
    const frame = await s.execute('return new Promise(r => { const f = host.shadowRoot.querySelector("iframe"); f.contentDocument?.readyState === "complete" && f.contentWindow.location.href !== "about:blank" ? r(f) : f.onload = () => r(f); })');
    await switchTo(frame);
    assert.equal(await text('#where'), 'shadow');
    assert.deepEqual(Object.keys(await s.execute('return window')), [FRAME]);
  });

  test('switch to parent frame goes up one level, and is a no-op at the top', async () => {
    await nestedPage();
    await switchTo(0);
    await switchTo(0);
    assert.equal(await parentFrame(), null);
    assert.equal(await text('#where'), 'one');
    await parentFrame();
    assert.equal(await text('#where'), 'top');
    assert.equal(await parentFrame(), null);
    assert.equal(await text('#where'), 'top');
  });

  test('an index with no child browsing context, or an element that is not a frame, is no such frame', async () => {
    await nestedPage();
    const e = await s.fails('POST', '/frame', { id: 2 }, 'no such frame', 404);
    assert.match(e.message, /index 2/);
    await s.fails('POST', '/frame', { id: 65535 }, 'no such frame', 404);
    await s.fails('POST', '/frame', { id: elementRef(await s.find('#where')) }, 'no such frame', 404);
    // Nothing changed.
    assert.equal(await text('#where'), 'top');
    await switchTo(0);
    await switchTo(0);
    await s.fails('POST', '/frame', { id: 0 }, 'no such frame', 404);
    assert.equal(await text('#where'), 'two');
  });

  test('ids that are not null, an integer from 0 to 65535 or an element reference are invalid argument', async () => {
    await nestedPage();
    for (const id of ['0', -1, 1.5, 65536, {}, { id: 'x' }, [], [0], true, { [FRAME]: 'x' }]) {
      await s.fails('POST', '/frame', { id }, 'invalid argument', 400);
    }
    await s.fails('POST', '/frame', {}, 'invalid argument', 400);
    await s.fails('POST', '/frame', { id: elementRef(42 as unknown as string) }, 'invalid argument', 400);
    assert.equal(await text('#where'), 'top');
  });

  test('unknown and stale element references', async () => {
    await nestedPage();
    await s.fails('POST', '/frame', { id: elementRef('no-such-id') }, 'no such element', 404);
    const one = await s.find('#one');
    await s.execute('arguments[0].remove()', [elementRef(one)]);
    await s.fails('POST', '/frame', { id: elementRef(one) }, 'stale element reference', 404);
  });

  test('element references are of one browsing context: another frame\'s are no such element, both ways', async () => {
    await nestedPage();
    const top = await s.find('#where');
    await switchTo(0);
    const inOne = await s.find('#where');
    await s.fails('GET', `/element/${top}/text`, undefined, 'no such element', 404);
    await s.fails('POST', '/execute/sync', { script: 'return 1', args: [elementRef(top)] }, 'no such element', 404);
    await parentFrame();
    await s.fails('GET', `/element/${inOne}/text`, undefined, 'no such element', 404);
    await s.fails('POST', '/element/' + inOne + '/click', {}, 'no such element', 404);
    // Still fine where they belong.
    assert.equal(await s.get(`/element/${top}/text`), 'top');
    // And a reference from this frame's former document is stale.
    await switchTo(0);
    assert.equal(await s.get(`/element/${inOne}/text`), 'one');
    await s.execute('location.reload()');
    await eventually(async () => (await s.raw('GET', `/element/${inOne}/text`)).status !== 200, 'the frame did not reload');
    await s.fails('GET', `/element/${inOne}/text`, undefined, 'stale element reference', 404);
  });
});

describe('commands in a frame', () => {
  test('execute script runs in the frame\'s document', async () => {
    await nestedPage();
    await switchTo(0);
    assert.deepEqual(await s.execute('return [document.getElementById("where").textContent, window === window.top, window.parent === window.top]'), [
      'one',
      false,
      true,
    ]);
    // Async script too.
    assert.equal(await s.post('/execute/async', { script: 'arguments[0](document.querySelector("p").textContent)', args: [] }), 'one');
  });

  test('a cross-origin (out-of-process) iframe: switch, find, text, execute, click and send keys', async () => {
    const child = url(
      '<p id="where">cross</p><button id="go" onclick="this.textContent = \'clicked\'">go</button><input id="in">',
      true,
    );
    await s.navigate(url(`<div style="height: 120px"></div>${iframe(child, 'id="x" style="margin-left: 90px"')}`));
    await switchTo(0);
    assert.equal(await text('#where'), 'cross');
    assert.equal(await s.execute('return location.hostname'), 'localhost');
    await s.post(`/element/${await s.find('#go')}/click`);
    assert.equal(await text('#go'), 'clicked');
    const input = await s.find('#in');
    await s.post(`/element/${input}/value`, { text: 'héllo' });
    assert.equal(await s.get(`/element/${input}/property/value`), 'héllo');
    // By element as well.
    await switchTo(null);
    assert.equal(await s.execute('return document.getElementById("x").contentDocument'), null, 'the frame is cross-origin');
    await switchTo(elementRef(await s.find('#x')));
    assert.equal(await text('#where'), 'cross');
  });

  test('click hits an element in a nested iframe placed away from 0,0 (borders and padding included)', async () => {
    const inner = url(
      `<body style="margin: 0">
        <div style="height: 45px"></div>
        <button id="b" style="display: block; box-sizing: border-box; margin: 0 0 0 33px; width: 60px; height: 30px"
          onclick="this.textContent = event.clientX + ',' + event.clientY">b</button>
        <button id="other" style="display: block; box-sizing: border-box; margin: 0; width: 60px; height: 30px" onclick="this.textContent = 'wrong'">o</button>
      </body>`,
    );
    // top (127.0.0.1) → middle (localhost) → inner (127.0.0.1): each frame in another process than its parent.
    const middle = url(
      `<body style="margin: 0"><div style="height: 70px"></div>${iframe(inner, 'style="margin-left: 40px; border: 3px solid; padding: 6px; width: 300px; height: 200px"')}</body>`,
      true,
    );
    await s.navigate(
      url(`<body style="margin: 0"><div style="height: 150px"></div>${iframe(middle, 'style="margin-left: 100px; border: 7px solid; padding: 2px; width: 500px; height: 400px"')}</body>`),
    );
    await switchTo(0);
    await switchTo(0);
    await s.post(`/element/${await s.find('#b')}/click`);
    // The event's client point is the button's centre in the innermost frame's viewport.
    assert.equal(await text('#b'), '63,60');
    assert.equal(await text('#other'), 'o');
  });

  test('send keys types into an input inside a frame', async () => {
    await s.navigate(url(iframe(url('<input id="in" value="a">'))));
    await switchTo(0);
    const input = await s.find('#in');
    await s.post(`/element/${input}/value`, { text: 'bc' });
    assert.equal(await s.get(`/element/${input}/property/value`), 'abc');
    await s.post(`/element/${input}/clear`);
    assert.equal(await s.get(`/element/${input}/property/value`), '');
  });

  test('element screenshot inside a nested frame captures the element', async () => {
    const inner = url('<body style="margin: 0; background: white"><div style="height: 30px"></div><div id="red" style="margin-left: 25px; width: 40px; height: 20px; background: red"></div></body>');
    const middle = url(`<body style="margin: 0; background: white"><div style="height: 20px"></div>${iframe(inner, 'style="margin-left: 15px; border: 4px solid blue; width: 200px; height: 100px"')}</body>`);
    await s.navigate(url(`<body style="margin: 0; background: white"><div style="height: 60px"></div>${iframe(middle, 'style="margin-left: 50px; border: 5px solid blue; width: 300px; height: 200px"')}</body>`));
    await switchTo(0);
    await switchTo(0);
    const png = decodePng(await s.get(`/element/${await s.find('#red')}/screenshot`));
    const ratio = await s.execute('return devicePixelRatio');
    assert.equal(png.width, 40 * ratio);
    assert.equal(png.height, 20 * ratio);
    const counts = colours(png);
    assert.equal(counts.red, png.width * png.height, `only red pixels, got ${JSON.stringify(counts)}`);
  });
});

describe('frames that go away', () => {
  test('a removed current frame is no such window; switch to parent frame and to the top still work', async () => {
    // As WPT does: a button in the frame removes the frame (or its parent) on click.
    const remover = (where: string, inner = '') =>
      `<p id="where">${where}</p><button id="self" onclick="frameElement.remove()">x</button><button id="parent" onclick="parent.frameElement.remove()">y</button>${inner}`;
    const page = url(`<p id="where">top</p>${iframe(url(remover('one', iframe(url(remover('two'))))))}`);
    await s.navigate(page);
    await switchTo(0);
    const where = await s.find('#where');
    await s.post(`/element/${await s.find('#self')}/click`);
    await s.fails('POST', '/element', { using: 'css selector', value: 'p' }, 'no such window', 404);
    await s.fails('POST', '/execute/sync', { script: 'return 1', args: [] }, 'no such window', 404);
    await s.fails('GET', `/element/${where}/text`, undefined, 'no such window', 404);
    await s.fails('POST', '/frame', { id: 0 }, 'no such window', 404);
    await s.fails('GET', '/cookie', undefined, 'no such window', 404);
    // Top-level commands are unaffected.
    assert.equal(await s.get('/title'), 'test');
    assert.equal(await parentFrame(), null);
    assert.equal(await text('#where'), 'top');
    // Removing a frame with the current one inside it: its parent is gone too.
    await s.navigate(page);
    await switchTo(0);
    await switchTo(0);
    await s.post(`/element/${await s.find('#parent')}/click`);
    await s.fails('POST', '/frame/parent', {}, 'no such window', 404);
    await s.fails('GET', '/element/active', undefined, 'no such window', 404);
    assert.equal(await switchTo(null), null);
    assert.equal(await text('#where'), 'top');
  });

  test('a frame whose parent navigated away is no such window; the parent is still reachable', async () => {
    await nestedPage();
    await switchTo(0);
    await switchTo(0);
    const next = url('<p id="where">one, later</p>');
    await s.execute('window.parent.location.href = arguments[0]', [next]);
    // The parent's new document replaces this frame once it commits.
    await eventually(async () => (await s.raw('POST', '/element', { using: 'css selector', value: 'p' })).status !== 200, 'the frame stayed');
    await s.fails('POST', '/element', { using: 'css selector', value: 'p' }, 'no such window', 404);
    await parentFrame();
    assert.equal(await text('#where'), 'one, later');
  });

  test('navigating the top level (navigate, back, forward, refresh) resets the current browsing context to it', async () => {
    await nestedPage();
    const first = await s.get('/url');
    await switchTo(0);
    await s.post('/refresh');
    assert.equal(await text('#where'), 'top');
    await switchTo(0);
    await s.navigate(url('<p id="where">second</p>'));
    assert.equal(await text('#where'), 'second');
    await s.post('/back');
    assert.equal(await s.get('/url'), first);
    await switchTo(1);
    await s.post('/forward');
    assert.equal(await text('#where'), 'second');
    await s.post('/back');
    await switchTo(0);
    await switchTo(0);
    await s.navigate(first);
    assert.equal(await text('#where'), 'top');
  });
});

describe('window and frame references', () => {
  test('results: the top-level window is a web window, frames are web frames with their own ids', async () => {
    await nestedPage();
    const handle = await s.get('/window');
    assert.deepEqual(await s.execute('return window'), windowRef(handle));
    const [one, side] = await s.execute('return [window.frames[0], {f: window.frames[1]}]');
    assert.deepEqual(Object.keys(one), [FRAME]);
    assert.equal(typeof one[FRAME], 'string');
    assert.notEqual(one[FRAME], handle);
    assert.notEqual(side.f[FRAME], one[FRAME]);
    // The same frame, seen from inside it, from its child, and again from the top.
    await switchTo(0);
    assert.deepEqual(await s.execute('return window'), one);
    assert.deepEqual(await s.execute('return [window.parent, window.top]'), [windowRef(handle), windowRef(handle)]);
    await switchTo(0);
    const two = await s.execute('return window');
    assert.deepEqual(await s.execute('return [window.parent, window.top, window.parent.parent.frames[1]]'), [one, windowRef(handle), side.f]);
    await switchTo(null);
    assert.deepEqual(await s.execute('return window.frames[0].frames[0]'), two);
    assert.deepEqual(await s.execute('return document.getElementById("one").contentWindow'), one);
    assert.deepEqual(await s.execute('return {deep: [1, {w: window, f: [frames[0]]}]}'), { deep: [1, { w: windowRef(handle), f: [one] }] });
    // Element properties are JSON-cloned the same way.
    assert.deepEqual(await s.get(`/element/${await s.find('#one')}/property/contentWindow`), one);
  });

  test('results: a cross-origin frame is a web frame; a removed frame\'s window is no such window', async () => {
    await s.navigate(url(iframe(url('<p>x</p>', true)) + iframe(url('<p>y</p>'))));
    const cross = await s.execute('return window.frames[0]');
    assert.equal(typeof cross[FRAME], 'string');
    await switchTo(0);
    assert.deepEqual(await s.execute('return window'), cross);
    await switchTo(null);
    await s.fails('POST', '/execute/sync', { script: 'const w = frames[1]; document.querySelectorAll("iframe")[1].remove(); return w', args: [] }, 'no such window', 404);
  });

  test('results: a window opened by the page is a web window with its handle', async () => {
    await s.navigate(url('<p>opener</p>'));
    const original = await s.get('/window');
    const opened = await s.execute('window.popup = window.open(); return window.popup');
    const handle = opened[WINDOW];
    const handles: string[] = await s.get('/window/handles');
    assert.ok(handles.includes(handle), `${handle} among ${handles}`);
    assert.notEqual(handle, original);
    // As an argument from the popup's side: its opener.
    await s.post('/window', { handle });
    assert.equal(await s.execute('return arguments[0] === window.opener', [windowRef(original)]), true);
    await s.delete('/window');
    await s.post('/window', { handle: original });
    // Closed: as a result and as an argument, no such window.
    await s.fails('POST', '/execute/sync', { script: 'return window.popup', args: [] }, 'no such window', 404);
    await s.fails('POST', '/execute/sync', { script: 'return 1', args: [windowRef(handle)] }, 'no such window', 404);
  });

  test('arguments: web frame and web window references become the WindowProxy objects', async () => {
    await nestedPage();
    const handle = await s.get('/window');
    const [one, side] = await s.execute('return [frames[0], frames[1]]');
    assert.equal(await s.execute('return arguments[0] === window.frames[0] && arguments[1] === window', [one, windowRef(handle)]), true);
    assert.equal(await s.execute('return arguments[0].f.document.getElementById("where").textContent', [{ f: side }]), 'side');
    await switchTo(0);
    await switchTo(0);
    // Ancestors, cousins and the frame itself, from a nested frame.
    assert.equal(
      await s.execute('return arguments[0] === window.parent && arguments[1] === window.top && arguments[2] === window.top.frames[1]', [one, windowRef(handle), side]),
      true,
    );
    const two = await s.execute('return window');
    assert.equal(await s.execute('return arguments[0] === window', [two]), true);
    await switchTo(null);
    assert.equal(await s.execute('return arguments[0] === frames[0].frames[0]', [two]), true);
  });

  test('arguments: unknown references are no such frame / no such window, malformed ones invalid argument', async () => {
    await nestedPage();
    const handle = await s.get('/window');
    const one = await s.execute('return frames[0]');
    for (const bad of [null, false, 42, [], {}]) {
      await s.fails('POST', '/execute/sync', { script: 'return 1', args: [frameRef(bad)] }, 'invalid argument', 400);
      await s.fails('POST', '/execute/sync', { script: 'return 1', args: [windowRef(bad)] }, 'invalid argument', 400);
    }
    await s.fails('POST', '/execute/sync', { script: 'return 1', args: [frameRef('nope')] }, 'no such frame', 404);
    // A top-level window's handle is no frame, a frame's id no window.
    await s.fails('POST', '/execute/sync', { script: 'return 1', args: [frameRef(handle)] }, 'no such frame', 404);
    await s.fails('POST', '/execute/sync', { script: 'return 1', args: [windowRef(one[FRAME])] }, 'no such window', 404);
    await s.fails('POST', '/execute/sync', { script: 'return 1', args: [[windowRef('nope')]] }, 'no such window', 404);
    // A removed frame's reference.
    await s.execute('document.getElementById("one").remove()');
    await s.fails('POST', '/execute/sync', { script: 'return 1', args: [one] }, 'no such frame', 404);
  });
});
