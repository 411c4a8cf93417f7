// Perform Actions and Release Actions (spec §15) against real Chromium through the server: the
// page records the trusted events it receives.
import { after, before, beforeEach, describe } from 'node:test';
import { test } from '../helpers/gaps.ts';
import assert from 'node:assert/strict';
import type { TestGateway } from '../helpers/gateway.ts';
import { closeSessionFixture, openSessionFixture } from '../helpers/fixture.ts';
import { ELEMENT, elementRef, type Session } from '../helpers/client.ts';
import { eventually, type PageServer } from '../helpers/pages.ts';

let gw: TestGateway;
let pages: PageServer;
let s: Session;

before(async () => {
  ({ gw, pages, s } = await openSessionFixture());
});

after(() => closeSessionFixture({ gw, pages, s }));

// Every test starts with nothing held (as WPT's fixtures do).
beforeEach(async () => {
  await s.delete('/actions');
});

// Records trusted events in window.events, with the properties the tests look at.
const RECORDER = `<script>
window.events = [];
const record = (e) => {
  if (!e.isTrusted) return;
  const o = { type: e.type, target: e.target.id || e.target.localName || 'document' };
  if (e instanceof KeyboardEvent) Object.assign(o, { key: e.key, code: e.code, location: e.location, repeat: e.repeat });
  if (e instanceof MouseEvent) Object.assign(o, { x: e.clientX, y: e.clientY, button: e.button, buttons: e.buttons, detail: e.detail });
  if (e instanceof PointerEvent) Object.assign(o, { pointerType: e.pointerType, width: e.width, height: e.height, pressure: Math.round(e.pressure * 100) / 100, tiltX: e.tiltX, tiltY: e.tiltY, twist: e.twist });
  if (e instanceof WheelEvent) Object.assign(o, { deltaX: e.deltaX, deltaY: e.deltaY });
  if (typeof TouchEvent !== 'undefined' && e instanceof TouchEvent) o.touches = e.touches.length; // Firefox desktop has no TouchEvent
  if ('shiftKey' in e) Object.assign(o, { shift: e.shiftKey, ctrl: e.ctrlKey, alt: e.altKey, meta: e.metaKey });
  events.push(o);
};
for (const type of ['keydown', 'keypress', 'keyup', 'mousedown', 'mouseup', 'mousemove', 'mouseover', 'click', 'dblclick', 'contextmenu',
  'pointerdown', 'pointerup', 'pointermove', 'touchstart', 'touchend', 'touchmove', 'wheel'])
  document.addEventListener(type, record, { capture: true, passive: true });
</script>`;

const PAGE = `<style>body { margin: 0 } #area { position: absolute; left: 100px; top: 100px; width: 200px; height: 100px; background: #ccc }</style>
<input id="field"><div id="area"></div>${RECORDER}`;

const perform = (actions: unknown) => s.post('/actions', { actions });
const release = () => s.delete('/actions');
const events = async (type?: string | string[]): Promise<any[]> => {
  const all: any[] = await s.execute('return window.events');
  const types = typeof type === 'string' ? [type] : type;
  return types ? all.filter((e) => types.includes(e.type)) : all;
};
const clearEvents = () => s.execute('window.events = []');
// Firefox gives a newly loaded document a trusted mouseover where the pointer already is (24–46 ms
// after the document began, measured): under load it can come after focusedPage cleared the list.
// Where a test expects nothing dispatched, those are left out — a mouseover at one of the points
// the test's actions name is kept.
const exceptHoverUpdates = (list: any[], ...points: [number, number][]) =>
  list.filter((e) => e.type !== 'mouseover' || points.some(([x, y]) => e.x === x && e.y === y));
async function el(css: string): Promise<string> {
  const ref = await s.execute('return document.querySelector(arguments[0])', [css]);
  assert.ok(ref?.[ELEMENT], `no element ${css}`);
  return ref[ELEMENT];
}

