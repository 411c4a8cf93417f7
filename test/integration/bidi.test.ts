// WebDriver BiDi through the gateway (webSocketUrl sessions and direct ones): the socket is on the
// gateway's own host and passes its gate; BiDi and classic commands work on one session at once;
// bad messages get BiDi errors and the session goes on; sessions cannot see each other. On Chromium
// by default, on the native backend's Firefox with WDGATE_TEST_BACKEND=native-firefox (what is
// Chromium's only, CDP and a browser per BiDi session, is declared in test/helpers/gaps.ts).
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { Builder } from 'selenium-webdriver';
import chrome from 'selenium-webdriver/chrome.js';
import { remote } from 'webdriverio';
import WebSocket from 'ws';
import { BidiSocket, eventuallyOpen, referenceBidi } from '../helpers/bidi.ts';
import { BACKEND_CAPABILITIES, type Session } from '../helpers/client.ts';
import { BACKEND, test } from '../helpers/gaps.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, leftoverBrowsers, startPageServer, type PageServer } from '../helpers/pages.ts';

let gw: TestGateway;
let pages: PageServer;
/** Firefox: BiDi sessions share their process (a user context each), and it stays when one ends. */
const FIREFOX = BACKEND === 'native-firefox';

before(async () => {
  [gw, pages] = await Promise.all([startGateway(), startPageServer()]);
});

after(async () => {
  const pid = gw?.process.pid;
  await gw?.stop();
  await pages?.close();
  if (pid) assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
});

/** A session that asked for webSocketUrl, and its socket. */
async function bidiSession(): Promise<{ s: Session; socket: BidiSocket }> {
  const s = await gw.client.newSession({ webSocketUrl: true });
  return { s, socket: await BidiSocket.open(s.capabilities.webSocketUrl) };
}

