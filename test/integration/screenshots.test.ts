// Take Screenshot and Take Element Screenshot (spec §17) against real Chromium through the server.
import { after, before, describe } from 'node:test';
import { test } from '../helpers/gaps.ts';
import assert from 'node:assert/strict';
import type { TestGateway } from '../helpers/gateway.ts';
import { closeSessionFixture, openSessionFixture } from '../helpers/fixture.ts';
import { ELEMENT, elementRef, type Session } from '../helpers/client.ts';
import type { PageServer } from '../helpers/pages.ts';
import { colours, decodePng } from '../helpers/png.ts';

let gw: TestGateway;
let pages: PageServer;
let s: Session;

before(async () => {
  ({ gw, pages, s } = await openSessionFixture());
});

after(() => closeSessionFixture({ gw, pages, s }));

/** A web element reference's id, through Execute Script (independent of Find Element). */
const elementId = async (css: string): Promise<string> => (await s.execute('return document.querySelector(arguments[0])', [css]))[ELEMENT];

// ── Take Screenshot ──────────────────────────────────────────────────────────────────────────

describe('take screenshot', () => {
  test('is a PNG of the viewport, sized innerWidth × innerHeight device pixels', async () => {
    await s.navigate(pages.page('<p>hello</p>'));
    const img = decodePng(await s.get('/screenshot'));
    const [w, h, dpr] = await s.execute('return [window.innerWidth, window.innerHeight, window.devicePixelRatio]');
    assert.equal(img.width, Math.round(w * dpr));
    assert.equal(img.height, Math.round(h * dpr));
  });

  test('shows what the page paints', async () => {
    await s.navigate(pages.page('<style>html, body { background: rgb(255, 0, 0); margin: 0 }</style>'));
    const img = decodePng(await s.get('/screenshot'));
    assert.deepEqual(img.pixel(10, 10).slice(0, 3), [255, 0, 0]);
    assert.deepEqual(img.pixel(img.width - 20, img.height - 20).slice(0, 3), [255, 0, 0]);
    // Half blue, half red: the capture is of the visible viewport, left to right.
    await s.navigate(
      pages.page(
        '<style>html, body { margin: 0; height: 100% } body { background: linear-gradient(to right, rgb(0,0,255) 50%, rgb(255,0,0) 50%) }</style>',
      ),
    );
    const split = decodePng(await s.get('/screenshot'));
    assert.deepEqual(split.pixel(5, split.height >> 1).slice(0, 3), [0, 0, 255]);
    assert.deepEqual(split.pixel(split.width - 30, split.height >> 1).slice(0, 3), [255, 0, 0]);
  });

  test('a minimized window is shown again and captured (it would draw nothing after a navigation)', async () => {
    await s.post('/window/minimize');
    await s.navigate(pages.page('<style>html, body { background: rgb(0, 255, 0); margin: 0 }</style>'));
    const img = decodePng(await s.get('/screenshot'));
    assert.deepEqual(img.pixel(10, 10).slice(0, 3), [0, 255, 0]);
    assert.equal(await s.execute('return document.visibilityState'), 'visible');
    // Element screenshots too.
    await s.post('/window/minimize');
    await s.navigate(pages.page('<div id="r" style="width: 20px; height: 10px; background: rgb(255, 0, 0)"></div>'));
    assert.deepEqual(colours(decodePng(await s.get(`/element/${await elementId('#r')}/screenshot`))), { red: 20 * 10 });
  });

  test('captures the scrolled viewport, not the top of the document', async () => {
    await s.navigate(
      pages.page('<style>body { margin: 0 } div { height: 3000px } #b { background: rgb(0,0,255) }</style><div></div><div id="b"></div>'),
    );
    await s.execute('window.scrollTo(0, 3200)');
    const img = decodePng(await s.get('/screenshot'));
    assert.deepEqual(img.pixel(10, 10).slice(0, 3), [0, 0, 255]);
  });
});

// ── Take Element Screenshot ──────────────────────────────────────────────────────────────────

