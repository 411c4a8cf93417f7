// chromedriver's logs, the pure parts (src/webdriver/logging.ts): goog:loggingPrefs and
// perfLoggingPrefs as chromedriver reads them, the entries as it writes them, and reads that take.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loggingPrefs, SessionLogs } from '../../src/webdriver/logging.ts';
import { WebDriverError } from '../../src/webdriver/errors.ts';

const invalid = (caps: Record<string, unknown>, message: RegExp) =>
  assert.throws(() => loggingPrefs(caps), (e: unknown) => e instanceof WebDriverError && e.code === 'invalid argument' && message.test(e.message));

describe('goog:loggingPrefs', () => {
  test("none: chromedriver's defaults (browser and driver from WARNING, no performance log)", () => {
    assert.deepEqual(loggingPrefs({}), { browser: 'WARNING', driver: 'WARNING', ignored: [] });
  });

  test('levels per type; types chromedriver has no log for are ignored (and warned of)', () => {
    assert.deepEqual(loggingPrefs({ 'goog:loggingPrefs': { browser: 'ALL', driver: 'OFF', client: 'INFO', server: 'ALL' } }), { browser: 'ALL', driver: 'OFF', ignored: ['client', 'server'] });
    const logs = new SessionLogs(loggingPrefs({ 'goog:loggingPrefs': { driver: 'ALL', client: 'INFO' } }));
    return logs.take('driver').then((entries) => assert.deepEqual(entries.map((e) => [e.level, e.message]), [['WARNING', 'Ignoring unrecognized log type: client']]));
  });

  test('not an object, or a level chromedriver has not: invalid argument', () => {
    invalid({ 'goog:loggingPrefs': 'ALL' }, /must be an object/);
    invalid({ 'goog:loggingPrefs': { browser: 'LOUD' } }, /invalid log level for 'browser' log/);
    invalid({ 'goog:loggingPrefs': { browser: 5 } }, /invalid log level/);
    invalid({ 'goog:loggingPrefs': { browser: 'info' } }, /invalid log level/);
  });

  test("perfLoggingPrefs: chromedriver's defaults, its options checked, and only with the performance log", () => {
    assert.deepEqual(loggingPrefs({ 'goog:loggingPrefs': { performance: 'INFO' } }).performance, { enableNetwork: true, enablePage: true, traceCategories: [], bufferUsageReportingInterval: 1000 });
    assert.equal(loggingPrefs({ 'goog:loggingPrefs': { performance: 'OFF' } }).performance, undefined);
    const performance = (perf: unknown) => ({ 'goog:loggingPrefs': { performance: 'ALL' }, 'goog:chromeOptions': { perfLoggingPrefs: perf } });
    assert.deepEqual(loggingPrefs(performance({ enableNetwork: false, traceCategories: 'devtools.timeline, v8 ,', bufferUsageReportingInterval: 50 })).performance, {
      enableNetwork: false,
      enablePage: true,
      traceCategories: ['devtools.timeline', 'v8'],
      bufferUsageReportingInterval: 50,
    });
    invalid(performance({ enableTimeline: true }), /unrecognized performance logging option: enableTimeline/);
    invalid(performance({ enablePage: 'no' }), /enablePage must be a boolean/);
    invalid(performance({ bufferUsageReportingInterval: 0 }), /positive integer/);
    invalid(performance({ traceCategories: ['v8'] }), /traceCategories must be a string/);
    invalid({ 'goog:chromeOptions': { perfLoggingPrefs: {} } }, /performance logging was not enabled/);
  });
});

describe('a session’s logs', () => {
  test("browser entries as chromedriver writes them: the URL (else the source), the position, the text", async () => {
    const logs = new SessionLogs(loggingPrefs({ 'goog:loggingPrefs': { browser: 'ALL' } }));
    logs.browser({ level: 'INFO', source: 'console-api', url: 'http://a/p', line: 1, column: 8, text: '"hi" 42', timestamp: 1 });
    logs.browser({ level: 'SEVERE', source: 'network', url: 'http://a/x.png', text: 'Failed to load resource', timestamp: 2 });
    logs.browser({ level: 'SEVERE', source: 'network', url: 'http://a/x.png', line: 3, text: 'at a line', timestamp: 3 });
    logs.browser({ level: 'WARNING', source: 'console-api', text: 'no stack', timestamp: 4 });
    assert.deepEqual(await logs.take('browser'), [
      { level: 'INFO', message: 'http://a/p 1:8 "hi" 42', source: 'console-api', timestamp: 1 },
      { level: 'SEVERE', message: 'http://a/x.png - Failed to load resource', source: 'network', timestamp: 2 },
      { level: 'SEVERE', message: 'http://a/x.png 3 at a line', source: 'network', timestamp: 3 },
      { level: 'WARNING', message: 'console-api - no stack', source: 'console-api', timestamp: 4 },
    ]);
    assert.deepEqual(await logs.take('browser'), [], 'a read takes the entries');
  });

  test('entries below the level are not kept; an unknown type is invalid argument; the order of types is chromedriver’s', async () => {
    const logs = new SessionLogs(loggingPrefs({ 'goog:loggingPrefs': { browser: 'WARNING', performance: 'ALL' } }));
    assert.deepEqual(logs.types, ['performance', 'browser', 'driver']);
    logs.browser({ level: 'INFO', source: 'console-api', text: 'quiet', timestamp: 1 });
    logs.browser({ level: 'SEVERE', source: 'javascript', text: 'loud', timestamp: 2 });
    assert.deepEqual((await logs.take('browser')).map((e) => e.message), ['javascript - loud']);
    logs.performance({ webview: 'T1', method: 'Page.loadEventFired', params: { timestamp: 5 }, timestamp: 6 });
    assert.deepEqual(await logs.take('performance'), [{ level: 'INFO', message: '{"message":{"method":"Page.loadEventFired","params":{"timestamp":5}},"webview":"T1"}', timestamp: 6 }]);
    await assert.rejects(logs.take('server'), (e: unknown) => e instanceof WebDriverError && e.code === 'invalid argument' && /log type 'server' not found/.test(e.message));
  });

  test('a log nobody reads keeps at most 16 MiB: the oldest go, and the driver log says so', async () => {
    const logs = new SessionLogs(loggingPrefs({ 'goog:loggingPrefs': { browser: 'ALL' } }));
    const text = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 20; i++) logs.browser({ level: 'INFO', source: 'console-api', text: `${i} ${text}`, timestamp: i });
    const kept = await logs.take('browser');
    assert.ok(kept.length < 20 && kept.length >= 15, `${kept.length} kept`);
    assert.match(kept[0]!.message, new RegExp(`^console-api - ${20 - kept.length} `), 'the newest are kept');
    assert.match((await logs.take('driver'))[0]!.message, new RegExp(`${20 - kept.length} entries of the browser log were dropped unread`));
  });
});
