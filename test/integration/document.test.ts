// Get Page Source (spec §13.1), Print Page (§18.1) and Get Computed Role / Label (§12.4.9-10)
// against real Chromium through the server.
import { after, before, describe } from 'node:test';
import { test } from '../helpers/gaps.ts';
import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';
import type { TestGateway } from '../helpers/gateway.ts';
import { closeSessionFixture, openSessionFixture } from '../helpers/fixture.ts';
import { ELEMENT, type Session } from '../helpers/client.ts';
import type { PageServer } from '../helpers/pages.ts';

let gw: TestGateway;
let pages: PageServer;
let s: Session;

before(async () => {
  ({ gw, pages, s } = await openSessionFixture());
});

after(() => closeSessionFixture({ gw, pages, s }));

/** A new window made current, for tests that close it; the original window is current again after. */
async function inScratchWindow(run: () => Promise<void>): Promise<void> {
  const original = await s.get('/window');
  const { handle } = await s.post('/window/new', { type: 'tab' });
  await s.post('/window', { handle });
  try {
    await run();
  } finally {
    if ((await s.get('/window/handles')).includes(handle)) await s.delete('/window');
    await s.post('/window', { handle: original });
  }
}

// ── Get Page Source ──────────────────────────────────────────────────────────────────────────

describe('Get Page Source', () => {
  test("the document element's outerHTML: no doctype, as the spec's fragment serialization gives", async () => {
    await s.navigate(pages.page('<p id="p" class="a&quot;b">Peas &amp; carrots<br><img src="x.png"></p>', 'Cheese'));
    const source = await s.get('/source');
    assert.equal(source, await s.execute('return document.documentElement.outerHTML'));
    assert.ok(source.startsWith('<html><head><meta charset="utf-8"><title>Cheese</title></head><body>'), source);
    assert.ok(source.includes('<p id="p" class="a&quot;b">Peas &amp; carrots<br><img src="x.png"></p>'), source);
    assert.ok(!/doctype/i.test(source), 'the doctype is not part of the source');
  });

  test('reflects changes scripts made to the DOM', async () => {
    await s.navigate(pages.page('<p id="p">before</p>'));
    await s.execute(
      'document.getElementById("p").textContent = "after"; document.body.append(Object.assign(document.createElement("span"), {id: "new"})); document.documentElement.setAttribute("lang", "fr")',
    );
    const source = await s.get('/source');
    assert.match(source, /^<html lang="fr">/);
    assert.ok(source.includes('<p id="p">after</p><span id="new"></span>'), source);
    assert.ok(!source.includes('before'));
  });

  test('an XHTML document is serialized as XML', async () => {
    const xhtml = '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body><br/>text &amp; more</body></html>';
    await s.navigate('data:application/xhtml+xml,' + encodeURIComponent(xhtml));
    assert.equal(await s.get('/source'), '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body><br />text &amp; more</body></html>');
  });

  test('a document without a document element has an empty source', async () => {
    await s.navigate(pages.page('<p>gone</p>'));
    await s.execute('document.documentElement.remove()');
    assert.equal(await s.get('/source'), '');
  });

  test("a frame's source when a frame is current; no such window once it is gone", async () => {
    await s.navigate(pages.page(`<iframe src="${pages.page('<b id="inner">in the frame</b>')}"></iframe>`));
    await s.post('/frame', { id: 0 });
    assert.match(await s.get('/source'), /<b id="inner">in the frame<\/b>/);
    // The frame removes itself (the command may see its context go: either answer will do).
    await s.raw('POST', '/execute/sync', { script: 'window.frameElement.remove()', args: [] });
    await s.fails('GET', '/source', undefined, 'no such window', 404);
    await s.post('/frame/parent');
    assert.doesNotMatch(await s.get('/source'), /iframe/);
  });

  test('no such window when the current window is closed', async () => {
    await inScratchWindow(async () => {
      await s.delete('/window');
      await s.fails('GET', '/source', undefined, 'no such window', 404);
    });
  });

  test('invalid session id', async () => {
    await gw.client.fails('GET', '/session/nope/source', undefined, 'invalid session id', 404);
  });
});

// ── Print Page ───────────────────────────────────────────────────────────────────────────────

interface PdfPage {
  /** MediaBox size in PostScript points. */
  width: number;
  height: number;
  /** Shapes the page's content stream fills in red (#c00, fill colour ".8 0 0 rg"). */
  redFills: number;
}

