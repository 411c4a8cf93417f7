// WebDriver BiDi on Firefox through the gateway: the native backend owns each Firefox process's
// one BiDi session and multiplexes it. Sessions share the process, each sees only its own user
// context; a client that drops leaks nothing, and the process serves the next session; the
// classic commands of a session go over the same BiDi session as its client's. Sharing, a
// session cannot reach another's requests, data or intercepts, nor install an extension; sessions
// of different principals never share a Firefox.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import puppeteer from 'puppeteer-core';
import { BidiSocket, eventuallyOpen, referenceBidi } from '../helpers/bidi.ts';
import type { Session } from '../helpers/client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, leftoverBrowsers, startPageServer, type PageServer } from '../helpers/pages.ts';
import { makeZip } from '../helpers/zip.ts';

let gw: TestGateway;
let pages: PageServer;
/** Another principal, and an admin who sees every principal's pool keys (loopback without a token is `local`). */
const TOKENS = { team: 'team-token-5c2e8a0f4b6d1397', ops: 'ops-token-8d1f3b5a7c9e0246' };

before(async () => {
  const config = { authTokens: [{ name: 'team', token: TOKENS.team }, { name: 'ops', token: TOKENS.ops, admin: true }] };
  [gw, pages] = await Promise.all([startGateway([], { config }), startPageServer()]);
});

after(async () => {
  const pid = gw?.process.pid;
  await gw?.stop();
  await pages?.close();
  if (pid) assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
});

/** A Firefox session that asked for webSocketUrl (the default route sends it to the native backend), and its socket. */
async function firefoxSession(): Promise<{ s: Session; socket: BidiSocket }> {
  const s = await gw.client.newSession({ browserName: 'firefox', webSocketUrl: true });
  return { s, socket: await BidiSocket.open(s.capabilities.webSocketUrl) };
}

/** The Firefox keys of the pool: their browsers and contexts in use. */
async function firefoxPool(): Promise<{ browsers: number; inUse: number }[]> {
  const { pool } = await gw.client.ok('GET', '/status');
  return pool.filter((k: { key: { engine?: string } }) => k.key.engine === 'firefox');
}

const pick = (m: { type: string; error?: string }) => ({ type: m.type, ...(m.error && { error: m.error }) });