describe('webSocketUrl sessions', () => {
  test("the socket is on the gateway's own host and port, as the client reached it; a window handle is its BiDi context id", async () => {
    const { s, socket } = await bidiSession();
    try {
      assert.equal(s.capabilities.webSocketUrl, `ws://127.0.0.1:${gw.port}/session/${s.id}`);
      const { contexts } = await socket.call('browsingContext.getTree');
      assert.deepEqual(
        contexts.map((c: { context: string }) => c.context),
        [await s.get('/window')],
      );
      // Reached by another name (an allowed Host), the URL says that name.
      const answer = await newSessionWithHost(`localhost:${gw.port}`, { webSocketUrl: true });
      assert.equal(answer.capabilities.webSocketUrl, `ws://localhost:${gw.port}/session/${answer.sessionId}`);
      await gw.client.ok('DELETE', `/session/${answer.sessionId}`);
    } finally {
      socket.close();
      await s.end();
    }
  });

  test('each BiDi session has a browser of its own, and once one was asked for the next is prepared ahead', async () => {
    const { s, socket } = await bidiSession();
    try {
      const bidiKey = async () => ((await gw.client.ok('GET', '/status')).pool as { key: { bidi?: boolean }; browsers: number; inUse: number; free: number }[]).find((k) => k.key.bidi);
      // Its own browser (a pool key of its own), and another one made ready for the next session.
      await eventually(async () => {
        const key = await bidiKey();
        return key?.inUse === 1 && key.free === 1 && key.browsers === 2;
      }, 'no browser was prepared for the next BiDi session');
    } finally {
      socket.close();
      await s.end();
    }
  });

  test('classic and BiDi commands work on the same session at once', async () => {
    const { s, socket } = await bidiSession();
    try {
      const context = await s.get('/window');
      await socket.call('browsingContext.navigate', { context, url: pages.page('<p>one</p>', 'by bidi'), wait: 'complete' });
      assert.equal(await s.get('/title'), 'by bidi');
      await s.navigate(pages.page('<p>two</p>', 'by classic'));
      const [evaluated, title] = await Promise.all([
        socket.call('script.evaluate', { expression: 'document.title', target: { context }, awaitPromise: false }),
        s.get('/title'),
      ]);
      assert.deepEqual(evaluated.result, { type: 'string', value: 'by classic' });
      assert.equal(title, 'by classic');
      const called = await socket.call('script.callFunction', {
        functionDeclaration: '(a, b) => a + b',
        arguments: [
          { type: 'number', value: 2 },
          { type: 'number', value: 3 },
        ],
        target: { context },
        awaitPromise: false,
      });
      assert.deepEqual(called.result, { type: 'number', value: 5 });
    } finally {
      socket.close();
      await s.end();
    }
  });

  test('a large answer (a screenshot) comes whole and in turn, with its own id, between small ones', async () => {
    const { s, socket } = await bidiSession();
    try {
      const context = await s.get('/window');
      // Noise in colour: a PNG of some hundreds of KB, which no compression makes small.
      const noise = `<canvas id="c" width="600" height="400"></canvas><script>const x = document.getElementById('c').getContext('2d'); const d = x.createImageData(600, 400); for (let i = 0; i < d.data.length; i++) d.data[i] = i % 4 === 3 ? 255 : Math.random() * 256; x.putImageData(d, 0, 0);</script>`;
      await socket.call('browsingContext.navigate', { context, url: pages.page(noise, 'noise'), wait: 'complete' });
      const [before, shot, after] = await Promise.all([
        socket.command('script.evaluate', { expression: '1 + 1', target: { context }, awaitPromise: false }),
        socket.command('browsingContext.captureScreenshot', { context }),
        socket.command('script.evaluate', { expression: 'document.title', target: { context }, awaitPromise: false }),
      ]);
      assert.deepEqual(before.result.result, { type: 'number', value: 2 });
      assert.deepEqual(after.result.result, { type: 'string', value: 'noise' });
      assert.equal(shot.type, 'success');
      const png = Buffer.from(shot.result.data, 'base64');
      assert.ok(png.length > 100_000, `a screenshot of noise is large (${png.length} bytes)`);
      assert.equal(png.subarray(1, 4).toString(), 'PNG');
      const viewport = await s.execute('return [innerWidth, innerHeight]');
      assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], viewport, 'the whole viewport, as IHDR says');
    } finally {
      socket.close();
      await s.end();
    }
  });

  test('a node found over BiDi is an element for classic commands, and a classic reference names its node in BiDi commands', async () => {
    const { s, socket } = await bidiSession();
    try {
      const context = await s.get('/window');
      await s.navigate(pages.page('<p id="p">hello <b>there</b></p><button id="b" onclick="this.textContent = \'clicked\'">press</button>', 'ids'));
      const { nodes } = await socket.call('browsingContext.locateNodes', { context, locator: { type: 'css', value: '#p, #b' } });
      const [p, b] = nodes.map((n: { sharedId: string }) => n.sharedId);
      assert.equal(await s.get(`/element/${p}/text`), 'hello there');
      await s.post(`/element/${b}/click`);
      assert.equal(await s.get(`/element/${b}/text`), 'clicked');
      const doubled = await s.post('/execute/sync', { script: 'return arguments[0].id + arguments[1].id', args: [{ 'element-6066-11e4-a52e-4f735466cecf': p }, { 'element-6066-11e4-a52e-4f735466cecf': b }] });
      assert.equal(doubled, 'pb');
      // A well-formed id of no node: Chromium's name the document and count nodes; Firefox's are UUIDs.
      const unknown = /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(p) ? randomUUID() : p.replace(/\d+$/, '999999');
      assert.notEqual(unknown, p);
      await s.fails('GET', `/element/${unknown}/text`, undefined, 'no such element', 404);
      // The other way: an element found by a classic command, named in a BiDi command.
      const classic = await s.find('#p');
      const called = await socket.call('script.callFunction', {
        functionDeclaration: '(node) => node.id + ":" + node.textContent',
        arguments: [{ sharedId: classic }],
        target: { context },
        awaitPromise: false,
      });
      assert.deepEqual(called.result, { type: 'string', value: 'p:hello there' });
      const ownNode = await socket.call('script.callFunction', { functionDeclaration: '(node) => node', arguments: [{ sharedId: classic }], target: { context }, awaitPromise: false });
      assert.equal(ownNode.result.sharedId, p, 'one id per node: the engine names it as BiDi found it');
    } finally {
      socket.close();
      await s.end();
    }
  });

  test('browsingContext.create, getTree and close; events only while subscribed', async () => {
    const { s, socket } = await bidiSession();
    try {
      const context = await s.get('/window');
      await socket.call('session.subscribe', { events: ['log.entryAdded', 'browsingContext.contextCreated'] });
      await socket.call('script.evaluate', { expression: 'console.log("first")', target: { context }, awaitPromise: false });
      const logged = await socket.event('log.entryAdded', (p) => p.text === 'first');
      assert.equal(logged.params.source.context, context);
      const { context: tab } = await socket.call('browsingContext.create', { type: 'tab' });
      await socket.event('browsingContext.contextCreated', (p) => p.context === tab);
      const tree = await socket.call('browsingContext.getTree');
      assert.deepEqual(tree.contexts.map((c: { context: string }) => c.context).sort(), [context, tab].sort());
      assert.deepEqual((await s.get('/window/handles')).sort(), [context, tab].sort());
      await socket.call('browsingContext.close', { context: tab });
      assert.deepEqual(await s.get('/window/handles'), [context]);
      // Unsubscribed from log entries: a console message made before the next context is created
      // arrives (if at all) before that context's event, and must not.
      await socket.call('session.unsubscribe', { events: ['log.entryAdded'] });
      await socket.call('script.evaluate', { expression: 'console.log("second")', target: { context }, awaitPromise: false });
      const { context: other } = await socket.call('browsingContext.create', { type: 'tab' });
      await socket.event('browsingContext.contextCreated', (p) => p.context === other);
      assert.equal(socket.events.filter((e) => e.method === 'log.entryAdded' && e.params.text === 'second').length, 0);
    } finally {
      socket.close();
      await s.end();
    }
  });

  test('session.new on a session\'s socket is session not created; session.status says it is taken; /status and /metrics count sockets and messages', async () => {
    const { s, socket } = await bidiSession();
    try {
      assert.equal((await gw.client.ok('GET', '/status')).bidi.connections, 1);
      const created = await socket.command('session.new', { capabilities: {} });
      assert.equal(created.type, 'error');
      assert.equal(created.error, 'session not created');
      const status = await socket.call('session.status');
      assert.equal(status.ready, false);
      assert.equal(typeof status.message, 'string');
      const metrics = (await gw.client.raw('GET', '/metrics')).value as string;
      assert.match(metrics, /^wdgate_bidi_connections 1$/m);
      assert.ok(Number(/^wdgate_bidi_messages_total\{direction="in"\} (\d+)$/m.exec(metrics)?.[1]) >= 2, metrics);
      socket.close();
      await socket.closed;
      await eventually(async () => (await gw.client.ok('GET', '/status')).bidi.connections === 0, 'the closed socket was still counted');
    } finally {
      socket.close();
      await s.end();
    }
  });

  test('bad messages each get the BiDi error for them, and the session stays usable', async () => {
    const { s, socket } = await bidiSession();
    try {
      const context = await s.get('/window');
      const stray = (n: number) => socket.until(() => (socket.strayErrors.length >= n ? socket.strayErrors[n - 1] : undefined), `error ${n}`);
      socket.raw('not json');
      assert.deepEqual(pick(await stray(1)), { type: 'error', id: null, error: 'invalid argument' });
      socket.raw('[1, 2]');
      assert.deepEqual(pick(await stray(2)), { type: 'error', id: null, error: 'invalid argument' });
      socket.raw(JSON.stringify({ method: 'session.status', params: {} }));
      assert.deepEqual(pick(await stray(3)), { type: 'error', id: null, error: 'invalid argument' });
      socket.raw(JSON.stringify({ id: -1, method: 'session.status', params: {} }));
      assert.deepEqual(pick(await stray(4)), { type: 'error', id: null, error: 'invalid argument' });
      socket.raw(Buffer.from(JSON.stringify({ id: 1, method: 'session.status', params: {} })), true);
      assert.deepEqual(pick(await stray(5)), { type: 'error', id: null, error: 'invalid argument' });
      assert.deepEqual(pick(await socket.command('nothing.here', { secret: 'do-not-log-me' })), { type: 'error', error: 'unknown command' });
      // Operators see the failure by method and code, never the message's body (the log line
      // reaches the test through the gateway's standard output, a moment after the answer).
      await eventually(async () => /"event":"bidi command failed"[^\n]*"method":"nothing.here"[^\n]*"error":"unknown command"/.test(gw.output()), 'the failed command was not logged');
      assert.doesNotMatch(gw.output(), /do-not-log-me/);
      assert.deepEqual(pick(await socket.command('browsingContext.navigate', { context, url: 5 })), { type: 'error', error: 'invalid argument' });
      assert.deepEqual(pick(await socket.command('browsingContext.getTree', 'x' as never)), { type: 'error', error: 'invalid argument' });
      socket.raw(JSON.stringify({ id: 77, method: 'session.status' }));
      await socket.until(() => socket.strayErrors.find((e) => e.id === 77), 'the answer to a command without params');
      const evaluated = await socket.call('script.evaluate', { expression: '6 * 7', target: { context }, awaitPromise: false });
      assert.deepEqual(evaluated.result, { type: 'number', value: 42 });
      assert.equal(typeof (await s.get('/title')), 'string');
    } finally {
      socket.close();
      await s.end();
    }
  });

  test("parameters are checked as the engine's own driver checks them: the same answers as chromedriver (on Firefox: Firefox's own BiDi), side by side", async () => {
    // The engine's own driver starts while the gateway's session is made.
    const [started, made] = await Promise.allSettled([referenceBidi(FIREFOX ? 'firefox' : 'chromium'), bidiSession()]);
    try {
      if (started.status === 'rejected') throw started.reason;
      if (made.status === 'rejected') throw made.reason;
      const [reference, { s, socket }] = [started.value, made.value];
      // Malformed parameters (the session's own handling, the engine's, and what the gateway
      // rewrites to scope a session), and the `default` user context, which every driver knows.
      const cases: [string, (context: string) => Record<string, unknown>, ((result: any) => unknown)?][] = [
        ['session.subscribe', () => ({ events: [] })],
        ['session.subscribe', () => ({ events: ['nosuchmodule'] })],
        ['session.subscribe', () => ({ events: [42] })],
        ['session.subscribe', () => ({ events: ['log.entryAdded'], contexts: [] })],
        ['session.subscribe', () => ({ events: ['log.entryAdded'], contexts: true })],
        ['session.subscribe', () => ({ events: ['log.entryAdded'], contexts: 42 })],
        ['session.subscribe', () => ({ events: ['log.entryAdded'], contexts: [null] })],
        ['session.subscribe', () => ({ events: ['log.entryAdded'], userContexts: [42] })],
        ['session.subscribe', () => ({ events: ['log.entryAdded'], userContexts: ['no-such-user-context'] })],
        ['session.unsubscribe', () => ({ subscriptions: [] })],
        ['session.unsubscribe', () => ({ subscriptions: [42] })],
        ['session.unsubscribe', () => ({ subscriptions: ['no-such-subscription'] })],
        ['session.unsubscribe', () => ({ events: [42] })],
        ['script.addPreloadScript', () => ({ functionDeclaration: 42 })],
        ['script.addPreloadScript', () => ({ functionDeclaration: '() => {}', contexts: [] })],
        ['script.evaluate', (context) => ({ expression: 42, target: { context }, awaitPromise: false })],
        ['script.evaluate', () => ({ expression: '1', target: 42, awaitPromise: false })],
        ['storage.deleteCookies', () => ({ filter: 'x' })],
        ['storage.getCookies', () => ({ partition: 'x' })],
        ['storage.getCookies', () => ({ partition: { type: 'nope' } })],
        ['storage.getCookies', () => ({ partition: { type: 'storageKey', userContext: 42 } })],
        ['storage.getCookies', () => ({ partition: { type: 'storageKey', userContext: 'no-such-user-context' } })],
        ['storage.getCookies', () => ({ partition: { type: 'storageKey', userContext: 'default' } }), (r) => r.partitionKey],
        ['storage.getCookies', () => ({}), (r) => r.partitionKey],
        ['browsingContext.create', () => ({ type: 'nope' })],
        ['browsingContext.create', () => ({ type: 'tab', userContext: 42 })],
        ['browsingContext.create', () => ({ type: 'tab', userContext: 'default' }), (r) => typeof r.context],
        ['browsingContext.getTree', () => ({ root: 42 })],
        ['browser.removeUserContext', () => ({ userContext: 'default' })],
        ['emulation.setLocaleOverride', () => ({ locale: 'de-DE' })],
        ['emulation.setMediaFeaturesOverride', () => ({ mediaFeatures: 42 })],
        ['network.addIntercept', () => ({ phases: [] })],
        ['network.setCacheBehavior', () => ({ cacheBehavior: 'sometimes' })],
      ];
      const answers = async (on: BidiSocket, context: string) => {
        const told: string[] = [];
        for (const [method, params, read] of cases) {
          const answer = await on.command(method, params(context));
          const outcome = answer.type === 'error' ? answer.error : `${answer.type} ${JSON.stringify(read?.(answer.result) ?? null)}`;
          told.push(`${method} ${JSON.stringify(params('C'))}: ${outcome}`);
        }
        return told;
      };
      const context = await s.get('/window');
      const [theirs, ours] = await Promise.all([answers(reference.socket, reference.context), answers(socket, context)]);
      assert.deepEqual(ours, theirs);
      assert.ok(theirs.filter((t) => / success /.test(t)).length <= 3, theirs.join('\n'));
      const evaluated = await socket.call('script.evaluate', { expression: '6 * 7', target: { context }, awaitPromise: false });
      assert.deepEqual(evaluated.result, { type: 'number', value: 42 });
    } finally {
      if (made.status === 'fulfilled') {
        made.value.socket.close();
        await made.value.s.end();
      }
      if (started.status === 'fulfilled') await started.value.close();
    }
  });

  test("a client is told only its pages' realms, never the gateway's own, and a disowned handle is no such handle: as chromedriver (on Firefox: Firefox's own BiDi) answers, side by side", { timeout: 120_000 }, async () => {
    const [started, made] = await Promise.allSettled([referenceBidi(FIREFOX ? 'firefox' : 'chromium'), bidiSession()]);
    try {
      if (started.status === 'rejected') throw started.reason;
      if (made.status === 'rejected') throw made.reason;
      const [reference, { s, socket }] = [started.value, made.value];
      const back = async (on: BidiSocket, context: string) => {
        // Through the gateway the classic Back (its own scripts watch the document on Firefox).
        if (on === socket) await s.post('/back', {});
        else await on.call('browsingContext.traverseHistory', { context, delta: -1 });
      };
      const [theirs, ours] = await Promise.all([realmStory(reference.socket, reference.context, back), realmStory(socket, await s.get('/window'), back)]);
      assert.deepEqual(ours, theirs);
      assert.ok(ours.includes('no such handle'), ours.join('\n'));
    } finally {
      if (made.status === 'fulfilled') {
        made.value.socket.close();
        await made.value.s.end();
      }
      if (started.status === 'fulfilled') await started.value.close();
    }
  });

  test('the upgrade passes the gate: a web page (Origin), an unknown or classic session, a second connection are refused', async () => {
    const { s, socket } = await bidiSession();
    const classic = await gw.client.newSession();
    try {
      const url = s.capabilities.webSocketUrl as string;
      await assert.rejects(BidiSocket.open(url, { Origin: 'http://evil.example' }), (e: { status: number; body: string }) => e.status === 403 && /Origin/.test(e.body));
      await assert.rejects(BidiSocket.open(url.replace(s.id, 'no-such-session')), (e: { status: number; body: string }) => e.status === 404 && /invalid session id/.test(e.body));
      await assert.rejects(BidiSocket.open(url.replace(s.id, classic.id)), (e: { status: number; body: string }) => e.status === 400 && /webSocketUrl/.test(e.body));
      await assert.rejects(BidiSocket.open(url), (e: { status: number; body: string }) => e.status === 400 && /already/.test(e.body));
      // The first connection is unharmed; once it is closed another may connect.
      assert.equal((await socket.call('session.status')).ready, false);
      socket.close();
      await socket.closed;
      const again = await eventuallyOpen(url);
      assert.ok((await again.call('browsingContext.getTree')).contexts.length >= 1);
      again.close();
    } finally {
      await classic.end();
      await s.end();
    }
  });

  test('two BiDi sessions at once: each sees only its own windows and events', async () => {
    const a = await bidiSession();
    const b = await bidiSession();
    try {
      const [treeA, treeB] = await Promise.all([a.socket.call('browsingContext.getTree'), b.socket.call('browsingContext.getTree')]);
      assert.deepEqual(treeA.contexts.map((c: { context: string }) => c.context), [await a.s.get('/window')]);
      assert.deepEqual(treeB.contexts.map((c: { context: string }) => c.context), [await b.s.get('/window')]);
      await Promise.all([a.socket.call('session.subscribe', { events: ['log.entryAdded'] }), b.socket.call('session.subscribe', { events: ['log.entryAdded'] })]);
      await a.socket.call('script.evaluate', { expression: 'console.log("from a")', target: { context: await a.s.get('/window') }, awaitPromise: false });
      await a.socket.event('log.entryAdded', (p) => p.text === 'from a');
      await b.socket.call('script.evaluate', { expression: 'console.log("from b")', target: { context: await b.s.get('/window') }, awaitPromise: false });
      await b.socket.event('log.entryAdded', (p) => p.text === 'from b');
      assert.deepEqual(b.socket.events.map((e) => e.params.text), ['from b']);
      assert.deepEqual(a.socket.events.map((e) => e.params.text), ['from a']);
      // Another session's context cannot be driven.
      const foreign = await a.socket.command('script.evaluate', { expression: '1', target: { context: await b.s.get('/window') }, awaitPromise: false });
      assert.equal(foreign.type, 'error');
      assert.equal(foreign.error, 'no such frame');
    } finally {
      a.socket.close();
      b.socket.close();
      await a.s.end();
      await b.s.end();
    }
  });

  test('session.end answers, ends the session with its browser, and closes the socket; Delete Session closes it too', async () => {
    const pid = gw.process.pid!;
    const { s, socket } = await bidiSession();
    const browsersDuring = await leftoverBrowsers(pid);
    const window = await s.get('/window');
    assert.deepEqual(await socket.call('session.end'), {});
    assert.equal((await socket.closed).code, 1000);
    await s.fails('GET', '/title', undefined, 'invalid session id', 404);
    // Chromium: the session's own browser goes. Firefox: it serves others (a user context each),
    // and the session's windows are gone from it.
    if (!FIREFOX) await eventually(async () => (await leftoverBrowsers(pid)) < browsersDuring, "the session's own browser outlived it");
    const other = await bidiSession();
    if (FIREFOX) {
      const { contexts } = await other.socket.call('browsingContext.getTree');
      assert.ok(!contexts.some((c: { context: string }) => c.context === window));
    }
    await other.s.end();
    assert.equal((await other.socket.closed).code, 1000);
  });

  test('a socket dropped in the middle of a command leaves the session usable; another connection is served', async () => {
    const { s, socket } = await bidiSession();
    try {
      const context = await s.get('/window');
      const slow = socket.command('script.evaluate', { expression: 'new Promise((r) => setTimeout(() => r(1), 3000))', target: { context }, awaitPromise: true });
      slow.catch(() => {});
      socket.terminate();
      await socket.closed;
      const next = await eventuallyOpen(s.capabilities.webSocketUrl);
      const evaluated = await next.call('script.evaluate', { expression: 'document.readyState', target: { context }, awaitPromise: false });
      assert.equal(evaluated.result.type, 'string');
      assert.equal(typeof (await s.get('/url')), 'string');
      next.close();
    } finally {
      await s.end();
    }
  });
});

