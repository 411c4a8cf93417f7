// Element Click, Element Clear and Element Send Keys (spec §12.5) against real Chromium through
// the server.
import { after, before, describe } from 'node:test';
import { test } from '../helpers/gaps.ts';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { ELEMENT, type Session } from '../helpers/client.ts';
import { eventually, leftoverBrowsers, startPageServer, type PageServer } from '../helpers/pages.ts';

let gw: TestGateway;
let pages: PageServer;
let s: Session;
let dir: string;

before(async () => {
  [gw, pages, dir] = await Promise.all([startGateway(), startPageServer(), mkdtemp(join(tmpdir(), 'wdgate-interaction-'))]);
  s = await gw.client.newSession();
});

after(async () => {
  await s?.end().catch(() => {});
  const pid = gw.process.pid!;
  await gw?.stop();
  await pages?.close();
  await rm(dir, { recursive: true, force: true });
  assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
});

/** An element reference by CSS selector (through Execute Script: no dependence on Find Element). */
async function el(css: string): Promise<string> {
  const ref = await s.execute('return document.querySelector(arguments[0])', [css]);
  assert.ok(ref?.[ELEMENT], `no element ${css}`);
  return ref[ELEMENT];
}

const click = async (css: string) => s.post(`/element/${await el(css)}/click`);
const clear = async (css: string) => s.post(`/element/${await el(css)}/clear`);
const sendKeys = async (css: string, text: string) => s.post(`/element/${await el(css)}/value`, { text });
const value = (css: string) => s.execute('return document.querySelector(arguments[0]).value', [css]);

// Records events on the page in window.log: "type:target id".
const LOG = `<script>
window.log = [];
for (const type of ['click', 'input', 'change', 'focus', 'blur'])
  document.addEventListener(type, (e) => log.push(type + ':' + (e.target.id || e.target.localName) + (e.isTrusted ? '' : '(untrusted)')), true);
</script>`;
const log = () => s.execute('return window.log');

