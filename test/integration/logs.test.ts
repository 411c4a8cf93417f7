// chromedriver's logs (goog:loggingPrefs) through wdgate, read the way suites read them:
// selenium-webdriver's driver.manage().logs() (POST /se/log, GET /se/log/types) and the older
// /log paths. The browser log is compared with what Debian's chromedriver itself answers for the
// same page (a pass-through session through the remote backend); Firefox's comes from BiDi's log module.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Builder, logging, type WebDriver } from 'selenium-webdriver';
import chrome from 'selenium-webdriver/chrome.js';
import firefox from 'selenium-webdriver/firefox.js';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, leftoverBrowsers, startPageServer, type PageServer } from '../helpers/pages.ts';

let gw: TestGateway;
let pages: PageServer;
/** A page that logs at every level, throws, rejects, and asks for an image that is not there. */
let noisy: string;

const NOISY = `<script>
console.log('hello', 42, {a: 1}, undefined); console.info('info'); console.warn('warn'); console.error('err'); console.debug('dbg');
setTimeout(() => { throw new Error('boom'); }, 0);
Promise.reject(new Error('rejected'));
setTimeout(() => console.log('done'), 50);
</script><img src="/missing.png">`;

before(async () => {
  [gw, pages] = await Promise.all([startGateway(), startPageServer()]);
  noisy = pages.page(NOISY, 'noisy');
});

after(async () => {
  const pid = gw.process.pid!;
  await gw?.stop();
  await pages?.close();
  assert.equal(await leftoverBrowsers(pid), 0);
});

function prefs(levels: Record<string, string>): logging.Preferences {
  const p = new logging.Preferences();
  for (const [type, level] of Object.entries(levels)) p.setLevel(type, logging.getLevel(level));
  return p;
}

async function chromeDriver(levels: Record<string, string>, extra: Record<string, unknown> = {}): Promise<WebDriver> {
  const options = new chrome.Options().addArguments('--headless=new') as chrome.Options;
  options.setLoggingPrefs(prefs(levels));
  for (const [key, value] of Object.entries(extra)) options.set(key, value);
  return new Builder().usingServer(gw.url).forBrowser('chrome').setChromeOptions(options).build();
}

interface RawEntry {
  level: string;
  message: string;
  source?: string;
  timestamp: number;
}

/**
 * The browser log's entries as the wire has them (selenium-webdriver's Entry drops `source`),
 * read until the page's last message came (each read takes what is there).
 */
async function browserLog(driver: WebDriver): Promise<RawEntry[]> {
  const entries: RawEntry[] = [];
  const id = (await driver.getSession()).getId();
  await eventually(async () => {
    const reply = await gw.client.raw('POST', `/session/${id}/se/log`, { type: 'browser' });
    if (!Array.isArray(reply.value)) throw new Error(`Get Log: ${JSON.stringify(reply.value)}`);
    entries.push(...(reply.value as RawEntry[]));
    return entries.some((e) => /"?done"?$/.test(e.message));
  }, "the page's last console message never reached the browser log");
  return entries;
}

/** What does not depend on the moment: level, source and message; the favicon's 404 comes when it comes. */
const comparable = (entries: RawEntry[]) =>
  entries.map(({ level, message, source }) => ({ level, source, message: message.replace(/127\.0\.0\.1:\d+/g, 'HOST') })).filter((e) => !e.message.includes('favicon.ico'));

