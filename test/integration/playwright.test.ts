// The Playwright backend (playwright-core, pinned) through the real server: Debian's Chromium, and
// Debian's firefox-esr over Playwright's WebDriver BiDi channel, on the same W3C layer as native.
// The same assertions as the other backends (test/helpers/tour.ts), then what each engine lacks
// answers `unsupported operation` by name.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { Session } from '../helpers/client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, leftoverBrowsers, ownedProcesses, startPageServer, type PageServer } from '../helpers/pages.ts';
import { commandTour } from '../helpers/tour.ts';

const ENGINES = [
  { engine: 'chromium', caps: { 'wdgate:options': { backend: 'playwright' } }, browserName: 'chrome', setWindowRect: true },
  { engine: 'firefox', caps: { browserName: 'firefox', 'wdgate:options': { backend: 'playwright' } }, browserName: 'firefox', setWindowRect: false },
] as const;

let gw: TestGateway;
let pages: PageServer;

before(async () => {
  [gw, pages] = await Promise.all([startGateway([], { config: { pool: { minWarm: 0, maxBrowsers: 2, sessionsPerBrowser: 4, idleTimeout: 60000 } } }), startPageServer()]);
});

after(async () => {
  const pid = gw?.process.pid;
  await gw?.stop();
  await pages?.close();
  if (pid) {
    assert.equal(await leftoverBrowsers(pid), 0, 'native browser processes outlived the gateway');
    // A browser's own helpers end with it, a moment after the gateway has waited for it.
    await eventually(async () => (await ownedProcesses(pid)).length === 0, `Playwright browsers outlived the gateway: ${(await ownedProcesses(pid)).join('; ')}`);
  }
});

test('the pinned playwright-core is the one known to drive firefox-esr (1.65 cannot open a context)', () => {
  const version = (createRequire(import.meta.url)('playwright-core/package.json') as { version: string }).version;
  assert.equal(version, '1.64.1');
});

for (const { engine, caps, browserName, setWindowRect } of ENGINES) {
  describe(`playwright backend, ${engine}`, () => {
    let s: Session;
    before(async () => {
      s = await gw.client.newSession(caps);
    });
    after(() => s?.end().catch(() => {}));

    test('New Session names the backend and what the engine offers', () => {
      assert.equal(s.capabilities.browserName, browserName);
      assert.equal(s.capabilities['wdgate:options'].backend, 'playwright');
      assert.equal(s.capabilities['wdgate:options'].engine, engine);
      assert.equal(s.capabilities.setWindowRect, setWindowRect);
      assert.match(s.capabilities.browserVersion, /^\d+\./);
    });

    test('the classic commands, with the same assertions as every backend', async () => {
      await commandTour(s, pages, `playwright ${engine}`);
    });

    test('Execute Script and Execute Async Script, elements in and out; a page exception is javascript error', async () => {
      await s.navigate(pages.page('<p id="p">para</p>', 'script'));
      const p = await s.find('#p');
      assert.equal(await s.post('/execute/sync', { script: 'return arguments[0].textContent + arguments[1]', args: [{ 'element-6066-11e4-a52e-4f735466cecf': p }, '!'] }), 'para!');
      const back = await s.post('/execute/sync', { script: 'return document.getElementById("p")', args: [] });
      assert.equal(back['element-6066-11e4-a52e-4f735466cecf'], p);
      assert.equal(await s.post('/execute/async', { script: 'const done = arguments[0]; setTimeout(() => done(6 * 7), 10)', args: [] }), 42);
      const e = await s.fails('POST', '/execute/sync', { script: 'throw new Error("boom")', args: [] }, 'javascript error', 500);
      assert.match(e.message, /boom/);
    });

    test('frames: switch into one, find in it, back to the parent; a removed frame is no such window', async () => {
      await s.navigate(pages.page(`<iframe id="f" srcdoc="<p id='inner'>inside</p><button id='rm' onclick='parent.document.getElementById(&quot;f&quot;).remove()'>rm</button>"></iframe>`, 'frames'));
      await eventually(async () => (await s.post('/execute/sync', { script: 'return document.getElementById("f").contentDocument?.getElementById("inner") !== null', args: [] })) === true, 'the frame did not load');
      const frame = await s.find('#f');
      await s.post('/frame', { id: { 'element-6066-11e4-a52e-4f735466cecf': frame } });
      assert.equal(await s.get(`/element/${await s.find('#inner')}/text`), 'inside');
      await s.post('/frame/parent', {});
      await s.fails('POST', '/element', { using: 'css selector', value: '#inner' }, 'no such element', 404);
      await s.post('/frame', { id: 0 });
      await s.post(`/element/${await s.find('#rm')}/click`);
      await s.fails('POST', '/element', { using: 'css selector', value: 'p' }, 'no such window', 404);
      await s.post('/frame', { id: null });
      assert.equal(await s.get('/title'), 'frames');
    });

    test('user prompts: an alert is seen, its text read and accepted; left open it is unexpected alert open', async () => {
      await s.navigate(pages.page('<button id="a" onclick="alert(\'hello\')">a</button>', 'prompts'));
      await s.post(`/element/${await s.find('#a')}/click`);
      assert.equal(await s.get('/alert/text'), 'hello');
      await s.post('/alert/accept');
      await s.fails('GET', '/alert/text', undefined, 'no such alert', 404);
      await s.post(`/element/${await s.find('#a')}/click`);
      // The default handler (dismiss and notify): the next command says what was open.
      const e = await s.fails('GET', '/title', undefined, 'unexpected alert open', 500);
      assert.match(e.message, /hello/);
      assert.equal(await s.get('/title'), 'prompts');
    });

    test('what Playwright cannot do is unsupported operation naming it, never a silent difference', async () => {
      await s.navigate(pages.page('<button id="b">b</button>', 'gaps'));
      const touch = await s.fails(
        'POST',
        '/actions',
        { actions: [{ type: 'pointer', id: 'finger', parameters: { pointerType: 'touch' }, actions: [{ type: 'pointerMove', x: 5, y: 5 }, { type: 'pointerDown', button: 0 }, { type: 'pointerUp', button: 0 }] }] },
        'unsupported operation',
        500,
      );
      assert.match(touch.message, /touch input/);
      await s.delete('/actions');
      const role = await s.fails('GET', `/element/${await s.find('#b')}/computedrole`, undefined, 'unsupported operation', 500);
      assert.match(role.message, /computed role/);
    });
  });
}