describe('element click', () => {
  test('clicks a button with trusted events; its handler runs', async () => {
    await s.navigate(pages.page(`<button id="b" onclick="window.count = (window.count || 0) + 1">go</button>${LOG}`));
    assert.equal(await click('#b'), null);
    await click('#b');
    assert.equal(await s.execute('return window.count'), 2);
    assert.deepEqual(await log(), ['focus:b', 'click:b', 'click:b']);
  });

  test('clicking a link navigates; the next commands see the new page', async () => {
    const second = pages.page('<p>arrived</p>', 'second page');
    await s.navigate(pages.page(`<a id="a" href="${second}">next</a>`));
    await click('#a');
    assert.equal(await s.get('/url'), second);
    assert.equal(await s.get('/title'), 'second page');
  });

  test('an element below the fold is scrolled into view and clicked', async () => {
    await s.navigate(pages.page('<div style="height: 5000px"></div><button id="b" onclick="window.clicked = true">low</button>'));
    assert.equal(await s.execute('return window.scrollY'), 0);
    await click('#b');
    assert.equal(await s.execute('return window.clicked'), true);
    assert.ok((await s.execute('return window.scrollY')) > 0);
    const inView = await s.execute('const r = document.getElementById("b").getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight');
    assert.equal(inView, true);
  });

  test('an element inside a scrolled container is scrolled into view', async () => {
    await s.navigate(
      pages.page('<div style="height: 100px; overflow: auto"><div style="height: 2000px"></div><button id="b" onclick="window.clicked = true">x</button></div>'),
    );
    await click('#b');
    assert.equal(await s.execute('return window.clicked'), true);
  });

  test('an element partly in view is clicked where it is: the page does not scroll', async () => {
    // Spec "scroll into view" runs only for an element not in view; part of it is enough.
    await s.navigate(
      pages.page('<div style="height: calc(100vh - 40px)"></div><button id="b" style="height: 100px" onclick="window.clicked = true">partly</button><div style="height: 2000px"></div>'),
    );
    await click('#b');
    assert.equal(await s.execute('return window.clicked'), true);
    assert.equal(await s.execute('return window.scrollY'), 0);
  });

  test('an element an ancestor hides with overflow: hidden is element not interactable, and stays hidden', async () => {
    await s.navigate(
      pages.page('<div id="clip" style="overflow: hidden; height: 50px; width: 200px"><div style="height: 100px"></div><button id="b" onclick="window.clicked = true">hidden</button></div>'),
    );
    const e = await s.fails('POST', `/element/${await el('#b')}/click`, {}, 'element not interactable', 400);
    assert.match(e.message, /overflow/);
    assert.deepEqual(await s.execute('return [window.clicked ?? false, document.getElementById("clip").scrollTop]'), [false, 0]);
  });

  test('a link whose click closes its own window answers success; the handle is gone', async () => {
    const closer = pages.page('<a id="close" href="#" onclick="window.close(); return false">close</a>', 'closer');
    await s.navigate(pages.page('<p>opener</p>'));
    const opener = await s.get('/window');
    // Only a window a script opened may be closed by script.
    await s.execute('window.open(arguments[0])', [closer]);
    await eventually(async () => (await s.get('/window/handles')).length === 2, 'the opened window did not appear');
    const opened = (await s.get('/window/handles')).find((h: string) => h !== opener);
    await s.post('/window', { handle: opened });
    await eventually(async () => (await s.get('/title')) === 'closer', 'the opened window did not load');
    assert.equal(await click('#close'), null);
    await eventually(async () => !(await s.get('/window/handles')).includes(opened), 'the window did not close');
    await s.fails('GET', '/title', undefined, 'no such window', 404);
    await s.post('/window', { handle: opener });
  });

  test('an element under an overlay is element click intercepted, naming the overlay', async () => {
    await s.navigate(
      pages.page(
        '<button id="b" onclick="window.clicked = true">under</button><div id="overlay" class="modal-backdrop" style="position: fixed; inset: 0; background: rgba(0,0,0,.3)"></div>',
      ),
    );
    const e = await s.fails('POST', `/element/${await el('#b')}/click`, {}, 'element click intercepted', 400);
    assert.match(e.message, /Element <button id="b"[^>]*> is not clickable at point \(\d+, \d+\)\. Other element would receive the click: <div id="overlay" class="modal-backdrop"/);
    assert.equal(await s.execute('return window.clicked'), null);
  });

  test('a control covered by its own label is clicked through the label (as chromedriver)', async () => {
    await s.navigate(
      pages.page(
        '<input id="c" type="checkbox" style="position: absolute; left: 0; top: 0; margin: 0">' +
          '<label for="c" style="position: absolute; left: 0; top: 0; width: 60px; height: 60px; background: white">styled</label>',
      ),
    );
    await click('#c');
    assert.equal(await s.execute('return document.getElementById("c").checked'), true);
  });

  test('a click on a descendant of the element counts as a click on it', async () => {
    await s.navigate(pages.page('<button id="b" onclick="window.clicked = true"><span style="padding: 20px">inner</span></button>'));
    await click('#b');
    assert.equal(await s.execute('return window.clicked'), true);
  });

  test('a hidden, zero-size or unreachable element is element not interactable', async () => {
    await s.navigate(
      pages.page(
        '<button id="none" style="display: none">x</button><button id="invisible" style="visibility: hidden">x</button>' +
          '<div id="empty"></div><button id="away" style="position: absolute; left: -9999px">x</button>',
      ),
    );
    const none = await s.fails('POST', `/element/${await el('#none')}/click`, {}, 'element not interactable', 400);
    assert.match(none.message, /not displayed/);
    const invisible = await s.fails('POST', `/element/${await el('#invisible')}/click`, {}, 'element not interactable', 400);
    assert.match(invisible.message, /visibility: hidden/);
    const empty = await s.fails('POST', `/element/${await el('#empty')}/click`, {}, 'element not interactable', 400);
    assert.match(empty.message, /zero size/);
    const away = await s.fails('POST', `/element/${await el('#away')}/click`, {}, 'element not interactable', 400);
    assert.match(away.message, /out of the viewport/);
  });

  test('clicking an <option> selects it and fires input and change on its select', async () => {
    await s.navigate(pages.page(`<select id="s"><option id="a" value="a">A</option><option id="b" value="b">B</option></select>${LOG}`));
    await click('#b');
    assert.equal(await value('#s'), 'b');
    const events = await log();
    assert.ok(events.includes('input:s(untrusted)') && events.includes('change:s(untrusted)'), JSON.stringify(events));
    // Clicking the selected option again changes nothing.
    await s.execute('window.log = []');
    await click('#b');
    assert.equal((await log()).filter((e: string) => e.startsWith('change')).length, 0);
  });

  test('clicking an <option> of a multiple select toggles it', async () => {
    await s.navigate(pages.page('<select id="s" multiple><option id="a" selected>A</option><option id="b">B</option></select>'));
    await click('#b');
    await click('#a');
    assert.deepEqual(await s.execute('return [...document.getElementById("s").selectedOptions].map(o => o.id)'), ['b']);
  });

  test('clicking a file input is invalid argument', async () => {
    await s.navigate(pages.page('<input id="f" type="file">'));
    await s.fails('POST', `/element/${await el('#f')}/click`, {}, 'invalid argument', 400);
  });

  test('unknown and stale references', async () => {
    await s.navigate(pages.page('<button id="b">x</button>'));
    await s.fails('POST', '/element/nope/click', {}, 'no such element', 404);
    const b = await el('#b');
    await s.execute('document.getElementById("b").remove()');
    await s.fails('POST', `/element/${b}/click`, {}, 'stale element reference', 404);
  });
});