describe('take element screenshot', () => {
  test('is exactly the element: a 50×30 red div gives a 50×30 all-red PNG', async () => {
    await s.navigate(
      pages.page(
        '<style>body { margin: 0; background: white } #r { position: absolute; left: 37px; top: 21px; width: 50px; height: 30px; background: rgb(255,0,0) }</style><div id="r"></div>',
      ),
    );
    assert.equal(await s.execute('return window.devicePixelRatio'), 1);
    const img = decodePng(await s.get(`/element/${await elementId('#r')}/screenshot`));
    assert.equal(img.width, 50);
    assert.equal(img.height, 30);
    assert.deepEqual(colours(img), { red: 50 * 30 });
  });

  test('an element at a fractional position keeps its size', async () => {
    await s.navigate(
      pages.page(
        '<style>body { margin: 0 } #r { position: absolute; left: 10.5px; top: 20.25px; width: 40px; height: 20px; background: rgb(255,0,0) }</style><div id="r"></div>',
      ),
    );
    const img = decodePng(await s.get(`/element/${await elementId('#r')}/screenshot`));
    assert.equal(img.width, 40);
    assert.equal(img.height, 20);
  });

  test('an element below the fold is scrolled into view and captured', async () => {
    await s.navigate(
      pages.page(
        '<style>body { margin: 0; background: white } #spacer { height: 4000px } #b { width: 60px; height: 40px; background: rgb(0,0,255) }</style><div id="spacer"></div><div id="b"></div>',
      ),
    );
    const b = await elementId('#b');
    const img = decodePng(await s.get(`/element/${b}/screenshot`));
    assert.equal(img.width, 60);
    assert.equal(img.height, 40);
    assert.deepEqual(colours(img), { blue: 60 * 40 });
    // Scrolled with block "end": the element's bottom is at the viewport's bottom.
    const [bottom, innerHeight] = await s.execute('return [arguments[0].getBoundingClientRect().bottom, window.innerHeight]', [elementRef(b)]);
    assert.ok(Math.abs(bottom - innerHeight) <= 1, `bottom ${bottom} vs viewport ${innerHeight}`);
  });

  test('an element beyond the right edge is scrolled into view horizontally too', async () => {
    await s.navigate(
      pages.page(
        '<style>body { margin: 0; width: 6000px; height: 6000px } #g { position: absolute; left: 5000px; top: 3000px; width: 25px; height: 35px; background: rgb(0,0,255) }</style><div id="g"></div>',
      ),
    );
    const img = decodePng(await s.get(`/element/${await elementId('#g')}/screenshot`));
    assert.equal(img.width, 25);
    assert.equal(img.height, 35);
    assert.deepEqual(colours(img), { blue: 25 * 35 });
  });

  test('an element larger than the viewport gives its visible part', async () => {
    await s.navigate(
      pages.page('<style>body { margin: 0 } #big { width: 300px; height: 5000px; background: rgb(0,0,255) }</style><div id="big"></div>'),
    );
    const img = decodePng(await s.get(`/element/${await elementId('#big')}/screenshot`));
    const innerHeight = await s.execute('return window.innerHeight');
    assert.equal(img.width, 300);
    assert.equal(img.height, innerHeight);
    assert.deepEqual(colours(img), { blue: 300 * innerHeight });
  });

  test('a zero-size element is unable to capture screen', async () => {
    await s.navigate(pages.page('<div id="z" style="width: 0; height: 0"></div><span id="e"></span>'));
    await s.fails('GET', `/element/${await elementId('#z')}/screenshot`, undefined, 'unable to capture screen', 500);
    await s.fails('GET', `/element/${await elementId('#e')}/screenshot`, undefined, 'unable to capture screen', 500);
  });

  test('unknown, stale and removed elements', async () => {
    await s.navigate(pages.page('<div id="d" style="width: 10px; height: 10px; background: red"></div>'));
    await s.fails('GET', '/element/not-an-element/screenshot', undefined, 'no such element', 404);
    const d = await elementId('#d');
    await s.execute('arguments[0].remove()', [elementRef(d)]);
    await s.fails('GET', `/element/${d}/screenshot`, undefined, 'stale element reference', 404);
    const body = await elementId('body');
    await s.navigate(pages.page('<p>another document</p>'));
    await s.fails('GET', `/element/${body}/screenshot`, undefined, 'stale element reference', 404);
  });
});

describe('windows', () => {
  test('a closed current window is no such window; a background window does not block capture', async () => {
    await s.navigate(pages.page('<p>first</p>'));
    const first = await s.get('/window');
    const p = await elementId('p');
    // A new background tab: the current window is still the first one and still captures.
    const { handle } = await s.post('/window/new', { type: 'tab' });
    decodePng(await s.get('/screenshot'));
    await s.post('/window', { handle });
    await s.navigate(pages.page('<style>html { background: rgb(0,0,255) }</style>'));
    const img = decodePng(await s.get('/screenshot'));
    assert.deepEqual(img.pixel(5, 5).slice(0, 3), [0, 0, 255]);
    await s.delete('/window');
    await s.fails('GET', '/screenshot', undefined, 'no such window', 404);
    await s.fails('GET', `/element/${p}/screenshot`, undefined, 'no such window', 404);
    await s.post('/window', { handle: first });
    decodePng(await s.get('/screenshot'));
  });
});
