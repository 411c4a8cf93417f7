// goog:chromeOptions as suites written for chromedriver pass them through selenium-webdriver's
// chrome.Options, on the native and the Playwright backend: each key has the effect a user of the
// page would notice, or New Session answers invalid argument naming it (README "Capabilities").
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { Builder, type WebDriver } from 'selenium-webdriver';
import chrome from 'selenium-webdriver/chrome.js';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, leftoverBrowsers } from '../helpers/pages.ts';
import { makeZip } from '../helpers/zip.ts';

let gw: TestGateway;
let site: Server;
let siteUrl: string;

before(async () => {
  // A page that shows the headers its request came with, at the device's width.
  site = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    // A page that opens a window as it loads, when no user has touched it: what a popup blocker blocks.
    if (req.url === '/opener') return res.end('<title>opener</title><script>window.blocked = window.open("about:blank") === null;</script>');
    const seen = { ua: req.headers['user-agent'], lang: req.headers['accept-language'], mobile: req.headers['sec-ch-ua-mobile'] };
    res.end(`<meta name="viewport" content="width=device-width"><title>seen</title><p id="seen" style="overflow-wrap: anywhere">${JSON.stringify(seen).replace(/</g, '&lt;')}</p>`);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}/`;
  // Extensions allowed (extensions.allowInstall): their refusal by default is machine.test.ts's and the policy's unit test's.
  gw = await startGateway([], { config: { extensions: { allowInstall: true } } });
});

after(async () => {
  const pid = gw.process.pid!;
  await gw?.stop();
  await new Promise((resolve) => site?.close(resolve));
  assert.equal(await leftoverBrowsers(pid), 0);
});

const BACKENDS = { native: {}, playwright: { backend: 'playwright' } } as const;

async function build(options: chrome.Options, backend: keyof typeof BACKENDS, url = gw.url): Promise<WebDriver> {
  if (backend !== 'native') options.set('wdgate:options', BACKENDS[backend]);
  return new Builder().usingServer(url).forBrowser('chrome').setChromeOptions(options).build();
}

/** What the page and its request saw. */
async function seen(driver: WebDriver) {
  const page = (await driver.executeScript(`return {
    ua: navigator.userAgent, width: innerWidth, ratio: devicePixelRatio, touchPoints: navigator.maxTouchPoints,
    touch: 'ontouchstart' in window, languages: navigator.languages,
    mobile: navigator.userAgentData ? navigator.userAgentData.mobile : null, platform: navigator.userAgentData ? navigator.userAgentData.platform : null,
    request: JSON.parse(document.getElementById('seen').textContent) }`)) as Record<string, any>;
  return page;
}

/** The window a script's window.open made, once it is there. */
async function popup(driver: WebDriver, opener: string): Promise<string> {
  let handles: string[] = [];
  await eventually(async () => (handles = await driver.getAllWindowHandles()).length === 2, 'the popup never appeared');
  return handles.find((h) => h !== opener)!;
}

for (const backend of ['native', 'playwright'] as const) {
  test(`${backend}: mobileEmulation by device name: the page and a popup's first request see the device's user agent, width, pixel ratio and touch`, async () => {
    const driver = await build(new chrome.Options().setMobileEmulation({ deviceName: 'Pixel 7' }) as chrome.Options, backend);
    try {
      await driver.get(siteUrl);
      const page = await seen(driver);
      assert.match(page.ua, /Android .*Pixel 7.* Mobile Safari/);
      assert.equal(page.request.ua, page.ua);
      assert.equal(page.width, 412);
      assert.equal(page.ratio, 2.625);
      assert.ok(page.touch && page.touchPoints > 0, 'touch events and touch points');
      assert.equal(page.mobile, true);
      assert.equal(page.platform, 'Android');
      // A popup (window.open, as a link with target=_blank would) is the device too, from its first request on.
      const opener = await driver.getWindowHandle();
      await driver.executeScript('window.open(arguments[0] + "?popup")', siteUrl);
      await driver.switchTo().window(await popup(driver, opener));
      await driver.wait(async () => (await driver.getTitle()) === 'seen', 10_000);
      const second = await seen(driver);
      assert.equal(second.request.ua, page.ua, "the popup's first request");
      assert.equal(second.width, 412);
      assert.ok(second.touch);
      // A chromedriver name Playwright spells otherwise: the same device.
      assert.equal((await driver.getCapabilities()).get('goog:chromeOptions').mobileEmulation.deviceName, 'Pixel 7');
    } finally {
      await driver.quit();
    }
  });

  test(`${backend}: excludeSwitches: leaving out the gateway's --disable-popup-blocking brings the popup blocker back`, async () => {
    const driver = await build(new chrome.Options().excludeSwitches('disable-popup-blocking').setLocalState({ 'background_mode.enabled': false }) as chrome.Options, backend);
    try {
      await driver.get(`${siteUrl}opener`);
      assert.equal(await driver.executeScript('return window.blocked'), true);
      assert.equal((await driver.getAllWindowHandles()).length, 1);
    } finally {
      await driver.quit();
    }
    // Without it (the gateway's default, as chromedriver's), the page's window opens (once: the
    // Playwright backend passes the same switch).
    if (backend !== 'native') return;
    const usual = await build(new chrome.Options(), backend);
    try {
      await usual.get(`${siteUrl}opener`);
      assert.equal(await usual.executeScript('return window.blocked'), false);
    } finally {
      await usual.quit();
    }
  });
}