describe('Chromium (native backend)', () => {
  test('the browser log answers as chromedriver 156 does for the same page: levels, sources, positions, texts', async () => {
    const native = await chromeDriver({ browser: 'ALL' });
    const upstream = await chromeDriver({ browser: 'ALL' }, { 'wdgate:options': { backend: 'remote' } });
    try {
      assert.equal((await native.getCapabilities()).get('wdgate:options').backend, 'native');
      assert.equal((await upstream.getCapabilities()).get('wdgate:options').backend, 'remote');
      await Promise.all([native.get(noisy), upstream.get(noisy)]);
      const [ours, theirs] = await Promise.all([browserLog(native), browserLog(upstream)]);
      const sortKey = (e: { message: string }) => e.message;
      assert.deepEqual(comparable(ours).sort((a, b) => sortKey(a).localeCompare(sortKey(b))), comparable(theirs).sort((a, b) => sortKey(a).localeCompare(sortKey(b))));
      // What chromedriver writes, spelt out once (the assertion above holds wdgate to it).
      const messages = comparable(ours).map((e) => `${e.level} ${e.source} ${e.message.replace(/^http:\/\/HOST\/html\/\d+ /, '')}`);
      for (const expected of [
        'INFO console-api 1:8 "hello" 42 Object undefined',
        'INFO console-api 1:53 "info"',
        'WARNING console-api 1:75 "warn"',
        'SEVERE console-api 1:97 "err"',
        'DEBUG console-api 1:119 "dbg"',
        'SEVERE javascript 2:25 Uncaught Error: boom',
        'SEVERE javascript 3:15 Uncaught Error: rejected',
        'SEVERE network http://HOST/missing.png - Failed to load resource: the server responded with a status of 404 (Not Found)',
      ]) {
        assert.ok(messages.includes(expected), `${expected} is missing from ${JSON.stringify(messages, null, 1)}`);
      }
      for (const entry of ours) assert.ok(Math.abs(entry.timestamp - Date.now()) < 60_000, 'timestamps are ms since the epoch');
      // Read entries are taken: the next read has only what came since.
      assert.deepEqual(await native.manage().logs().get(logging.Type.BROWSER), []);
    } finally {
      await Promise.all([native.quit(), upstream.quit()]);
    }
  });

  test('log types, levels, the driver log, an unknown type, and the older /log paths', async () => {
    const driver = await chromeDriver({ browser: 'WARNING', driver: 'INFO', client: 'ALL' });
    try {
      assert.deepEqual(await driver.manage().logs().getAvailableLogTypes(), ['browser', 'driver']);
      await driver.get(noisy);
      // Only WARNING and above: the warning and the errors, not the page's INFO and DEBUG messages.
      const kept: logging.Entry[] = [];
      await eventually(async () => {
        kept.push(...(await driver.manage().logs().get(logging.Type.BROWSER)));
        return kept.some((e) => e.message.includes('Uncaught Error: rejected'));
      }, 'the errors never reached the browser log');
      assert.ok(kept.every((e) => ['WARNING', 'SEVERE'].includes(e.level.name)), kept.map((e) => e.message).join('\n'));
      assert.ok(kept.some((e) => e.level.name === 'WARNING' && e.message.endsWith('"warn"')));
      const driverLog = (await driver.manage().logs().get(logging.Type.DRIVER)).map((e) => e.message);
      assert.ok(driverLog.includes('Ignoring unrecognized log type: client'), driverLog.join('\n'));
      const id = (await driver.getSession()).getId();
      assert.ok(driverLog.includes(`[${id}] RESPONSE navigateTo`), driverLog.join('\n'));
      // The older paths clients still send go to the same commands.
      assert.deepEqual(await gw.client.ok('GET', `/session/${id}/log/types`), ['browser', 'driver']);
      assert.ok(Array.isArray(await gw.client.ok('POST', `/session/${id}/log`, { type: 'browser' })));
      // An unknown type: invalid argument, as chromedriver; no type: the same.
      for (const body of [{ type: 'performance' }, {}, { type: 5 }]) await gw.client.fails('POST', `/session/${id}/se/log`, body, 'invalid argument', 400);
    } finally {
      await driver.quit();
    }
  });

  test('a BiDi session (the mapper attached to the same pages): each entry once', async () => {
    const s = await gw.client.newSession({ webSocketUrl: true, 'goog:loggingPrefs': { browser: 'ALL', performance: 'ALL' } });
    try {
      await s.navigate(noisy);
      const entries: RawEntry[] = [];
      await eventually(async () => {
        entries.push(...(await s.post('/se/log', { type: 'browser' })));
        return entries.some((e) => e.message.endsWith('"done"'));
      }, "the page's last console message never reached the browser log");
      const messages = entries.map((e) => e.message);
      assert.equal(new Set(messages).size, messages.length, messages.join('\n'));
      const loads = (await s.post('/se/log', { type: 'performance' })).filter((e: RawEntry) => e.message.includes('"Page.loadEventFired"'));
      assert.equal(loads.length, 1);
    } finally {
      await s.end();
    }
  });

  test('bad goog:loggingPrefs and perfLoggingPrefs are invalid argument at New Session', async () => {
    // The session of the test before gives its context back just after its Delete Session's answer.
    await eventually(async () => (await gw.client.leasedContexts()) === 0, 'a context of an ended session is still leased');
    const newSession = (caps: Record<string, unknown>) =>
      gw.client.raw('POST', '/session', { capabilities: { alwaysMatch: { browserName: 'chrome', 'goog:chromeOptions': { args: ['--headless=new'] }, ...caps } } });
    for (const caps of [
      { 'goog:loggingPrefs': 'ALL' },
      { 'goog:loggingPrefs': { browser: 'LOUD' } },
      { 'goog:loggingPrefs': { browser: 5 } },
      { 'goog:chromeOptions': { args: ['--headless=new'], perfLoggingPrefs: { enableNetwork: false } } },
      { 'goog:loggingPrefs': { performance: 'ALL' }, 'goog:chromeOptions': { args: ['--headless=new'], perfLoggingPrefs: { enableTimeline: true } } },
      { 'goog:loggingPrefs': { performance: 'ALL' }, 'goog:chromeOptions': { args: ['--headless=new'], perfLoggingPrefs: { enableNetwork: 'no' } } },
      { 'goog:loggingPrefs': { performance: 'ALL' }, 'goog:chromeOptions': { args: ['--headless=new'], perfLoggingPrefs: { bufferUsageReportingInterval: 0 } } },
      // A trace records the whole browser: only for a session with one of its own.
      { 'goog:loggingPrefs': { performance: 'ALL' }, 'goog:chromeOptions': { args: ['--headless=new'], perfLoggingPrefs: { traceCategories: 'devtools.timeline' } } },
    ]) {
      const reply = await newSession(caps);
      assert.equal(reply.status, 400, JSON.stringify(caps));
      assert.equal(reply.value.error, 'invalid argument', JSON.stringify(caps));
    }
    assert.equal(await gw.client.leasedContexts(), 0, 'no refused session keeps a browser context');
  });

  test('the performance log: Network and Page events as chromedriver writes them, per perfLoggingPrefs', async () => {
    const driver = await chromeDriver({ performance: 'ALL' }, { 'goog:chromeOptions': { args: ['--headless=new'], perfLoggingPrefs: { enableNetwork: false } } });
    try {
      assert.deepEqual(await driver.manage().logs().getAvailableLogTypes(), ['performance', 'browser', 'driver']);
      await driver.get(noisy);
      const entries = await driver.manage().logs().get(logging.Type.PERFORMANCE);
      const events = entries.map((e) => JSON.parse(e.message) as { message: { method: string; params: unknown }; webview: string });
      const methods = new Set(events.map((e) => e.message.method));
      for (const method of ['Page.frameNavigated', 'Page.loadEventFired']) assert.ok(methods.has(method), `${method} among ${[...methods].join(', ')}`);
      assert.ok(![...methods].some((m) => m.startsWith('Network.')), 'enableNetwork: false leaves the Network events out');
      assert.ok(!methods.has('Page.lifecycleEvent'), 'no event chromedriver would not see (puppeteer asks for lifecycle events)');
      assert.ok(events.every((e) => e.webview === (events[0]!.webview)), 'one window: one webview');
      assert.ok(entries.every((e) => e.level.name === 'INFO'));
    } finally {
      await driver.quit();
    }
  });

  test('traceCategories, for a session with a browser of its own: the trace comes with the read', async () => {
    const driver = await chromeDriver({ performance: 'ALL' }, { 'wdgate:options': { ownBrowser: true }, 'goog:chromeOptions': { args: ['--headless=new'], perfLoggingPrefs: { traceCategories: 'devtools.timeline', enablePage: false } } });
    try {
      await driver.get(noisy);
      const events = (await driver.manage().logs().get(logging.Type.PERFORMANCE)).map((e) => JSON.parse(e.message) as { message: { method: string }; webview: string });
      const traced = events.filter((e) => e.message.method === 'Tracing.dataCollected');
      assert.ok(traced.length > 0, 'trace events came');
      assert.ok(traced.every((e) => e.webview === 'browser'));
      assert.ok(events.some((e) => e.message.method.startsWith('Network.')));
    } finally {
      await driver.quit();
    }
  });
});

