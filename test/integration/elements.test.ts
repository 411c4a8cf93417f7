// Element Retrieval and Element State (spec §12.3, §12.4) against real Chromium through the server.
import { after, before, describe } from 'node:test';
import { test } from '../helpers/gaps.ts';
import assert from 'node:assert/strict';
import type { TestGateway } from '../helpers/gateway.ts';
import { closeSessionFixture, openSessionFixture } from '../helpers/fixture.ts';
import { ELEMENT, type Session } from '../helpers/client.ts';
import type { PageServer } from '../helpers/pages.ts';

const SHADOW = 'shadow-6066-11e4-a52e-4f735466cecf';

let gw: TestGateway;
let pages: PageServer;
let s: Session;

before(async () => {
  ({ gw, pages, s } = await openSessionFixture());
});

after(() => closeSessionFixture({ gw, pages, s }));

// ── helpers ──────────────────────────────────────────────────────────────────────────────────

/** Find Element from `base` ('' for the document, `/element/<id>`, `/shadow/<id>`): its id. */
async function findOne(using: string, value: string, base = ''): Promise<string> {
  const ref = await s.post(`${base}/element`, { using, value });
  assert.deepEqual(Object.keys(ref), [ELEMENT]);
  return ref[ELEMENT];
}

async function findAll(using: string, value: string, base = ''): Promise<string[]> {
  const refs = await s.post(`${base}/elements`, { using, value });
  assert.ok(Array.isArray(refs));
  return refs.map((r: Record<string, string>) => r[ELEMENT]);
}

/** The DOM ids of elements, by reference: shows which elements a find answered. */
function domIds(ids: string[]): Promise<string[]> {
  return Promise.all(ids.map((id) => s.get(`/element/${id}/property/id`)));
}

async function refOf(domId: string): Promise<string> {
  return (await s.execute('return document.getElementById(arguments[0])', [domId]))[ELEMENT];
}

const FIND_PAGE = `
<div id="outer">
  <p class="x" id="p1">one</p>
  <p class="x" id="p2">two</p>
  <a id="l1" href="#">Click   here
     now</a>
  <a id="l2" href="#">  other link </a>
  <a id="l3" href="#" style="display:none">Click here hidden</a>
</div>
<p class="x" id="p3">three</p>
<div id="host"></div>
<div id="closed-host"></div>
<script>
  document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML =
    '<span class="in" id="s1">inside</span><span class="in" id="s2">second</span><a id="sl" href="#">shadow link</a>';
  document.getElementById('closed-host').attachShadow({ mode: 'closed' }).innerHTML = '<b>closed</b>';
</script>`;

// ── Finding ──────────────────────────────────────────────────────────────────────────────────

