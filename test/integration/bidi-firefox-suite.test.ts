// What the Selenium project's own JavaScript BiDi tests found on Firefox through the gateway (the
// shared Firefox, one user context a session), each told as that suite tells it (selenium-webdriver
// and its BiDi modules) and, where the story is BiDi alone, told to a Firefox of its own as well
// and compared: the shared Firefox answers as Firefox alone does. What geckodriver answers (there
// is no geckodriver here) was read off Marionette, its end inside Firefox ESR 153.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { Builder, until, type WebDriver } from 'selenium-webdriver';
import firefox from 'selenium-webdriver/firefox.js';
import { BidiSocket, referenceBidi, type ReferenceBidi } from '../helpers/bidi.ts';
import type { Session } from '../helpers/client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, leftoverBrowsers, startPageServer, type PageServer } from '../helpers/pages.ts';

// selenium-webdriver's BiDi modules as its own tests load them (their types are not published).
const require = createRequire(import.meta.url);
type Listen = (callback: (event: any) => void) => Promise<unknown>;
const { Network } = require('selenium-webdriver/bidi/network.js') as {
  Network(driver: WebDriver): Promise<{ authRequired: Listen; beforeRequestSent: Listen; addIntercept(params: unknown): Promise<string>; continueWithAuth(request: string, username: string, password: string): Promise<void>; continueWithAuthNoCredentials(request: string): Promise<void>; close(): Promise<void> }>;
};
const { AddInterceptParameters } = require('selenium-webdriver/bidi/addInterceptParameters.js');
const { InterceptPhase } = require('selenium-webdriver/bidi/interceptPhase.js');
const Storage = require('selenium-webdriver/bidi/storage.js') as (driver: WebDriver) => Promise<{ getCookies(filter?: unknown, partition?: unknown): Promise<any>; setCookie(cookie: unknown, partition?: unknown): Promise<any> }>;
const BrowserBiDi = require('selenium-webdriver/bidi/browser.js') as (driver: WebDriver) => Promise<{ createUserContext(): Promise<string> }>;
const BrowsingContext = require('selenium-webdriver/bidi/browsingContext.js') as (driver: WebDriver, options: Record<string, unknown>) => Promise<{ id: string }>;
const ScriptManager = require('selenium-webdriver/bidi/scriptManager.js') as (context: string, driver: WebDriver) => Promise<any>;
const { CreateContextParameters } = require('selenium-webdriver/bidi/createContextParameters.js');
const { CookieFilter } = require('selenium-webdriver/bidi/cookieFilter.js');
const { BytesValue } = require('selenium-webdriver/bidi/networkTypes.js');
const { PartialCookie } = require('selenium-webdriver/bidi/partialCookie.js');
const { BrowsingContextPartitionDescriptor, StorageKeyPartitionDescriptor } = require('selenium-webdriver/bidi/partitionDescriptor.js');
const { EvaluateResultType } = require('selenium-webdriver/bidi/evaluateResult.js');

let gw: TestGateway;
let pages: PageServer;
let auth: AuthServer;
let reference: ReferenceBidi;

before(async () => {
  [gw, pages, auth, reference] = await Promise.all([startGateway([], { config: { pool: { minWarm: 0 } } }), startPageServer(), startAuthServer(), referenceBidi('firefox')]);
});

after(async () => {
  const pid = gw?.process.pid;
  await reference?.close();
  await gw?.stop();
  await pages?.close();
  await auth?.close();
  if (pid) assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
});

/** A Selenium Firefox driver with BiDi, as the suite's `env.builder()` makes one. */
function firefoxDriver(): Promise<WebDriver> {
  const options = new firefox.Options();
  options.enableBidi();
  return new Builder().usingServer(gw.url).forBrowser('firefox').setFirefoxOptions(options).build();
}

/** A driver for `story`, quit after it whatever happens. */
async function withDriver(story: (driver: WebDriver) => Promise<void>): Promise<void> {
  const driver = await firefoxDriver();
  try {
    await story(driver);
  } finally {
    await driver.quit();
  }
}

/** A gateway session with BiDi, and its socket. */
async function bidiSession(): Promise<{ s: Session; socket: BidiSocket }> {
  const s = await gw.client.newSession({ browserName: 'firefox', webSocketUrl: true });
  return { s, socket: await BidiSocket.open(s.capabilities.webSocketUrl) };
}

