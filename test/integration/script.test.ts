// Execute Script and Execute Async Script (spec §13.2) against real Chromium through the server.
import { after, before, describe } from 'node:test';
import { test } from '../helpers/gaps.ts';
import assert from 'node:assert/strict';
import type { TestGateway } from '../helpers/gateway.ts';
import { closeSessionFixture, openSessionFixture } from '../helpers/fixture.ts';
import { ELEMENT, elementRef, type Session } from '../helpers/client.ts';
import type { PageServer } from '../helpers/pages.ts';

let gw: TestGateway;
let pages: PageServer;
let s: Session;

before(async () => {
  ({ gw, pages, s } = await openSessionFixture());
});

after(() => closeSessionFixture({ gw, pages, s }));

describe('execute sync', () => {
  test('returns primitives, arrays, objects, dates and null for undefined', async () => {
    await s.navigate(pages.page('<p id="a">hello</p>'));
    // Spec "internal JSON clone": only an own toJSON is called, so a Date is an object with no
    // enumerable properties, {} (chromedriver answers the same).
    assert.deepEqual(await s.execute('return [1, "two", true, null, undefined, {x: {y: [3]}}, new Date(0), {toJSON() { return "own" }}]'), [
      1,
      'two',
      true,
      null,
      null,
      { x: { y: [3] } },
      {},
      'own',
    ]);
    assert.equal(await s.execute('return undefined'), null);
    // Inherited enumerable properties count too ("for each enumerable property in value").
    assert.deepEqual(await s.execute('return Object.create({ inherited: 1 })'), { inherited: 1 });
  });

  test('the body is an async function body: await works in both commands', async () => {
    assert.equal(await s.execute('const v = await new Promise((r) => setTimeout(() => r(6), 10)); return v + 1'), 7);
    assert.equal(await s.post('/execute/async', { script: 'const done = arguments[0]; await null; done(8)', args: [] }), 8);
    // A rejection after an await is a javascript error, as a throw is.
    await s.fails('POST', '/execute/sync', { script: 'await null; throw new Error("late")', args: [] }, 'javascript error', 500);
    await s.fails('POST', '/execute/async', { script: 'await null; throw new Error("late")', args: [] }, 'javascript error', 500);
    // Without await, a value that is not a thenable does not settle an async script (spec).
    await s.post('/timeouts', { script: 300 });
    try {
      await s.fails('POST', '/execute/async', { script: 'return 9', args: [] }, 'script timeout', 500);
    } finally {
      await s.post('/timeouts', { script: 30000 });
    }
  });

  test('document.all and a FileList are collections; a File is cloned with its properties', async () => {
    await s.navigate(pages.page('<input type="file" id="f" multiple><p id="a">hello</p>'));
    const all = await s.execute('return document.all');
    assert.equal(all.length, await s.execute('return document.all.length'));
    assert.ok(all.every((item: Record<string, string>) => typeof item[ELEMENT] === 'string'));
    const files = await s.execute(`const transfer = new DataTransfer();
      transfer.items.add(new File(['ab'], 'a.txt', { type: 'text/plain' }));
      transfer.items.add(new File(['c'], 'b.txt'));
      const input = document.getElementById('f');
      input.files = transfer.files;
      return input.files`);
    assert.equal(files.length, 2);
    assert.deepEqual(
      files.map(({ name, size, type }: { name: string; size: number; type: string }) => ({ name, size, type })),
      [
        { name: 'a.txt', size: 2, type: 'text/plain' },
        { name: 'b.txt', size: 1, type: '' },
      ],
    );
  });

  test('passes arguments and element references both ways', async () => {
    await s.navigate(pages.page('<p id="a">hello</p><p id="b">world</p>'));
    const a = await s.execute('return document.getElementById("a")');
    assert.equal(typeof a[ELEMENT], 'string');
    // The same node always gets the same reference.
    assert.deepEqual(await s.execute('return document.querySelector("#a")'), a);
    const nested = await s.execute('return {list: [arguments[0].textContent, arguments[1].n * 2], el: arguments[0]}', [a, { n: 21 }]);
    assert.deepEqual(nested, { list: ['hello', 42], el: a });
    const all = await s.execute('return document.querySelectorAll("p")');
    assert.equal(all.length, 2);
    assert.deepEqual(all[0], a);
    // Extra keys beside the W3C key (a legacy ELEMENT) are ignored.
    assert.equal(await s.execute('return arguments[0].id', [{ ...elementRef(a[ELEMENT]), ELEMENT: 'junk' }]), 'a');
  });

  test('awaits a returned promise', async () => {
    assert.equal(await s.execute('return new Promise(r => setTimeout(() => r("late"), 30))'), 'late');
  });

  test('a throw is javascript error with its message', async () => {
    const e = await s.fails('POST', '/execute/sync', { script: 'throw new TypeError("boom")', args: [] }, 'javascript error', 500);
    assert.match(e.message, /TypeError: boom/);
    await s.fails('POST', '/execute/sync', { script: 'return new Promise((_, no) => no(new Error("nope")))', args: [] }, 'javascript error', 500);
    await s.fails('POST', '/execute/sync', { script: 'return {{', args: [] }, 'javascript error', 500);
  });

  test('a cyclic result is javascript error', async () => {
    const e = await s.fails('POST', '/execute/sync', { script: 'const a = {}; a.self = a; return a', args: [] }, 'javascript error', 500);
    assert.match(e.message, /cyclic/);
  });

  test('runs with the page global as this, in sloppy mode', async () => {
    assert.equal(await s.execute('return this === window'), true);
    assert.equal(await s.execute('undeclared_global = 5; return window.undeclared_global'), 5);
  });

  test('element references: unknown is no such element, after navigation stale', async () => {
    await s.navigate(pages.page('<p id="a">x</p>'));
    const a = await s.execute('return document.getElementById("a")');
    await s.fails('POST', '/execute/sync', { script: 'return 1', args: [elementRef('no-such-id')] }, 'no such element', 404);
    await s.execute('arguments[0].remove()', [a]);
    await s.fails('POST', '/execute/sync', { script: 'return arguments[0]', args: [a] }, 'stale element reference', 404);
    const b = await s.execute('return document.body');
    await s.navigate(pages.page('<p>other</p>'));
    await s.fails('POST', '/execute/sync', { script: 'return arguments[0]', args: [b] }, 'stale element reference', 404);
  });

  test('over the script timeout is script timeout; null timeout waits', async () => {
    await s.post('/timeouts', { script: 300 });
    await s.fails('POST', '/execute/sync', { script: 'return new Promise(() => {})', args: [] }, 'script timeout', 500);
    await s.post('/timeouts', { script: null });
    assert.deepEqual(await s.get('/timeouts'), { script: null, pageLoad: 300000, implicit: 0 });
    assert.equal(await s.execute('return new Promise(r => setTimeout(() => r(7), 400))'), 7);
    await s.post('/timeouts', { script: 30000 });
  });

  test('bad parameters are invalid argument', async () => {
    await s.fails('POST', '/execute/sync', { script: 5, args: [] }, 'invalid argument', 400);
    await s.fails('POST', '/execute/sync', { script: 'return 1' }, 'invalid argument', 400);
    await s.fails('POST', '/execute/sync', { script: 'return 1', args: {} }, 'invalid argument', 400);
  });
});