describe('Firefox (native backend, BiDi log module)', () => {
  test('the browser log holds console messages and uncaught exceptions; performance is refused', async () => {
    const options = new firefox.Options().addArguments('-headless') as firefox.Options;
    options.setLoggingPrefs(prefs({ browser: 'ALL' }));
    const driver = await new Builder().usingServer(gw.url).forBrowser('firefox').setFirefoxOptions(options).build();
    try {
      assert.deepEqual(await driver.manage().logs().getAvailableLogTypes(), ['browser', 'driver']);
      await driver.get(noisy);
      const messages = comparable(await browserLog(driver)).map((e) => `${e.level} ${e.source} ${e.message.replace(/^http:\/\/HOST\/html\/\d+ /, '')}`);
      for (const expected of [/^INFO console-api \d+:\d+ hello 42/, /^WARNING console-api \d+:\d+ warn$/, /^SEVERE console-api \d+:\d+ err$/, /^DEBUG console-api \d+:\d+ dbg$/, /^SEVERE javascript \d+:\d+ Error: boom$/]) {
        assert.ok(messages.some((m) => expected.test(m)), `${expected} matches none of ${JSON.stringify(messages, null, 1)}`);
      }
    } finally {
      await driver.quit();
    }
    const refused = await gw.client.raw('POST', '/session', { capabilities: { alwaysMatch: { browserName: 'firefox', 'moz:firefoxOptions': { args: ['-headless'] }, 'goog:loggingPrefs': { performance: 'ALL' } } } });
    assert.equal(refused.value.error, 'session not created');
    assert.match(refused.value.message, /performance log/);
  });
});