const keys = (id: string, ...actions: unknown[]) => ({ type: 'key', id, actions });
const mouse = (id: string, ...actions: unknown[]) => ({ type: 'pointer', id, parameters: { pointerType: 'mouse' }, actions });
const pointer = (id: string, pointerType: string, ...actions: unknown[]) => ({ type: 'pointer', id, parameters: { pointerType }, actions });
const down = (value: string) => ({ type: 'keyDown', value });
const up = (value: string) => ({ type: 'keyUp', value });
const move = (x: number, y: number, more: Record<string, unknown> = {}) => ({ type: 'pointerMove', x, y, ...more });
const press = (button = 0, more: Record<string, unknown> = {}) => ({ type: 'pointerDown', button, ...more });
const lift = (button = 0) => ({ type: 'pointerUp', button });
const pause = (duration?: number) => ({ type: 'pause', ...(duration !== undefined && { duration }) });

async function focusedPage(html = PAGE): Promise<void> {
  await s.navigate(pages.page(html));
  await s.execute('document.getElementById("field")?.focus(); window.events = []');
}

describe('key actions', () => {
  test('a printable key: keydown, keypress, keyup with the key, its code and location; the text is typed', async () => {
    await focusedPage();
    assert.equal(await perform([keys('kb', down('a'), up('a'))]), null);
    const got = await events(['keydown', 'keypress', 'keyup']);
    assert.deepEqual(
      got.map((e) => [e.type, e.key, e.code, e.location, e.repeat]),
      [
        ['keydown', 'a', 'KeyA', 0, false],
        ['keypress', 'a', 'KeyA', 0, false],
        ['keyup', 'a', 'KeyA', 0, false],
      ],
    );
    assert.equal(await s.execute('return document.getElementById("field").value'), 'a');
  });

  test('the spec key table: right shift, numpad keys, a shifted character, a non-US character', async () => {
    await focusedPage();
    await perform([keys('kb', down('\uE050'), up('\uE050'), down('\uE01B'), up('\uE01B'), down('\uE054'), up('\uE054'), down('@'), up('@'), down('é'), up('é'))]);
    const got = (await events('keydown')).map((e) => [e.key, e.code, e.location, e.shift]);
    assert.deepEqual(got, [
      ['Shift', 'ShiftRight', 2, true],
      ['1', 'Numpad1', 3, false],
      ['PageUp', 'Numpad9', 3, false],
      ['@', 'Digit2', 0, false],
      ['é', '', 0, false],
    ]);
    // Printable keys type their text; named keys do not.
    assert.equal(await s.execute('return document.getElementById("field").value'), '1@é');
  });

  test('a modifier held across keys: its flag on later events; Shift gives the shifted character', async () => {
    await focusedPage();
    await perform([keys('kb', down('\uE008'), down('b'), up('b'), up('\uE008'), down('c'), up('c'))]);
    const got = (await events(['keydown', 'keyup'])).map((e) => `${e.type} ${e.key} ${e.code} shift=${e.shift}`);
    assert.deepEqual(got, [
      'keydown Shift ShiftLeft shift=true',
      'keydown B KeyB shift=true',
      'keyup B KeyB shift=true',
      'keyup Shift ShiftLeft shift=false',
      'keydown c KeyC shift=false',
      'keyup c KeyC shift=false',
    ]);
    assert.equal(await s.execute('return document.getElementById("field").value'), 'Bc');
  });

  test('Control+A selects all in an input (a shortcut types nothing); Backspace then deletes it', async () => {
    await focusedPage();
    await s.execute('document.getElementById("field").value = "hello"');
    await perform([keys('kb', down('\uE009'), down('a'), up('a'), up('\uE009'))]);
    assert.deepEqual(await s.execute('const f = document.getElementById("field"); return [f.value, f.selectionStart, f.selectionEnd]'), ['hello', 0, 5]);
    await perform([keys('kb', down('\uE003'), up('\uE003'))]);
    assert.equal(await s.execute('return document.getElementById("field").value'), '');
  });

  test('a key pressed again while held is a repeat; a keyUp of a key not held sends nothing', async () => {
    await focusedPage();
    await perform([keys('kb', up('x'), down('x'), down('x'), up('x'), up('x'))]);
    assert.deepEqual(
      (await events(['keydown', 'keyup'])).map((e) => `${e.type} ${e.repeat}`),
      ['keydown false', 'keydown true', 'keyup false'],
    );
  });

  test('Enter submits a form', async () => {
    const next = pages.page('<p>submitted</p>', 'submitted');
    await focusedPage(`<form action="${next}"><input id="field" name="q"></form>`);
    await perform([keys('kb', down('\uE007'), up('\uE007'))]);
    assert.equal(await s.get('/title'), 'submitted');
  });
});

