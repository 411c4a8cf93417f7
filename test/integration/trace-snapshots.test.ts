// Incremental DOM snapshots (issue 38), on each driven backend reached directly (native Chromium,
// native Firefox, Playwright's Chromium and Firefox): after each of many kinds of change a page
// makes — texts, attributes, elements added, removed and moved (changed while out of the
// document), form state set by script, a rule inserted through the CSSOM, an adopted style sheet,
// an open shadow root, a same-origin frame's document, a canvas drawn, an element scrolled — the
// snapshot the trace takes (in the gateway's world, written as what changed and references into
// the earlier ones) reads back, its references resolved, as exactly the page that a whole
// snapshot taken at that moment shows. The whole one is taken by the same page code in the page's
// own world: a watch of its own, which references nothing. And a snapshot costs what changed: one
// text changed on a large page is a small file; nothing changed is no file at all.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { DrivenBrowser } from '../../backends/backend.ts';
import { LIBRARY, SnapshotBook, snapshotDocument, snapshotFile, type WindowCaptures } from '../../src/trace/capture.ts';
import { Snapshots } from '../../src/trace/viewer/snapshots.ts';
import { launchDriven, type DrivenKind, type DrivenProcess } from '../helpers/driven.ts';

const KINDS: DrivenKind[] = ['native', 'native-firefox', 'playwright-chromium', 'playwright-firefox'];
const MAX_BYTES = 4 * 1024 * 1024;
const TEST_TIMEOUT_MS = 60_000;

const ITEMS = Array.from({ length: 400 }, (_, i) => `<li class="item" data-i="${i}"><a href="#i${i}">item ${i}</a> <span>${'lorem '.repeat(3)}</span></li>`).join('');
const PAGE = `<!doctype html><html><head><title>snapshots</title><style id="sheet">p { color: rgb(1, 2, 3) }</style>
<script>window.ran = true</script><noscript><p>no script</p></noscript></head>
<body><h1 id="title">Snapshots</h1><p id="text">first text</p>
<div id="box" style="height: 60px; overflow: auto"><div style="height: 600px">tall</div></div>
<form><input id="name" value="start"><input id="check" type="checkbox"><select id="pick"><option>a</option><option>b</option></select><textarea id="area">t</textarea></form>
<canvas id="canvas" width="40" height="20"></canvas>
<div id="host"></div><x-late>before its definition</x-late>
<iframe id="inner" srcdoc="<p id=framed>framed first</p>"></iframe>
<ul id="list">${ITEMS}</ul>
<div id="elsewhere"></div>
</body></html>`;

/**
 * Each change, made by the page's own script (in its world), then awaited to settle (events fire
 * after a frame); `full`: as after a client's Execute Script (the recorder then also compares the
 * style sheets' texts and looks for shadow roots attached since, which no record reports).
 */
const CHANGES: Array<[string, string, 'full'?]> = [
  ['a text', `document.getElementById('text').textContent = 'second text'`],
  ['an attribute', `document.getElementById('title').setAttribute('class', 'big')`],
  ['elements added', `const ul = document.getElementById('list'); for (let i = 0; i < 30; i++) { const li = document.createElement('li'); li.textContent = 'new ' + i; ul.prepend(li); }`],
  ['elements removed', `for (const li of [...document.querySelectorAll('li.item')].slice(10, 40)) li.remove()`],
  ['an element moved, changed while out of the document', `const li = document.querySelector('li.item[data-i="200"]'); li.remove(); li.querySelector('a').textContent = 'moved and changed'; document.getElementById('elsewhere').append(li)`],
  ['form state set by script', `document.getElementById('name').value = 'typed by script'; document.getElementById('check').checked = true; document.getElementById('pick').selectedIndex = 1; document.getElementById('area').value = 'area text'`],
  ['a rule inserted through the CSSOM', `document.getElementById('sheet').sheet.insertRule('h1 { color: rgb(4, 5, 6) }', 1)`],
  ['an adopted style sheet', `const s = new CSSStyleSheet(); s.replaceSync('li { margin: 1px }'); document.adoptedStyleSheets = [s]`],
  ['an open shadow root attached by a script, with its content', `const root = document.getElementById('host').attachShadow({ mode: 'open' }); root.innerHTML = '<b>shadow one</b>'`, 'full'],
  ['a shadow root changed', `document.getElementById('host').shadowRoot.querySelector('b').textContent = 'shadow two'`],
  ['a custom element defined later (its upgrade attaches a shadow root)', `customElements.define('x-late', class extends HTMLElement { constructor() { super(); this.attachShadow({ mode: 'open' }).innerHTML = '<i>upgraded</i>'; } })`],
  ['a rule changed in place by a script', `document.getElementById('sheet').sheet.cssRules[0].style.color = 'rgb(7, 8, 9)'`, 'full'],
  ["a same-origin frame's document changed", `document.getElementById('inner').contentDocument.getElementById('framed').textContent = 'framed second'`],
  ['a canvas drawn', `const c = document.getElementById('canvas').getContext('2d'); c.fillStyle = 'red'; c.fillRect(0, 0, 20, 10)`],
  ['an element scrolled', `document.getElementById('box').scrollTop = 120`],
  ['many texts at once', `for (const a of document.querySelectorAll('li.item a')) a.textContent += '!'`],
  ['more changes than are remembered (the next snapshot is taken whole)', `const box = document.getElementById('elsewhere'); const many = []; for (let i = 0; i < 21000; i++) { const b = document.createElement('b'); b.textContent = i % 10; many.push(b); } box.append(...many); box.replaceChildren(box.firstChild)`],
  ['a change after that', `document.getElementById('text').textContent = 'after the flood'`],
];