/** The Firefox keys' contexts in use (GET /status). */
async function firefoxInUse(): Promise<number> {
  const { pool } = await gw.client.ok('GET', '/status');
  return pool.filter((k: { key: { engine?: string } }) => k.key.engine === 'firefox').reduce((n: number, k: { inUse: number }) => n + k.inUse, 0);
}

describe('HTTP authentication on the shared Firefox', () => {
  test("Firefox's prompt for credentials is the session's user prompt, as geckodriver has it: Navigate To answers once it opens, Get Alert Text tells Firefox's words, the handler dismisses it and the 401 page loads; a client listening for network.authRequired is told as by Firefox alone", async () => {
    const { s, socket } = await bidiSession();
    try {
      const handle = await s.get('/window');
      await socket.call('session.subscribe', { events: ['network.authRequired'] });
      const url = auth.url('/denied');
      // Navigate To does not wait for a page that waits for credentials (Marionette: it answers once the prompt opens).
      assert.equal(await s.navigate(url), null);
      const { params } = await socket.event('network.authRequired', (p) => p.request.url === url);
      // Told as a Firefox of its own tells a client that listens (no intercept of its own: not blocked).
      await reference.socket.call('session.subscribe', { events: ['network.authRequired'] });
      // Its navigation waits for a response, which its prompt holds (answered once the test goes elsewhere).
      void reference.socket.command('browsingContext.navigate', { context: reference.context, url, wait: 'none' });
      const { params: theirs } = await reference.socket.event('network.authRequired', (p) => p.request.url === url);
      const told = (p: any, context: string) => ({ ownContext: p.context === context, isBlocked: p.isBlocked, intercepts: p.intercepts, method: p.request.method, status: p.response.status, challenge: p.response.headers.find((h: { name: string }) => h.name.toLowerCase() === 'www-authenticate')?.value });
      assert.deepEqual(told(params, handle), told(theirs, reference.context));
      // BiDi cannot answer that prompt, there as here (Firefox's opens a moment after its event).
      const answer = async (client: BidiSocket, context: string) => {
        const { error, message } = await client.command('browsingContext.handleUserPrompt', { context, accept: false });
        return { error, message };
      };
      let theirAnswer: Awaited<ReturnType<typeof answer>> | undefined;
      await eventually(async () => (theirAnswer = await answer(reference.socket, reference.context)).error !== 'no such alert', 'Firefox alone showed no prompt');
      assert.deepEqual(await answer(socket, handle), theirAnswer);
      // The prompt: Firefox's words (Marionette's Get Alert Text); Send Alert Text has no field to fill.
      assert.equal(await s.get('/alert/text'), 'This site is asking you to sign in.');
      await s.fails('POST', '/alert/text', { text: 'genie' }, 'unsupported operation');
      // The default handler ("dismiss and notify"), as Marionette's "default" prompt type: dismissed, then the 401 page.
      const unexpected = await s.fails('GET', '/title', undefined, 'unexpected alert open');
      assert.equal(unexpected.data.text, 'This site is asking you to sign in.');
      await eventually(async () => (await s.get('/title')) === 'Access denied', 'the 401 page did not load once the prompt was dismissed');
      await s.fails('GET', '/alert/text', undefined, 'no such alert');
      // Dismiss Alert cancels it too.
      await s.navigate(auth.url('/denied?again'));
      await s.post('/alert/dismiss');
      await eventually(async () => (await s.get('/title')) === 'Access denied', 'the 401 page did not load once the prompt was dismissed');
      // Two prompts of a site in a tab without a name given are all Firefox shows: the third request is cancelled, and Navigate To waits for its 401 page.
      await s.navigate(auth.url('/denied?third'));
      assert.equal(await s.get('/title'), 'Access denied');
      await s.fails('GET', '/alert/text', undefined, 'no such alert');
      // Another site's prompt; the session ends with it open.
      await s.navigate(auth.url('/denied?left-open', 'localhost'));
      assert.equal(await s.get('/alert/text'), 'This site is asking you to sign in.');
    } finally {
      socket.close();
      await s.end();
      // Firefox alone keeps its prompt: going elsewhere takes it down.
      await reference.socket.call('browsingContext.navigate', { context: reference.context, url: 'about:blank', wait: 'complete' });
    }
    await eventually(async () => (await firefoxInUse()) === 0, 'the session with a prompt for credentials open was not given back');
  });

  test("the suite's network commands: credentials from the client's own intercept; its continueWithAuthNoCredentials leaves the prompt to the session, which dismisses it", async () => {
    await withDriver(async (driver) => {
      const network = await Network(driver);
      await network.addIntercept(new AddInterceptParameters(InterceptPhase.AUTH_REQUIRED));
      await network.authRequired(async (event) => {
        await network.continueWithAuth(event.request.request, 'genie', 'bottle');
      });
      await driver.get(auth.url('/granted'));
      await driver.wait(until.elementLocated({ css: 'pre' }));
      assert.ok((await driver.getPageSource()).includes('Access granted'));
    });
    await withDriver(async (driver) => {
      const network = await Network(driver);
      await network.addIntercept(new AddInterceptParameters(InterceptPhase.AUTH_REQUIRED));
      await network.authRequired(async (event) => {
        await network.continueWithAuthNoCredentials(event.request.request);
      });
      await driver.get(auth.url('/granted'));
      const alert = await driver.wait(until.alertIsPresent());
      assert.equal(await alert.getText(), 'This site is asking you to sign in.');
      await alert.dismiss();
      await driver.wait(until.elementLocated({ css: 'pre' }));
      assert.ok((await driver.getPageSource()).includes('Access denied'));
    });
  });

  test('Delete Session ends a session while a command of it cannot finish (its navigation held by an intercept nobody answers)', async () => {
    const { s, socket } = await bidiSession();
    const url = pages.page('<p>never</p>', 'never');
    let navigated = false;
    let navigation: Promise<{ status: number; value: any }> | undefined;
    try {
      await socket.call('session.subscribe', { events: ['network.beforeRequestSent'] });
      await socket.call('network.addIntercept', { phases: ['beforeRequestSent'], urlPatterns: [{ type: 'string', pattern: url }] });
      navigation = s.raw('POST', '/url', { url }).finally(() => (navigated = true));
      await socket.event('network.beforeRequestSent', (p) => p.request.url === url && p.isBlocked);
      // Behind a navigation the page load timeout (300 s) would end: Delete Session does not wait for it.
      await s.end();
      assert.equal(navigated, false, 'the navigation finished before Delete Session answered');
      await s.fails('GET', '/title', undefined, 'invalid session id');
      await navigation;
    } finally {
      socket.close();
    }
    await eventually(async () => (await firefoxInUse()) === 0, 'the ended session kept its context');
  });
});