describe('mouse actions', () => {
  test('move, press and release at viewport coordinates: mouse events with the button, buttons and coordinates', async () => {
    await focusedPage();
    await perform([mouse('m', move(150, 130), press(), lift())]);
    const got = (await events(['mousemove', 'mousedown', 'mouseup', 'click'])).map((e) => [e.type, e.target, e.x, e.y, e.button, e.buttons, e.detail]);
    assert.deepEqual(got, [
      ['mousemove', 'area', 150, 130, 0, 0, 0],
      ['mousedown', 'area', 150, 130, 0, 1, 1],
      ['mouseup', 'area', 150, 130, 0, 0, 1],
      ['click', 'area', 150, 130, 0, 0, 1],
    ]);
    const [pointerdown] = await events('pointerdown');
    assert.equal(pointerdown.pointerType, 'mouse');
  });

  test('the secondary button: button 2, buttons 2, a contextmenu event', async () => {
    await focusedPage();
    await perform([mouse('m', move(150, 130), press(2), lift(2))]);
    const [mousedown] = await events('mousedown');
    assert.deepEqual([mousedown.button, mousedown.buttons], [2, 2]);
    assert.equal((await events('contextmenu')).length, 1);
    assert.equal((await events('click')).length, 0);
  });

  test('two clicks at one place in quick succession are a double click', async () => {
    await focusedPage();
    await perform([mouse('m', move(150, 130), press(), lift(), press(), lift())]);
    assert.deepEqual(
      (await events(['mousedown', 'click', 'dblclick'])).map((e) => `${e.type} ${e.detail}`),
      ['mousedown 1', 'click 1', 'mousedown 2', 'click 2', 'dblclick 2'],
    );
  });

  test('each Perform Actions counts clicks afresh: a double click right after a click is one double click', async () => {
    // Selenium's click() then doubleClick(): chromedriver counts within one call only (w3c/webdriver#1772).
    await focusedPage();
    await perform([mouse('m', move(150, 130), press(), lift())]);
    await perform([mouse('m', move(150, 130), press(), lift(), press(), lift())]);
    assert.deepEqual(
      (await events(['mousedown', 'click', 'dblclick'])).map((e) => `${e.type} ${e.detail}`),
      ['mousedown 1', 'click 1', 'mousedown 1', 'click 1', 'mousedown 2', 'click 2', 'dblclick 2'],
    );
  });

  test('clicks further apart than the double-click time are two single clicks', async () => {
    await focusedPage();
    await perform([mouse('m', move(150, 130), press(), lift(), pause(650), press(), lift())]);
    assert.deepEqual(
      (await events(['click', 'dblclick'])).map((e) => `${e.type} ${e.detail}`),
      ['click 1', 'click 1'],
    );
  });

  test('a move alone hovers: mouseover and mousemove on the element, no click', async () => {
    await focusedPage();
    await perform([mouse('m', move(120, 110))]);
    assert.ok((await events('mouseover')).some((e) => e.target === 'area'));
    assert.equal((await events('click')).length, 0);
    // The same position again dispatches nothing (spec: only moves that change the position).
    await clearEvents();
    await perform([mouse('m', move(120, 110))]);
    assert.equal((await events('mousemove')).length, 0);
  });

  test("a new source's move to where the last one left the pointer is a mousemove (its own pointer was elsewhere)", async () => {
    await focusedPage();
    await perform([mouse('m', move(150, 130))]);
    await s.delete('/actions');
    await clearEvents();
    await perform([mouse('m2', move(150, 130))]);
    assert.deepEqual(
      (await events('mousemove')).map((e) => [e.target, e.x, e.y]),
      [['area', 150, 130]],
    );
  });

  test('an element origin is its in-view center point; a pointer origin is relative to where the pointer is', async () => {
    await focusedPage();
    const area = elementRef(await el('#area'));
    await perform([mouse('m', move(0, 0, { origin: area }))]);
    await perform([mouse('m', move(10, -5, { origin: area }), move(-30, 20, { origin: 'pointer' }))]);
    const got = (await events('mousemove')).map((e) => [e.x, e.y]);
    assert.deepEqual(got, [
      [200, 150],
      [210, 145],
      [180, 165],
    ]);
  });

  test('drag and drop: an element moved by pointerDown, an interpolated pointerMove and pointerUp', async () => {
    await focusedPage(`<style>body { margin: 0 }</style>
<div id="box" style="position: absolute; left: 50px; top: 50px; width: 60px; height: 60px; background: blue"></div>
<script>
const box = document.getElementById('box');
let grab = null;
window.moves = 0;
box.addEventListener('mousedown', (e) => { grab = { x: e.clientX - box.offsetLeft, y: e.clientY - box.offsetTop }; });
document.addEventListener('mousemove', (e) => { if (!grab || !(e.buttons & 1)) return; moves++; box.style.left = (e.clientX - grab.x) + 'px'; box.style.top = (e.clientY - grab.y) + 'px'; });
document.addEventListener('mouseup', () => { grab = null; });
</script>`);
    const box = elementRef(await el('#box'));
    await perform([mouse('m', move(0, 0, { origin: box }), press(), move(150, 80, { origin: 'pointer', duration: 300 }), lift(), move(20, 20, { origin: 'pointer' }))]);
    assert.deepEqual(await s.execute('const b = document.getElementById("box"); return [b.offsetLeft, b.offsetTop]'), [200, 130]);
    // The duration spread the move over intermediate positions.
    assert.ok((await s.execute('return window.moves')) > 2, 'the drag was a single jump');
  });

  test('HTML5 drag and drop of a draggable element onto a drop target', async () => {
    await focusedPage(`<div id="drag" draggable="true" style="width: 50px; height: 50px; background: red"></div>
<div id="drop" style="margin-top: 50px; width: 100px; height: 100px; background: blue"></div>
<script>
window.dnd = [];
for (const type of ['dragstart', 'drop', 'dragend']) document.addEventListener(type, (e) => dnd.push(type + ':' + e.target.id));
document.addEventListener('dragover', (e) => e.preventDefault());
</script>`);
    const drag = elementRef(await el('#drag'));
    const drop = elementRef(await el('#drop'));
    await perform([mouse('m', move(0, 0, { origin: drag }), press(), move(10, 10, { origin: drop, duration: 200 }), lift())]);
    assert.deepEqual(await s.execute('return window.dnd'), ['dragstart:drag', 'drop:drop', 'dragend:drag']);
  });

  test('in a frame: coordinates are the frame viewport\'s (viewport, pointer and element origins)', async () => {
    const inner = pages.page(`<style>body { margin: 0 }</style><input id="field" style="margin: 20px">
<script>window.moves = []; addEventListener('mousemove', (e) => moves.push([e.clientX, e.clientY]));</script>`);
    await s.navigate(pages.page(`<div style="height: 50px"></div><iframe src="${inner}" style="margin-left: 30px; border: 5px solid"></iframe>`));
    await s.post('/frame', { id: await s.execute('return document.querySelector("iframe")') });
    try {
      const field = elementRef(await el('#field'));
      await perform([mouse('m', move(10, 5), move(10, 5, { origin: 'pointer' }), move(1, 2, { origin: field }))]);
      const center: number[] = await s.execute('const r = document.getElementById("field").getBoundingClientRect(); return [Math.floor(r.x + r.width / 2), Math.floor(r.y + r.height / 2)]');
      assert.deepEqual(await s.execute('return window.moves'), [
        [10, 5],
        [20, 10],
        [center[0]! + 1, center[1]! + 2],
      ]);
    } finally {
      await s.post('/frame', { id: null });
    }
  });

  test('a key held by a key input source is a modifier of pointer events', async () => {
    await focusedPage();
    await perform([keys('kb', down('\uE008'), pause(), pause()), mouse('m', move(150, 130), press(), lift())]);
    const [mousedown] = await events('mousedown');
    assert.equal(mousedown.shift, true);
    await perform([keys('kb', up('\uE008'))]);
  });

  test('a tick lasts as long as its longest pause', async () => {
    await focusedPage();
    const start = Date.now();
    await perform([keys('kb', pause(300)), mouse('m', move(150, 130))]);
    assert.ok(Date.now() - start >= 300);
  });
});

