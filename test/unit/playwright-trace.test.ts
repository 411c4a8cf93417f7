// A wdgate trace exported as a Playwright trace (src/trace/playwright/): the HTML of a snapshot as
// Playwright's node tree, and the events its viewer reads (format version 8). That Playwright's own
// viewer opens the export is test/integration/trace-viewer.test.ts's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { htmlToNodes } from '../../src/trace/playwright/html-nodes.ts';
import { imageSize, toPlaywrightTrace } from '../../src/trace/playwright/export.ts';

test('serialized HTML as a node tree: attributes and character references decoded, raw text kept, void elements empty, comments left out', () => {
  const { doctype, root } = htmlToNodes(
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><style>a > b { content: "&amp;" }</style><title>A &amp; B</title></head>' +
      '<body><!-- note --><p class=x data-q=\'it&apos;s\' id="a&quot;b">Hi &lt;there&gt;&nbsp;&#x263A;<br><input value="v" checked/>ok</p><textarea>&lt;b&gt;</textarea><svg viewBox="0 0 1 1"></svg></body></html>',
  );
  assert.equal(doctype, 'html');
  assert.deepEqual(root, [
    'html',
    { lang: 'en' },
    ['head', {}, ['meta', { charset: 'utf-8' }], ['style', {}, 'a > b { content: "&amp;" }'], ['title', {}, 'A & B']],
    ['body', {}, ['p', { class: 'x', 'data-q': "it's", id: 'a"b' }, 'Hi <there>\u00a0\u263a', ['br', {}], ['input', { value: 'v', checked: '' }], 'ok'], ['textarea', {}, '<b>'], ['svg', { viewBox: '0 0 1 1' }]],
  ]);
  assert.deepEqual(htmlToNodes('<p>no root</p>').root, ['html', {}, ['p', {}, 'no root']]);
});

/** A PNG's first bytes (its header says its size; nothing reads further). */
function png(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(33);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  new DataView(bytes.buffer).setUint32(16, width);
  new DataView(bytes.buffer).setUint32(20, height);
  return bytes;
}