/** Just enough of a PDF reader for Chromium's (Skia's) output: each page's size and red shapes. */
function readPdf(base64: string): PdfPage[] {
  const pdf = Buffer.from(base64, 'base64');
  assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-', 'a PDF document');
  const text = pdf.toString('latin1');
  const result: PdfPage[] = [];
  for (const page of text.matchAll(/<<\/Type \/Page\n[\s\S]*?>>\nendobj/g)) {
    const box = /\/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]/.exec(page[0]);
    const contents = /\/Contents (\d+) 0 R/.exec(page[0]);
    assert.ok(box && contents, 'each page has a MediaBox and contents');
    const stream = new RegExp(`\\n${contents[1]} 0 obj\\n<<([^>]*?)/Length (\\d+)>> stream\\n`).exec(text);
    assert.ok(stream, 'the content stream is there');
    const start = stream.index + stream[0].length;
    const raw = pdf.subarray(start, start + Number(stream[2]));
    const content = (stream[1]!.includes('/FlateDecode') ? inflateSync(raw) : raw).toString('latin1');
    let colour = '';
    let redFills = 0;
    for (const line of content.split('\n')) {
      const set = /(\S+ \S+ \S+) rg$/.exec(line);
      if (set) colour = set[1]!;
      else if (line === 'f' && colour === '.8 0 0') redFills++;
    }
    result.push({ width: Number(box[1]), height: Number(box[2]), redFills });
  }
  // The root of the page tree (the Pages node without a parent) counts every page.
  const root = [...text.matchAll(/<<\/Type \/Pages\n([\s\S]*?)>>\nendobj/g)].find((m) => !m[1]!.includes('/Parent'));
  assert.equal(Number(/\/Count (\d+)/.exec(root?.[1] ?? '')?.[1]), result.length, "the page tree's count matches the pages");
  return result;
}

const CM = 72 / 2.54; // PostScript points per centimetre
const near = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1, `${actual} ≈ ${expected}`);