describe("chromedriver's goog/cdp/execute", () => {
  test('served to a session with a browser of its own; refused, naming why, to one that shares its browser', async () => {
    const own = await gw.client.newSession({ webSocketUrl: true });
    const shared = await gw.client.newSession();
    try {
      await own.navigate(pages.page('<p>cdp</p>', 'over cdp'));
      const evaluated = await own.post('/goog/cdp/execute', { cmd: 'Runtime.evaluate', params: { expression: 'document.title', returnByValue: true } });
      assert.deepEqual(evaluated.result, { type: 'string', value: 'over cdp' });
      const e = await own.fails('POST', '/goog/cdp/execute', { cmd: 'No.suchMethod', params: {} }, 'unknown error', 500);
      assert.match(e.message, /No.suchMethod/);
      await own.fails('POST', '/goog/cdp/execute', { cmd: 'Runtime.evaluate', params: 5 }, 'invalid argument', 400);
      const refused = await shared.fails('POST', '/goog/cdp/execute', { cmd: 'Target.getTargets', params: {} }, 'unsupported operation', 500);
      assert.match(refused.message, /browser of their own/);
    } finally {
      await own.end();
      await shared.end();
    }
  });
});

describe('se:cdp, the CDP socket', () => {
  test("Selenium's createCDPConnection works through it; a malformed message is -32600; it closes with the session", async () => {
    const options = new chrome.Options().addArguments('--headless=new');
    options.set('webSocketUrl', true);
    const driver = await new Builder().usingServer(gw.url).forBrowser('chrome').setChromeOptions(options as chrome.Options).build();
    const id = (await driver.getSession()).getId();
    const url = (await driver.getCapabilities()).get('se:cdp');
    assert.equal(url, `ws://127.0.0.1:${gw.port}/session/${id}/se/cdp`);
    try {
      const cdp = await (driver as unknown as { createCDPConnection(target: string): Promise<{ send(method: string, params: object): Promise<any> }> }).createCDPConnection('page');
      await driver.get(pages.page('<p>cdp</p>', 'through cdp'));
      const reply = await cdp.send('Runtime.evaluate', { expression: 'document.title', returnByValue: true });
      assert.equal(reply.result.result.value, 'through cdp');
      const raw = new WebSocket(url);
      await new Promise((resolve) => raw.once('open', resolve));
      const answer = new Promise<any>((resolve) => raw.once('message', (d) => resolve(JSON.parse(String(d)))));
      raw.send('{"method": "Runtime.evaluate"}');
      assert.equal((await answer).error.code, -32600);
      const closed = new Promise<number>((resolve) => raw.once('close', resolve));
      await driver.quit();
      assert.equal(await closed, 1000);
    } catch (e) {
      await driver.quit().catch(() => {});
      throw e;
    }
  });

  test('a session that shares its browser has none: no se:cdp, and the socket is refused', async () => {
    const shared = await gw.client.newSession();
    try {
      assert.equal(shared.capabilities['se:cdp'], undefined);
      await assert.rejects(BidiSocket.open(`ws://127.0.0.1:${gw.port}/session/${shared.id}/se/cdp`), (e: { status: number; body: string }) => e.status === 400 && /browser of their own/.test(e.body));
    } finally {
      await shared.end();
    }
  });
});