describe('move target out of bounds', () => {
  test('outside the viewport (viewport, pointer and element origins): 500 move target out of bounds', async () => {
    await focusedPage(`${PAGE}<div id="low" style="position: absolute; top: 3000px; width: 10px; height: 10px"></div>`);
    await s.fails('POST', '/actions', { actions: [mouse('m', move(-1, 10))] }, 'move target out of bounds', 500);
    await s.fails('POST', '/actions', { actions: [mouse('m', move(10, 100000))] }, 'move target out of bounds', 500);
    await s.fails('POST', '/actions', { actions: [mouse('m', move(5, 5), move(-10, 0, { origin: 'pointer' }))] }, 'move target out of bounds', 500);
    // An element origin is not scrolled into view.
    const low = elementRef(await el('#low'));
    await s.fails('POST', '/actions', { actions: [mouse('m', move(0, 0, { origin: low }))] }, 'move target out of bounds', 500);
    assert.equal(await s.execute('return window.scrollY'), 0);
    await s.fails('POST', '/actions', { actions: [{ type: 'wheel', id: 'w', actions: [{ type: 'scroll', x: -5, y: 0, deltaX: 0, deltaY: 10 }] }] }, 'move target out of bounds', 500);
  });
});

describe('wheel actions', () => {
  test('scrolls the page by the deltas; the wheel event carries them', async () => {
    await focusedPage(`${PAGE}<div style="height: 5000px"></div>`);
    await perform([{ type: 'wheel', id: 'w', actions: [{ type: 'scroll', x: 400, y: 300, deltaX: 0, deltaY: 250 }] }]);
    const [wheel] = await events('wheel');
    assert.deepEqual([wheel.deltaX, wheel.deltaY], [0, 250]);
    assert.equal(await s.execute('return window.scrollY'), 250);
  });

  test('an element origin scrolls the scrollable element under it, not the page', async () => {
    await focusedPage(`${PAGE}<div id="box" style="position: absolute; top: 300px; width: 200px; height: 100px; overflow: auto">
<div id="content" style="height: 1000px"></div></div><div style="height: 5000px"></div>`);
    const box = elementRef(await el('#box'));
    await perform([{ type: 'wheel', id: 'w', actions: [{ type: 'scroll', x: 0, y: 0, deltaX: 0, deltaY: 120, origin: box }] }]);
    const [wheel] = await events('wheel');
    assert.deepEqual([wheel.target, wheel.deltaY], ['content', 120]);
    assert.deepEqual(await s.execute('return [document.getElementById("box").scrollTop, window.scrollY]'), [120, 0]);
  });
});