describe('Print Page', () => {
  // Page k of 5 draws k red boxes: with backgrounds printed, a page's rectangles tell which it is.
  const box = '<i style="display:block;width:20px;height:20px;margin:4px;background:#c00"></i>';
  const FIVE_PAGES = '<style>div{break-after:page}</style>' + [1, 2, 3, 4, 5].map((k) => `<div>${box.repeat(k)}</div>`).join('');
  let fivePages: string;
  /** Which of the five pages were printed. */
  const printedPages = (printed: PdfPage[]) => printed.map((p) => p.redFills);

  before(async () => {
    fivePages = pages.page(FIVE_PAGES);
  });

  test('defaults: US Letter portrait, every page', async () => {
    await s.navigate(fivePages);
    const printed = readPdf(await s.post('/print', {}));
    assert.equal(printed.length, 5);
    for (const page of printed) {
      near(page.width, 21.59 * CM);
      near(page.height, 27.94 * CM);
    }
  });

  test('landscape turns the page: width and height swap', async () => {
    await s.navigate(pages.page('<p>wide</p>'));
    const [page, ...rest] = readPdf(await s.post('/print', { orientation: 'landscape' }));
    assert.equal(rest.length, 0);
    near(page!.width, 27.94 * CM);
    near(page!.height, 21.59 * CM);
    const [portrait] = readPdf(await s.post('/print', { orientation: 'portrait', page: { width: 10, height: 20 } }));
    near(portrait!.width, 10 * CM);
    near(portrait!.height, 20 * CM);
    const [turned] = readPdf(await s.post('/print', { orientation: 'landscape', page: { width: 10, height: 20 } }));
    near(turned!.width, 20 * CM);
    near(turned!.height, 10 * CM);
  });

  test('page size in centimetres, down to one point with no margins', async () => {
    await s.navigate(pages.page('<p>tiny</p>'));
    const point = 2.54 / 72;
    const printed = readPdf(await s.post('/print', { page: { width: point, height: point }, margin: { top: 0, bottom: 0, left: 0, right: 0 } }));
    assert.ok(printed.length >= 1);
    near(printed[0]!.width, 1);
    near(printed[0]!.height, 1);
  });

  test('pageRanges choose the pages, as numbers and "N", "N-M", "N-", "-M" strings', async () => {
    await s.navigate(fivePages);
    const cases: [unknown[], number[]][] = [
      [[], [1, 2, 3, 4, 5]],
      [['2-4'], [2, 3, 4]],
      [['2-4', '3-5'], [2, 3, 4, 5]],
      [['4-'], [4, 5]],
      [['-2'], [1, 2]],
      [['3'], [3]],
      [[3], [3]],
      [['-2', 5, '4'], [1, 2, 4, 5]],
      [['-'], [1, 2, 3, 4, 5]],
      [[' 2 - 3 '], [2, 3]],
      [['1, 5'], [1, 5]], // chromedriver (and Selenium's documentation): commas inside a string
      [['4-9'], [4, 5]], // past the last page: what there is
    ];
    for (const [pageRanges, expected] of cases) {
      const printed = readPdf(await s.post('/print', { pageRanges, background: true }));
      assert.deepEqual(printedPages(printed), expected, `pageRanges ${JSON.stringify(pageRanges)}`);
    }
  });

  test('background: printed only when asked', async () => {
    await s.navigate(fivePages);
    const withBackground = readPdf(await s.post('/print', { background: true, pageRanges: [5] }));
    const without = readPdf(await s.post('/print', { pageRanges: [5] }));
    const explicit = readPdf(await s.post('/print', { background: false, pageRanges: [5] }));
    assert.equal(withBackground[0]!.redFills, 5);
    assert.equal(without[0]!.redFills, 0, 'backgrounds left out by default');
    assert.equal(explicit[0]!.redFills, 0);
  });

  test('scale and margins change how much fits on a page', async () => {
    await s.navigate(pages.page('<style>p{margin:0;height:1cm}</style>' + '<p>line</p>'.repeat(20)));
    const pagesAt = async (body: Record<string, unknown>) => readPdf(await s.post('/print', body)).length;
    assert.equal(await pagesAt({}), 1);
    assert.ok((await pagesAt({ scale: 2 })) >= 2, 'twice as large: more pages');
    assert.equal(await pagesAt({ scale: 0.1 }), 1);
    assert.ok((await pagesAt({ margin: { top: 8, bottom: 8 } })) >= 2, 'wide margins: more pages');
  });

  test("shrinkToFit false lets the page's CSS @page size win", async () => {
    await s.navigate(pages.page('<style>@page { size: 10cm 15cm }</style><p>sized by CSS</p>'));
    const [fitted] = readPdf(await s.post('/print', {}));
    near(fitted!.width, 21.59 * CM);
    const [css] = readPdf(await s.post('/print', { shrinkToFit: false }));
    near(css!.width, 10 * CM);
    near(css!.height, 15 * CM);
  });

  test('every bad parameter is invalid argument', async () => {
    await s.navigate(fivePages);
    const bad: Record<string, unknown>[] = [
      { orientation: 0 },
      { orientation: 'foo' },
      { orientation: null },
      { scale: '1' },
      { scale: 3 },
      { scale: 0.01 },
      { scale: null },
      { background: 'true' },
      { background: 1 },
      { page: 5 },
      { page: null },
      { page: { width: '10' } },
      { page: { height: false } },
      { page: { width: 2.54 / 72 - 0.001 } },
      { page: { height: 0 } },
      { page: { width: -1 } },
      { margin: [] },
      { margin: { top: '1' } },
      { margin: { bottom: -1 } },
      { margin: { left: -0.01 } },
      { margin: { right: null } },
      { shrinkToFit: 'false' },
      { shrinkToFit: 0 },
      { pageRanges: '1-2' },
      { pageRanges: {} },
      { pageRanges: ['3-2'] },
      { pageRanges: ['a-2'] },
      { pageRanges: ['1:2'] },
      { pageRanges: ['1-2-3'] },
      { pageRanges: [null] },
      { pageRanges: ['1-2', {}] },
      { pageRanges: [0] },
      { pageRanges: ['0'] },
      { pageRanges: [-1] },
      { pageRanges: [1.5] },
      { pageRanges: [''] },
      { pageRanges: ['1,,2'] },
      { pageRanges: ['2e1'] },
    ];
    for (const body of bad) {
      const e = await s.fails('POST', '/print', body, 'invalid argument', 400);
      assert.ok(e.message.length > 0, JSON.stringify(body));
    }
  });

  test('what the browser cannot lay out is invalid argument too (as chromedriver)', async () => {
    await s.navigate(fivePages);
    // Page ranges wholly past the last page.
    await s.fails('POST', '/print', { pageRanges: ['6-9'] }, 'invalid argument', 400);
    await s.fails('POST', '/print', { pageRanges: [7] }, 'invalid argument', 400);
    // Margins that leave no room for content.
    await s.fails('POST', '/print', { page: { width: 5, height: 5 }, margin: { left: 3, right: 3 } }, 'invalid argument', 400);
  });

  test('prints the top-level document when a frame is current, even a frame that is gone', async () => {
    await s.navigate(pages.page(`<div style="break-after:page">top</div><p>top, page 2</p><iframe src="${pages.page('<p>frame</p>')}"></iframe>`));
    await s.post('/frame', { id: 0 });
    assert.equal(readPdf(await s.post('/print', {})).length, 2);
    // The frame removes itself (the command may see its context go: either answer will do).
    await s.raw('POST', '/execute/sync', { script: 'window.frameElement.remove()', args: [] });
    await s.fails('GET', '/source', undefined, 'no such window', 404);
    assert.equal(readPdf(await s.post('/print', {})).length, 2);
    await s.post('/frame/parent');
  });

  test('no such window when the current window is closed', async () => {
    await inScratchWindow(async () => {
      await s.delete('/window');
      await s.fails('POST', '/print', {}, 'no such window', 404);
    });
  });
});