describe('Firefox BiDi sessions, multiplexed', () => {
  test('routed to the native backend; a window handle is its BiDi context; classic and BiDi commands on one session', async () => {
    const { s, socket } = await firefoxSession();
    try {
      assert.equal(s.capabilities.browserName, 'firefox');
      assert.equal(s.capabilities['wdgate:options'].backend, 'native');
      const handle = await s.get('/window');
      const { contexts } = await socket.call('browsingContext.getTree');
      assert.deepEqual(
        contexts.map((c: { context: string }) => c.context),
        [handle],
      );
      await s.post('/url', { url: pages.page('<p id="p">classic</p>', 'classic page') });
      const title = await socket.call('script.evaluate', { expression: 'document.title', target: { context: handle }, awaitPromise: false });
      assert.deepEqual(title.result, { type: 'string', value: 'classic page' });
      await socket.call('browsingContext.navigate', { context: handle, url: pages.page('<button id="b" onclick="this.textContent = `clicked`">press</button>', 'bidi page'), wait: 'complete' });
      assert.equal(await s.get('/title'), 'bidi page');
      // A node found over BiDi is an element for classic commands.
      const { nodes } = await socket.call('browsingContext.locateNodes', { context: handle, locator: { type: 'css', value: '#b' } });
      const element = { 'element-6066-11e4-a52e-4f735466cecf': nodes[0].sharedId };
      await s.post(`/element/${nodes[0].sharedId}/click`, {});
      assert.equal(await s.execute('return arguments[0].textContent', [element]), 'clicked');
    } finally {
      socket.close();
      await s.end();
    }
  });

  test('two sessions share one Firefox; each sees only its own windows, user context and events', async () => {
    const a = await firefoxSession();
    const b = await firefoxSession();
    try {
      assert.deepEqual(
        (await firefoxPool()).map((k) => [k.browsers, k.inUse]),
        [[1, 2]],
      );
      const [windowA, windowB] = [await a.s.get('/window'), await b.s.get('/window')];
      const [treeA, treeB] = await Promise.all([a.socket.call('browsingContext.getTree'), b.socket.call('browsingContext.getTree')]);
      assert.deepEqual(
        treeA.contexts.map((c: { context: string }) => c.context),
        [windowA],
      );
      assert.deepEqual(
        treeB.contexts.map((c: { context: string }) => c.context),
        [windowB],
      );
      const { userContexts } = await a.socket.call('browser.getUserContexts');
      assert.deepEqual(
        userContexts.map((u: { userContext: string }) => u.userContext),
        ['default'],
      );
      assert.equal(treeA.contexts[0].userContext, 'default');
      await Promise.all([a.socket.call('session.subscribe', { events: ['log.entryAdded', 'browsingContext.contextCreated'] }), b.socket.call('session.subscribe', { events: ['log.entryAdded'] })]);
      await b.socket.call('script.evaluate', { expression: 'console.log("from b")', target: { context: windowB }, awaitPromise: false });
      await b.socket.event('log.entryAdded', (p) => p.text === 'from b');
      await a.socket.call('script.evaluate', { expression: 'console.log("from a")', target: { context: windowA }, awaitPromise: false });
      await a.socket.event('log.entryAdded', (p) => p.text === 'from a');
      // A window b opens is b's: a hears nothing of it (subscribing, a was told of its own window, as Firefox tells a client of its own).
      const opened = await b.socket.call('browsingContext.create', { type: 'tab' });
      assert.ok((await b.s.get('/window/handles')).includes(opened.context));
      await a.socket.call('script.evaluate', { expression: 'console.log("a again")', target: { context: windowA }, awaitPromise: false });
      await a.socket.event('log.entryAdded', (p) => p.text === 'a again');
      assert.deepEqual(
        a.socket.events.map((e) => [e.method, e.params.context ?? e.params.source.context]),
        [
          ['browsingContext.contextCreated', windowA],
          ['log.entryAdded', windowA],
          ['log.entryAdded', windowA],
        ],
      );
      assert.deepEqual(
        b.socket.events.map((e) => e.params.text),
        ['from b'],
      );
      // Another session's windows and user context cannot be touched.
      for (const [method, params] of [
        ['script.evaluate', { expression: '1', target: { context: windowB }, awaitPromise: false }],
        ['browsingContext.close', { context: windowB }],
        ['browsingContext.navigate', { context: opened.context, url: 'about:blank' }],
      ] as const) {
        assert.deepEqual(pick(await a.socket.command(method, params)), { type: 'error', error: 'no such frame' }, method);
      }
      // Each calls its own user context `default`; one b makes is b's alone.
      assert.equal(treeB.contexts[0].userContext, 'default');
      const { userContext: bOwn } = await b.socket.call('browser.createUserContext');
      assert.deepEqual(pick(await a.socket.command('browser.removeUserContext', { userContext: bOwn })), { type: 'error', error: 'no such user context' });
      assert.deepEqual(pick(await a.socket.command('browsingContext.create', { type: 'tab', userContext: bOwn })), { type: 'error', error: 'no such user context' });
      // A preload script without a scope is the session's own: b's pages do not run it.
      await a.socket.call('script.addPreloadScript', { functionDeclaration: '() => { window.preloaded = true; }' });
      const url = pages.page('<p>preload</p>', 'preload');
      await Promise.all([a.s.post('/url', { url }), b.s.post('/url', { url })]);
      assert.equal(await a.s.execute('return window.preloaded === true'), true);
      assert.equal(await b.s.execute('return window.preloaded === true'), false);
      assert.equal(await b.s.get('/title'), 'preload');
    } finally {
      a.socket.close();
      b.socket.close();
      await a.s.end();
      await b.s.end();
    }
  });

  test('a session outlives a dropped connection: its subscriptions are the session\'s (as the spec has them), the next connection gets their events', async () => {
    const { s, socket } = await firefoxSession();
    try {
      const handle = await s.get('/window');
      await socket.call('session.subscribe', { events: ['log.entryAdded'] });
      socket.terminate(); // no session.end
      await socket.closed;
      const next = await eventuallyOpen(s.capabilities.webSocketUrl);
      await next.call('script.evaluate', { expression: 'console.log("still subscribed")', target: { context: handle }, awaitPromise: false });
      await next.event('log.entryAdded', (p) => p.text === 'still subscribed');
      assert.equal(typeof (await s.get('/url')), 'string');
      next.close();
    } finally {
      await s.end();
    }
  });

  test('a direct session dropped without session.end leaves nothing in the Firefox it used; the same Firefox serves the next one', async () => {
    const url = pages.page('<p>direct</p>', 'direct');
    // The first client subscribes, adds a preload script and a network intercept (both unscoped), then dies.
    const first = await BidiSocket.open(`ws://127.0.0.1:${gw.port}/session`);
    const { sessionId, capabilities } = await first.call('session.new', { capabilities: { alwaysMatch: { browserName: 'firefox' } } });
    assert.equal(capabilities.browserName, 'firefox');
    await first.call('session.subscribe', { events: ['network.beforeRequestSent', 'log.entryAdded'] });
    await first.call('script.addPreloadScript', { functionDeclaration: '() => { window.leftover = true; }' });
    await first.call('network.addIntercept', { phases: ['beforeRequestSent'] });
    first.terminate();
    await eventually(async () => (await gw.client.raw('GET', `/session/${sessionId}/title`)).status === 404, 'the session outlived its connection');
    await eventually(async () => (await firefoxPool()).every((k) => k.inUse === 0), 'the context was not given back');
    // The next one, on the same Firefox: its requests are not held, its pages run no leftover script.
    const second = await BidiSocket.open(`ws://127.0.0.1:${gw.port}/session`);
    try {
      const created = await second.call('session.new', { capabilities: { alwaysMatch: { browserName: 'firefox' } } });
      const { contexts } = await second.call('browsingContext.getTree');
      assert.equal(contexts.length, 1);
      await second.call('browsingContext.navigate', { context: contexts[0].context, url, wait: 'complete' });
      const leftover = await second.call('script.evaluate', { expression: 'window.leftover === true', target: { context: contexts[0].context }, awaitPromise: false });
      assert.deepEqual(leftover.result, { type: 'boolean', value: false });
      assert.equal(await gw.client.ok('GET', `/session/${created.sessionId}/title`), 'direct');
      assert.deepEqual(
        (await firefoxPool()).map((k) => k.browsers),
        [1],
      );
    } finally {
      second.close();
    }
  });

  test("a session is told what a Firefox of its own tells it: subscriptions by module, event, id and user context; its user context is `default`; console messages logged before it subscribed", async () => {
    // Firefox of its own starts while the gateway's session is made; the story runs on both at once.
    const [started, made] = await Promise.allSettled([referenceBidi('firefox'), firefoxSession()]);
    try {
      if (started.status === 'rejected') throw started.reason;
      if (made.status === 'rejected') throw made.reason;
      const [reference, { s, socket }] = [started.value, made.value];
      const [theirs, ours] = await Promise.all([subscriptionStory(reference.socket, reference.context), s.get('/window').then((window) => subscriptionStory(socket, window))]);
      assert.deepEqual(ours, theirs);
      // What the story shows (it is the same on both).
      for (const told of ['browsingContext.contextCreated #1 default', 'log.entryAdded #1 at load', 'log.entryAdded #1 logged before', 'browsingContext.contextCreated #2 default']) assert.ok(ours.includes(told), told);
    } finally {
      if (made.status === 'fulfilled') {
        made.value.socket.close();
        await made.value.s.end();
      }
      if (started.status === 'fulfilled') await started.value.close();
    }
  });

  test('Puppeteer over WebDriver BiDi drives Firefox through the gateway', async () => {
    const browser = await puppeteer.connect({ browserWSEndpoint: `ws://127.0.0.1:${gw.port}/session`, protocol: 'webDriverBiDi', capabilities: { alwaysMatch: { browserName: 'firefox' } } } as never);
    try {
      const [page] = await browser.pages();
      await page!.goto(pages.page('<h1>hello</h1>', 'puppeteer page'));
      assert.equal(await page!.title(), 'puppeteer page');
      assert.equal(await page!.$eval('h1', (e) => e.textContent), 'hello');
      assert.match(await browser.version(), /firefox/i);
    } finally {
      await browser.close();
    }
  });
});

