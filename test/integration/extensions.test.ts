// The extension commands chromedriver and geckodriver answer, called the way suites call them:
// selenium-webdriver's setPermission, addVirtualAuthenticator and friends, setNetworkConditions,
// its FedCM dialog, takeFullPageScreenshot, installAddon and moz/context, and raw HTTP where its
// API has none. Native Chromium and native Firefox where each applies; a pass-through session
// forwards them to its chromedriver.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { Builder, type WebDriver } from 'selenium-webdriver';
import chrome from 'selenium-webdriver/chrome.js';
import firefox from 'selenium-webdriver/firefox.js';
import { Credential, VirtualAuthenticatorOptions } from 'selenium-webdriver/lib/virtual_authenticator.js';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, leftoverBrowsers } from '../helpers/pages.ts';
import { decodePng } from '../helpers/png.ts';

let gw: TestGateway;
let site: Site;
let history: string;

/**
 * Pages on http://localhost (a secure context whose host is a valid WebAuthn relying party id),
 * and a FedCM identity provider on the same site: its well-known file, config, accounts, client
 * metadata and assertion endpoints.
 */
interface Site {
  url: string;
  page(html: string): string;
  close(): Promise<void>;
}

async function startSite(): Promise<Site> {
  const pages = new Map<string, string>();
  const server = http.createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://x');
    const json = (value: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    const origin = `http://localhost:${(server.address() as { port: number }).port}`;
    if (pathname.startsWith('/html/')) return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pages.get(pathname.slice(6)) ?? '');
    if (pathname === '/api') return json({ ok: true });
    if (pathname === '/.well-known/web-identity') return json({ provider_urls: [`${origin}/fedcm.json`] });
    if (pathname === '/fedcm.json') return json({ accounts_endpoint: '/accounts', client_metadata_endpoint: '/metadata', id_assertion_endpoint: '/assert', login_url: '/login', branding: { name: 'Test IdP' } });
    if (pathname === '/accounts') return json({ accounts: ['Ann', 'Bob'].map((name, i) => ({ id: `u${i}`, email: `${name.toLowerCase()}@example.com`, name: `${name} Example`, given_name: name })) });
    if (pathname === '/metadata') return json({ privacy_policy_url: `${origin}/privacy`, terms_of_service_url: `${origin}/tos` });
    if (pathname === '/assert') {
      res.setHeader('access-control-allow-origin', req.headers.origin ?? origin);
      res.setHeader('access-control-allow-credentials', 'true');
      return json({ token: 'the-idp-token' });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://localhost:${(server.address() as { port: number }).port}`;
  let next = 0;
  return {
    url,
    page(html) {
      const id = String(next++);
      pages.set(id, `<!doctype html><meta charset="utf-8"><title>site</title><body>${html}</body>`);
      return `${url}/html/${id}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

before(async () => {
  history = mkdtempSync(join(tmpdir(), 'wdgate-extensions-history-'));
  [gw, site] = await Promise.all([startGateway([], { historyDirectory: history }), startSite()]);
});

after(async () => {
  const pid = gw.process.pid!;
  await gw?.stop();
  await site?.close();
  rmSync(history, { recursive: true, force: true });
  assert.equal(await leftoverBrowsers(pid), 0);
});

function chromeDriver(caps: Record<string, unknown> = {}): Promise<WebDriver> {
  const options = new chrome.Options().addArguments('--headless=new') as chrome.Options;
  for (const [key, value] of Object.entries(caps)) options.set(key, value);
  return new Builder().usingServer(gw.url).forBrowser('chrome').setChromeOptions(options).build();
}

function firefoxDriver(url = gw.url, caps: Record<string, unknown> = {}): Promise<WebDriver> {
  const options = new firefox.Options().addArguments('-headless') as firefox.Options;
  for (const [key, value] of Object.entries(caps)) options.set(key, value);
  return new Builder().usingServer(url).forBrowser('firefox').setFirefoxOptions(options).build();
}

const permissionState = (driver: WebDriver, name: string) =>
  driver.executeAsyncScript<string>(`navigator.permissions.query({name: ${JSON.stringify(name)}}).then((s) => arguments[0](s.state), (e) => arguments[0]('error ' + e.message))`);

/** selenium-webdriver's WebAuthn methods (its type definitions lack them). */
interface WebAuthnDriver extends chrome.Driver {
  addVirtualAuthenticator(options: VirtualAuthenticatorOptions): Promise<void>;
  removeVirtualAuthenticator(): Promise<void>;
  virtualAuthenticatorId(): string;
  addCredential(credential: Credential): Promise<void>;
  getCredentials(): Promise<Credential[]>;
  removeCredential(id: Uint8Array | string): Promise<void>;
  removeAllCredentials(): Promise<void>;
  setUserVerified(verified: boolean): Promise<void>;
}

/** selenium-webdriver's FedCM methods (its type definitions lack them). */
interface FedCmDriver extends WebDriver {
  getFederalCredentialManagementDialog(): {
    type(): Promise<string>;
    title(): Promise<string>;
    accounts(): Promise<{ email: string }[]>;
    selectAccount(index: number): Promise<void>;
    dismiss(): Promise<void>;
  };
  setDelayEnabled(enabled: boolean): Promise<void>;
  resetCooldown(): Promise<void>;
}

/** A raw command of a selenium-webdriver session, as other clients send it. */
async function raw(driver: WebDriver, method: string, path: string, body?: unknown) {
  return gw.client.raw(method, `/session/${(await driver.getSession()).getId()}${path}`, body);
}

/** A platform authenticator that keeps passkeys and verifies its user (no one is asked). */
function passkeyAuthenticator(): VirtualAuthenticatorOptions {
  const options = new VirtualAuthenticatorOptions();
  options.setTransport('internal' as never);
  options.setHasResidentKey(true);
  options.setHasUserVerification(true);
  options.setIsUserVerified(true);
  return options;
}

describe('Chromium (native backend)', () => {
  test("Set Permission (selenium's setPermission): granted, denied, prompt, for this session's context only", async () => {
    const [a, b] = await Promise.all([chromeDriver(), chromeDriver()]);
    try {
      const page = site.page('<p>permissions</p>');
      await Promise.all([a.get(page), b.get(page)]);
      for (const state of ['granted', 'denied', 'prompt'] as const) {
        await (a as chrome.Driver).setPermission('notifications', state);
        assert.equal(await permissionState(a, 'notifications'), state);
      }
      await (a as chrome.Driver).setPermission('notifications', 'granted');
      assert.equal(await permissionState(b, 'notifications'), 'prompt', "another session's browser context is untouched");
      // Bad descriptors and states, as chromedriver words them; the browser's own refusal.
      assert.equal((await raw(a, 'POST', '/permissions', { state: 'granted' })).value.message, 'no descriptor dictionary');
      assert.equal((await raw(a, 'POST', '/permissions', { descriptor: { name: 'geolocation' }, state: 'maybe' })).value.error, 'invalid argument');
      const unknown = await raw(a, 'POST', '/permissions', { descriptor: { name: 'telepathy' }, state: 'granted' });
      assert.equal(unknown.value.error, 'invalid argument');
      assert.match(unknown.value.message, /telepathy/);
      await a.get('about:blank');
      assert.equal((await raw(a, 'POST', '/permissions', { descriptor: { name: 'geolocation' }, state: 'granted' })).value.error, 'invalid argument', 'an opaque origin has no permissions');
    } finally {
      await Promise.all([a.quit(), b.quit()]);
    }
  });

  test('WebAuthn: a virtual authenticator makes and uses a passkey in the page; credentials added, read, removed; user verification', async () => {
    const driver = (await chromeDriver()) as WebAuthnDriver;
    try {
      // Answered as chromedriver answers them (WebAuthn §11.1).
      const caps = await driver.getCapabilities();
      assert.equal(caps.get('webauthn:virtualAuthenticators'), true);
      assert.equal(caps.get('webauthn:extension:prf'), true);
      await driver.get(site.page('<p>passkeys</p>'));
      await driver.addVirtualAuthenticator(passkeyAuthenticator());
      // The page registers a passkey: the authenticator answers, no user is asked.
      const created = await driver.executeAsyncScript<string>(`const done = arguments[0];
        navigator.credentials.create({publicKey: {rp: {id: 'localhost', name: 'site'}, user: {id: new Uint8Array([1, 2, 3]), name: 'ann', displayName: 'Ann'},
          challenge: new Uint8Array(16), pubKeyCredParams: [{type: 'public-key', alg: -7}], authenticatorSelection: {residentKey: 'required', userVerification: 'required'}}})
          .then((c) => done(c.id), (e) => done('error ' + e.name))`);
      assert.doesNotMatch(created, /^error/);
      let credentials = await driver.getCredentials();
      assert.equal(credentials.length, 1);
      assert.equal(Buffer.from(credentials[0]!.id()).toString('base64url'), created);
      assert.equal(credentials[0]!.rpId(), 'localhost');
      assert.equal(credentials[0]!.isResidentCredential(), true);
      // A credential of the test's own key: the page signs in with it.
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const pkcs8 = privateKey.export({ format: 'der', type: 'pkcs8' });
      const id = [7, 7, 7, 7];
      await driver.addCredential(Credential.createNonResidentCredential(new Uint8Array(id), 'localhost', pkcs8.toString('binary'), 0));
      const signIn = (uv: string) =>
        driver.executeAsyncScript<string>(`const done = arguments[0];
          navigator.credentials.get({publicKey: {rpId: 'localhost', challenge: new Uint8Array(16), allowCredentials: [{type: 'public-key', id: new Uint8Array(${JSON.stringify(id)})}], userVerification: '${uv}'}})
            .then((c) => done(c.id), (e) => done('error ' + e.name))`);
      assert.equal(await signIn('preferred'), Buffer.from(id).toString('base64url'));
      credentials = await driver.getCredentials();
      assert.equal(credentials.length, 2);
      assert.equal(credentials.find((c) => Buffer.from(c.id()).toString('base64url') === 'BwcHBw')!.signCount(), 1, 'the sign-in counted');
      // User verification off: a sign-in that requires it fails.
      await driver.setUserVerified(false);
      assert.equal(await signIn('required'), 'error NotAllowedError');
      await driver.removeCredential(Buffer.from(id).toString('base64url'));
      assert.equal((await driver.getCredentials()).length, 1);
      await driver.removeAllCredentials();
      assert.equal((await driver.getCredentials()).length, 0);
      // Values WebAuthn §11 refuses, in its codes.
      const authenticator = driver.virtualAuthenticatorId();
      assert.equal((await raw(driver, 'POST', `/webauthn/authenticator/${authenticator}/credential`, { credentialId: 'not base64!', isResidentCredential: false, rpId: 'localhost', privateKey: 'AA' })).value.message, 'credentialId must be a base64url encoded string');
      assert.equal((await raw(driver, 'POST', '/webauthn/authenticator', { protocol: 'ctap3', transport: 'usb' })).value.error, 'invalid argument');
      assert.equal((await raw(driver, 'POST', '/webauthn/authenticator', { protocol: 'ctap2', transport: 'usb', extensions: ['telepathy'] })).value.error, 'unsupported operation');
      await driver.removeVirtualAuthenticator();
      const gone = await raw(driver, 'GET', `/webauthn/authenticator/${authenticator}/credentials`);
      assert.equal(gone.value.error, 'invalid argument', 'a removed authenticator is unknown');
    } finally {
      await driver.quit();
    }
  });

  test("a passkey's private key and id never reach a kept trace", async () => {
    const s = await gw.client.newSession({ 'goog:chromeOptions': { args: ['--headless=new'] }, 'wdgate:options': { trace: 'on' } });
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const key = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64url');
    const credentialId = Buffer.from('PasskeyIdSecret7').toString('base64url');
    await s.navigate(site.page('<p>trace</p>'));
    const authenticator = await s.post('/webauthn/authenticator', { protocol: 'ctap2', transport: 'usb', hasResidentKey: true });
    await s.post(`/webauthn/authenticator/${authenticator}/credential`, { credentialId, isResidentCredential: true, rpId: 'localhost', privateKey: key, userHandle: 'dXNlcg', signCount: 0 });
    const [read] = await s.get(`/webauthn/authenticator/${authenticator}/credentials`);
    assert.equal(read.privateKey, key, 'the client gets the key as it is');
    await s.end();
    await eventually(async () => (await gw.client.raw('GET', `/wdgate/sessions/${s.id}`)).value?.state === 'ended', 'the session never ended', 30_000);
    const folder = readdirSync(history).find((name) => name.includes(s.id))!;
    const texts: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith('.zip')) for (const data of Object.values(unzipSync(readFileSync(path)))) texts.push(Buffer.from(data).toString('latin1'));
        else texts.push(readFileSync(path).toString('latin1'));
      }
    };
    walk(join(history, folder));
    assert.ok(texts.some((t) => t.includes('addCredential')), 'the trace has the steps');
    for (const secret of [key, key.slice(0, 40), credentialId]) assert.ok(!texts.some((t) => t.includes(secret)), `${secret.slice(0, 12)}… is in the trace`);
  });

  test("network conditions (selenium's setNetworkConditions): offline, latency, for windows opened later too; get and delete", async () => {
    const driver = (await chromeDriver()) as chrome.Driver;
    try {
      await driver.get(site.page('<p>network</p>'));
      const fetchApi = () => driver.executeAsyncScript<string>(`const done = arguments[0]; const t = performance.now(); fetch('/api', {cache: 'no-store'}).then(() => done('ok ' + Math.round(performance.now() - t)), (e) => done('failed'))`);
      assert.match(await fetchApi(), /^ok/);
      await assert.rejects(driver.getNetworkConditions(), /network conditions must be set/);
      const offline = { offline: true, latency: 0, download_throughput: -1, upload_throughput: -1 };
      await driver.setNetworkConditions(offline);
      assert.deepEqual(await driver.getNetworkConditions(), offline);
      assert.equal(await fetchApi(), 'failed');
      await driver.switchTo().newWindow('tab');
      await assert.rejects(driver.get(site.page('<p>new tab</p>')), /ERR_INTERNET_DISCONNECTED/, 'a window opened later is offline too');
      await driver.close();
      await driver.switchTo().window((await driver.getAllWindowHandles())[0]!);
      await driver.setNetworkConditions({ offline: false, latency: 400, download_throughput: 100_000, upload_throughput: 100_000 });
      const [, ms] = (await fetchApi()).split(' ');
      assert.ok(Number(ms) >= 400, `a request takes the latency at least (${ms} ms)`);
      await driver.deleteNetworkConditions();
      assert.match(await fetchApi(), /^ok/);
      await assert.rejects(driver.getNetworkConditions(), /network conditions must be set/);
      // A preset by name; malformed conditions in chromedriver's words.
      assert.equal((await raw(driver, 'POST', '/chromium/network_conditions', { network_name: 'Regular 3G' })).status, 200);
      assert.deepEqual(await driver.getNetworkConditions(), { offline: false, latency: 100, download_throughput: 768_000, upload_throughput: 768_000 });
      assert.equal((await raw(driver, 'POST', '/chromium/network_conditions', { network_conditions: { latency: 5 } })).value.error, 'invalid argument');
      assert.equal((await raw(driver, 'POST', '/chromium/network_conditions', {})).value.message, "either 'network_conditions' or 'network_name' must be supplied");
    } finally {
      await driver.quit();
    }
  });

  test("FedCM (selenium's dialog API): the account chooser, its accounts and title; an account chosen signs the page in", async () => {
    const driver = (await chromeDriver()) as FedCmDriver;
    try {
      const rp = site.page(`<script>
        window.result = 'pending';
        function signIn() { navigator.credentials.get({identity: {providers: [{configURL: location.origin + '/fedcm.json', clientId: 'c1'}]}})
          .then((c) => (window.result = 'token ' + c.token), (e) => (window.result = 'error ' + e.name)); }
      </script>`);
      const dialog = driver.getFederalCredentialManagementDialog();
      await assert.rejects(dialog.type(), { name: 'NoSuchAlertError' });
      await driver.setDelayEnabled(false);
      await driver.resetCooldown();
      await driver.get(rp);
      await driver.executeScript('signIn()');
      await eventually(() => dialog.type().then(() => true, () => false), 'the FedCM dialog never showed');
      assert.equal(await dialog.type(), 'AccountChooser');
      assert.match(await dialog.title(), /Sign in to localhost/);
      assert.deepEqual((await dialog.accounts()).map((a) => a.email), ['ann@example.com', 'bob@example.com']);
      assert.equal((await raw(driver, 'POST', '/fedcm/selectaccount', {})).value.message, 'accountIndex must be specified (an index of the account list)');
      await dialog.selectAccount(1);
      await eventually(async () => (await driver.executeScript('return window.result')) !== 'pending', 'the page was never signed in');
      assert.equal(await driver.executeScript('return window.result'), 'token the-idp-token');
      await assert.rejects(dialog.dismiss(), { name: 'NoSuchAlertError' }, 'the dialog closed');
      // Dismissed: the page's request is refused.
      await driver.executeScript('window.result = "pending"; signIn()');
      await eventually(() => dialog.type().then(() => true, () => false), 'the second dialog never showed');
      await dialog.dismiss();
      await eventually(async () => (await driver.executeScript('return window.result')) !== 'pending', 'the page never heard of the dismissal');
      assert.equal(await driver.executeScript('return window.result'), 'error NetworkError');
    } finally {
      await driver.quit();
    }
  });

  test('the full-page screenshot (chromedriver’s /screenshot/full) is the whole document; moz/context is Firefox’s; add-ons are off unless the operator allows them', async () => {
    const driver = await chromeDriver();
    try {
      await driver.get(site.page('<div style="height: 3000px; background: linear-gradient(red, blue)"></div>'));
      const viewport = decodePng(await driver.takeScreenshot());
      const full = decodePng((await raw(driver, 'GET', '/screenshot/full')).value);
      assert.ok(Math.abs(full.width - viewport.width) <= 20, `the document's width (the viewport's, but for a scrollbar): ${full.width} and ${viewport.width}`);
      assert.ok(full.height >= 3000, `the whole document: ${full.height} px`);
      assert.equal((await raw(driver, 'GET', '/moz/screenshot/full')).status, 200);
      assert.equal((await raw(driver, 'GET', '/moz/context')).value.error, 'unsupported operation');
      const install = await raw(driver, 'POST', '/moz/addon/install', { addon: 'UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==', temporary: true });
      assert.equal(install.value.error, 'unsupported operation');
      assert.match(install.value.message, /extensions\.allowInstall/, 'add-ons are off unless the operator allows them');
    } finally {
      await driver.quit();
    }
  });

  test('the older /file path uploads as /se/file does', async () => {
    const s = await gw.client.newSession();
    const zip = Buffer.from(zipSync({ 'note.txt': strToU8('hello') })).toString('base64');
    const path = await s.post('/file', { file: zip });
    assert.match(path, /note\.txt$/);
    assert.equal(readFileSync(path, 'utf8'), 'hello');
    await s.end();
  });
});

describe('Chromium (Playwright backend, through its CDP sessions)', () => {
  test('permissions, a passkey, the network cut, the full page and the browser log', async () => {
    const driver = (await chromeDriver({ 'wdgate:options': { backend: 'playwright' }, 'goog:loggingPrefs': { browser: 'ALL' } })) as WebAuthnDriver;
    try {
      assert.equal((await driver.getCapabilities()).get('wdgate:options').backend, 'playwright');
      await driver.get(site.page('<div style="height: 2000px"></div><script>console.warn("from the page")</script>'));
      for (const state of ['granted', 'denied'] as const) {
        await driver.setPermission('geolocation', state);
        assert.equal(await permissionState(driver, 'geolocation'), state);
      }
      await driver.addVirtualAuthenticator(passkeyAuthenticator());
      const created = await driver.executeAsyncScript<string>(`const done = arguments[0];
        navigator.credentials.create({publicKey: {rp: {id: 'localhost', name: 'site'}, user: {id: new Uint8Array([1]), name: 'ann', displayName: 'Ann'},
          challenge: new Uint8Array(16), pubKeyCredParams: [{type: 'public-key', alg: -7}], authenticatorSelection: {residentKey: 'required'}}}).then((c) => done(c.id), (e) => done('error ' + e.name))`);
      assert.doesNotMatch(created, /^error/);
      assert.equal(Buffer.from((await driver.getCredentials())[0]!.id()).toString('base64url'), created);
      await driver.setNetworkConditions({ offline: true, latency: 0, download_throughput: -1, upload_throughput: -1 });
      assert.equal(await driver.executeAsyncScript(`const done = arguments[0]; fetch('/api', {cache: 'no-store'}).then(() => done('ok'), () => done('failed'))`), 'failed');
      await driver.deleteNetworkConditions();
      assert.ok(decodePng((await raw(driver, 'GET', '/screenshot/full')).value).height >= 2000);
      const log = (await driver.manage().logs().get('browser')).map((e) => `${e.level.name} ${e.message}`);
      assert.ok(log.some((m) => /^WARNING http:\/\/localhost:\d+\/html\/\d+ \d+:\d+ from the page$/.test(m)), log.join('\n'));
    } finally {
      await driver.quit();
    }
  });
});

describe('pass-through (remote → chromedriver)', () => {
  test('the extension commands are forwarded to chromedriver, which answers them', async () => {
    const driver = (await chromeDriver({ 'wdgate:options': { backend: 'remote' } })) as WebAuthnDriver;
    try {
      assert.equal((await driver.getCapabilities()).get('wdgate:options').backend, 'remote');
      await driver.get(site.page('<p>upstream</p>'));
      await driver.setPermission('notifications', 'granted');
      assert.equal(await permissionState(driver, 'notifications'), 'granted');
      const options = new VirtualAuthenticatorOptions();
      await driver.addVirtualAuthenticator(options);
      assert.deepEqual(await driver.getCredentials(), []);
      await driver.setNetworkConditions({ offline: false, latency: 5, download_throughput: 1000, upload_throughput: 1000 });
      assert.equal((await driver.getNetworkConditions()).latency, 5);
      assert.deepEqual(await driver.manage().logs().getAvailableLogTypes(), ['browser', 'driver']);
    } finally {
      await driver.quit();
    }
  });
});

describe('Firefox (native backend, WebDriver BiDi)', () => {
  // A gateway that allows add-ons (from one directory), and a Firefox session sharing its browser.
  let allowing: TestGateway;
  let shared: WebDriver;
  let dir: string;
  let elsewhere: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wdgate-addons-'));
    elsewhere = mkdtempSync(join(tmpdir(), 'wdgate-not-addons-'));
    allowing = await startGateway([], { config: { pool: { minWarm: 0 }, extensions: { allowInstall: true, directories: [dir] } } });
    shared = await firefoxDriver(allowing.url);
  });

  after(async () => {
    await shared?.quit();
    const pid = allowing?.process.pid;
    await allowing?.stop();
    if (pid) assert.equal(await leftoverBrowsers(pid), 0);
    rmSync(dir, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });

  const rawOn = async (driver: WebDriver, method: string, path: string, body?: unknown) => allowing.client.raw(method, `/session/${(await driver.getSession()).getId()}${path}`, body);

  test('permissions through BiDi, the network cut, the full page, moz/context; what BiDi has not is unsupported operation', async () => {
    const driver = shared;
    const page = site.page('<div style="height: 3000px"></div>');
    await driver.get(page);
    await rawOn(driver, 'POST', '/permissions', { descriptor: { name: 'geolocation' }, state: 'granted' }).then((r) => assert.equal(r.status, 200, JSON.stringify(r.value)));
    assert.equal(await permissionState(driver, 'geolocation'), 'granted');
    await rawOn(driver, 'POST', '/permissions', { descriptor: { name: 'geolocation' }, state: 'denied' });
    assert.equal(await permissionState(driver, 'geolocation'), 'denied');
    // Offline: yes; throttled: a declared gap.
    const fetchApi = () => driver.executeAsyncScript(`const done = arguments[0]; fetch('/api', {cache: 'no-store'}).then(() => done('ok'), () => done('failed'))`);
    await rawOn(driver, 'POST', '/chromium/network_conditions', { network_conditions: { offline: true, latency: 0, download_throughput: -1, upload_throughput: -1 } });
    assert.equal(await fetchApi(), 'failed');
    await rawOn(driver, 'DELETE', '/chromium/network_conditions');
    assert.equal(await fetchApi(), 'ok');
    assert.equal((await rawOn(driver, 'POST', '/chromium/network_conditions', { network_name: 'GPRS' })).value.error, 'unsupported operation');
    // geckodriver's full page, through selenium-webdriver's Firefox driver.
    const full = decodePng(await (driver as firefox.Driver).takeFullPageScreenshot());
    assert.ok(full.height >= 3000, `the whole document: ${full.height} px`);
    assert.equal(await (driver as firefox.Driver).getContext(), 'content');
    await (driver as firefox.Driver).setContext(firefox.Context.CONTENT);
    await assert.rejects((driver as firefox.Driver).setContext(firefox.Context.CHROME), /chrome context is not offered/);
    for (const path of ['/webauthn/authenticator', '/fedcm/resetcooldown']) assert.equal((await rawOn(driver, 'POST', path, { protocol: 'ctap2', transport: 'usb' })).value.error, 'unsupported operation', path);
  });

  test('webauthn: capabilities are matched (WebAuthn §11.1): asked of a browser without virtual authenticators, no session; not a boolean, invalid argument', async () => {
    const ask = (caps: Record<string, unknown>) => allowing.client.raw('POST', '/session', { capabilities: { alwaysMatch: { browserName: 'firefox', 'moz:firefoxOptions': { args: ['-headless'] }, ...caps } } });
    const none = await ask({ 'webauthn:virtualAuthenticators': true });
    assert.equal(none.status, 500, JSON.stringify(none.value));
    assert.equal(none.value.error, 'session not created');
    assert.match(none.value.message, /webauthn:virtualAuthenticators: the firefox browser of this backend has no virtual authenticators/);
    const bad = await ask({ 'webauthn:extension:prf': 'yes' });
    assert.equal(bad.status, 400);
    assert.equal(bad.value.error, 'invalid argument');
    // Asked false, it matches any browser.
    const plain = await ask({ 'webauthn:virtualAuthenticators': false });
    assert.equal(plain.status, 200, JSON.stringify(plain.value));
    await allowing.client.raw('DELETE', `/session/${plain.value.sessionId}`);
    // The session the refusal ended gave its context back (only the shared driver's is leased).
    await eventually(async () => (await allowing.client.leasedContexts()) === 1, 'a context of the refused session is still leased');
  });

  test('add-ons, where the operator allows them: into a browser of its own only, a path only from the allowed directories', async () => {
    // A WebExtension whose content script marks every page it runs in.
    const xpi = zipSync({
      'manifest.json': strToU8(JSON.stringify({ manifest_version: 2, name: 'marker', version: '1.0', browser_specific_settings: { gecko: { id: 'marker@wdgate.test' } }, content_scripts: [{ matches: ['<all_urls>'], js: ['mark.js'], run_at: 'document_start' }] })),
      'mark.js': strToU8('document.documentElement.dataset.marked = "yes";'),
    });
    writeFileSync(join(dir, 'marker.xpi'), xpi);
    writeFileSync(join(elsewhere, 'marker.xpi'), xpi);
    const refused = await rawOn(shared, 'POST', '/moz/addon/install', { addon: Buffer.from(xpi).toString('base64'), temporary: true });
    assert.equal(refused.value.error, 'unsupported operation');
    assert.match(refused.value.message, /ownBrowser/);
    const own = await firefoxDriver(allowing.url, { 'wdgate:options': { ownBrowser: true } });
    try {
      const page = site.page('<p>marked?</p>');
      const marked = async () => {
        await own.get(page);
        return own.executeScript('return document.documentElement.dataset.marked ?? null');
      };
      assert.equal(await marked(), null);
      const id = await (own as firefox.Driver).installAddon(join(dir, 'marker.xpi'), true);
      assert.equal(id, 'marker@wdgate.test');
      assert.equal(await marked(), 'yes', "the add-on's content script runs");
      await (own as firefox.Driver).uninstallAddon(id);
      assert.equal(await marked(), null);
      const outside = await rawOn(own, 'POST', '/moz/addon/install', { path: join(elsewhere, 'marker.xpi'), temporary: true });
      assert.equal(outside.value.error, 'invalid argument');
      assert.match(outside.value.message, /extensions\.directories/);
    } finally {
      await own.quit();
    }
  });
});