describe('direct BiDi connections (ws://host:port/session)', () => {
  test('session.status needs no session; a command before session.new is invalid session id; bad capabilities are an error', async () => {
    const socket = await BidiSocket.open(`ws://127.0.0.1:${gw.port}/session`);
    try {
      const status = await socket.call('session.status');
      assert.equal(status.ready, true);
      assert.deepEqual(pick(await socket.command('browsingContext.getTree')), { type: 'error', error: 'invalid session id' });
      assert.deepEqual(pick(await socket.command('session.new', { capabilities: { alwaysMatch: { pageLoadStrategy: 'sometimes' } } })), { type: 'error', error: 'invalid argument' });
      assert.deepEqual(pick(await socket.command('session.new', { capabilities: { alwaysMatch: { browserName: 'netscape' } } })), { type: 'error', error: 'session not created' });
    } finally {
      socket.close();
    }
  });

  test('session.new leases a browser like New Session; the connection is the session, and closing it ends the session', async () => {
    const pid = gw.process.pid!;
    const socket = await BidiSocket.open(`ws://127.0.0.1:${gw.port}/session`);
    const { sessionId, capabilities } = await socket.call('session.new', { capabilities: { alwaysMatch: { ...BACKEND_CAPABILITIES, acceptInsecureCerts: true } } });
    assert.equal(capabilities.browserName, FIREFOX ? 'firefox' : 'chrome');
    assert.equal(capabilities.acceptInsecureCerts, true);
    assert.deepEqual(pick(await socket.command('session.new', { capabilities: {} })), { type: 'error', error: 'session not created' });
    const { contexts } = await socket.call('browsingContext.getTree');
    assert.equal(contexts.length, 1);
    await socket.call('browsingContext.navigate', { context: contexts[0].context, url: pages.page('<p>direct</p>', 'direct'), wait: 'complete' });
    const title = await socket.call('script.evaluate', { expression: 'document.title', target: { context: contexts[0].context }, awaitPromise: false });
    assert.deepEqual(title.result, { type: 'string', value: 'direct' });
    // The same session over HTTP, too.
    assert.equal(await gw.client.ok('GET', `/session/${sessionId}/title`), 'direct');
    const browsers = await leftoverBrowsers(pid);
    socket.terminate(); // a client that died: no session.end
    await eventually(async () => (await gw.client.raw('GET', `/session/${sessionId}/title`)).status === 404, 'the session outlived its connection');
    if (FIREFOX) await eventually(async () => (await gw.client.leasedContexts()) === 0, "the session's context outlived it");
    else await eventually(async () => (await leftoverBrowsers(pid)) < browsers, "the session's browser outlived it");
  });
});