test('sessions on Playwright Chromium, Playwright Firefox and native at once; each browser ends with the gateway', async () => {
  const sessions = await Promise.all([gw.client.newSession(ENGINES[0].caps), gw.client.newSession(ENGINES[1].caps), gw.client.newSession()]);
  await Promise.all(
    sessions.map(async (s, i) => {
      await s.navigate(pages.page('<p>x</p>', `at once ${i}`));
      assert.equal(await s.get('/title'), `at once ${i}`);
    }),
  );
  assert.deepEqual(
    sessions.map((s) => s.capabilities['wdgate:options'].backend),
    ['playwright', 'playwright', 'native'],
  );
  await Promise.all(sessions.map((s) => s.end()));
});

test('a route of the config for plain capabilities makes its backend the warm one: a Playwright context is prepared before the first session and leased by it', async () => {
  const routed = await startGateway([], { config: { routes: [{ match: {}, backend: 'playwright' }], pool: { minWarm: 1, maxBrowsers: 1, sessionsPerBrowser: 2 } } });
  try {
    const pool = async () => (await routed.client.ok('GET', '/status')).pool as { backend: string; browsers: number; inUse: number; free: number }[];
    await eventually(async () => (await pool())[0]?.free === 1, 'no Playwright context was prepared at start');
    assert.deepEqual((await pool()).map(({ backend, browsers, inUse, free }) => ({ backend, browsers, inUse, free })), [{ backend: 'playwright', browsers: 1, inUse: 0, free: 1 }]);
    const s = await routed.client.newSession();
    assert.equal(s.capabilities['wdgate:options'].backend, 'playwright');
    const [key] = await pool();
    assert.equal(key!.inUse, 1, 'the session leased the prepared context (one key, one browser)');
    assert.equal(key!.browsers, 1);
    await s.end();
  } finally {
    const pid = routed.process.pid;
    await routed.stop();
    if (pid) await eventually(async () => (await ownedProcesses(pid)).length === 0, 'the routed gateway left browsers');
  }
});