describe('element clear', () => {
  test('clears input, textarea and contenteditable: focus, change, blur (no change for contenteditable)', async () => {
    await s.navigate(
      pages.page(`<input id="i" value="abc"><textarea id="t">text</textarea><div id="c" contenteditable>some <b>rich</b> text</div>${LOG}`),
    );
    assert.equal(await clear('#i'), null);
    await clear('#t');
    await clear('#c');
    assert.equal(await value('#i'), '');
    assert.equal(await value('#t'), '');
    assert.equal(await s.execute('return document.getElementById("c").innerHTML'), '');
    // Spec: the focusing steps, the clear algorithm, the unfocusing steps (WPT's expectations;
    // chromedriver fires the same).
    assert.deepEqual(await log(), [
      'focus:i', 'change:i(untrusted)', 'blur:i',
      'focus:t', 'change:t(untrusted)', 'blur:t',
      'focus:c', 'blur:c',
    ]);
  });

  test('an empty control or contenteditable is left alone: no event at all', async () => {
    await s.navigate(pages.page(`<input id="i"><textarea id="t"></textarea><div id="c" contenteditable></div><input id="f" type="file">${LOG}`));
    for (const css of ['#i', '#t', '#c', '#f']) assert.equal(await clear(css), null);
    assert.deepEqual(await log(), []);
  });

  test('an element with no size is element not interactable', async () => {
    await s.navigate(pages.page('<input id="z" value="x" style="width: 0; height: 0; border: 0; padding: 0">'));
    await s.fails('POST', `/element/${await el('#z')}/clear`, {}, 'element not interactable', 400);
    assert.equal(await value('#z'), 'x');
  });

  test('an element that is not editable is invalid element state', async () => {
    await s.navigate(pages.page('<div id="d">text</div><input id="cb" type="checkbox" checked><button id="btn">b</button>'));
    await s.fails('POST', `/element/${await el('#d')}/clear`, {}, 'invalid element state', 400);
    await s.fails('POST', `/element/${await el('#cb')}/clear`, {}, 'invalid element state', 400);
    await s.fails('POST', `/element/${await el('#btn')}/clear`, {}, 'invalid element state', 400);
  });

  test('disabled and readonly controls are invalid element state, and keep their value', async () => {
    await s.navigate(
      pages.page(`<input id="dis" value="x" disabled><textarea id="ro" readonly>y</textarea><fieldset disabled><input id="fs" value="z"></fieldset>
        <input id="range" type="range" readonly><input id="color" type="color" readonly><input id="file" type="file" readonly>`),
    );
    // readonly counts on range, color and file inputs too (chromedriver does the same).
    for (const css of ['#range', '#color', '#file']) await s.fails('POST', `/element/${await el(css)}/clear`, {}, 'invalid element state', 400);
    await s.fails('POST', `/element/${await el('#dis')}/clear`, {}, 'invalid element state', 400);
    await s.fails('POST', `/element/${await el('#ro')}/clear`, {}, 'invalid element state', 400);
    await s.fails('POST', `/element/${await el('#fs')}/clear`, {}, 'invalid element state', 400);
    assert.equal(await value('#dis'), 'x');
    assert.equal(await value('#ro'), 'y');
  });

  test('a hidden input is element not interactable', async () => {
    await s.navigate(pages.page('<input id="h" value="x" style="display: none">'));
    await s.fails('POST', `/element/${await el('#h')}/clear`, {}, 'element not interactable', 400);
    assert.equal(await value('#h'), 'x');
  });
});

