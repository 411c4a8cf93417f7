// What a kept trace says a command acted on (issue 33, "Before, action, after"), recorded by the
// gateway from a real session on native Chromium, native Firefox and Playwright's Chromium: Element Click's element (its
// box where the page has it, its selector in the snapshot) and the point it clicked (the element's
// in-view center point; one out of view, its center in the document, where the click scrolled
// it to); Element Send Keys' element; Perform Actions' element origin and the offset of its
// pointerDown — all told by the command's own page calls (issue 38: no call of the trace's own).
// A find that polled while the page changed is captured, so the click after it has a before that
// shows its element; a page that changed by itself after a capture and before a step acted says so
// (`changedBefore`). The viewer's drawing of them: trace-viewer.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { unzipSync } from 'fflate';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { startPageServer, type PageServer } from '../helpers/pages.ts';
import { Snapshots } from '../../src/trace/viewer/snapshots.ts';

let gw: TestGateway;
let pages: PageServer;

before(async () => {
  [gw, pages] = await Promise.all([startGateway(), startPageServer()]);
});

after(async () => {
  await gw?.stop();
  await pages?.close();
});

const PAGE = `<style>body { margin: 0 } button, input { position: absolute; margin: 0; box-sizing: border-box }</style>
<p id="status">idle</p>
<button id="top" style="left: 40px; top: 100px; width: 120px; height: 30px" onclick="document.getElementById('status').textContent = 'top'; setTimeout(() => { const b = document.createElement('button'); b.id = 'late'; b.textContent = 'late'; b.style.cssText = 'left: 200px; top: 300px; width: 60px; height: 20px'; b.onclick = () => setTimeout(() => { document.title = 'later'; document.getElementById('status').textContent = 'later' }, 200); document.body.append(b) }, 300)">top</button>
<input id="name" style="left: 40px; top: 200px; width: 150px; height: 24px">
<div style="height: 3000px"></div>
<button id="low" style="left: 300px; top: 1800px; width: 100px; height: 40px" onclick="document.getElementById('status').textContent = 'low'">low</button>`;

const ELEMENT = 'element-6066-11e4-a52e-4f735466cecf';
const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) <= 1, `${what}: ${actual}, expected ${expected}`);