describe("WebdriverIO's BiDi mode", () => {
  test('a malformed subscription is invalid argument; the `default` user context is the session\'s own', async () => {
    const browser = await remote({
      hostname: '127.0.0.1',
      port: gw.port,
      path: '/',
      logLevel: 'silent',
      connectionRetryCount: 0,
      capabilities: { browserName: FIREFOX ? 'firefox' : 'chrome', ...BACKEND_CAPABILITIES, webSocketUrl: true } as WebdriverIO.Capabilities,
    });
    try {
      assert.equal(browser.isBidi, true);
      await assert.rejects(browser.sessionSubscribe({ events: [] }), /failed with error: invalid argument/);
      await assert.rejects(browser.sessionSubscribe({ events: ['log.entryAdded'], contexts: [] }), /failed with error: invalid argument/);
      const { userContexts } = await browser.browserGetUserContexts({});
      assert.equal(userContexts[0]!.userContext, 'default');
      const { context } = await browser.browsingContextCreate({ type: 'tab', userContext: 'default' });
      assert.ok((await browser.getWindowHandles()).includes(context));
      const { partitionKey } = await browser.storageGetCookies({ partition: { type: 'storageKey', userContext: 'default' } });
      assert.equal(partitionKey.userContext, 'default');
      await browser.url(pages.page('<h1>still here</h1>', 'wdio'));
      assert.equal(await browser.getTitle(), 'wdio');
    } finally {
      await browser.deleteSession();
    }
  });
});