describe('element send keys', () => {
  test('appends to the existing value', async () => {
    await s.navigate(pages.page('<input id="i" value="abc"><textarea id="t">line</textarea>'));
    assert.equal(await sendKeys('#i', 'def'), null);
    assert.equal(await value('#i'), 'abcdef');
    await sendKeys('#t', ' more\nnext');
    assert.equal(await value('#t'), 'line more\nnext');
  });

  test('into a focused element the caret stays where it is (spec: only an unfocused element gets the caret at the end)', async () => {
    await s.navigate(pages.page('<input id="i" value="abc">'));
    await s.execute('const i = document.getElementById("i"); i.focus(); i.setSelectionRange(0, 0)');
    await sendKeys('#i', 'X');
    assert.equal(await value('#i'), 'Xabc');
  });

  test('appends after the content of a contenteditable element', async () => {
    await s.navigate(pages.page('<div id="c" contenteditable>hello</div>'));
    await sendKeys('#c', ' world');
    assert.equal(await s.execute('return document.getElementById("c").textContent'), 'hello world');
  });

  test('Backspace, ArrowLeft and Delete edit the text', async () => {
    await s.navigate(pages.page('<input id="i">'));
    await sendKeys('#i', 'abx\uE003c');
    assert.equal(await value('#i'), 'abc');
    await s.execute('document.getElementById("i").blur()');
    // Unfocused: the caret goes to the end first. abc| → a|bc → aX|bc → |aXbc → |Xbc
    await sendKeys('#i', '\uE012\uE012X\uE011\uE017');
    assert.equal(await value('#i'), 'Xbc');
  });

  test('Enter submits the form; the next commands see the new page', async () => {
    const target = pages.page('<p>results</p>', 'results');
    await s.navigate(pages.page(`<form action="${target}"><input id="q" name="q"></form>`));
    await sendKeys('#q', 'hello\uE007');
    assert.equal(await s.get('/url'), `${target}?q=hello`);
    assert.equal(await s.get('/title'), 'results');
  });

  test('Tab moves the focus to the next input', async () => {
    await s.navigate(pages.page('<input id="first"><input id="second">'));
    await sendKeys('#first', 'a\uE004b');
    assert.equal(await s.execute('return document.activeElement.id'), 'second');
    assert.equal(await value('#first'), 'a');
    assert.equal(await value('#second'), 'b');
  });

  test('Shift is sticky until the NULL key; pressing it again releases it', async () => {
    await s.navigate(pages.page('<input id="i"><input id="j">'));
    await sendKeys('#i', 'a\uE008bc1\uE000d');
    assert.equal(await value('#i'), 'aBC!d');
    await sendKeys('#j', '\uE008x\uE008y\uE050z');
    assert.equal(await value('#j'), 'XyZ');
  });

  test('modifiers are released at the end of the command', async () => {
    await s.navigate(pages.page('<input id="i">'));
    await sendKeys('#i', '\uE008a');
    await sendKeys('#i', 'b');
    assert.equal(await value('#i'), 'Ab');
  });

  test('Control+a selects all, then typing replaces it', async () => {
    await s.navigate(pages.page('<input id="i" value="old text">'));
    await sendKeys('#i', '\uE009a\uE000new');
    assert.equal(await value('#i'), 'new');
  });

  test('text outside the US layout arrives exactly', async () => {
    await s.navigate(pages.page('<input id="i"><textarea id="t"></textarea>'));
    const text = 'héllo 日本語 👍🏽 Ñ e\u0301 ß';
    await sendKeys('#i', text);
    assert.equal(await value('#i'), text);
    await sendKeys('#t', 'Ünïcode\nzweite Zeile');
    assert.equal(await value('#t'), 'Ünïcode\nzweite Zeile');
  });

  test('keydown events carry the W3C key values, trusted', async () => {
    await s.navigate(
      pages.page(`<input id="i"><script>
        window.keys = [];
        document.getElementById('i').addEventListener('keydown', (e) => keys.push(e.key + (e.isTrusted ? '' : '?')));
      </script>`),
    );
    await sendKeys('#i', 'a\uE003\uE012\uE00DA\uE008b\uE000\uE00C\uE031\uE01A\uE040');
    assert.deepEqual(await s.execute('return window.keys'), ['a', 'Backspace', 'ArrowLeft', ' ', 'A', 'Shift', 'B', 'Escape', 'F1', '0', 'ZenkakuHankaku']);
    // Named keys are key presses, never text.
    assert.equal(await value('#i'), ' AB0');
  });

  test('waits up to the implicit wait timeout for the element to become interactable', async () => {
    await s.navigate(pages.page('<input id="i" style="display: none"><script>setTimeout(() => document.getElementById("i").style.display = "", 200)</script>'));
    const i = await el('#i');
    await s.post('/timeouts', { implicit: 10_000 });
    try {
      await s.post(`/element/${i}/value`, { text: 'shown' });
    } finally {
      await s.post('/timeouts', { implicit: 0 });
    }
    assert.equal(await value('#i'), 'shown');
  });

  test('keys sent to the document element reach the page', async () => {
    await s.navigate(pages.page('<p>page</p><script>window.keys = ""; document.documentElement.addEventListener("keydown", (e) => keys += e.key)</script>'));
    assert.equal(await sendKeys('html', 'ab'), null);
    assert.equal(await s.execute('return window.keys'), 'ab');
  });

  test('an option of a tall select that stays out of view takes keys through its select', async () => {
    // WPT: the select is scrolled into view and focused; the option itself may stay below the fold.
    const options = Array.from({ length: 60 }, (_, i) => `<option ${i === 50 ? 'id="far"' : ''}>o${i}</option>`).join('');
    await s.navigate(pages.page(`<div style="height: 100vh"></div><select id="s" multiple style="height: 300vh">${options}</select>`));
    assert.equal(await sendKeys('#far', 'o'), null);
    assert.equal(await s.execute('return document.activeElement.id'), 's');
  });

  test('a hidden or disabled element is element not interactable', async () => {
    await s.navigate(pages.page('<input id="h" style="display: none"><input id="d" disabled><div id="plain">text</div>'));
    await s.fails('POST', `/element/${await el('#h')}/value`, { text: 'x' }, 'element not interactable', 400);
    await s.fails('POST', `/element/${await el('#d')}/value`, { text: 'x' }, 'element not interactable', 400);
    // Not focusable: the keys would go nowhere.
    await s.fails('POST', `/element/${await el('#plain')}/value`, { text: 'x' }, 'element not interactable', 400);
  });

  test('text must be a string; Selenium\'s extra value array is ignored', async () => {
    await s.navigate(pages.page('<input id="i">'));
    const i = await el('#i');
    await s.fails('POST', `/element/${i}/value`, { text: 5 }, 'invalid argument', 400);
    await s.fails('POST', `/element/${i}/value`, { value: ['a'] }, 'invalid argument', 400);
    await s.post(`/element/${i}/value`, { text: 'ok', value: ['o', 'k'] });
    assert.equal(await value('#i'), 'ok');
  });

  test('a color input (non-typeable) gets its value set', async () => {
    await s.navigate(pages.page(`<input id="c" type="color">${LOG}`));
    await sendKeys('#c', '#ff8800');
    assert.equal(await value('#c'), '#ff8800');
    assert.ok((await log()).includes('change:c(untrusted)'));
  });

  test('date and time inputs take a value string, or typed segments', async () => {
    const fields = [
      ['date', '2017-12-25'],
      ['datetime-local', '2017-12-26T19:48'],
      ['month', '2017-11'],
      ['time', '19:48'],
      ['week', '2017-W52'],
      ['range', '49'],
    ];
    await s.navigate(pages.page(fields.map(([type]) => `<input id="${type}" type="${type}">`).join('') + LOG));
    for (const [type, text] of fields) {
      await sendKeys(`#${type}`, text!);
      assert.equal(await value(`#${type}`), text, type);
    }
    assert.ok((await log()).includes('change:date(untrusted)'));
    // What Selenium users type into Chromium's date field: its segments, in the locale's order.
    await s.navigate(pages.page('<input id="d" type="date" lang="en-US">'));
    await sendKeys('#d', '12252017');
    assert.equal(await value('#d'), '2017-12-25');
  });

  test('a file input gets the file and fires input and change', async () => {
    const file = join(dir, 'upload.txt');
    await writeFile(file, 'contents');
    await s.navigate(pages.page(`<input id="f" type="file" style="display: none">${LOG}`));
    // Hidden file inputs are allowed (strictFileInteractability is off).
    await sendKeys('#f', file);
    assert.deepEqual(await s.execute('const f = document.getElementById("f").files; return [f.length, f[0].name, f[0].size]'), [1, 'upload.txt', 8]);
    const events: string[] = await log();
    assert.ok(events.includes('input:f') && events.includes('change:f'), JSON.stringify(events));
  });

  test('several files need the multiple attribute', async () => {
    const a = join(dir, 'a.txt');
    const b = join(dir, 'b.txt');
    await Promise.all([writeFile(a, 'a'), writeFile(b, 'b')]);
    await s.navigate(pages.page('<input id="one" type="file"><input id="many" type="file" multiple>'));
    await s.fails('POST', `/element/${await el('#one')}/value`, { text: `${a}\n${b}` }, 'invalid argument', 400);
    assert.equal(await s.execute('return document.getElementById("one").files.length'), 0);
    await sendKeys('#many', `${a}\n${b}`);
    assert.deepEqual(await s.execute('return [...document.getElementById("many").files].map(f => f.name)'), ['a.txt', 'b.txt']);
  });

  test('a multiple file input appends: sending twice selects all the files', async () => {
    const a = join(dir, 'first.txt');
    const b = join(dir, 'second.txt');
    await Promise.all([writeFile(a, 'a'), writeFile(b, 'bb')]);
    await s.navigate(
      pages.page(`<input id="many" type="file" multiple><script>
        window.seen = [];
        document.getElementById('many').addEventListener('change', (e) => seen.push([...e.target.files].map((f) => f.name)));
      </script>`),
    );
    await sendKeys('#many', a);
    await sendKeys('#many', b);
    assert.deepEqual(await s.execute('return [...document.getElementById("many").files].map(f => f.name)'), ['first.txt', 'second.txt']);
    // The page's own change listener already sees the whole selection.
    assert.deepEqual(await s.execute('return window.seen'), [['first.txt'], ['first.txt', 'second.txt']]);
  });

  test('a file that does not exist is invalid argument', async () => {
    await s.navigate(pages.page('<input id="f" type="file">'));
    const e = await s.fails('POST', `/element/${await el('#f')}/value`, { text: join(dir, 'missing.txt') }, 'invalid argument', 400);
    assert.match(e.message, /missing\.txt/);
    await s.fails('POST', `/element/${await el('#f')}/value`, { text: '' }, 'invalid argument', 400);
    assert.equal(await s.execute('return document.getElementById("f").files.length'), 0);
  });
});

describe('strictFileInteractability', () => {
  test('a hidden file input is element not interactable', async () => {
    const strict = await gw.client.newSession({ strictFileInteractability: true });
    try {
      const file = join(dir, 'strict.txt');
      await writeFile(file, 'x');
      await strict.navigate(pages.page('<input id="f" type="file" style="display: none"><input id="v" type="file">'));
      const hidden = (await strict.execute('return document.getElementById("f")'))[ELEMENT];
      await strict.fails('POST', `/element/${hidden}/value`, { text: file }, 'element not interactable', 400);
      const visible = (await strict.execute('return document.getElementById("v")'))[ELEMENT];
      await strict.post(`/element/${visible}/value`, { text: file });
      assert.equal(await strict.execute('return document.getElementById("v").files[0].name'), 'strict.txt');
    } finally {
      await strict.end();
    }
  });
});