for (const backend of [
  { name: 'native Chromium', caps: {} },
  { name: 'native Firefox', caps: { browserName: 'firefox' } },
  { name: 'Playwright Chromium', caps: { 'wdgate:options': { backend: 'playwright' } } },
]) {
  test(`${backend.name}: a click's element and point, a send keys' element, an element origin's pointerDown, and the page as it was when it changed while a find polled`, async () => {
    const s = await gw.client.newSession({ ...backend.caps, 'wdgate:options': { ...(backend.caps as any)['wdgate:options'], trace: 'on' } });
    try {
      await s.navigate(pages.page(PAGE, 'Actions'));
      await s.post('/timeouts', { implicit: 5000 });
      const top = await s.find('#top');
      await s.post(`/element/${top}/click`);
      // #late appears 300 ms after the click: the find polls while the page changes.
      const late = await s.find('#late');
      await s.post(`/element/${late}/click`);
      // 200 ms after its click the page changes by itself, while only reads run: the next step's before is older than that.
      const name = await s.find('#name');
      while ((await s.get('/title')) !== 'later') await new Promise((r) => setTimeout(r, 20));
      await s.post(`/element/${name}/value`, { text: 'Ada' });
      await s.post('/actions', {
        actions: [{ type: 'pointer', id: 'mouse', parameters: { pointerType: 'mouse' }, actions: [{ type: 'pointerMove', origin: { [ELEMENT]: top }, x: 10, y: 5 }, { type: 'pointerDown', button: 0 }, { type: 'pointerUp', button: 0 }] }],
      });
      await s.post(`/element/${await s.find('#low')}/click`);
      assert.equal(await s.get(`/element/${await s.find('#status')}/text`), 'low');
    } finally {
      await s.end();
    }

    const res = await fetch(`${gw.url}/wdgate/sessions/${s.id}/trace`);
    assert.equal(res.status, 200);
    const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
    const steps: any[] = JSON.parse(Buffer.from(files['trace.json']!).toString()).steps;
    const snapshots = new Snapshots((name) => (files[name] ? Buffer.from(files[name]!).toString() : undefined));
    const html = (path: string) => snapshots.html(path)!;
    const clicks = steps.filter((st) => st.name === 'elementClick');
    assert.equal(clicks.length, 3);
    const [topClick, lateClick, lowClick] = clicks;

    // The first click: nothing changed since the navigation's capture (the find only read), so no
    // before of its own; the button where the page has it, the point at its center, its selector
    // (its place among its parents' elements: body is <html>'s second, #top the body's third, after
    // the style and the status) finding it in that capture.
    assert.equal(topClick.before, undefined);
    assert.equal(topClick.changedBefore, undefined);
    assert.deepEqual(topClick.action.element.box, { x: 40, y: 100, width: 120, height: 30 });
    assert.deepEqual(topClick.action.point, { x: 100, y: 115 });
    assert.deepEqual([topClick.action.viewport.scrollX, topClick.action.viewport.scrollY], [0, 0]);
    assert.equal(topClick.action.element.marker, undefined);
    const navigation = steps.find((st) => st.name === 'navigateTo');
    assert.ok(navigation.snapshot, 'the navigation has its capture');
    assert.equal(topClick.action.element.selector, 'html > :nth-child(2) > :nth-child(3)');
    assert.match(html(navigation.snapshot), /<body><style>[^<]*<\/style>\s*<p id="status">idle<\/p>\s*<button id="top"/);

    // The late button's find polled while the page changed: it is captured like a page-changing
    // step, so the click after it has a before (that capture) holding the button the navigation's
    // capture did not have; the selector finds it there (the body's last element).
    const lateFind = steps[lateClick.n - 1];
    assert.equal(lateFind.name, 'findElement');
    assert.ok(lateFind.snapshot, JSON.stringify(lateFind));
    assert.equal(lateClick.before, undefined);
    assert.match(html(lateFind.snapshot), /<button id="late"[^>]*>late<\/button><\/body>/);
    assert.doesNotMatch(html(navigation.snapshot), /id="late"/);
    assert.equal(lateClick.action.element.selector, 'html > :nth-child(2) > :nth-child(7)');
    assert.deepEqual(lateClick.action.element.box, { x: 200, y: 300, width: 60, height: 20 });
    assert.deepEqual(lateClick.action.point, { x: 230, y: 310 });
    assert.equal(lateFind.changedBefore, undefined, 'the page changed while the find polled, not before it');

    // Send Keys: its element, no point. The page changed (its title, its status) after the
    // capture before it (taken as the first Get Title began) and before it acted: said so.
    const typed = steps.find((st) => st.name === 'elementSendKeys');
    assert.deepEqual(typed.action.element.box, { x: 40, y: 200, width: 150, height: 24 });
    assert.equal(typed.action.point, undefined);
    assert.equal(typed.changedBefore, true);
    assert.match(html(typed.snapshot), /<p id="status">later<\/p>/);

    // Out of view: its center in the viewport as it was (below it), which plus the scroll is its place in the document.
    assert.equal(lowClick.action.viewport.scrollY, 0);
    assert.ok(lowClick.action.point.y > lowClick.action.viewport.height, 'below the viewport before the click');
    close(lowClick.action.point.y + lowClick.action.viewport.scrollY, 1820, 'the point in the document (y)');
    close(lowClick.action.point.x, 350, 'the point (x)');

    // Perform Actions: the element origin's element, and the pointerDown at its in-view center plus the offset.
    const acted = steps.find((st) => st.name === 'performActions');
    assert.deepEqual(acted.action.element.box, { x: 40, y: 100, width: 120, height: 30 });
    assert.deepEqual(acted.action.point, { x: 110, y: 120 });
  });
}