test('the export: one context, each step an action whose before, input and after snapshots follow the events naming them; the element marked; screenshots as frames; console, page errors, requests and kept bodies', async () => {
  const T = 1_800_000_000_000;
  const page = (text: string, extra = '') => strToU8(`<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head><body><p>${text}</p>${extra}</body></html>`);
  const viewport = { width: 800, height: 600, scrollX: 0, scrollY: 0 };
  const index = {
    version: 1,
    session: { id: 's-1', name: 'exported', startedAt: new Date(T).toISOString(), browserName: 'firefox', engine: 'gecko', result: 'failed', endCause: 'crashed', endReason: 'its browser went away' },
    steps: [
      { n: 0, kind: 'command', name: 'navigateTo', startedAt: T + 10, durationMs: 50, params: { url: 'http://a.test/' }, window: 'w-1', url: 'http://a.test/', screenshot: 'screenshots/0.png', snapshot: 'snapshots/0.html', viewport },
      {
        n: 1,
        kind: 'command',
        name: 'elementClick',
        startedAt: T + 100,
        durationMs: 20,
        params: { id: 'e-1' },
        window: 'w-1',
        url: 'http://a.test/',
        action: { snapshot: 'snapshots/1-action.html', viewport, element: { marker: 'm1', box: { x: 5, y: 6, width: 30, height: 10 } }, point: { x: 20, y: 11 } },
        screenshot: 'screenshots/1.png',
        snapshot: 'snapshots/1.html',
        viewport,
      },
      { n: 2, kind: 'command', name: 'getTitle', startedAt: T + 200, durationMs: 2, result: 'A {title}', window: 'w-1' },
      { n: 3, kind: 'command', name: 'findElement', startedAt: T + 300, durationMs: 2, params: { using: 'css selector', value: '#x' }, error: { code: 'no such element', message: 'none' }, window: 'w-1' },
    ],
  };
  const har = {
    log: {
      entries: [
        { startedDateTime: new Date(T + 20).toISOString(), time: 4, request: { method: 'GET', url: 'http://a.test/api', headers: [] }, response: { status: 200, statusText: 'OK', headers: [{ name: 'Set-Cookie', value: '[redacted]' }], content: { size: 9, mimeType: 'application/json', text: '{"a":1}' } }, timings: {}, _window: 'w-1' },
      ],
    },
  };
  const zip = zipSync({
    'trace.json': strToU8(JSON.stringify(index)),
    'console.json': strToU8(JSON.stringify([{ type: 'console', level: 'warning', text: 'careful', window: 'w-1', timestamp: T + 30 }, { type: 'pageerror', level: 'error', text: 'boom', stack: 'Error: boom', window: 'w-1', timestamp: T + 40 }])),
    'network.har': strToU8(JSON.stringify(har)),
    'screenshots/0.png': png(640, 480),
    'screenshots/1.png': png(320, 240),
    'snapshots/0.html': page('before', '<iframe srcdoc="&lt;p&gt;framed&lt;/p&gt;"></iframe>'),
    'snapshots/1-action.html': page('before', '<button data-wdgate-target="m1">go</button><button data-wdgate-target="other">no</button>'),
    'snapshots/1.html': page('after'),
  });
  const files = unzipSync(await toPlaywrightTrace(zip));
  const events = new TextDecoder().decode(files['trace.trace']).split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(events[0], { type: 'context-options', version: 8, origin: 'library', browserName: 'firefox', platform: '', wallTime: T, monotonicTime: T, title: 'exported', options: { viewport: { width: 800, height: 600 } } });
  // Every snapshot follows the action event that names it (a viewer learns its phase from the name).
  const named = new Set<string>();
  for (const e of events) {
    for (const key of ['beforeSnapshot', 'inputSnapshot', 'afterSnapshot']) if (e[key]) named.add(e[key]);
    if (e.type === 'frame-snapshot') assert.ok(named.has(e.snapshot.snapshotName), `${e.snapshot.snapshotName} comes before its action names it`);
  }
  const of = (type: string, callId: string) => events.find((e) => e.type === type && e.callId === callId);
  assert.deepEqual([of('before', 'call@1').title, of('before', 'call@1').pageId, of('before', 'call@1').beforeSnapshot], ['elementClick', 'page@w-1', 'before@call@1']);
  assert.deepEqual(of('input', 'call@1'), { type: 'input', callId: 'call@1', inputSnapshot: 'input@call@1', point: { x: 20, y: 11 }, box: { x: 5, y: 6, width: 30, height: 10 } });
  assert.deepEqual(of('after', 'call@3').error, { name: 'WebDriverError', message: 'no such element: none' });
  assert.equal(of('before', 'call@3').title, 'findElement css selector #x');
  assert.deepEqual(of('after', 'call@2').result, { value: 'A {title}' });
  const snapshot = (name: string, frame?: string) => events.find((e) => e.type === 'frame-snapshot' && e.snapshot.snapshotName === name && (!frame || e.snapshot.frameId === frame))?.snapshot;
  // The click's action snapshot: only the element it addressed is the target; its before is the navigation's after, referred to.
  const body = snapshot('input@call@1').html[3];
  assert.deepEqual(body.slice(2, 4), [['p', {}, 'before'], ['button', { __playwright_target__: '' }, 'go']]);
  assert.deepEqual(body[4], ['button', {}, 'no']);
  const first = snapshot('after@call@0');
  assert.equal(first.html[0], 'html');
  assert.deepEqual(snapshot('before@call@1').html, [[1, 6]], 'the same document: one snapshot of this frame ago, its root (its 7th node)');
  assert.deepEqual(snapshot('after@call@2').html, [[2, 5]], 'a read shows the page the click left: two snapshots ago (before@call@2 refers to it too), its root (6th node)');
  // A frame inlined as srcdoc: a frame snapshot of its own, which its iframe loads.
  const iframe = first.html[3][3];
  assert.deepEqual(iframe, ['iframe', { __playwright_src__: '/snapshot/page@w-1-frame-0' }]);
  assert.deepEqual(snapshot('after@call@0', 'page@w-1-frame-0').html, ['html', {}, ['p', {}, 'framed']]);
  // Screenshots as the page's screencast frames, by their SHA-1 under resources/, with their size.
  const frames = events.filter((e) => e.type === 'screencast-frame');
  assert.deepEqual(frames.map((f) => [f.pageId, f.width, f.height, f.timestamp]), [['page@w-1', 640, 480, T + 60], ['page@w-1', 320, 240, T + 120]]);
  assert.deepEqual(imageSize(files[`resources/${frames[0].sha1}`]!), { width: 640, height: 480 });
  // Console, page errors, a crash.
  assert.ok(events.some((e) => e.type === 'console' && e.messageType === 'warning' && e.text === 'careful' && e.pageId === 'page@w-1'));
  assert.ok(events.some((e) => e.type === 'event' && e.method === 'pageError' && e.params.error.error.message === 'boom'));
  assert.ok(events.some((e) => e.type === 'error' && e.message === 'its browser went away'));
  // Requests: the HAR entry, its page, its kept body as a resource.
  const [resource] = new TextDecoder().decode(files['trace.network']).split('\n').map((l) => JSON.parse(l));
  assert.equal(resource.snapshot.pageref, 'page@w-1');
  assert.equal(resource.snapshot._monotonicTime, T + 20);
  assert.equal(new TextDecoder().decode(files[`resources/${resource.snapshot.response.content._sha1}`]), '{"a":1}');
  assert.equal(resource.snapshot.response.content.text, undefined);
});