describe("events and cookies, as Firefox alone tells them", () => {
  test('browsingContext.fragmentNavigated reaches a client that subscribed (Firefox names no context in it: only a subscription for the whole browser gets it there), before the navigation answers', async () => {
    const { s, socket } = await bidiSession();
    try {
      const url = pages.page('<p id="top">top</p><div style="height: 3000px"></div><p id="end">end</p>', 'fragments');
      const story = async (client: BidiSocket, context: string) => {
        await client.call('browsingContext.navigate', { context, url, wait: 'complete' });
        const { subscription } = await client.call('session.subscribe', { events: ['browsingContext.fragmentNavigated'] });
        const before = client.events.length;
        await client.call('browsingContext.navigate', { context, url: `${url}#end`, wait: 'complete' });
        const told = client.events.slice(before).map((e) => [e.method, e.params.context === context, e.params.url === `${url}#end`, typeof e.params.navigation]);
        await client.call('session.unsubscribe', { subscriptions: [subscription] });
        return told;
      };
      const ours = await story(socket, await s.get('/window'));
      assert.deepEqual(ours, await story(reference.socket, reference.context));
      assert.deepEqual(ours, [['browsingContext.fragmentNavigated', true, true, 'string']]);
    } finally {
      socket.close();
      await s.end();
    }
  });

  test('network.beforeRequestSent lists a cookie Add Cookie set, once the page is reloaded (the cookie is the user context\'s, as geckodriver adds it)', async () => {
    const page = pages.page('<p>cookies</p>', 'cookies');
    let ours: any;
    await withDriver(async (driver) => {
      const network = await Network(driver);
      let last: any;
      await network.beforeRequestSent((event) => {
        if (event?.request?.url === page) last = event;
      });
      await driver.get(page);
      await driver.manage().addCookie({ name: 'north', value: 'biryani' });
      await driver.navigate().refresh();
      await driver.wait(() => last?.request.cookies.length > 0, 5000, 'no cookie in the reloaded page\'s request');
      assert.equal(last.request.cookies[0].name, 'north');
      assert.equal(last.request.cookies[0].value.value, 'biryani');
      await driver.manage().addCookie({ name: 'south', value: 'dosa' });
      await driver.navigate().refresh();
      await driver.wait(() => last?.request.cookies.length > 1, 5000, 'no second cookie in the reloaded page\'s request');
      assert.equal(last.request.cookies[1].name, 'south');
      ours = last.request.cookies[0];
    });
    // A Firefox of its own lists such a cookie (one of the user context, in no partition) alike.
    const { subscription } = await reference.socket.call('session.subscribe', { events: ['network.beforeRequestSent'] });
    try {
      await reference.socket.call('browsingContext.navigate', { context: reference.context, url: page, wait: 'complete' });
      await reference.socket.call('storage.setCookie', { cookie: { name: 'north', value: { type: 'string', value: 'biryani' }, domain: new URL(page).hostname }, partition: { type: 'storageKey', userContext: 'default' } });
      const before = reference.socket.events.length;
      await reference.socket.call('browsingContext.reload', { context: reference.context, wait: 'complete' });
      const theirs = reference.socket.events.slice(before).find((e) => e.method === 'network.beforeRequestSent' && e.params.request.url === page)!.params.request.cookies[0];
      const told = (c: any) => ({ name: c.name, value: c.value, domain: c.domain, path: c.path, size: c.size, httpOnly: c.httpOnly, secure: c.secure, sameSite: c.sameSite, expires: c.expires ?? null });
      assert.deepEqual(told(ours), told(theirs));
    } finally {
      await reference.socket.call('session.unsubscribe', { subscriptions: [subscription] });
      await reference.socket.call('storage.deleteCookies', {});
    }
  });

  test("a tab BiDi made in a user context the client made is the session's: Switch To Window reaches it, cookies are told by its partition (the suite's 'can get cookie in a user context')", async () => {
    await withDriver(async (driver) => {
      await driver.get(pages.page('<p>first</p>', 'first'));
      const browser = await BrowserBiDi(driver);
      const userContext = await browser.createUserContext();
      const windowHandle = await driver.getWindowHandle();
      const partition = new StorageKeyPartitionDescriptor().userContext(userContext);
      const storage = await Storage(driver);
      await storage.setCookie(new PartialCookie('made', new BytesValue(BytesValue.Type.STRING, 'set'), '127.0.0.1'), partition);
      const filter = new CookieFilter().name('made').value(new BytesValue(BytesValue.Type.STRING, 'set'));
      const tab = await BrowsingContext(driver, { type: 'tab', createParameters: new CreateContextParameters().userContext(userContext) });
      await driver.switchTo().window(tab.id);
      const found = await storage.getCookies(filter, partition);
      assert.equal(found.cookies[0].value.value, 'set');
      // Classic commands reach the tab; a cookie it adds is its user context's.
      await driver.get(pages.page('<p>in the tab</p>', 'in the tab'));
      assert.equal(await driver.getTitle(), 'in the tab');
      await driver.manage().addCookie({ name: 'tab', value: 'only' });
      assert.deepEqual((await driver.manage().getCookies()).map((c) => c.name).sort(), ['made', 'tab']);
      await driver.switchTo().window(windowHandle);
      assert.deepEqual(await driver.manage().getCookies(), []);
      const afterSwitchingBack = await storage.getCookies(filter, new BrowsingContextPartitionDescriptor(windowHandle));
      assert.equal(afterSwitchingBack.cookies.length, 0);
    });
  });

  test("a cookie lookup scoped to a window the client opened finds a cookie Add Cookie set (the suite's 'can get cookie in default user context')", async () => {
    await withDriver(async (driver) => {
      await driver.get(pages.page('<p>ajaxy</p>', 'ajaxy'));
      const windowHandle = await driver.getWindowHandle();
      await driver.manage().addCookie({ name: 'everywhere', value: 'in the user context' });
      const filter = new CookieFilter().name('everywhere').value(new BytesValue(BytesValue.Type.STRING, 'in the user context'));
      await driver.switchTo().newWindow('window');
      const storage = await Storage(driver);
      const inNewWindow = await storage.getCookies(filter, new BrowsingContextPartitionDescriptor(await driver.getWindowHandle()));
      assert.equal(inNewWindow.cookies[0]?.value.value, 'in the user context');
      await driver.switchTo().window(windowHandle);
      const result = await storage.getCookies(filter, new BrowsingContextPartitionDescriptor(windowHandle));
      assert.equal(result.cookies[0]?.value.value, 'in the user context');
      assert.equal(result.partitionKey.userContext, 'default');
      assert.notEqual(result.partitionKey.sourceOrigin, undefined);
    });
  });
});