describe('limits of one socket', () => {
  let small: TestGateway;
  before(async () => {
    small = await startGateway([], { config: { maxBodyBytes: 65536, maxBidiBufferedBytes: 1048576 } });
  });
  after(async () => {
    await small?.stop();
  });

  test('closes the socket with 1009 (message too big); the session goes on and may connect again', async () => {
    const s = await small.client.newSession({ webSocketUrl: true });
    try {
      const socket = await BidiSocket.open(s.capabilities.webSocketUrl);
      socket.raw(JSON.stringify({ id: 1, method: 'script.evaluate', params: { expression: 'x'.repeat(100_000) } }));
      const closed = await socket.closed;
      assert.equal(closed.code, 1009);
      assert.match(closed.reason, /65536 bytes/);
      const again = await eventuallyOpen(s.capabilities.webSocketUrl);
      assert.equal((await again.call('session.status')).ready, false);
      again.close();
    } finally {
      await s.end();
    }
  });

  test('a client that stops reading is disconnected once maxBidiBufferedBytes wait for it; the session goes on', async () => {
    const s = await small.client.newSession({ webSocketUrl: true });
    try {
      const socket = await BidiSocket.open(s.capabilities.webSocketUrl);
      const context = await s.get('/window');
      await socket.call('session.subscribe', { events: ['log.entryAdded'] });
      socket.pause(); // reads nothing more: what the gateway sends waits in its buffer
      // About 20 MB of events for a client that reads none of them.
      await s.post('/execute/sync', { script: 'for (let i = 0; i < 200; i++) console.log(String(i).repeat(100000));', args: [] });
      socket.resume();
      // Disconnected, not served every event (which an unbounded buffer would have held).
      const outcome = await Promise.race([socket.closed.then(() => 'closed'), socket.until(() => (socket.events.length >= 200 ? 'all read' : undefined), 'every event').catch(() => 'closed')]);
      assert.equal(outcome, 'closed');
      assert.notEqual((await socket.closed).code, 1000);
      assert.ok(socket.events.length < 200, `${socket.events.length} events reached a client that did not read`);
      // The session itself is unharmed, and the gateway serves the next connection.
      assert.equal(typeof (await s.get('/title')), 'string');
      const again = await eventuallyOpen(s.capabilities.webSocketUrl);
      assert.deepEqual((await again.call('script.evaluate', { expression: '1 + 1', target: { context }, awaitPromise: false })).result, { type: 'number', value: 2 });
      again.close();
    } finally {
      await s.end();
    }
  });
});