// ── Get Computed Role / Get Computed Label ───────────────────────────────────────────────────

describe('Get Computed Role and Get Computed Label', () => {
  const refOf = async (css: string) => s.find(css);

  test("the accessibility tree's role and name, as chromedriver answers them", async () => {
    await s.navigate(
      pages.page(
        '<ul><li id="a" role="menuitem">foo</li></ul><input id="b" role="searchbox"><img id="c" role="presentation" src="x.png">' +
          '<article id="d">foo</article><img id="e" role="button" tabindex="0" alt="Img btn"><div id="f">plain div</div>' +
          '<button id="g" aria-label="Go now">x</button><h1 id="h">Title</h1><label>Name <input id="i"></label>' +
          '<input id="j" type="checkbox" title="Check"><a id="k" href="#">Link text</a><span id="l" hidden>hidden</span>' +
          '<p id="n">para</p><select id="p"><option>A</option></select><input id="q" aria-labelledby="h g">',
      ),
    );
    const expected: Record<string, [string, string]> = {
      a: ['menuitem', 'foo'],
      b: ['searchbox', ''],
      c: ['none', ''],
      d: ['article', ''],
      e: ['button', 'Img btn'],
      f: ['generic', ''],
      g: ['button', 'Go now'],
      h: ['heading', 'Title'],
      i: ['textbox', 'Name'],
      j: ['checkbox', 'Check'],
      k: ['link', 'Link text'],
      l: ['none', ''],
      n: ['paragraph', ''],
      p: ['combobox', ''],
      q: ['textbox', 'Title Go now'],
    };
    for (const [id, [role, label]] of Object.entries(expected)) {
      const el = await refOf(`#${id}`);
      assert.equal(await s.get(`/element/${el}/computedrole`), role, `role of #${id}`);
      assert.equal(await s.get(`/element/${el}/computedlabel`), label, `label of #${id}`);
    }
  });

  test('reflects changes made by script', async () => {
    await s.navigate(pages.page('<div id="d">text</div>'));
    const d = await refOf('#d');
    assert.equal(await s.get(`/element/${d}/computedrole`), 'generic');
    await s.execute('const d = document.getElementById("d"); d.setAttribute("role", "button"); d.setAttribute("aria-label", "Press")');
    assert.equal(await s.get(`/element/${d}/computedrole`), 'button');
    assert.equal(await s.get(`/element/${d}/computedlabel`), 'Press');
  });

  test('an element in a frame, with the frame current', async () => {
    await s.navigate(pages.page(`<iframe src="${pages.page('<button id="fb">In frame</button>')}"></iframe>`));
    await s.post('/frame', { id: 0 });
    const b = await refOf('#fb');
    assert.equal(await s.get(`/element/${b}/computedrole`), 'button');
    assert.equal(await s.get(`/element/${b}/computedlabel`), 'In frame');
    await s.post('/frame/parent');
  });

  test('no such element, stale element reference', async () => {
    await s.navigate(pages.page('<button id="b">b</button>'));
    await s.fails('GET', '/element/nope/computedrole', undefined, 'no such element', 404);
    await s.fails('GET', '/element/nope/computedlabel', undefined, 'no such element', 404);
    const b = await refOf('#b');
    await s.execute('document.getElementById("b").remove()');
    await s.fails('GET', `/element/${b}/computedrole`, undefined, 'stale element reference', 404);
    await s.fails('GET', `/element/${b}/computedlabel`, undefined, 'stale element reference', 404);
    const again = await refOf('body');
    await s.navigate(pages.page('<p>next document</p>'));
    await s.fails('GET', `/element/${again}/computedrole`, undefined, 'stale element reference', 404);
  });

  test('no such window when the current window is closed', async () => {
    await inScratchWindow(async () => {
      await s.navigate(pages.page('<button id="b">b</button>'));
      const b = await refOf('#b');
      await s.delete('/window');
      await s.fails('GET', `/element/${b}/computedrole`, undefined, 'no such window', 404);
      await s.fails('GET', `/element/${b}/computedlabel`, undefined, 'no such window', 404);
    });
  });

  test('a reference to the document, not an element: no such element', async () => {
    await s.navigate(pages.page('<p>x</p>'));
    const doc = (await s.execute('return document'))[ELEMENT] as string;
    await s.fails('GET', `/element/${doc}/computedrole`, undefined, 'no such element', 404);
  });
});