test("an action whose element the recorder found by its selector (no snapshot of its own): the element at the selector's path in the step's before snapshot is Playwright's target", async () => {
  const T = 1_800_000_000_000;
  const viewport = { width: 800, height: 600, scrollX: 0, scrollY: 0 };
  const selector = 'html > body:nth-of-type(1) > div:nth-of-type(2) > button:nth-of-type(1)';
  const index = {
    version: 1,
    session: { id: 's-2', name: 'by selector', startedAt: new Date(T).toISOString(), browserName: 'chrome', engine: 'chromium', result: 'passed' },
    steps: [
      { n: 0, kind: 'command', name: 'navigateTo', startedAt: T, durationMs: 5, window: 'w', url: 'http://a.test/', snapshot: 'snapshots/0.html', viewport },
      { n: 1, kind: 'command', name: 'findElement', startedAt: T + 10, durationMs: 1, window: 'w' },
      { n: 2, kind: 'command', name: 'elementClick', startedAt: T + 20, durationMs: 5, window: 'w', action: { viewport, element: { selector, box: { x: 1, y: 2, width: 3, height: 4 } }, point: { x: 2, y: 4 } } },
    ],
  };
  const zip = zipSync({
    'trace.json': strToU8(JSON.stringify(index)),
    'snapshots/0.html': strToU8('<!DOCTYPE html><html><head></head><body><div><button>first div</button></div><p>between</p><div><span>x</span><button>this one</button></div></body></html>'),
  });
  const events = new TextDecoder().decode(unzipSync(await toPlaywrightTrace(zip))['trace.trace']).split('\n').map((l) => JSON.parse(l));
  const input = events.find((e) => e.type === 'frame-snapshot' && e.snapshot.snapshotName === 'input@call@2').snapshot;
  const body = input.html[3];
  assert.deepEqual(body[2], ['div', {}, ['button', {}, 'first div']]);
  assert.deepEqual(body[4], ['div', {}, ['span', {}, 'x'], ['button', { __playwright_target__: '' }, 'this one']]);
  // The before snapshot is the same file without a target.
  const before = events.find((e) => e.type === 'frame-snapshot' && e.snapshot.snapshotName === 'before@call@2').snapshot;
  assert.doesNotMatch(JSON.stringify(before.html), /__playwright_target__/);
});