describe('find from the document', () => {
  before(async () => {
    await s.navigate(pages.page(FIND_PAGE));
  });

  test('css selector finds the first match and all matches in document order', async () => {
    assert.deepEqual(await domIds([await findOne('css selector', '.x')]), ['p1']);
    assert.deepEqual(await domIds(await findAll('css selector', '.x')), ['p1', 'p2', 'p3']);
    assert.deepEqual(await domIds(await findAll('css selector', 'html')), ['']); // the document element too
  });

  test('link text matches the whole rendered text, trimmed; hidden links have none', async () => {
    assert.deepEqual(await domIds([await findOne('link text', 'Click here now')]), ['l1']);
    assert.deepEqual(await domIds(await findAll('link text', 'other link')), ['l2']);
    assert.deepEqual(await findAll('link text', 'other'), []);
    assert.deepEqual(await findAll('link text', 'Click here hidden'), []);
  });

  test('partial link text matches part of the rendered text', async () => {
    assert.deepEqual(await domIds([await findOne('partial link text', 'here')]), ['l1']);
    assert.deepEqual(await domIds(await findAll('partial link text', 'i')), ['l1', 'l2']);
    assert.deepEqual(await findAll('partial link text', 'hidden'), []);
  });

  test('tag name, case-insensitive for HTML', async () => {
    assert.deepEqual(await domIds([await findOne('tag name', 'a')]), ['l1']);
    assert.deepEqual(await domIds(await findAll('tag name', 'P')), ['p1', 'p2', 'p3']);
  });

  test('xpath', async () => {
    assert.deepEqual(await domIds([await findOne('xpath', '//p[2]')]), ['p2']);
    assert.deepEqual(await domIds(await findAll('xpath', '//p[@class="x"]')), ['p1', 'p2', 'p3']);
    assert.deepEqual(await domIds(await findAll('xpath', '//a[contains(., "link")]')), ['l2']);
  });

  test('the document search does not enter shadow trees', async () => {
    assert.deepEqual(await findAll('css selector', '.in'), []);
  });

  test('nothing found: no such element naming the selector; [] for Find Elements', async () => {
    const e = await s.fails('POST', '/element', { using: 'css selector', value: '#missing' }, 'no such element', 404);
    assert.match(e.message, /#missing/);
    assert.match(e.message, /css selector/);
    const x = await s.fails('POST', '/element', { using: 'xpath', value: '//nothing' }, 'no such element', 404);
    assert.match(x.message, /\/\/nothing/);
    assert.deepEqual(await s.post('/elements', { using: 'css selector', value: '#missing' }), []);
    assert.deepEqual(await s.post('/elements', { using: 'link text', value: 'nope' }), []);
  });

  test('a bad CSS selector or XPath expression is invalid selector', async () => {
    await s.fails('POST', '/element', { using: 'css selector', value: 'p[' }, 'invalid selector', 400);
    await s.fails('POST', '/elements', { using: 'css selector', value: '##' }, 'invalid selector', 400);
    await s.fails('POST', '/element', { using: 'css selector', value: '' }, 'invalid selector', 400);
    await s.fails('POST', '/element', { using: 'xpath', value: '//p[' }, 'invalid selector', 400);
    await s.fails('POST', '/elements', { using: 'xpath', value: '))' }, 'invalid selector', 400);
  });

  test('an XPath selecting something other than elements is invalid selector', async () => {
    const e = await s.fails('POST', '/element', { using: 'xpath', value: '//p/text()' }, 'invalid selector', 400);
    assert.match(e.message, /#text/);
    await s.fails('POST', '/elements', { using: 'xpath', value: '//p/@class' }, 'invalid selector', 400);
    await s.fails('POST', '/elements', { using: 'xpath', value: '/' }, 'invalid selector', 400);
    await s.fails('POST', '/elements', { using: 'xpath', value: 'count(//p)' }, 'invalid selector', 400);
  });

  test('an unknown strategy or a non-string value is invalid argument', async () => {
    await s.fails('POST', '/element', { using: 'id', value: 'p1' }, 'invalid argument', 400);
    await s.fails('POST', '/elements', { using: 'CSS selector', value: 'p' }, 'invalid argument', 400);
    await s.fails('POST', '/element', { using: 'css selector', value: 5 }, 'invalid argument', 400);
    await s.fails('POST', '/element', { using: 'css selector' }, 'invalid argument', 400);
    await s.fails('POST', '/element', { value: 'p' }, 'invalid argument', 400);
    await s.fails('POST', '/elements', [], 'invalid argument', 400);
  });

  test('the same node always gets the same reference', async () => {
    const first = await findOne('css selector', '#p1');
    assert.equal(await findOne('xpath', '//p[1]'), first);
    assert.equal((await findAll('tag name', 'p'))[0], first);
    assert.equal(await refOf('p1'), first);
    assert.notEqual(await findOne('css selector', '#p2'), first);
  });
});

describe('link texts with no-break spaces', () => {
  test('no-break spaces at the ends of a link are trimmed as spaces are (as Selenium\'s link text locator); inside they match spaces', async () => {
    await s.navigate(pages.page('<a id="nb" href="#">&nbsp;link text&nbsp;</a><a id="mid" href="#">a&nbsp;b</a>'));
    assert.deepEqual(await domIds([await findOne('link text', 'link text')]), ['nb']);
    assert.deepEqual(await domIds(await findAll('link text', 'a b')), ['mid']);
    assert.deepEqual(await domIds(await findAll('partial link text', 'link')), ['nb']);
    // Get Element Text keeps them, as spaces (bot.dom.getVisibleText).
    assert.equal(await s.get(`/element/${await refOf('nb')}/text`), ' link text ');
  });
});

describe('find from an element', () => {
  let outer: string;
  before(async () => {
    await s.navigate(pages.page(FIND_PAGE));
    outer = await findOne('css selector', '#outer');
  });

  test('every strategy searches the element’s descendants', async () => {
    const base = `/element/${outer}`;
    assert.deepEqual(await domIds([await findOne('css selector', '.x', base)]), ['p1']);
    assert.deepEqual(await domIds(await findAll('css selector', '.x', base)), ['p1', 'p2']);
    assert.deepEqual(await domIds(await findAll('tag name', 'p', base)), ['p1', 'p2']);
    assert.deepEqual(await domIds([await findOne('link text', 'other link', base)]), ['l2']);
    assert.deepEqual(await domIds(await findAll('partial link text', 'Click', base)), ['l1']);
    assert.deepEqual(await domIds(await findAll('xpath', './p', base)), ['p1', 'p2']);
    assert.deepEqual(await domIds([await findOne('xpath', './/a', base)]), ['l1']);
    // An absolute XPath still starts at the root, as the XPath spec says.
    assert.deepEqual(await domIds(await findAll('xpath', '//p', base)), ['p1', 'p2', 'p3']);
  });

  test('nothing below it: no such element / []', async () => {
    await s.fails('POST', `/element/${outer}/element`, { using: 'css selector', value: '#p3' }, 'no such element', 404);
    assert.deepEqual(await s.post(`/element/${outer}/elements`, { using: 'css selector', value: '#p3' }), []);
  });

  test('bad selectors and arguments fail as from the document', async () => {
    await s.fails('POST', `/element/${outer}/element`, { using: 'css selector', value: 'p[' }, 'invalid selector', 400);
    await s.fails('POST', `/element/${outer}/elements`, { using: 'xpath', value: './text()' }, 'invalid selector', 400);
    await s.fails('POST', `/element/${outer}/element`, { using: 'name', value: 'x' }, 'invalid argument', 400);
  });

  test('an unknown start element is no such element; a removed one is stale', async () => {
    await s.fails('POST', '/element/no-such-ref/element', { using: 'css selector', value: 'p' }, 'no such element', 404);
    const p1 = await findOne('css selector', '#p1');
    await s.execute('arguments[0].remove()', [{ [ELEMENT]: p1 }]);
    await s.fails('POST', `/element/${p1}/elements`, { using: 'css selector', value: '*' }, 'stale element reference', 404);
  });
});

describe('shadow roots', () => {
  let host: string;
  let root: string;
  before(async () => {
    await s.navigate(pages.page(FIND_PAGE));
    host = await findOne('css selector', '#host');
    const value = await s.get(`/element/${host}/shadow`);
    assert.deepEqual(Object.keys(value), [SHADOW]);
    root = value[SHADOW];
  });

  test('Get Element Shadow Root answers the same reference each time', async () => {
    assert.deepEqual(await s.get(`/element/${host}/shadow`), { [SHADOW]: root });
    assert.deepEqual(await s.execute('return document.getElementById("host").shadowRoot'), { [SHADOW]: root });
  });

  test('no shadow root, or a closed one: no such shadow root', async () => {
    const p3 = await findOne('css selector', '#p3');
    await s.fails('GET', `/element/${p3}/shadow`, undefined, 'no such shadow root', 404);
    const closed = await findOne('css selector', '#closed-host');
    await s.fails('GET', `/element/${closed}/shadow`, undefined, 'no such shadow root', 404);
  });

  test('css selector, tag name and link texts search the shadow tree', async () => {
    const base = `/shadow/${root}`;
    assert.deepEqual(await domIds([await findOne('css selector', '.in', base)]), ['s1']);
    assert.deepEqual(await domIds(await findAll('css selector', '.in', base)), ['s1', 's2']);
    assert.deepEqual(await domIds(await findAll('tag name', 'SPAN', base)), ['s1', 's2']);
    assert.deepEqual(await domIds([await findOne('tag name', 'a', base)]), ['sl']);
    assert.deepEqual(await domIds([await findOne('link text', 'shadow link', base)]), ['sl']);
    assert.deepEqual(await domIds(await findAll('partial link text', 'shadow', base)), ['sl']);
    assert.deepEqual(await findAll('css selector', '#p1', base), []);
    await s.fails('POST', `${base}/element`, { using: 'css selector', value: '#p1' }, 'no such element', 404);
  });

  test('xpath from a shadow root is invalid argument (as chromedriver); bad css invalid selector', async () => {
    await s.fails('POST', `/shadow/${root}/element`, { using: 'xpath', value: './/span' }, 'invalid argument', 400);
    await s.fails('POST', `/shadow/${root}/elements`, { using: 'css selector', value: 'p[' }, 'invalid selector', 400);
    await s.fails('POST', `/shadow/${root}/elements`, { using: 'nope', value: 'p' }, 'invalid argument', 400);
  });

  test('an unknown shadow root is no such shadow root; a detached one detached shadow root', async () => {
    await s.fails('POST', '/shadow/no-such-ref/element', { using: 'css selector', value: 'span' }, 'no such shadow root', 404);
    await s.execute('document.getElementById("host").remove()');
    await s.fails('POST', `/shadow/${root}/elements`, { using: 'css selector', value: 'span' }, 'detached shadow root', 404);
  });
});

describe('implicit wait', () => {
  const LATE_PAGE = (ms: number) =>
    pages.page(`<div id="box"></div><script>
      setTimeout(() => { document.getElementById('box').innerHTML = '<p class="late" id="late">late</p><a href="#">late link</a>'; }, ${ms});
    </script>`);

  after(async () => {
    await s.post('/timeouts', { implicit: 0 });
  });

  test('finds an element the page adds while waiting', async () => {
    await s.post('/timeouts', { implicit: 5000 });
    await s.navigate(LATE_PAGE(300));
    assert.deepEqual(await domIds([await findOne('css selector', '.late')]), ['late']);
    await s.navigate(LATE_PAGE(300));
    assert.deepEqual(await domIds(await findAll('xpath', '//p')), ['late']);
    await s.navigate(LATE_PAGE(300));
    const box = await findOne('css selector', '#box');
    assert.deepEqual(await domIds([await findOne('link text', 'late link', `/element/${box}`)]), ['']);
  });

  test('with an implicit wait of 0 it does not wait', async () => {
    await s.post('/timeouts', { implicit: 0 });
    await s.navigate(LATE_PAGE(3000));
    await s.fails('POST', '/element', { using: 'css selector', value: '.late' }, 'no such element', 404);
    assert.deepEqual(await s.post('/elements', { using: 'css selector', value: '.late' }), []);
  });

  test('waits the whole implicit timeout before answering none', async () => {
    await s.navigate(pages.page('<p>nothing comes</p>'));
    await s.post('/timeouts', { implicit: 400 });
    let started = Date.now();
    assert.deepEqual(await s.post('/elements', { using: 'css selector', value: '.never' }), []);
    assert.ok(Date.now() - started >= 380, `answered after ${Date.now() - started} ms`);
    started = Date.now();
    await s.fails('POST', '/element', { using: 'tag name', value: 'never' }, 'no such element', 404);
    assert.ok(Date.now() - started >= 380, `answered after ${Date.now() - started} ms`);
  });

  test('a bad selector fails at once, without waiting', async () => {
    await s.post('/timeouts', { implicit: 60_000 });
    await s.fails('POST', '/element', { using: 'css selector', value: 'p[' }, 'invalid selector', 400);
    await s.fails('POST', '/element', { using: 'xpath', value: '//p/text()' }, 'invalid selector', 400);
    await s.post('/timeouts', { implicit: 0 });
  });
});

describe('stale element references', () => {
  test('after the node is removed', async () => {
    await s.navigate(pages.page('<p id="a">a</p><p id="b">b</p>'));
    const a = await findOne('css selector', '#a');
    await s.execute('document.getElementById("a").remove()');
    await s.fails('GET', `/element/${a}/text`, undefined, 'stale element reference', 404);
    await s.fails('GET', `/element/${a}/name`, undefined, 'stale element reference', 404);
    await s.fails('GET', `/element/${a}/attribute/id`, undefined, 'stale element reference', 404);
    await s.fails('GET', `/element/${a}/property/id`, undefined, 'stale element reference', 404);
    await s.fails('GET', `/element/${a}/css/color`, undefined, 'stale element reference', 404);
    await s.fails('GET', `/element/${a}/rect`, undefined, 'stale element reference', 404);
    await s.fails('GET', `/element/${a}/enabled`, undefined, 'stale element reference', 404);
    await s.fails('GET', `/element/${a}/selected`, undefined, 'stale element reference', 404);
    await s.fails('GET', `/element/${a}/shadow`, undefined, 'stale element reference', 404);
  });

  test('after navigation', async () => {
    await s.navigate(pages.page('<p id="a">a</p>'));
    const a = await findOne('css selector', '#a');
    await s.navigate(pages.page('<p id="a">a again</p>'));
    await s.fails('GET', `/element/${a}/text`, undefined, 'stale element reference', 404);
    await s.fails('POST', `/element/${a}/element`, { using: 'css selector', value: '*' }, 'stale element reference', 404);
    // The new document's node is a new element.
    assert.notEqual(await findOne('css selector', '#a'), a);
  });

  test('an id never handed out is no such element', async () => {
    await s.fails('GET', '/element/not-a-reference/text', undefined, 'no such element', 404);
    await s.fails('GET', '/element/0123456789abcdef.1/name', undefined, 'no such element', 404);
  });
});

// ── Element State ────────────────────────────────────────────────────────────────────────────

describe('Get Element Text', () => {
  before(async () => {
    await s.navigate(
      pages.page(`
      <div id="t">Hello <b>bold</b>   world<span style="display:none"> secret</span><p>para</p>tail</div>
      <div id="hidden" style="display:none">hidden <span id="deep">deep</span></div>
      <div id="vh" style="visibility:hidden">invisible <span id="kid" style="visibility:visible">kid</span></div>
      <div id="zero" style="width:0;height:0;overflow:hidden">zero</div>
      <div id="transparent" style="opacity:0">ghost</div>
      <div id="nbsp">a&nbsp;&nbsp;b</div>
      <div id="upper" style="text-transform:uppercase">shout</div>
      <p id="br">line1<br>line2</p>
      <pre id="pre">  keep   spaces
next</pre>
      <table id="tbl"><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>
      <div id="mixed"><div>one</div><div style="display:none">two</div><div>three</div></div>
      <div id="shadow-host"></div>
      <script>document.getElementById('shadow-host').attachShadow({ mode: 'open' }).innerHTML = '<p>in shadow</p>';</script>
    `),
    );
  });

  const text = async (domId: string) => s.get(`/element/${await refOf(domId)}/text`);

  test('visible text with block boxes on their own lines', async () => {
    assert.equal(await text('t'), 'Hello bold world\npara\ntail');
    assert.equal(await text('br'), 'line1\nline2');
    assert.equal(await text('mixed'), 'one\nthree');
    assert.equal(await text('tbl'), 'a b\nc d');
  });

  test('hidden elements and hidden descendants have no text', async () => {
    assert.equal(await text('hidden'), '');
    assert.equal(await text('deep'), '');
    assert.equal(await text('zero'), '');
    assert.equal(await text('transparent'), '');
    // A visible child of a visibility:hidden parent shows, its parent's own text does not.
    assert.equal(await text('vh'), 'kid');
    assert.equal(await text('kid'), 'kid');
  });

  test('non-breaking spaces, text-transform, preformatted text, shadow trees', async () => {
    assert.equal(await text('nbsp'), 'a  b');
    assert.equal(await text('upper'), 'SHOUT');
    // Preserved spaces are visible ones: they are not trimmed.
    assert.equal(await text('pre'), '  keep   spaces\nnext');
    assert.equal(await text('shadow-host'), 'in shadow');
  });
  // Rendered text as bot.dom.getVisibleText defines it; each expected value is what chromedriver
  // 156 answered for the same markup (not what innerText gives).
  const RENDERED_TEXT: [html: string, text: string][] = [
    ["<div><p>Outer paragraph <span>leaf one</span></p><div><span>leaf two</span> <span>leaf three</span></div></div>", "Outer paragraph leaf one\nleaf two leaf three"],
    ["<p>a</p><p>b</p>", "a\nb"],
    ["a<br>b<br><br>c", "a\nb\n\nc"],
    ["<pre>  x\n  y</pre>", "  x\n  y"],
    ["<ul><li>one</li><li>two</li></ul><ol><li>three</li></ol>", "one\ntwo\nthree"],
    ["<table><tr><td>a</td><td>b</td></tr><tr><th>c</th><td>d</td></tr></table>", "a b\nc d"],
    ["<span style=\"text-transform:capitalize\">hello world-wide o'neil</span>", "Hello World-Wide O'neil"],
    ["<div style=\"display:none\">x</div>y", "y"],
    ["<div style=\"width:0;height:0;overflow:hidden\">z</div>w", "w"],
    ["  lots   of \n  space  ", "lots of space"],
    ["<div>a<div>b</div>c</div>", "a\nb\nc"],
    ["<span>a</span><div></div><span>b</span>", "a\nb"],
    ["<p>x</p><br><p>y</p>", "x\n\ny"],
    ["<div style=\"visibility:hidden\">h<span style=\"visibility:visible\">v</span></div>", "v"],
    ["<label>a<input value=b></label>", "a"],
    ["<select><option>o1</option><option>o2</option></select>", "o1\no2"],
    ["text&nbsp;&nbsp;nbsp", "text  nbsp"],
    ["<div style=\"white-space:pre-line\">a  b\nc</div>", "a b\nc"],
    ["<div style=\"opacity:0\">t</div>u", "u"],
    ["<details><summary>s</summary>d</details>", "s\nd"],
    ["<div>one</div>\n\n<div>two</div>", "one\ntwo"],
    ["<span>in</span><p>block</p><span>line</span>", "in\nblock\nline"],
    ["<div style=\"display:inline-block\">ib</div><div style=\"display:flex\"><span>f1</span><span>f2</span></div>", "ib\nf1\nf2"],
    ["<table><tr><td>a</td></tr></table><span>after</span>", "a\nafter"],
    ["<div style=\"float:left\">fl</div>next", "fl\nnext"],
    ["<p>  spaced  <b> bold </b>  out  </p>", "spaced bold out"],
    ["<div id=h><span slot=s>slotted</span><span>unslotted</span></div><script>document.getElementById('h').attachShadow({mode:'open'}).innerHTML='<p>before <slot name=s></slot> after</p>'</script>", "before slotted after"],
    ["<h1>Title</h1>text<hr>more", "Title\ntext\nmore"],
    ["<div style=\"text-transform:uppercase\">up <span style=\"text-transform:none\">none</span></div>", "UP none"],
    ["<span style=\"position:absolute;left:-9999px\">offscreen</span>on", "on"],
    ["<img alt=pic>alt", "alt"],
    ["<noscript>ns</noscript>x", "x"],
    ["<textarea>ta</textarea>", "ta"],
    ["<button>btn</button><input type=submit value=sub>", "btn"],
    ["<span style=\"text-transform:capitalize\">don’t stop a_b x.y 1st ñu (paren) «quote»</span>", "Don’T Stop A_b X.Y 1st Ñu (Paren) «Quote»"],
    ["<div>one</div> &nbsp; <div>two</div>", "one\n  two"],
    ["<div>a</div>\n<span> </span>\n<div>b</div>", "a\nb"],
    ["<pre>\n\n  x</pre>", "  x"],
    ["<div style=\"white-space:pre\">   </div><div>after</div>", "   after"],
  ];

  test('rendered text matches chromedriver on a table of cases', async () => {
    const urls = RENDERED_TEXT.map(([html]) => pages.page(`<div id="case">${html}</div>`));
    const wrong: string[] = [];
    for (const [i, [html, expected]] of RENDERED_TEXT.entries()) {
      await s.navigate(urls[i]!);
      const got = await s.get(`/element/${await s.find('#case')}/text`);
      if (got !== expected) wrong.push(`${JSON.stringify(html)}: got ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
    }
    assert.deepEqual(wrong, []);
  });
});

describe('attributes, properties, CSS, tag name, rect', () => {
  before(async () => {
    await s.navigate(
      pages.page(`
      <input id="cb" type="checkbox" checked data-x="y" value="v">
      <input id="txt" value="initial">
      <p id="hid" hidden="hidden" class="c1 c2">hidden paragraph</p>
      <p id="red" style="color: red; display: inline-block">red</p>
      <svg id="svg" width="10" height="10"><rect id="svgrect" width="5" height="5" fill="blue"></rect><foreignObject id="fo"></foreignObject></svg>
      <div id="box" style="position:absolute; left:10px; top:2000px; width:50px; height:30px"></div>
    `),
    );
  });

  test('Get Element Attribute: values, and "true"/null for boolean attributes', async () => {
    const cb = await refOf('cb');
    assert.equal(await s.get(`/element/${cb}/attribute/data-x`), 'y');
    assert.equal(await s.get(`/element/${cb}/attribute/type`), 'checkbox');
    assert.equal(await s.get(`/element/${cb}/attribute/checked`), 'true');
    assert.equal(await s.get(`/element/${cb}/attribute/CHECKED`), 'true');
    assert.equal(await s.get(`/element/${cb}/attribute/disabled`), null);
    assert.equal(await s.get(`/element/${cb}/attribute/missing`), null);
    assert.equal(await s.get(`/element/${await refOf('hid')}/attribute/hidden`), 'true');
    assert.equal(await s.get(`/element/${await refOf('hid')}/attribute/class`), 'c1 c2');
    // The attribute is the markup, not the live state.
    await s.execute('document.getElementById("cb").checked = false; document.getElementById("txt").value = "typed"');
    assert.equal(await s.get(`/element/${cb}/attribute/checked`), 'true');
    assert.equal(await s.get(`/element/${await refOf('txt')}/attribute/value`), 'initial');
  });

  test('Get Element Property: the live IDL value, JSON cloned; missing is null', async () => {
    const cb = await refOf('cb');
    assert.equal(await s.get(`/element/${cb}/property/checked`), false);
    assert.equal(await s.get(`/element/${await refOf('txt')}/property/value`), 'typed');
    assert.equal(await s.get(`/element/${cb}/property/tagName`), 'INPUT');
    assert.equal(await s.get(`/element/${cb}/property/noSuchProperty`), null);
    assert.deepEqual(await s.get(`/element/${cb}/property/dataset`), { x: 'y' });
    assert.equal(await s.get(`/element/${await refOf('hid')}/property/className`), 'c1 c2');
    assert.equal(await s.get(`/element/${await refOf('hid')}/property/hidden`), true);
    assert.equal(await s.get(`/element/${cb}/property/hidden`), false);
    assert.deepEqual(await s.get(`/element/${cb}/property/parentElement`), { [ELEMENT]: (await s.execute('return document.body'))[ELEMENT] });
  });

  test('Get Element CSS Value: the computed value', async () => {
    const red = await refOf('red');
    assert.equal(await s.get(`/element/${red}/css/color`), 'rgb(255, 0, 0)');
    assert.equal(await s.get(`/element/${red}/css/display`), 'inline-block');
    assert.equal(await s.get(`/element/${await refOf('hid')}/css/display`), 'none');
    assert.equal(await s.get(`/element/${red}/css/no-such-property`), '');
    assert.equal(await s.get(`/element/${await refOf('svgrect')}/css/fill`), 'rgb(0, 0, 255)');
  });

  test('Get Element Tag Name: lower case for HTML, the qualified name otherwise', async () => {
    assert.equal(await s.get(`/element/${await refOf('cb')}/name`), 'input');
    assert.equal(await s.get(`/element/${await refOf('red')}/name`), 'p');
    assert.equal(await s.get(`/element/${await refOf('svg')}/name`), 'svg');
    assert.equal(await s.get(`/element/${await refOf('fo')}/name`), 'foreignObject');
  });

  test('Get Element Rect: document coordinates, whatever the scroll position', async () => {
    const box = await refOf('box');
    assert.deepEqual(await s.get(`/element/${box}/rect`), { x: 10, y: 2000, width: 50, height: 30 });
    await s.execute('window.scrollTo(0, 1000)');
    assert.equal(await s.execute('return window.scrollY'), 1000);
    assert.deepEqual(await s.get(`/element/${box}/rect`), { x: 10, y: 2000, width: 50, height: 30 });
  });
});

describe('enabled, selected, active element', () => {
  before(async () => {
    await s.navigate(
      pages.page(`
      <input id="en"><input id="dis" disabled><button id="btn-dis" disabled>b</button>
      <fieldset disabled>
        <legend><input id="in-legend"></legend>
        <input id="in-fieldset">
        <legend><input id="in-second-legend"></legend>
      </fieldset>
      <select id="sel">
        <option id="o1">a</option><option id="o2" selected>b</option>
        <optgroup id="og" disabled><option id="o3">c</option></optgroup>
      </select>
      <select id="sel-dis" disabled><option id="o4">d</option></select>
      <input type="radio" name="r" id="r1" checked><input type="radio" name="r" id="r2">
      <input type="checkbox" id="cb">
      <p id="para" disabled>text</p>
    `),
    );
  });

  const state = async (domId: string, what: 'enabled' | 'selected') => s.get(`/element/${await refOf(domId)}/${what}`);

  test('Is Element Enabled: disabled controls, fieldsets (not their first legend), optgroups, selects', async () => {
    assert.equal(await state('en', 'enabled'), true);
    assert.equal(await state('dis', 'enabled'), false);
    assert.equal(await state('btn-dis', 'enabled'), false);
    assert.equal(await state('in-legend', 'enabled'), true);
    assert.equal(await state('in-fieldset', 'enabled'), false);
    assert.equal(await state('in-second-legend', 'enabled'), false);
    assert.equal(await state('o1', 'enabled'), true);
    assert.equal(await state('og', 'enabled'), false);
    assert.equal(await state('o3', 'enabled'), false);
    assert.equal(await state('sel-dis', 'enabled'), false);
    assert.equal(await state('o4', 'enabled'), false);
    // Not a form control: a disabled attribute means nothing.
    assert.equal(await state('para', 'enabled'), true);
  });

  test('Is Element Selected: checkedness and selectedness; false for anything else', async () => {
    assert.equal(await state('o1', 'selected'), false);
    assert.equal(await state('o2', 'selected'), true);
    assert.equal(await state('r1', 'selected'), true);
    assert.equal(await state('r2', 'selected'), false);
    assert.equal(await state('cb', 'selected'), false);
    assert.equal(await state('para', 'selected'), false);
    await s.execute('document.getElementById("r2").checked = true; document.getElementById("cb").checked = true; document.getElementById("sel").value = "a"');
    assert.equal(await state('r1', 'selected'), false);
    assert.equal(await state('r2', 'selected'), true);
    assert.equal(await state('cb', 'selected'), true);
    assert.equal(await state('o1', 'selected'), true);
    assert.equal(await state('o2', 'selected'), false);
  });

  test('Get Active Element: the focused element, else the body', async () => {
    assert.deepEqual(await s.get('/element/active'), await s.execute('return document.body'));
    await s.execute('document.getElementById("en").focus()');
    assert.deepEqual(await s.get('/element/active'), { [ELEMENT]: await refOf('en') });
  });

  test('Is Element Enabled: false for any element of an XML document; XHTML form controls as in HTML', async () => {
    await s.navigate('data:text/xml,' + encodeURIComponent('<note><input id="x"/></note>'));
    for (const selector of ['note', 'input']) assert.equal(await s.get(`/element/${await findOne('css selector', selector)}/enabled`), false, selector);
    const xhtml = '<html xmlns="http://www.w3.org/1999/xhtml"><body><input id="on"/><input id="off" disabled="disabled"/></body></html>';
    await s.navigate('data:application/xhtml+xml,' + encodeURIComponent(xhtml));
    assert.equal(await state('on', 'enabled'), true);
    assert.equal(await state('off', 'enabled'), false);
  });
});

// Get Computed Role and Get Computed Label (spec §12.4.9-10): test/integration/document.test.ts.