describe('execute async', () => {
  test('the last argument resolves the script', async () => {
    assert.equal(await s.post('/execute/async', { script: 'const done = arguments[1]; setTimeout(() => done(arguments[0] * 2), 20)', args: [21] }), 42);
  });

  test('a returned promise settles it too; a throw is javascript error', async () => {
    assert.equal(await s.post('/execute/async', { script: 'return Promise.resolve("p")', args: [] }), 'p');
    await s.fails('POST', '/execute/async', { script: 'throw new Error("x")', args: [] }, 'javascript error', 500);
  });

  test('never calling back is script timeout', async () => {
    await s.post('/timeouts', { script: 200 });
    await s.fails('POST', '/execute/async', { script: '', args: [] }, 'script timeout', 500);
    await s.post('/timeouts', { script: 30000 });
  });
});

describe('user activation', () => {
  test('reads (find, property, text, title) give the page no user activation', async () => {
    // A property whose getter reports, at the moment it is read, whether the page was ever activated.
    await s.navigate(
      pages.page(
        `<p id="a">text</p><script>
          Object.defineProperty(document.getElementById('a'), 'activated', { get: () => navigator.userActivation.hasBeenActive });
        </script>`,
        'activation',
      ),
    );
    const a = await s.find('#a');
    await s.post('/elements', { using: 'css selector', value: 'p' });
    assert.equal(await s.get(`/element/${a}/text`), 'text');
    assert.equal(await s.get('/title'), 'activation');
    assert.equal(await s.get(`/element/${a}/property/activated`), false);
  });
});