describe('touch and pen pointers', () => {
  test('a touch pointer: pointer events of type touch with its width, height and pressure; touch events', async () => {
    await focusedPage();
    await perform([pointer('finger', 'touch', move(150, 130), press(0, { width: 20, height: 30, pressure: 0.7 }), move(160, 140), lift())]);
    const got = await events(['pointerdown', 'pointermove', 'pointerup']);
    assert.deepEqual(
      got.map((e) => [e.type, e.pointerType, e.x, e.y]),
      [
        ['pointerdown', 'touch', 150, 130],
        ['pointermove', 'touch', 160, 140],
        ['pointerup', 'touch', 160, 140],
      ],
    );
    assert.deepEqual([got[0].width, got[0].height, got[0].pressure], [20, 30, 0.7]);
    assert.deepEqual((await events(['touchstart', 'touchend'])).map((e) => `${e.type} ${e.touches}`), ['touchstart 1', 'touchend 0']);
  });

  test('two touch pointers at once (a pinch): both touch, move and lift', async () => {
    await focusedPage();
    // No panning: a touch drag would scroll the page (and cancel the pointers).
    await s.execute('document.body.style.touchAction = "none"');
    await perform([
      pointer('a', 'touch', move(120, 120), press(), move(110, 110, { duration: 100 }), lift()),
      pointer('b', 'touch', move(250, 180), press(), move(270, 190, { duration: 100 }), lift()),
    ]);
    assert.deepEqual((await events('touchstart')).map((e) => e.touches), [1, 2]);
    assert.deepEqual((await events('touchend')).map((e) => e.touches), [1, 0]);
    const ups = (await events('pointerup')).map((e) => [e.x, e.y]);
    assert.deepEqual(ups, [
      [110, 110],
      [270, 190],
    ]);
  });

  test('a pen pointer: pointer events of type pen with its pressure and tilt (from the angles)', async () => {
    await focusedPage();
    await perform([pointer('pen', 'pen', move(150, 130), press(0, { pressure: 0.36, altitudeAngle: 0.3, azimuthAngle: 0.2419, twist: 86 }), lift())]);
    const [pointerdown] = await events('pointerdown');
    assert.deepEqual(
      [pointerdown.pointerType, pointerdown.pressure, pointerdown.tiltX, pointerdown.tiltY, pointerdown.twist],
      ['pen', 0.36, 72, 38, 86],
    );
    assert.equal((await events('pointerup'))[0].pointerType, 'pen');
  });
});

