// Real client libraries against wdgate, used the way their users write tests: selenium-webdriver,
// WebdriverIO and Python Selenium (Debian's python3-selenium).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Builder, By, Key, type WebDriver } from 'selenium-webdriver';
import chrome from 'selenium-webdriver/chrome.js';
import firefox from 'selenium-webdriver/firefox.js';
import { remote } from 'webdriverio';
import puppeteer from 'puppeteer-core';
import { createRequire } from 'node:module';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { leftoverBrowsers, startPageServer, type PageServer } from '../helpers/pages.ts';

let gw: TestGateway;
let pages: PageServer;
let form: string;

const FORM = `
  <h1 id="greeting">Hello</h1>
  <form action="/html/next" onsubmit="event.preventDefault(); document.title = 'sent ' + this.q.value;">
    <input name="q" id="q" value="pre">
    <button id="go" type="submit">Go</button>
  </form>
  <a id="link" href="#anchor">jump</a>`;

before(async () => {
  [gw, pages] = await Promise.all([startGateway(), startPageServer()]);
  form = pages.page(FORM, 'client test');
});

after(async () => {
  const pid = gw.process.pid!;
  await gw?.stop();
  await pages?.close();
  assert.equal(await leftoverBrowsers(pid), 0);
});

// Plain capabilities, as users write them: Firefox takes the default route (the native backend,
// which sizes windows: setWindowRect true), as Chromium does.
for (const browserName of ['chrome', 'firefox'] as const) {
  test(`selenium-webdriver (JavaScript, ${browserName})`, async () => {
    const builder = new Builder().usingServer(gw.url).forBrowser(browserName);
    if (browserName === 'chrome') builder.setChromeOptions(new chrome.Options().addArguments('--headless=new') as chrome.Options);
    else builder.setFirefoxOptions(new firefox.Options().addArguments('-headless'));
    const driver = await builder.build();
    try {
      const capabilities = await driver.getCapabilities();
      assert.equal(capabilities.get('setWindowRect'), true);
      assert.equal(capabilities.get('wdgate:options').backend, 'native');
      await seleniumScenario(driver);
    } finally {
      await driver.quit();
    }
  });
}