test('native: prefs go into the profile before the launch, and the session has the profile\'s own context: intl.accept_languages is navigator.languages and the Accept-Language header', async () => {
  const driver = await build(new chrome.Options().setUserPreferences({ intl: { accept_languages: 'de-DE,fr' } }) as chrome.Options, 'native');
  try {
    await driver.get(siteUrl);
    const page = await seen(driver);
    assert.deepEqual(page.languages, ['de-DE', 'fr']);
    // Chromium adds each language's base language to the header, as it does with chromedriver.
    assert.match(page.request.lang, /^de-DE,(de;q=0\.9,)?fr;q=0\.[89]$/);
  } finally {
    await driver.quit();
  }
});

test('playwright: prefs and clientHints are refused, naming the key and why', async () => {
  await assert.rejects(build(new chrome.Options().setUserPreferences({ intl: { accept_languages: 'de' } }) as chrome.Options, 'playwright'), (e: Error) => e.name === 'InvalidArgumentError' && /prefs is refused on the Playwright backend: .*incognito/.test(e.message));
  const options = new chrome.Options().setMobileEmulation({ userAgent: 'x Mobile', clientHints: { platform: 'Android', mobile: true } } as never) as chrome.Options;
  await assert.rejects(build(options, 'playwright'), (e: Error) => e.name === 'InvalidArgumentError' && /mobileEmulation\.clientHints is refused on the Playwright backend/.test(e.message));
});

test("native: a session's own device metrics, user agent and client hints; another session of the same browser keeps the desktop", async () => {
  const options = new chrome.Options().setMobileEmulation({
    deviceMetrics: { width: 360, height: 640, pixelRatio: 3, touch: true, mobile: true },
    userAgent: 'Mozilla/5.0 (Linux; Android 15; Test Phone) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36',
    clientHints: { platform: 'Android', platformVersion: '15', model: 'Test Phone', mobile: true, brands: [{ brand: 'Test', version: '1' }] },
  } as never) as chrome.Options;
  const [mobile, desktop] = await Promise.all([build(options, 'native'), build(new chrome.Options(), 'native')]);
  try {
    await Promise.all([mobile.get(siteUrl), desktop.get(siteUrl)]);
    const phone = await seen(mobile);
    assert.match(phone.ua, /Test Phone/);
    assert.equal(phone.width, 360);
    assert.equal(phone.ratio, 3);
    assert.equal(phone.request.mobile, '?1');
    assert.deepEqual(
      await mobile.executeScript('return navigator.userAgentData.getHighEntropyValues(["model", "platformVersion"]).then(v => [v.model, v.platformVersion, navigator.userAgentData.brands.map(b => b.brand)])'),
      ['Test Phone', '15', ['Test']],
    );
    const pc = await seen(desktop);
    assert.doesNotMatch(pc.ua, /Test Phone|Android/);
    assert.equal(pc.touchPoints, 0);
    assert.notEqual(pc.width, 360);
  } finally {
    await Promise.all([mobile.quit(), desktop.quit()]);
  }
});