describe('release actions', () => {
  test('releases a held key and a held button (keyup, mouseup), then nothing is held', async () => {
    await focusedPage();
    await perform([keys('kb', down('\uE009')), mouse('m', move(150, 130))]);
    await perform([mouse('m', press())]);
    await clearEvents();
    assert.equal(await release(), null);
    assert.deepEqual(
      (await events(['keyup', 'mouseup'])).map((e) => `${e.type} ${e.key ?? e.button}`),
      // Reverse order of pressing.
      ['mouseup 0', 'keyup Control'],
    );
    // The input state is new: ids may change types, Control is no longer held.
    await clearEvents();
    await perform([mouse('kb', move(150, 130), press(), lift())]);
    assert.deepEqual((await events('click')).map((e) => e.ctrl), [false]);
  });

  test('with nothing held is fine', async () => {
    await focusedPage();
    assert.equal(await release(), null);
    assert.equal(await release(), null);
    assert.deepEqual(exceptHoverUpdates(await events()), []);
  });
});

describe('invalid argument', () => {
  const bad = (actions: unknown) => s.fails('POST', '/actions', { actions }, 'invalid argument', 400);

  test('the payload: not an array, a bad source type or id, missing or bad actions', async () => {
    await s.fails('POST', '/actions', {}, 'invalid argument', 400);
    await bad({});
    await bad('keys');
    await bad([{ type: 'keys', id: 'x', actions: [] }]);
    await bad([{ type: 'key', id: 42, actions: [] }]);
    await bad([{ type: 'key', id: 'x' }]);
    await bad([{ type: 'key', id: 'x', actions: [42] }]);
    await bad([{ type: 'pointer', id: 'p', parameters: { pointerType: 'finger' }, actions: [] }]);
    await bad([{ type: 'none', id: 'n', actions: [{ type: 'keyDown', value: 'a' }] }]);
  });

  test('an id used with another type, or a pointer with another pointerType (within a request or later)', async () => {
    await bad([keys('same', pause()), mouse('same', pause())]);
    await perform([pointer('pen1', 'pen', pause())]);
    await bad([pointer('pen1', 'touch', pause())]);
    await bad([keys('pen1', pause())]);
  });

  test('action properties', async () => {
    await bad([keys('k', down('ab'))]);
    await bad([keys('k', down(''))]);
    await bad([keys('k', { type: 'keyDown' })]);
    await bad([keys('k', pause(-1))]);
    await bad([keys('k', pause(0.5))]);
    await bad([mouse('m', press(-1))]);
    await bad([mouse('m', { type: 'pointerUp' })]);
    await bad([mouse('m', { type: 'pointerMove', x: 1 })]);
    await bad([mouse('m', move(1, 1, { duration: -1 }))]);
    await bad([mouse('m', move(1, 1, { origin: 'page' }))]);
    await bad([mouse('m', move(1, 1, { origin: { 'shadow-6066-11e4-a52e-4f735466cecf': 'x' } }))]);
    await bad([pointer('t', 'touch', press(0, { pressure: 1.5 }))]);
    await bad([pointer('t', 'touch', press(0, { width: -1 }))]);
    await bad([pointer('pen', 'pen', press(0, { tiltX: 91 }))]);
    await bad([pointer('pen', 'pen', press(0, { twist: 360 }))]);
    await bad([{ type: 'wheel', id: 'w', actions: [{ type: 'scroll', x: 0, y: 0, deltaX: 0, deltaY: 1.5 }] }]);
    await bad([{ type: 'wheel', id: 'w', actions: [{ type: 'scroll', x: 0, y: 0, deltaX: 0, deltaY: 10, origin: 'pointer' }] }]);
    await bad([{ type: 'wheel', id: 'w', actions: [{ type: 'scroll', x: 0, y: 0, deltaX: 0 }] }]);
  });

  test('nothing is dispatched when any action is invalid', async () => {
    await focusedPage();
    await bad([keys('k', down('a'), up('a')), mouse('m', move(1, 1), press(-1))]);
    assert.deepEqual(exceptHoverUpdates(await events(), [1, 1]), []);
  });
});