/** Run a page script, then wait two frames (scroll events, observers' records). */
const run = (body: string) => `async function () { ${body}; await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))); return null; }`;

let site: Server;
let url = '';
/** A page with a frame of another origin (localhost, where the page is 127.0.0.1). */
let framedUrl = '';

before(async () => {
  site = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    const port = (site.address() as AddressInfo).port;
    if (req.url === '/framed') return res.end(`<!doctype html><title>framed</title><p id="top">top first</p><iframe id="other" src="http://localhost:${port}/inner"></iframe>`);
    if (req.url === '/inner') return res.end('<!doctype html><title>inner</title><p id="inside">inside first</p>');
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  framedUrl = `${url}framed`;
});

after(() => new Promise<void>((resolve) => site.close(() => resolve())));

/** The snapshots of one page, as the recorder keeps them (src/trace/capture.ts, SnapshotBook). */
class Kept {
  readonly files = new Map<string, string>();
  readonly #book = new SnapshotBook();
  readonly snapshots = new Snapshots((name) => this.files.get(name));
  #n = 0;

  constructor(readonly browser: DrivenBrowser, readonly window: string) {}

  /** What the next snapshot is incremental to. */
  get known(): WindowCaptures {
    return this.#book.known(this.window);
  }

  /** The trace's snapshot now: its file's name, or 'unchanged'. */
  async take(full = false): Promise<string> {
    const taken = await snapshotDocument(this.browser, this.window, MAX_BYTES, this.known, full);
    if ('unchanged' in taken) return 'unchanged';
    const name = `snapshots/${this.#n++}.json`;
    this.files.set(name, this.#book.file(taken));
    this.#book.kept(this.window, taken, name);
    return name;
  }

  /** The page snapshotted whole by the same page code in the page's own world (a watch of its own): HTML. */
  async whole(): Promise<string> {
    const page = (await this.browser.callFunction({ window: this.window, frames: [] }, 'function (options) { return this.snapshot(options); }', [{ maxBytes: MAX_BYTES }], { library: LIBRARY })) as {
      id: string;
      version: number;
      tree: string;
    };
    const name = 'whole.json';
    return new Snapshots((n) => (n === name ? snapshotFile(page, {}, page.tree) : undefined)).html(name)!;
  }
}

for (const kind of KINDS) {
  describe(kind, { timeout: TEST_TIMEOUT_MS * 3 }, () => {
    let proc: DrivenProcess;
    let browser: DrivenBrowser;

    before(async () => {
      proc = await launchDriven(kind);
      browser = await proc.newContext();
    });

    after(async () => {
      await proc?.close();
    });

    test("a frame of another origin: its document snapshotted in its own browsing context, incremental there too; unchanged, a reference", { timeout: TEST_TIMEOUT_MS }, async () => {
      const window = browser.initialWindow;
      await browser.navigate(window, framedUrl, 'normal', 10_000);
      const frame = await browser.contentFrameId({ window, frames: [] }, 'function () { return document.getElementById("other"); }', []);
      assert.ok(frame, 'the frame has a browsing context');
      const kept = new Kept(browser, window);
      const inside = (name: string) => /srcdoc="([^"]*)"/.exec(kept.snapshots.html(name)!)?.[1]?.replace(/&quot;/g, '"').replace(/&amp;/g, '&') ?? '';
      const first = await kept.take();
      assert.match(kept.snapshots.html(first)!, /top first/);
      assert.match(inside(first), /<p id="inside">inside first<\/p>/);
      // The top document changed, the frame's did not: the frame's document is a reference into the first snapshot.
      await browser.callFunction({ window, frames: [] }, run(`document.getElementById('top').textContent = 'top second'`), []);
      const second = await kept.take();
      assert.match(kept.snapshots.html(second)!, /top second/);
      assert.match(inside(second), /inside first/);
      assert.match(kept.files.get(second)!, /\["#document",\{"id":"[^"]+","version":"1"[^}]*\},\[\[1,\d+\]\]\]/);
      // The frame's document changed: written there (its own references), the top's a reference.
      await browser.callFunction({ window, frames: [frame!] }, run(`document.getElementById('inside').textContent = 'inside second'`), []);
      const third = await kept.take();
      assert.match(kept.snapshots.html(third)!, /top second/);
      assert.match(inside(third), /<p id="inside">inside second<\/p>/);
      assert.doesNotMatch(kept.files.get(third)!, /top second/, 'the top document is references');
    });

    test('after each kind of change, the snapshot (references resolved) is the page a whole snapshot shows; a change costs what changed', { timeout: TEST_TIMEOUT_MS }, async () => {
      const window = browser.initialWindow;
      await browser.navigate(window, url, 'normal', 10_000);
      const kept = new Kept(browser, window);
      const first = await kept.take();
      assert.notEqual(first, 'unchanged');
      assert.equal(kept.snapshots.html(first), await kept.whole());
      assert.doesNotMatch(kept.snapshots.html(first)!, /window\.ran|no script/, 'no script, no noscript content');
      assert.equal(await kept.take(), 'unchanged', 'nothing changed: no snapshot');
      const firstBytes = kept.files.get(first)!.length;
      for (const [what, body, full] of CHANGES) {
        await browser.callFunction({ window, frames: [] }, run(body), []);
        const name = await kept.take(full === 'full');
        assert.notEqual(name, 'unchanged', `${what}: a snapshot`);
        assert.equal(kept.snapshots.html(name), await kept.whole(), `${what}: the page as a whole snapshot shows it`);
        if (what.startsWith('more changes')) assert.deepEqual(JSON.parse(kept.files.get(name)!).documents, {}, 'taken whole: it refers to nothing');
      }
      // What each change left, in the last snapshot read back.
      const last = kept.snapshots.html([...kept.files.keys()].at(-1)!)!;
      for (const shown of [
        'after the flood',
        '<h1 id="title" class="big">',
        '<li>new 29</li>',
        '<div id="elsewhere"><li class="item" data-i="200"><a href="#i200">moved and changed!</a>',
        'value="typed by script"',
        '<input id="check" type="checkbox" checked="">',
        '<option selected="">b</option>',
        'area text</textarea>',
        'rgb(4, 5, 6)',
        'rgb(7, 8, 9)',
        'data-wdgate-adopted',
        '<template shadowrootmode="open"><b>shadow two</b></template>',
        '<template shadowrootmode="open"><i>upgraded</i></template>',
        'framed second',
        'data-wdgate-scroll="0,120"',
        'src="data:image/png;base64,',
        '<template data-wdgate-removed="script"></template>',
      ]) {
        assert.ok(last.includes(shown), `${kind}: ${shown} in the last snapshot`);
      }
      assert.doesNotMatch(last, /data-i="(1[0-9]|2[0-9]|3[0-9])"/, 'the items removed are gone');

      // One text on a large page: a small file (what changed, its ancestors, a reference for each
      // of their other children: here most of it is the list's 400 items, each a reference).
      await browser.callFunction({ window, frames: [] }, run(`document.querySelector('li.item[data-i="300"] span').textContent = 'one more'`), []);
      const small = await kept.take();
      assert.equal(kept.snapshots.html(small), await kept.whole());
      assert.ok(kept.files.get(small)!.length * 5 < firstBytes, `${kept.files.get(small)!.length} bytes for one text, ${firstBytes} for the page`);
      // One text outside the list: smaller still.
      await browser.callFunction({ window, frames: [] }, run(`document.getElementById('title').textContent = 'Snapshots again'`), []);
      const tiny = await kept.take();
      assert.equal(kept.snapshots.html(tiny), await kept.whole());
      assert.ok(kept.files.get(tiny)!.length * 50 < firstBytes, `${kept.files.get(tiny)!.length} bytes for one text, ${firstBytes} for the page`);
      assert.equal(await kept.take(), 'unchanged');
      // A snapshot the gateway did not keep (it gave up on it): the next one is taken whole, referencing nothing.
      await browser.callFunction({ window, frames: [] }, run(`document.getElementById('text').textContent = 'third text'`), []);
      await snapshotDocument(browser, window, MAX_BYTES, kept.known);
      await browser.callFunction({ window, frames: [] }, run(`document.getElementById('text').textContent = 'fourth text'`), []);
      const again = await kept.take();
      assert.deepEqual(JSON.parse(kept.files.get(again)!).documents, {});
      assert.equal(kept.snapshots.html(again), await kept.whole());
    });
  });
}