/** A user's test, in selenium-webdriver's API: form, keys, script, clicks, screenshot, window, cookies, timeouts, tabs. */
async function seleniumScenario(driver: WebDriver): Promise<void> {
  await driver.get(form);
  assert.equal(await driver.getTitle(), 'client test');
  assert.equal(await driver.findElement(By.id('greeting')).getText(), 'Hello');
  const q = await driver.findElement(By.name('q'));
  await q.sendKeys(' typed', Key.ENTER);
  assert.equal(await driver.getTitle(), 'sent pre typed');
  assert.equal(await q.getAttribute('value'), 'pre typed');
  await q.clear();
  assert.equal(await q.getAttribute('value'), '');
  assert.equal(await driver.executeScript('return arguments[0].id', q), 'q');
  assert.equal((await driver.findElements(By.css('nothing-here'))).length, 0);
  await assert.rejects(driver.findElement(By.id('missing')), { name: 'NoSuchElementError' });
  await driver.findElement(By.id('link')).click();
  assert.match(await driver.getCurrentUrl(), /#anchor$/);
  const png = await driver.takeScreenshot();
  assert.equal(Buffer.from(png, 'base64').subarray(1, 4).toString(), 'PNG');
  await driver.manage().window().setRect({ width: 900, height: 700 });
  const rect = await driver.manage().window().getRect();
  assert.equal(rect.width, 900);
  await driver.manage().addCookie({ name: 'c', value: 'v' });
  assert.equal((await driver.manage().getCookie('c'))?.value, 'v');
  await driver.manage().setTimeouts({ implicit: 100 });
  assert.equal((await driver.manage().getTimeouts()).implicit, 100);
  const original = await driver.getWindowHandle();
  await driver.switchTo().newWindow('tab');
  assert.equal((await driver.getAllWindowHandles()).length, 2);
  await driver.close();
  await driver.switchTo().window(original);
  assert.equal(await driver.getTitle(), 'sent pre typed'); // the original window, as the form left it
}

// WebdriverIO 9 asks for webSocketUrl and speaks BiDi when it gets one (its default mode);
// 'wdio:enforceWebDriverClassic' keeps it on classic WebDriver. The same scenario both ways, on
// Chromium and on Firefox.
for (const [mode, browserName] of [
  ['BiDi', 'chrome'],
  ['classic', 'chrome'],
  ['BiDi', 'firefox'],
  ['classic', 'firefox'],
] as const) {
  test(`WebdriverIO (${mode}, ${browserName})`, async () => {
    const browser = await remote({
      hostname: '127.0.0.1',
      port: gw.port,
      path: '/',
      logLevel: 'silent',
      connectionRetryCount: 0,
      capabilities: {
        browserName,
        ...(browserName === 'chrome' ? { 'goog:chromeOptions': { args: ['--headless=new'] } } : { 'moz:firefoxOptions': { args: ['-headless'] } }),
        ...(mode === 'classic' && { 'wdio:enforceWebDriverClassic': true }),
      },
    });
    try {
      assert.equal(browser.isBidi, mode === 'BiDi', 'the session runs in the mode asked for, not a fallback');
      assert.equal(browser.capabilities.browserName, browserName);
      await browser.url(form);
      assert.equal(await browser.getTitle(), 'client test');
      assert.equal(await browser.$('#greeting').getText(), 'Hello');
      await browser.$('#q').setValue('set');
      assert.equal(await browser.$('#q').getValue(), 'set');
      await browser.$('#go').click();
      assert.equal(await browser.getTitle(), 'sent set');
      assert.equal(await browser.execute(() => 1 + 1), 2);
      assert.equal(await browser.$('#missing').isExisting(), false);
      assert.equal((await browser.$$('input')).length, 1);
    } finally {
      await browser.deleteSession();
    }
  });
}

// selenium-webdriver's BiDi modules have no type declarations.
const require = createRequire(import.meta.url);
const LogInspector = require('selenium-webdriver/bidi/logInspector.js');
const ScriptManager = require('selenium-webdriver/bidi/scriptManager.js');
const { Network } = require('selenium-webdriver/bidi/network.js');
const { AddInterceptParameters } = require('selenium-webdriver/bidi/addInterceptParameters.js');
const { InterceptPhase } = require('selenium-webdriver/bidi/interceptPhase.js');
const { ContinueRequestParameters } = require('selenium-webdriver/bidi/continueRequestParameters.js');

for (const browserName of ['chrome', 'firefox'] as const) {
  test(`selenium-webdriver's BiDi APIs (${browserName}): console and JavaScript error listeners, a preload script, network intercepts that continue and fail`, async () => {
    const builder = new Builder().usingServer(gw.url).forBrowser(browserName);
    if (browserName === 'chrome') builder.setChromeOptions(new chrome.Options().addArguments('--headless=new').set('webSocketUrl', true) as chrome.Options);
    else builder.setFirefoxOptions(new firefox.Options().addArguments('-headless').set('webSocketUrl', true) as firefox.Options);
    // webSocketUrl: what enableBidi() does.
    const driver = await builder.build();
    try {
      const context = await driver.getWindowHandle();
      const logs = await LogInspector(driver);
      const consoleEntries: string[] = [];
      const exceptions: string[] = [];
      await logs.onConsoleEntry((entry: { text: string }) => consoleEntries.push(entry.text));
      await logs.onJavascriptException((entry: { text: string }) => exceptions.push(entry.text));
      const scripts = await ScriptManager(context, driver);
      await scripts.addPreloadScript('() => { window.preloaded = "before the page"; }');

      const network = await Network(driver);
      await network.addIntercept(new AddInterceptParameters(InterceptPhase.BEFORE_REQUEST_SENT));
      const seen: string[] = [];
      await network.beforeRequestSent(async (event: { request: { request: string; url: string } } | null) => {
        if (!event) return; // selenium-webdriver hands its listeners null for events it did not parse
        seen.push(event.request.url);
        if (event.request.url.endsWith('/blocked.txt')) await network.failRequest(event.request.request);
        else await network.continueRequest(new ContinueRequestParameters(event.request.request));
      });

      await driver.get(pages.page(`<script>
        console.log('hello from the page');
        document.title = window.preloaded;
        fetch('/blocked.txt').then(() => (window.blocked = 'loaded'), () => (window.blocked = 'failed'));
        setTimeout(() => { throw new Error('boom'); });
      </script>`));
      assert.equal(await driver.getTitle(), 'before the page');
      await driver.wait(async () => (await driver.executeScript('return window.blocked')) !== null, 10_000);
      assert.equal(await driver.executeScript('return window.blocked'), 'failed');
      assert.ok(seen.some((url) => url.endsWith('/blocked.txt')));
      assert.ok(seen.some((url) => url.includes('/html/')), 'the page itself was intercepted and continued');
      await driver.wait(() => consoleEntries.includes('hello from the page') && exceptions.some((t) => /boom/.test(t)), 10_000);
    } finally {
      await driver.quit();
    }
  });
}

test('Puppeteer over WebDriver BiDi: puppeteer.connect to ws://host:port/session', async () => {
  const browser = await puppeteer.connect({ browserWSEndpoint: `ws://127.0.0.1:${gw.port}/session`, protocol: 'webDriverBiDi' });
  try {
    const [page] = await browser.pages();
    await page!.goto(form);
    assert.equal(await page!.title(), 'client test');
    assert.equal(await page!.$eval('#greeting', (e) => e.textContent), 'Hello');
    assert.equal((await browser.pages()).length, 1, "only this session's windows");
  } finally {
    await browser.close(); // browser.close ends the session (and its browser of its own)
  }
  assert.deepEqual((await gw.client.ok('GET', '/status')).sessions.own, []);
});

const PYTHON = '/usr/bin/python3';
const PY_SCRIPT = `
import sys
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.common.exceptions import NoSuchElementException
if sys.argv[3] == 'firefox':
    options = webdriver.FirefoxOptions()
    options.add_argument('-headless')
else:
    options = webdriver.ChromeOptions()
    options.add_argument('--headless=new')
driver = webdriver.Remote(command_executor=sys.argv[1], options=options)
try:
    assert driver.capabilities['setWindowRect'] is True
    driver.get(sys.argv[2])
    assert driver.title == 'client test', driver.title
    assert driver.find_element(By.ID, 'greeting').text == 'Hello'
    q = driver.find_element(By.NAME, 'q')
    q.send_keys(' py')
    assert q.get_property('value') == 'pre py'
    try:
        driver.find_element(By.ID, 'missing')
        raise AssertionError('expected NoSuchElementException')
    except NoSuchElementException:
        pass
    driver.set_window_rect(width=800, height=600)
    assert driver.get_window_rect()['width'] == 800
    assert driver.execute_script('return arguments[0] * 2', 21) == 42
    print('python selenium ok')
finally:
    driver.quit()
`;

for (const browserName of ['chrome', 'firefox'] as const) {
  test(`Python Selenium (${browserName})`, { skip: !existsSync(PYTHON) && 'no /usr/bin/python3' }, async () => {
    const out = await new Promise<string>((resolve, reject) => {
      execFile(PYTHON, ['-c', PY_SCRIPT, gw.url, form, browserName], { timeout: 60_000 }, (e, stdout, stderr) =>
        e ? reject(new Error(`${e.message}\n${stdout}\n${stderr}`)) : resolve(stdout),
      );
    });
    assert.match(out, /python selenium ok/);
  });
}