describe('element origins and windows', () => {
  test('an element that is not rendered has no in-view center point: element not interactable', async () => {
    await focusedPage(`${PAGE}<div id="hidden" style="display: none">x</div>`);
    const hidden = elementRef(await el('#hidden'));
    await s.fails('POST', '/actions', { actions: [mouse('m', move(0, 0, { origin: hidden }))] }, 'element not interactable', 400);
  });

  test('an unknown element is no such element; a removed one is stale', async () => {
    await focusedPage();
    await s.fails('POST', '/actions', { actions: [mouse('m', move(0, 0, { origin: elementRef('nope') }))] }, 'no such element', 404);
    const area = await el('#area');
    await s.execute('document.getElementById("area").remove()');
    await s.fails('POST', '/actions', { actions: [mouse('m', move(0, 0, { origin: elementRef(area) }))] }, 'stale element reference', 404);
  });

  test('an alert opened by a click ends the actions (null) instead of blocking them; Release Actions then works', async () => {
    await focusedPage(`${PAGE}<button id="b" style="position: absolute; left: 400px; top: 10px" onclick="alert('hi')">alert</button>`);
    const b = elementRef(await el('#b'));
    assert.equal(await perform([mouse('m', move(0, 0, { origin: b }), press(), lift(), move(5, 5, { origin: 'pointer' }))]), null);
    assert.equal(await s.get('/alert/text'), 'hi');
    await s.post('/alert/accept');
    assert.equal(await release(), null);
  });

  test('a closed window is no such window for both commands', async () => {
    const original = await s.get('/window');
    const { handle } = await s.post('/window/new', { type: 'tab' });
    await s.post('/window', { handle });
    await s.delete('/window');
    await s.fails('POST', '/actions', { actions: [keys('k', down('a'))] }, 'no such window', 404);
    await s.fails('DELETE', '/actions', undefined, 'no such window', 404);
    await s.post('/window', { handle: original });
  });

  test('a key handler closing the window: the next action answers no such window', async () => {
    const original = await s.get('/window');
    // Only a window a script opened may close itself (and only a click may open one).
    const before: string[] = await s.get('/window/handles');
    const closing = pages.page('<input id="field" onkeydown="window.close()">');
    await s.navigate(pages.page(`<button id="open" onclick="window.open('${closing}')">open</button>`));
    await s.post(`/element/${await el('#open')}/click`);
    let handle: string | undefined;
    await eventually(async () => (handle = (await s.get('/window/handles')).find((h: string) => !before.includes(h))) !== undefined, 'no window opened');
    await s.post('/window', { handle });
    await s.execute('document.getElementById("field").focus()');
    await s.fails('POST', '/actions', { actions: [keys('k', down('w'), pause(200), up('w'))] }, 'no such window', 404);
    await s.post('/window', { handle: original });
  });
});