test('keys chromedriver does not know, and keys that reach the machine, are invalid argument naming them', async () => {
  const refused = async (goog: Record<string, unknown>, message: RegExp, extra: Record<string, unknown> = {}) => {
    const e = await gw.client.fails('POST', '/session', { capabilities: { alwaysMatch: { 'goog:chromeOptions': goog, ...extra } } }, 'invalid argument', 400);
    assert.match(e.message, message, JSON.stringify(goog));
  };
  await refused({ foo: 1 }, /unrecognized chrome option: foo/);
  await refused({ debuggerAddress: '127.0.0.1:9222' }, /goog:chromeOptions\.debuggerAddress is refused: wdgate starts the browser/);
  await refused({ minidumpPath: '/tmp' }, /minidumpPath is refused: it names a directory/);
  await refused({ logPath: '/tmp/x.log' }, /logPath is refused/);
  await refused({ detach: true }, /detach is refused/);
  await refused({ androidPackage: 'com.android.chrome' }, /androidPackage is refused: there is no Android device/);
  await refused({ extensions: ['not base64!'] }, /extensions\[0\]: cannot base64 decode/);
  await refused({ excludeSwitches: ['user-data-dir'] }, /excludeSwitches: --user-data-dir cannot be left out/);
  await refused({ excludeSwitches: 'enable-automation' }, /excludeSwitches must be a list/);
  await refused({ windowTypes: ['webview'] }, /windowTypes: webview is refused/);
  await refused({ perfLoggingPrefs: { enableNetwork: true } }, /perfLoggingPrefs specified, but performance logging was not enabled/);
  await refused({ perfLoggingPrefs: { enableNetwork: 'yes' } }, /perfLoggingPrefs\.enableNetwork must be a boolean/, { 'goog:loggingPrefs': { performance: 'ALL' } });
  await refused({ prefs: { download: { default_directory: '/root' } } }, /download\.default_directory names a file/);
  await refused({ w3c: false }, /w3c is refused/);
  await refused({ mobileEmulation: { deviceName: 'Nokia 3310' } }, /'Nokia 3310' must be a valid device/);
  await refused({ mobileEmulation: { deviceName: 'Pixel 7', userAgent: 'x' } }, /'deviceName' must be used alone/);
  await refused({ mobileEmulation: { deviceMetrics: { width: '360' } } }, /'width' must be an integer/);
  await refused({ mobileEmulation: { clientHints: { platform: 'PlayStation' } } }, /'userAgent' is required for platforms other than/);
  await refused({ mobileEmulation: { deviceMetric: {} } }, /unrecognized mobileEmulation option: deviceMetric/);
});

test("extensions, when the operator allows them: a CRX loads into a browser of the session's own, and its content script runs in the page", async () => {
  const manifest = { manifest_version: 3, name: 'wdgate test', version: '1.0', content_scripts: [{ matches: ['<all_urls>'], js: ['content.js'], run_at: 'document_start' }] };
  const zip = makeZip([
    { name: 'manifest.json', data: JSON.stringify(manifest) },
    { name: 'content.js', data: 'document.documentElement.dataset.wdgateExtension = "loaded";' },
  ]);
  // A CRX3: "Cr24", version 3, an (empty) header, the archive.
  const header = Buffer.alloc(12);
  header.write('Cr24', 0, 'latin1');
  header.writeUInt32LE(3, 4);
  header.writeUInt32LE(0, 8);
  const driver = await build(new chrome.Options().addExtensions(Buffer.concat([header, zip])) as chrome.Options, 'native');
  try {
    await driver.get(siteUrl);
    assert.equal(await driver.executeScript('return document.documentElement.dataset.wdgateExtension'), 'loaded');
  } finally {
    await driver.quit();
  }
  // One that asks to run programs of the machine is refused, even then; and Playwright, where no extension runs, refuses them.
  const bad = makeZip([{ name: 'manifest.json', data: JSON.stringify({ ...manifest, permissions: ['nativeMessaging'] }) }]).toString('base64');
  const e = await gw.client.fails('POST', '/session', { capabilities: { alwaysMatch: { 'goog:chromeOptions': { extensions: [bad] } } } }, 'invalid argument');
  assert.match(e.message, /"nativeMessaging" permission, which is refused/);
  const pw = await gw.client.fails('POST', '/session', { capabilities: { alwaysMatch: { 'goog:chromeOptions': { extensions: [zip.toString('base64')] }, 'wdgate:options': { backend: 'playwright' } } } }, 'invalid argument');
  assert.match(pw.message, /extensions is refused on the Playwright backend/);
});