// A missing event would leave a story waiting: these fail after a bound instead (not a timing).
describe('sharing a Firefox', () => {
  test("sessions of different principals never share a Firefox (without Fission a content process holds several sessions' pages); one principal's sessions do", async () => {
    const team = gw.client.withToken(TOKENS.team);
    const ops = gw.client.withToken(TOKENS.ops);
    const sessions = [await gw.client.newSession({ browserName: 'firefox' }), await gw.client.newSession({ browserName: 'firefox' }), await team.newSession({ browserName: 'firefox' })];
    try {
      const keys = ((await ops.ok('GET', '/status')).pool as { key: { engine?: string }; principal?: string; browsers: number; inUse: number }[]).filter((k) => k.key.engine === 'firefox');
      assert.deepEqual(keys.map((k) => [k.principal, k.browsers, k.inUse]).sort(), [
        ['local', 1, 2],
        ['team', 1, 1],
      ]);
      // A principal that is no admin sees its own keys only.
      assert.deepEqual(
        (await firefoxPool()).map((k) => (k as { principal?: string }).principal),
        ['local'],
      );
    } finally {
      for (const s of sessions) await s.end();
    }
  });

  test('a session sharing its Firefox cannot install an extension; one that asked for a browser of its own can', async () => {
    // An extension as a client brings it (a base64 archive): a path would be the machine's, which
    // this principal may not reach (backends/policy/bidi.ts).
    const archive = makeZip([{ name: 'manifest.json', data: JSON.stringify({ manifest_version: 2, name: 'wdgate test', version: '1.0', browser_specific_settings: { gecko: { id: 'wdgate-test@example.org' } } }) }]).toString('base64');
    const shared = await firefoxSession();
    let own: Session | undefined;
    try {
      const refused = await shared.socket.command('webExtension.install', { extensionData: { type: 'base64', value: archive } });
      assert.equal(refused.error, 'unsupported operation');
      assert.match(refused.message!, /shares its Firefox.*ownBrowser/);
      const byPath = await shared.socket.command('webExtension.install', { extensionData: { type: 'path', path: tmpdir() } });
      assert.equal(byPath.error, 'invalid argument');
      assert.match(byPath.message!, /an extension from a path: .*not this session's/);
      // Uninstalling: it installed none, so none exists for it (as Firefox answers an unknown id).
      assert.deepEqual(pick(await shared.socket.command('webExtension.uninstall', { extension: 'some@extension' })), { type: 'error', error: 'no such web extension' });
      own = await gw.client.newSession({ browserName: 'firefox', webSocketUrl: true, 'wdgate:options': { ownBrowser: true } });
      assert.equal(own.capabilities['wdgate:options'].ownBrowser, true);
      const socket = await BidiSocket.open(own.capabilities.webSocketUrl);
      try {
        const { extension: id } = await socket.call('webExtension.install', { extensionData: { type: 'base64', value: archive } });
        assert.equal(typeof id, 'string');
        await socket.call('webExtension.uninstall', { extension: id });
      } finally {
        socket.close();
      }
    } finally {
      shared.socket.close();
      await shared.s.end();
      await own?.end();
    }
  });

  test("another session's requests, data, intercepts and preload scripts do not exist for it (answered as Firefox answers an id it never gave); its intercepts cover windows it opens later, and block nobody else's requests", { timeout: 120_000 }, async () => {
    const [started, a, b] = await Promise.allSettled([referenceBidi('firefox'), firefoxSession(), firefoxSession()]);
    try {
      for (const made of [started, a, b]) if (made.status === 'rejected') throw made.reason;
      const reference = (started as PromiseFulfilledResult<Awaited<ReturnType<typeof referenceBidi>>>).value;
      const [ours, other] = [(a as PromiseFulfilledResult<{ s: Session; socket: BidiSocket }>).value, (b as PromiseFulfilledResult<{ s: Session; socket: BidiSocket }>).value];
      const [ourWindow, otherWindow] = [await ours.s.get('/window'), await other.s.get('/window')];
      // The other session listens for requests, keeps their responses (Firefox keeps a response
      // only where its responseCompleted is listened for), intercepts a page of its own.
      const [passes, held] = [pages.page('<p>passes</p>', 'passes'), pages.page('<p>held</p>', 'held')];
      await other.socket.call('session.subscribe', { events: ['network.beforeRequestSent', 'network.responseCompleted'] });
      const { collector } = await other.socket.call('network.addDataCollector', { dataTypes: ['response'], maxEncodedDataSize: 100_000 });
      const { intercept } = await other.socket.call('network.addIntercept', { phases: ['beforeRequestSent'], urlPatterns: [{ type: 'string', pattern: held }] });
      const { script } = await other.socket.call('script.addPreloadScript', { functionDeclaration: '() => {}' });
      // An intercept of ours without contexts matches its page: its request is not held for us, and goes on.
      await ours.socket.call('session.subscribe', { events: ['network.beforeRequestSent'] });
      const { intercept: ourFirst } = await ours.socket.call('network.addIntercept', { phases: ['beforeRequestSent'], urlPatterns: [{ type: 'string', pattern: passes }] });
      await other.socket.call('browsingContext.navigate', { context: otherWindow, url: passes, wait: 'complete' });
      const passed = await other.socket.event('network.beforeRequestSent', (p) => p.request.url === passes);
      assert.deepEqual([passed.params.isBlocked, passed.params.intercepts], [false, undefined]);
      await ours.socket.call('network.removeIntercept', { intercept: ourFirst });
      // Its own intercept holds its own request: blocked for it, while we try.
      const heldNavigation = other.socket.command('browsingContext.navigate', { context: otherWindow, url: held, wait: 'complete' });
      const blocked = await other.socket.event('network.beforeRequestSent', (p) => p.request.url === held);
      assert.deepEqual([blocked.params.isBlocked, blocked.params.intercepts], [true, [intercept]]);
      const others = { request: blocked.params.request.request, data: passed.params.request.request, collector, intercept, script };
      // Our story, and the same on a Firefox of its own (where those ids name nothing).
      const [theirs, told] = await Promise.all([networkStory(reference.socket, reference.context, others), networkStory(ours.socket, ourWindow, others)]);
      assert.deepEqual(told, theirs);
      for (const expected of ['blocked in a later tab by its intercept', 'blocked in a popup by its intercept', 'network.continueRequest: no such request', 'network.getData: no such network data', 'network.removeIntercept: no such intercept']) {
        assert.ok(told.some((t) => t.startsWith(expected)), `${expected}\n${told.join('\n')}`);
      }
      // Nothing we tried reached the other session: its request is still held for it, its data, intercept and script are there.
      await other.socket.call('network.continueRequest', { request: others.request });
      await other.socket.call('network.getData', { request: others.data, dataType: 'response', collector });
      await other.socket.call('network.removeIntercept', { intercept });
      await other.socket.call('script.removePreloadScript', { script });
      await heldNavigation; // its navigation completes once its request goes on
      assert.equal(await other.s.get('/title'), 'held');
    } finally {
      for (const made of [a, b]) {
        if (made.status !== 'fulfilled') continue;
        made.value.socket.close();
        await made.value.s.end();
      }
      if (started.status === 'fulfilled') await started.value.close();
    }
  });

  test('realm events reach the client as from a Firefox of its own: a closed tab\'s, a removed frame\'s, a sandbox\'s, a worker\'s', { timeout: 120_000 }, async () => {
    const [started, made] = await Promise.allSettled([referenceBidi('firefox'), firefoxSession()]);
    try {
      if (started.status === 'rejected') throw started.reason;
      if (made.status === 'rejected') throw made.reason;
      const [theirs, ours] = await Promise.all([realmStory(started.value.socket), realmStory(made.value.socket)]);
      assert.deepEqual(ours, theirs);
    } finally {
      if (made.status === 'fulfilled') {
        made.value.socket.close();
        await made.value.s.end();
      }
      if (started.status === 'fulfilled') await started.value.close();
    }
  });
});

/**
 * One client's story with the network of its session, told the same way on any Firefox BiDi
 * socket: an intercept without contexts holds its requests in a tab and a popup it opens later;
 * commands naming `others` (another session's blocked request, collected response, collector,
 * intercept and preload script) are answered.
 */
async function networkStory(socket: BidiSocket, first: string, others: { request: string; data: string; collector: string; intercept: string; script: string }): Promise<string[]> {
  const told: string[] = [];
  const answer = async (method: string, params: Record<string, unknown>) => {
    const a = await socket.command(method, params);
    told.push(`${method}: ${a.type === 'error' ? `${a.error} ${a.message}` : 'success'}`);
  };
  const [later, popup] = [pages.page('<p>later</p>', 'later'), pages.page('<p>popup</p>', 'popup')];
  await socket.call('session.subscribe', { events: ['network.beforeRequestSent'] });
  const { intercept } = await socket.call('network.addIntercept', { phases: ['beforeRequestSent'], urlPatterns: [{ type: 'string', pattern: later }, { type: 'string', pattern: popup }] });
  const held = async (url: string, where: (context: string) => string) => {
    const { params } = await socket.event('network.beforeRequestSent', (p) => p.request.url === url);
    told.push(`blocked in ${where(params.context)} by ${params.isBlocked && params.intercepts.join() === intercept ? 'its intercept' : JSON.stringify(params.intercepts)}`);
    await answer('network.continueRequest', { request: params.request.request });
  };
  const { context: tab } = await socket.call('browsingContext.create', { type: 'tab' });
  const navigated = socket.call('browsingContext.navigate', { context: tab, url: later, wait: 'complete' });
  await held(later, (c) => (c === tab ? 'a later tab' : c));
  await navigated;
  await socket.call('script.evaluate', { expression: `void window.open(${JSON.stringify(popup)})`, target: { context: tab }, awaitPromise: false, userActivation: true });
  await held(popup, (c) => (c !== tab && c !== first ? 'a popup' : c));
  await answer('network.continueRequest', { request: others.request });
  await answer('network.continueResponse', { request: others.request });
  await answer('network.continueWithAuth', { request: others.request, action: 'default' });
  await answer('network.failRequest', { request: others.request });
  await answer('network.provideResponse', { request: others.request });
  await answer('network.getData', { request: others.data, dataType: 'response' });
  const { collector } = await socket.call('network.addDataCollector', { dataTypes: ['response'], maxEncodedDataSize: 100_000 });
  await answer('network.getData', { request: others.data, dataType: 'response' });
  await answer('network.getData', { request: others.data, dataType: 'response', collector });
  await answer('network.disownData', { request: others.data, dataType: 'response', collector });
  await answer('network.getData', { request: others.data, dataType: 'response', collector: others.collector });
  await answer('network.removeDataCollector', { collector: others.collector });
  await answer('network.removeIntercept', { intercept: others.intercept });
  await answer('script.removePreloadScript', { script: others.script });
  return told;
}

/**
 * Realm events of a tab, told the same way on any Firefox BiDi socket (realms as the step that
 * made them): the tab's document with a frame, a sandbox in it and a worker of it; the frame
 * removed; the tab navigated; the tab closed. Each step waits for the event it must bring.
 */
async function realmStory(socket: BidiSocket): Promise<string[]> {
  const told: string[] = [];
  await socket.call('session.subscribe', { events: ['script.realmCreated', 'script.realmDestroyed'] });
  const destroyed = async (realm: string, what: string) => {
    await socket.event('script.realmDestroyed', (p) => p.realm === realm);
    told.push(`realmDestroyed: ${what}`);
  };
  const { context: tab } = await socket.call('browsingContext.create', { type: 'tab' });
  await socket.call('browsingContext.navigate', { context: tab, url: pages.page(`<iframe src="${pages.page('<p>inner</p>')}"></iframe>`), wait: 'complete' });
  const evaluate = async (target: Record<string, unknown>, expression = '1') => (await socket.call('script.evaluate', { expression, target, awaitPromise: true })).realm as string;
  const document = await evaluate({ context: tab });
  const { contexts } = await socket.call('browsingContext.getTree', { root: tab });
  const frame = await evaluate({ context: contexts[0].children[0].context });
  const sandbox = await evaluate({ context: tab, sandbox: 'story' });
  await evaluate({ context: tab }, `new Promise((resolve) => { window.worker = new Worker(URL.createObjectURL(new Blob(['postMessage(1)']))); worker.onmessage = resolve; }).then(() => 1)`);
  const { params: created } = await socket.event('script.realmCreated', (p) => p.type === 'dedicated-worker');
  told.push(`realmCreated: a ${created.type} owned by ${created.owners.join() === document ? 'the document' : JSON.stringify(created.owners)}`);
  const { realms } = await socket.call('script.getRealms', {});
  told.push(`getRealms lists it: ${realms.some((r: { realm: string; owners?: string[] }) => r.realm === created.realm && r.owners?.join() === document)}`);
  const inWorker = await socket.command('script.evaluate', { expression: '6 * 7', target: { realm: created.realm }, awaitPromise: false });
  told.push(`script.evaluate in it: ${inWorker.type === 'error' ? inWorker.error : JSON.stringify(inWorker.result.result)}`);
  await socket.call('script.evaluate', { expression: 'document.querySelector("iframe").remove()', target: { context: tab }, awaitPromise: false });
  await destroyed(frame, "the removed frame's document");
  await socket.call('browsingContext.navigate', { context: tab, url: pages.page('<p>next</p>'), wait: 'complete' });
  await destroyed(document, 'the document navigated away from');
  await destroyed(sandbox, 'its sandbox');
  await destroyed(created.realm, 'its worker');
  const next = await evaluate({ context: tab });
  await socket.call('browsingContext.close', { context: tab });
  await destroyed(next, "the closed tab's document");
  return told;
}

/**
 * One client's story, told the same way on any Firefox BiDi socket (ids as #1, #2 in the order
 * they appear): it subscribes after its page logged, by module; opens a tab in `default`; leaves
 * one event of a module; tries to leave the whole module (refused: one of its events is gone
 * already); unsubscribes by id, twice; subscribes by user context; reads a cookie store's key,
 * the tree and the user contexts. Between steps a console message marks where the events so far end.
 */
async function subscriptionStory(socket: BidiSocket, first: string): Promise<string[]> {
  const told: string[] = [];
  const names = new Map<string, string>();
  const name = (id: unknown) => (typeof id === 'string' ? (names.get(id) ?? (names.set(id, `#${names.size + 1}`), names.get(id)!)) : String(id));
  name(first);
  const page = (text: string) => `data:text/html,<script>console.log(${JSON.stringify(text)})</script>`;
  const answer = async (method: string, params: Record<string, unknown>) => {
    const a = await socket.command(method, params);
    told.push(`${method}: ${a.type === 'error' ? a.error : 'success'}`);
    return a.result;
  };
  let seen = 0;
  let marks = 0;
  // The events since the last mark, of this client's contexts (a Firefox of its own also loads pages of its own, such as about:newtab).
  const mark = async () => {
    const text = `mark ${++marks}`;
    await socket.call('script.evaluate', { expression: `console.log(${JSON.stringify(text)})`, target: { context: first }, awaitPromise: false });
    await socket.event('log.entryAdded', (p) => p.text === text);
    for (const { method, params } of socket.events.slice(seen)) {
      const context = params.context ?? params.source?.context;
      if (names.has(context)) told.push(`${method} ${name(context)} ${params.userContext ?? params.text ?? ''}`.trim());
    }
    seen = socket.events.length;
  };
  await socket.call('browsingContext.navigate', { context: first, url: page('at load'), wait: 'complete' });
  await socket.call('script.evaluate', { expression: 'console.log("logged before")', target: { context: first }, awaitPromise: false });
  const { subscription } = await answer('session.subscribe', { events: ['browsingContext', 'log'] });
  await mark();
  const { context: tab } = await answer('browsingContext.create', { type: 'tab', userContext: 'default' });
  name(tab);
  await mark();
  await answer('session.unsubscribe', { events: ['browsingContext.load'] });
  await socket.call('browsingContext.navigate', { context: tab, url: page('in the tab'), wait: 'complete' });
  await mark();
  await answer('session.unsubscribe', { events: ['browsingContext'] });
  await answer('session.unsubscribe', { subscriptions: [subscription] });
  await answer('session.unsubscribe', { subscriptions: [subscription] });
  await answer('session.subscribe', { events: ['log.entryAdded'], userContexts: ['default'] });
  await mark();
  const { partitionKey } = await answer('storage.getCookies', { partition: { type: 'context', context: tab } });
  told.push(`partitionKey ${partitionKey.userContext} ${Object.keys(partitionKey).sort()}`);
  const { contexts } = await answer('browsingContext.getTree', {});
  told.push(`tree ${contexts.map((c: { context: string; userContext: string }) => `${name(c.context)} ${c.userContext}`).sort()}`);
  const { userContexts } = await answer('browser.getUserContexts', {});
  told.push(`first user context ${userContexts[0].userContext}`);
  return told;
}
