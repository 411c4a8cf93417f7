// Element Click's "in-view center point" (spec §12.5.1) where what a user sees is less than the
// viewport: scroll bars cover part of it, and a frame shows only what its ancestors let through.
// Sizes are explicit so the geometry does not depend on the machine's fonts.
import { after, before, describe } from 'node:test';
import { test } from '../helpers/gaps.ts';
import assert from 'node:assert/strict';
import type { TestGateway } from '../helpers/gateway.ts';
import { closeSessionFixture, openSessionFixture } from '../helpers/fixture.ts';
import type { PageServer } from '../helpers/pages.ts';
import type { Session } from '../helpers/client.ts';

let gw: TestGateway;
let pages: PageServer;
let s: Session;

before(async () => {
  ({ gw, pages, s } = await openSessionFixture());
});

after(() => closeSessionFixture({ gw, pages, s }));

const frame = (src: string, style: string) => `<iframe src="${src}" style="border:0;display:block;${style}"></iframe>`;
/** A document larger than a 300x150 frame both ways: the frame shows both scroll bars. */
const overflowing = (inner: string) => `<style>body{margin:0;width:400px;height:400px;position:relative}</style>${inner}`;
const button = (top: number, height: number) =>
  `<button id="b" style="position:absolute;left:10px;top:${top}px;width:80px;height:${height}px;padding:0" onclick="this.textContent='clicked'">b</button>`;

async function clickButton(): Promise<string> {
  const b = await s.find('#b');
  await s.post(`/element/${b}/click`);
  return s.get(`/element/${b}/text`);
}

/** Scroll bar thickness in the current frame: the premise of these tests (classic, not overlay, scroll bars). */
async function scrollBar(): Promise<number> {
  return s.execute('return innerHeight - document.documentElement.clientHeight');
}

describe('element click: in view is what a user sees', () => {
  test("an element partly under its frame's scroll bar is clicked on its visible part", async () => {
    // The frame shows 300x150 less its scroll bars; the button's lower part is under the
    // horizontal one, its centre too (within innerHeight, so no scrolling would seem needed).
    await s.navigate(pages.page(frame(pages.page(overflowing(button(125, 20))), 'width:300px;height:150px')));
    await s.post('/frame', { id: 0 });
    const bar = await scrollBar();
    assert.ok(bar >= 10, `the frame has a horizontal scroll bar (${bar} px)`);
    assert.equal(await clickButton(), 'clicked');
  });

  test("an element in a nested frame that is partly under its parent frame's scroll bar", async () => {
    // Frame one (300x150, scroll bars) holds frame two at y = 100; the button inside frame two is
    // entirely in frame two's view, but its centre (y = 138 in frame one) is under frame one's
    // horizontal scroll bar: only its top part can be clicked.
    const two = pages.page(`<style>body{margin:0}</style>${button(30, 16)}`);
    const one = pages.page(overflowing(`<div style="position:absolute;left:0;top:100px">${frame(two, 'width:200px;height:100px')}</div>`));
    await s.navigate(pages.page(frame(one, 'width:300px;height:150px')));
    await s.post('/frame', { id: 0 });
    assert.ok((await scrollBar()) >= 10, 'frame one has a horizontal scroll bar');
    await s.post('/frame', { id: 0 });
    assert.equal(await clickButton(), 'clicked');
  });

  test('an element in a frame below the fold of the top-level page: the page scrolls to it', async () => {
    const inner = pages.page(`<style>body{margin:0}</style>${button(10, 20)}`);
    await s.navigate(pages.page(`<div style="height:3000px"></div>${frame(inner, 'width:200px;height:60px')}`));
    await s.post('/frame', { id: 0 });
    assert.equal(await clickButton(), 'clicked');
    await s.post('/frame', { id: null });
    assert.ok((await s.execute('return scrollY')) > 2000, 'the top-level page scrolled the frame into view');
  });
});
