// Real client libraries against wdgate, used the way their users write tests: selenium-webdriver,
// WebdriverIO and Python Selenium (Debian's python3-selenium).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Builder, By, Key } from 'selenium-webdriver';
import chrome from 'selenium-webdriver/chrome.js';
import { remote } from 'webdriverio';
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

test('selenium-webdriver (JavaScript)', async () => {
  const options = new chrome.Options();
  options.addArguments('--headless=new');
  const driver = await new Builder().usingServer(gw.url).forBrowser('chrome').setChromeOptions(options).build();
  try {
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
  } finally {
    await driver.quit();
  }
});

// WebdriverIO 9 asks for webSocketUrl and speaks BiDi when it gets one (its default mode);
// 'wdio:enforceWebDriverClassic' keeps it on classic WebDriver. The same scenario both ways.
for (const mode of ['BiDi', 'classic'] as const) {
  test(`WebdriverIO (${mode})`, async () => {
    const browser = await remote({
      hostname: '127.0.0.1',
      port: gw.port,
      path: '/',
      logLevel: 'silent',
      connectionRetryCount: 0,
      capabilities: {
        browserName: 'chrome',
        'goog:chromeOptions': { args: ['--headless=new'] },
        ...(mode === 'classic' && { 'wdio:enforceWebDriverClassic': true }),
      },
    });
    try {
      assert.equal(browser.isBidi, mode === 'BiDi', 'the session runs in the mode asked for, not a fallback');
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

const PYTHON = '/usr/bin/python3';
const PY_SCRIPT = `
import sys
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.common.exceptions import NoSuchElementException
options = webdriver.ChromeOptions()
options.add_argument('--headless=new')
driver = webdriver.Remote(command_executor=sys.argv[1], options=options)
try:
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

test('Python Selenium', { skip: !existsSync(PYTHON) && 'no /usr/bin/python3' }, async () => {
  const out = await new Promise<string>((resolve, reject) => {
    execFile(PYTHON, ['-c', PY_SCRIPT, gw.url, form], { timeout: 60_000 }, (e, stdout, stderr) =>
      e ? reject(new Error(`${e.message}\n${stdout}\n${stderr}`)) : resolve(stdout),
    );
  });
  assert.match(out, /python selenium ok/);
});