function pick(m: { type: string; id?: number | null; error?: string }): Record<string, unknown> {
  return m.id === null ? { type: m.type, id: null, error: m.error } : { type: m.type, error: m.error };
}

/** New Session sent with a Host header of our choosing (fetch cannot set it). */
function newSessionWithHost(host: string, alwaysMatch: Record<string, unknown>): Promise<{ sessionId: string; capabilities: Record<string, unknown> }> {
  const body = JSON.stringify({ capabilities: { alwaysMatch: { ...BACKEND_CAPABILITIES, ...alwaysMatch } } });
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: gw.port, method: 'POST', path: '/session', headers: { Host: host, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text).value) : reject(new Error(`${res.statusCode} ${text}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The realms a client is told of in its window, told the same way on any BiDi socket: through two
 * pages and Back, a sandbox of its own; then a handle it disowned, and one that never was.
 */
async function realmStory(socket: BidiSocket, context: string, back: (socket: BidiSocket, context: string) => Promise<void>): Promise<string[]> {
  const told: string[] = [];
  const evaluate = (expression: string, target: Record<string, unknown> = { context }, resultOwnership = 'none') => socket.call('script.evaluate', { expression, target, awaitPromise: false, resultOwnership });
  await socket.call('session.subscribe', { events: ['script.realmCreated'] });
  await socket.call('browsingContext.navigate', { context, url: pages.page('<p>one</p>', 'one'), wait: 'complete' });
  await socket.call('browsingContext.navigate', { context, url: pages.page('<p>two</p>', 'two'), wait: 'complete' });
  await back(socket, context);
  // (While the document changes an evaluation may fail: asked again.)
  const title = async () => (await socket.command('script.evaluate', { expression: 'document.title', target: { context }, awaitPromise: false })).result?.result?.value;
  await eventually(async () => (await title()) === 'one', 'Back did not reach the first page');
  const { realm: sandbox } = await evaluate('1', { context, sandbox: 'story' });
  await socket.event('script.realmCreated', (p) => p.realm === sandbox);
  const sandboxes = (realms: { sandbox?: string; type: string }[]) => [...new Set(realms.map((r) => `${r.type} ${r.sandbox ?? '(main world)'}`))].sort().join(', ');
  told.push(`realmCreated: ${sandboxes(socket.events.filter((e) => e.method === 'script.realmCreated' && e.params.context === context).map((e) => e.params))}`);
  told.push(`getRealms: ${sandboxes((await socket.call('script.getRealms', { context })).realms)}`);
  const { result } = await evaluate('({ a: 1 })', { context }, 'root');
  const call = async (handle: string) => {
    const answer = await socket.command('script.callFunction', { functionDeclaration: '(o) => o', arguments: [{ handle }], target: { context }, awaitPromise: false });
    return answer.type === 'error' ? answer.error! : 'success';
  };
  told.push(await call(result.handle));
  for (const handle of [result.handle, 'no-such-handle']) {
    const disowned = await socket.command('script.disown', { handles: [handle], target: { context } });
    told.push(`disown: ${disowned.type === 'error' ? disowned.error : 'success'}`);
    told.push(await call(handle));
  }
  return told;
}