describe('new tabs', () => {
  test("new tabs and windows open in the session's own windows, never in or from another session's (Firefox opens them in or from its most recent window: one closing would never bring them); the suite's realm tests after opening one", async () => {
    const ours = await bidiSession();
    // Another session's window is newer than ours: Firefox's most recent.
    const other = await bidiSession();
    try {
      const clientWindow = async (context: string) => (await ours.socket.call('browsingContext.getTree', { root: context, maxDepth: 0 })).contexts[0].clientWindow as string;
      const window = await clientWindow(await ours.s.get('/window'));
      const { handle } = await ours.s.post('/window/new', { type: 'tab' });
      const { context: tab } = await ours.socket.call('browsingContext.create', { type: 'tab' });
      assert.deepEqual([await clientWindow(handle), await clientWindow(tab)], [window, window]);
      // Next to a reference context and without a user context, a tab is the reference's user context (Firefox's create).
      const story = async (client: BidiSocket) => {
        const { userContext } = await client.call('browser.createUserContext');
        const { context: made } = await client.call('browsingContext.create', { type: 'tab', userContext });
        const { context: next } = await client.call('browsingContext.create', { type: 'tab', referenceContext: made });
        const { contexts } = await client.call('browsingContext.getTree', { root: next, maxDepth: 0 });
        await client.call('browser.removeUserContext', { userContext });
        return contexts[0].userContext === userContext;
      };
      assert.deepEqual(await story(ours.socket), await story(reference.socket));
      // Ours opens windows as other sessions end, each with its window focused (Firefox's most
      // recent, which a new window is opened from) and closing in the background; uses their realms.
      for (let round = 0; round < 8; round++) {
        const ending = await gw.client.newSession({ browserName: 'firefox' });
        const { handle: focused } = await ending.post('/window/new', { type: 'window' });
        await ending.post('/window', { handle: focused });
        await ending.end();
        const [window, bidiWindow] = await Promise.all([ours.s.post('/window/new', { type: 'window' }), ours.socket.call('browsingContext.create', { type: 'window', background: true })]);
        for (const context of [window.handle, bidiWindow.context]) {
          const { result } = await ours.socket.call('script.evaluate', { expression: '6 * 7', target: { context }, awaitPromise: false });
          assert.deepEqual(result, { type: 'number', value: 42 });
        }
      }
    } finally {
      other.socket.close();
      ours.socket.close();
      await other.s.end().catch(() => {});
      await ours.s.end();
    }
    // The suite's realm tests: a window, then a tab, opened by the classic commands.
    await withDriver(async (driver) => {
      const firstWindow = await driver.getWindowHandle();
      await driver.switchTo().newWindow('window');
      const secondWindow = await driver.getWindowHandle();
      const manager = await ScriptManager(firstWindow, driver);
      const realms = await manager.getAllRealms();
      assert.deepEqual(
        realms.map((r: { browsingContext: string; realmType: string }) => [r.browsingContext, r.realmType]),
        [
          [firstWindow, 'window'],
          [secondWindow, 'window'],
        ],
      );
      await driver.switchTo().newWindow('tab');
      const tab = await driver.getWindowHandle();
      const inTab = await manager.getRealmsInBrowsingContext(tab);
      assert.equal(inTab[0].browsingContext, tab);
      await manager.callFunctionInRealm(inTab[0].realmId, '() => { window.foo = 5; }', true);
      const result = await manager.callFunctionInRealm(inTab[0].realmId, '() => window.foo', true);
      assert.equal(result.resultType, EvaluateResultType.SUCCESS);
      assert.equal(result.result.value, 5);
    });
  });
});

interface AuthServer {
  /** A page behind HTTP basic authentication (realm "wdgate"): /granted… takes genie:bottle, any other path takes no one. */
  url(path: string, host?: string): string;
  close(): Promise<void>;
}

/** Pages behind HTTP basic authentication, as the suite's basicAuth page ("Access granted" / "Access denied"). */
async function startAuthServer(): Promise<AuthServer> {
  const granted = `Basic ${Buffer.from('genie:bottle').toString('base64')}`;
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/granted') && req.headers.authorization === granted) {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end('<!doctype html><title>Access granted</title><pre>Access granted</pre>');
    }
    res.writeHead(401, { 'www-authenticate': 'Basic realm="wdgate"', 'content-type': 'text/html' });
    res.end('<!doctype html><title>Access denied</title><pre>Access denied</pre>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: (path, host = '127.0.0.1') => `http://${host}:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
