import { test } from 'node:test';
import assert from 'node:assert/strict';

import { WebDriverError } from '../../src/webdriver/errors.ts';
import {
  defaultTimeouts,
  matchStandardCapabilities,
  mergeCapabilities,
  processCapabilities,
  resolveTimeouts,
  validateCapabilities,
  type EndpointCapabilities,
  type MatchResult,
} from '../../src/webdriver/capabilities.ts';

const AM = 'capabilities.alwaysMatch';

/** Asserts that fn throws a WebDriverError with `code` whose message contains every fragment. */
function assertWdError(fn: () => unknown, code: string, ...fragments: string[]): WebDriverError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof WebDriverError, `expected a WebDriverError, got ${String(caught)}`);
  assert.equal(caught.code, code, `wrong code; message was: ${caught.message}`);
  for (const fragment of fragments) {
    assert.ok(caught.message.includes(fragment), `message ${JSON.stringify(caught.message)} lacks ${JSON.stringify(fragment)}`);
  }
  return caught;
}

const invalidArg = (fn: () => unknown, ...fragments: string[]) => assertWdError(fn, 'invalid argument', ...fragments);

const chromeEndpoint: EndpointCapabilities = {
  browserNames: ['chrome', 'chromium'],
  browserVersion: '156.0.8078.79',
  platformName: 'linux',
  acceptInsecureCerts: true,
  setWindowRect: true,
};

const matchChrome = (merged: Record<string, unknown>): MatchResult<string> => {
  const reason = matchStandardCapabilities(merged, chromeEndpoint);
  return reason === null ? { ok: true, value: 'chrome-endpoint' } : { ok: false, reason };
};

// ─────────────────────────── validateCapabilities ───────────────────────────

test('validate: accepts every standard capability with a valid value and copies it', () => {
  const input = {
    acceptInsecureCerts: true,
    browserName: 'chrome',
    browserVersion: '156',
    platformName: 'linux',
    pageLoadStrategy: 'eager',
    proxy: { proxyType: 'manual', httpProxy: 'proxy.local:3128', noProxy: ['localhost'] },
    setWindowRect: true,
    strictFileInteractability: false,
    timeouts: { script: null, pageLoad: 1000, implicit: 0 },
    unhandledPromptBehavior: 'dismiss and notify',
    webSocketUrl: true,
  };
  const result = validateCapabilities(input, AM);
  assert.deepEqual(result, input);
  assert.notEqual(result, input);
});

test('validate: null values are dropped, for standard and extension keys alike', () => {
  const result = validateCapabilities({ browserName: null, 'goog:chromeOptions': null, timeouts: null, platformName: 'linux' }, AM);
  assert.deepEqual(result, { platformName: 'linux' });
  assert.equal(Object.hasOwn(result, 'browserName'), false);
});

test('validate: extension capabilities pass through unchecked (same value)', () => {
  const chromeOptions = { args: ['--headless'], whatever: { nested: [1, 2] } };
  const result = validateCapabilities({ 'goog:chromeOptions': chromeOptions, 'wdio:enforceWebDriverClassic': 'not-a-bool' }, AM);
  assert.equal(result['goog:chromeOptions'], chromeOptions);
  assert.equal(result['wdio:enforceWebDriverClassic'], 'not-a-bool');
});

test('validate: the object itself must be a JSON object', () => {
  invalidArg(() => validateCapabilities(null, AM), `${AM} must be a JSON object`, 'got null');
  invalidArg(() => validateCapabilities([], AM), `${AM} must be a JSON object`, 'got an array');
  invalidArg(() => validateCapabilities('chrome', 'capabilities.firstMatch[2]'), 'capabilities.firstMatch[2] must be a JSON object');
  invalidArg(() => validateCapabilities(undefined, AM), `${AM} must be a JSON object`);
});

test('validate: unknown key without a colon is rejected, naming it', () => {
  invalidArg(() => validateCapabilities({ browser: 'chrome' }, AM), `${AM}.browser is not a W3C capability`, 'goog:chromeOptions');
  invalidArg(() => validateCapabilities({ chromeOptions: {} }, 'capabilities.firstMatch[0]'), 'capabilities.firstMatch[0].chromeOptions');
  invalidArg(() => validateCapabilities(JSON.parse('{"__proto__": {"x": 1}}'), AM), `${AM}.__proto__`);
});

test('validate: booleans are type-checked with the path in the message', () => {
  for (const key of ['acceptInsecureCerts', 'setWindowRect', 'strictFileInteractability', 'webSocketUrl']) {
    invalidArg(() => validateCapabilities({ [key]: 'true' }, AM), `${AM}.${key} must be a boolean`, 'got the string "true"');
    invalidArg(() => validateCapabilities({ [key]: 1 }, AM), `${AM}.${key} must be a boolean`, 'got number 1');
  }
});

test('validate: strings are type-checked', () => {
  for (const key of ['browserName', 'browserVersion', 'platformName']) {
    invalidArg(() => validateCapabilities({ [key]: 156 }, AM), `${AM}.${key} must be a string`, 'got number 156');
    invalidArg(() => validateCapabilities({ [key]: ['chrome'] }, AM), `${AM}.${key} must be a string`, 'got an array');
  }
});

test('validate: pageLoadStrategy must be none, eager or normal', () => {
  for (const s of ['none', 'eager', 'normal']) {
    assert.deepEqual(validateCapabilities({ pageLoadStrategy: s }, AM), { pageLoadStrategy: s });
  }
  invalidArg(() => validateCapabilities({ pageLoadStrategy: 'fast' }, AM), `${AM}.pageLoadStrategy must be one of "none", "eager", "normal"`, '"fast"');
  invalidArg(() => validateCapabilities({ pageLoadStrategy: 'Normal' }, AM), `${AM}.pageLoadStrategy must be one of`);
});

test('validate: timeouts accept integers in range and script null', () => {
  const max = Number.MAX_SAFE_INTEGER;
  assert.deepEqual(validateCapabilities({ timeouts: { script: max, pageLoad: 0, implicit: 5 } }, AM), {
    timeouts: { script: max, pageLoad: 0, implicit: 5 },
  });
  assert.deepEqual(validateCapabilities({ timeouts: { script: null } }, AM), { timeouts: { script: null } });
  assert.deepEqual(validateCapabilities({ timeouts: {} }, AM), { timeouts: {} });
});

test('validate: bad timeouts are rejected with the exact path', () => {
  invalidArg(
    () => validateCapabilities({ timeouts: { script: -1 } }, AM),
    'capabilities.alwaysMatch.timeouts.script must be null or an integer from 0 to 2^53-1',
  );
  invalidArg(() => validateCapabilities({ timeouts: { script: 1.5 } }, AM), `${AM}.timeouts.script`);
  invalidArg(
    () => validateCapabilities({ timeouts: { pageLoad: '1000' } }, AM),
    'capabilities.alwaysMatch.timeouts.pageLoad must be an integer from 0 to 2^53-1',
  );
  invalidArg(
    () => validateCapabilities({ timeouts: { implicit: Number.MAX_SAFE_INTEGER + 1 } }, AM),
    `${AM}.timeouts.implicit must be an integer from 0 to 2^53-1`,
  );
  invalidArg(() => validateCapabilities({ timeouts: { pageLoad: null } }, AM), `${AM}.timeouts.pageLoad must be an integer`);
  invalidArg(() => validateCapabilities({ timeouts: { implicitWait: 10 } }, AM), `${AM}.timeouts has unknown key "implicitWait"`);
  invalidArg(() => validateCapabilities({ timeouts: 1000 }, AM), `${AM}.timeouts must be a JSON object`);
  invalidArg(() => validateCapabilities({ timeouts: [] }, AM), `${AM}.timeouts must be a JSON object`);
});

test('validate: unhandledPromptBehavior string form', () => {
  for (const s of ['dismiss', 'accept', 'dismiss and notify', 'accept and notify', 'ignore']) {
    assert.deepEqual(validateCapabilities({ unhandledPromptBehavior: s }, AM), { unhandledPromptBehavior: s });
  }
  invalidArg(() => validateCapabilities({ unhandledPromptBehavior: 'close' }, AM), `${AM}.unhandledPromptBehavior must be one of`, '"close"');
  invalidArg(() => validateCapabilities({ unhandledPromptBehavior: true }, AM), `${AM}.unhandledPromptBehavior must be one of`);
});

test('validate: unhandledPromptBehavior object form', () => {
  const behavior = { alert: 'accept and notify', beforeUnload: 'accept', confirm: 'dismiss', default: 'ignore', file: 'dismiss and notify', prompt: 'ignore' };
  assert.deepEqual(validateCapabilities({ unhandledPromptBehavior: behavior }, AM), { unhandledPromptBehavior: behavior });
  invalidArg(
    () => validateCapabilities({ unhandledPromptBehavior: { popup: 'accept' } }, AM),
    `${AM}.unhandledPromptBehavior has unknown prompt type "popup"`,
  );
  invalidArg(
    () => validateCapabilities({ unhandledPromptBehavior: { beforeUnload: 'accept and notify' } }, AM),
    `${AM}.unhandledPromptBehavior.beforeUnload must be one of "dismiss", "accept", "ignore"`,
  );
  invalidArg(() => validateCapabilities({ unhandledPromptBehavior: { alert: 'close' } }, AM), `${AM}.unhandledPromptBehavior.alert must be one of`);
  invalidArg(() => validateCapabilities({ unhandledPromptBehavior: { alert: null } }, AM), `${AM}.unhandledPromptBehavior.alert`);
});

test('validate: proxy accepted forms', () => {
  const ok = [
    { proxyType: 'direct' },
    { proxyType: 'system' },
    { proxyType: 'autodetect' },
    { proxyType: 'pac', proxyAutoconfigUrl: 'http://example.test/proxy.pac' },
    {
      proxyType: 'manual',
      ftpProxy: 'ftp.proxy:21',
      httpProxy: '10.0.0.1:8080',
      sslProxy: '[::1]:3128',
      socksProxy: 'socks.local',
      socksVersion: 5,
      noProxy: ['localhost', '127.0.0.1'],
    },
  ];
  for (const proxy of ok) assert.deepEqual(validateCapabilities({ proxy }, AM), { proxy });
});

test('validate: proxy rejections name the path', () => {
  const P = `${AM}.proxy`;
  invalidArg(() => validateCapabilities({ proxy: 'direct' }, AM), `${P} must be a JSON object`);
  invalidArg(() => validateCapabilities({ proxy: {} }, AM), `${P}.proxyType is required`);
  invalidArg(() => validateCapabilities({ proxy: { proxyType: 'socks' } }, AM), `${P}.proxyType must be one of "pac", "direct", "autodetect", "system", "manual"`);
  invalidArg(() => validateCapabilities({ proxy: { proxyType: 'pac' } }, AM), `${P}.proxyAutoconfigUrl is required when proxyType is "pac"`);
  invalidArg(() => validateCapabilities({ proxy: { proxyType: 'pac', proxyAutoconfigUrl: 5 } }, AM), `${P}.proxyAutoconfigUrl must be a string`);
  invalidArg(() => validateCapabilities({ proxy: { proxyType: 'pac', proxyAutoconfigUrl: 'not a url' } }, AM), `${P}.proxyAutoconfigUrl must be an absolute URL`);
  invalidArg(() => validateCapabilities({ proxy: { proxyType: 'direct', bogus: 1 } }, AM), `${P} has unknown key "bogus"`);
  invalidArg(
    () => validateCapabilities({ proxy: { proxyType: 'direct', httpProxy: 'a:1' } }, AM),
    `${P}.httpProxy is only allowed when proxyType is "manual", not "direct"`,
  );
  invalidArg(() => validateCapabilities({ proxy: { proxyType: 'system', noProxy: [] } }, AM), `${P}.noProxy is only allowed when proxyType is "manual"`);
  invalidArg(
    () => validateCapabilities({ proxy: { proxyType: 'manual', proxyAutoconfigUrl: 'http://x/p.pac' } }, AM),
    `${P}.proxyAutoconfigUrl is only allowed when proxyType is "pac"`,
  );
  invalidArg(() => validateCapabilities({ proxy: { proxyType: 'manual', httpProxy: 'http://proxy:3128' } }, AM), `${P}.httpProxy must be a host with an optional port`);
  invalidArg(() => validateCapabilities({ proxy: { proxyType: 'manual', sslProxy: 'user:pw@proxy:3128' } }, AM), `${P}.sslProxy must be a host`);
  invalidArg(() => validateCapabilities({ proxy: { proxyType: 'manual', ftpProxy: 'proxy:99999' } }, AM), `${P}.ftpProxy must be a host`);
  invalidArg(() => validateCapabilities({ proxy: { proxyType: 'manual', httpProxy: 3128 } }, AM), `${P}.httpProxy must be a string`);
  invalidArg(() => validateCapabilities({ proxy: { proxyType: 'manual', socksProxy: 'socks:1080' } }, AM), `${P}.socksVersion is required when socksProxy is given`);
  invalidArg(() => validateCapabilities({ proxy: { proxyType: 'manual', socksProxy: 's:1', socksVersion: 256 } }, AM), `${P}.socksVersion must be an integer from 0 to 255`);
  invalidArg(() => validateCapabilities({ proxy: { proxyType: 'manual', socksProxy: 's:1', socksVersion: 4.5 } }, AM), `${P}.socksVersion must be an integer`);
  invalidArg(() => validateCapabilities({ proxy: { proxyType: 'manual', noProxy: 'localhost' } }, AM), `${P}.noProxy must be an array of strings`);
  invalidArg(() => validateCapabilities({ proxy: { proxyType: 'manual', noProxy: ['ok', 7] } }, AM), `${P}.noProxy[1] must be a string`);
});

// ─────────────────────────── mergeCapabilities ───────────────────────────

test('merge: disjoint keys are combined into a new object', () => {
  const primary = { browserName: 'chrome' };
  const secondary = { platformName: 'linux' };
  const merged = mergeCapabilities(primary, secondary);
  assert.deepEqual(merged, { browserName: 'chrome', platformName: 'linux' });
  assert.deepEqual(primary, { browserName: 'chrome' });
});

test('merge: undefined secondary yields a copy of primary', () => {
  const primary = { browserName: 'chrome' };
  const merged = mergeCapabilities(primary);
  assert.deepEqual(merged, primary);
  assert.notEqual(merged, primary);
});

test('merge: a key in both is an invalid argument naming the key', () => {
  invalidArg(() => mergeCapabilities({ browserName: 'chrome' }, { browserName: 'chrome' }), 'browserName', 'shadows capabilities.alwaysMatch.browserName');
  invalidArg(
    () => mergeCapabilities({ 'goog:chromeOptions': {} }, { 'goog:chromeOptions': {} }, 'capabilities.firstMatch[3]'),
    'capabilities.firstMatch[3].goog:chromeOptions shadows capabilities.alwaysMatch.goog:chromeOptions',
  );
});

// ─────────────────────────── matchStandardCapabilities ───────────────────────────

test('match: empty request matches', () => {
  assert.equal(matchStandardCapabilities({}, chromeEndpoint), null);
});

test('match: browserName is exact and case-sensitive', () => {
  assert.equal(matchStandardCapabilities({ browserName: 'chrome' }, chromeEndpoint), null);
  assert.equal(matchStandardCapabilities({ browserName: 'chromium' }, chromeEndpoint), null);
  assert.equal(matchStandardCapabilities({ browserName: 'firefox' }, chromeEndpoint), 'browserName "firefox" is not served (chrome, chromium)');
  assert.equal(matchStandardCapabilities({ browserName: 'Chrome' }, chromeEndpoint), 'browserName "Chrome" is not served (chrome, chromium)');
});

test('match: browserVersion is a dot-component prefix match', () => {
  for (const v of ['156', '156.0', '156.0.8078', '156.0.8078.79']) {
    assert.equal(matchStandardCapabilities({ browserVersion: v }, chromeEndpoint), null, v);
  }
  for (const v of ['15', '155', '156.1', '156.0.8078.79.1', '156.0.807', 'stable', '']) {
    const reason = matchStandardCapabilities({ browserVersion: v }, chromeEndpoint);
    assert.equal(reason, `browserVersion ${JSON.stringify(v)} does not match the served version 156.0.8078.79`, v);
  }
});

test('match: platformName compares lowercased and exactly', () => {
  assert.equal(matchStandardCapabilities({ platformName: 'linux' }, chromeEndpoint), null);
  assert.equal(matchStandardCapabilities({ platformName: 'Linux' }, chromeEndpoint), null);
  assert.equal(matchStandardCapabilities({ platformName: 'mac' }, chromeEndpoint), 'platformName "mac" is not served (linux)');
  assert.equal(matchStandardCapabilities({ platformName: 'any' }, chromeEndpoint), 'platformName "any" is not served (linux)');
});

test('match: acceptInsecureCerts and setWindowRect true need endpoint support; false always fine', () => {
  const limited = { ...chromeEndpoint, acceptInsecureCerts: false, setWindowRect: false };
  assert.equal(matchStandardCapabilities({ acceptInsecureCerts: true }, chromeEndpoint), null);
  assert.equal(matchStandardCapabilities({ setWindowRect: true }, chromeEndpoint), null);
  assert.equal(matchStandardCapabilities({ acceptInsecureCerts: true }, limited), 'acceptInsecureCerts true is not supported');
  assert.equal(matchStandardCapabilities({ setWindowRect: true }, limited), 'setWindowRect true is not supported');
  assert.equal(matchStandardCapabilities({ acceptInsecureCerts: false, setWindowRect: false }, limited), null);
});

// ─────────────────────────── timeouts ───────────────────────────

test('timeouts: defaults and overlay', () => {
  assert.deepEqual(defaultTimeouts, { script: 30000, pageLoad: 300000, implicit: 0 });
  assert.ok(Object.isFrozen(defaultTimeouts));
  assert.deepEqual(resolveTimeouts({}), { script: 30000, pageLoad: 300000, implicit: 0 });
  assert.deepEqual(resolveTimeouts({ timeouts: { implicit: 250 } }), { script: 30000, pageLoad: 300000, implicit: 250 });
  assert.deepEqual(resolveTimeouts({ timeouts: { script: null, pageLoad: 5000 } }), { script: null, pageLoad: 5000, implicit: 0 });
  const resolved = resolveTimeouts({});
  resolved.implicit = 9;
  assert.equal(defaultTimeouts.implicit, 0);
});

// ─────────────────────────── processCapabilities ───────────────────────────

test('process: what real clients send (WebdriverIO + chrome) is accepted as-is', () => {
  const params = JSON.parse(
    '{"capabilities":{"alwaysMatch":{"browserName":"chrome","goog:chromeOptions":{"args":["--headless"]},"webSocketUrl":true,"wdio:enforceWebDriverClassic":true},"firstMatch":[{}]}}',
  );
  const { capabilities, matched } = processCapabilities(params, matchChrome);
  assert.equal(matched, 'chrome-endpoint');
  assert.deepEqual(capabilities, {
    browserName: 'chrome',
    'goog:chromeOptions': { args: ['--headless'] },
    webSocketUrl: true,
    'wdio:enforceWebDriverClassic': true,
  });
  assert.deepEqual(resolveTimeouts(capabilities), defaultTimeouts);
});

test('process: alwaysMatch and firstMatch both default', () => {
  const seen: Record<string, unknown>[] = [];
  const result = processCapabilities({ capabilities: {} }, (merged) => {
    seen.push(merged);
    return { ok: true, value: 1 };
  });
  assert.deepEqual(seen, [{}]);
  assert.deepEqual(result, { capabilities: {}, matched: 1 });
});

test('process: nulls are dropped before merging and matching', () => {
  const { capabilities } = processCapabilities(
    { capabilities: { alwaysMatch: { browserName: null, acceptInsecureCerts: true }, firstMatch: [{ browserName: 'firefox', platformName: null }] } },
    (merged) => ({ ok: true, value: merged }),
  );
  assert.deepEqual(capabilities, { acceptInsecureCerts: true, browserName: 'firefox' });
});

test('process: a null alwaysMatch key does not shadow the same firstMatch key', () => {
  const { capabilities } = processCapabilities(
    { capabilities: { alwaysMatch: { browserName: null }, firstMatch: [{ browserName: 'chrome' }] } },
    matchChrome,
  );
  assert.deepEqual(capabilities, { browserName: 'chrome' });
});

test('process: shadowed keys are rejected, naming the firstMatch index and key', () => {
  invalidArg(
    () => processCapabilities({ capabilities: { alwaysMatch: { browserName: 'chrome' }, firstMatch: [{}, { browserName: 'chrome' }] } }, matchChrome),
    'capabilities.firstMatch[1].browserName shadows capabilities.alwaysMatch.browserName',
  );
});

test('process: params and capabilities must be JSON objects', () => {
  invalidArg(() => processCapabilities(null, matchChrome), 'New Session parameters must be a JSON object');
  invalidArg(() => processCapabilities({}, matchChrome), 'capabilities is required');
  invalidArg(
    () => processCapabilities({ desiredCapabilities: { browserName: 'chrome' } }, matchChrome),
    'capabilities is required',
    'desiredCapabilities',
  );
  invalidArg(() => processCapabilities({ capabilities: [] }, matchChrome), 'capabilities must be a JSON object');
  invalidArg(() => processCapabilities({ capabilities: null }, matchChrome), 'capabilities must be a JSON object');
  invalidArg(() => processCapabilities({ capabilities: { alwaysMatch: null } }, matchChrome), 'capabilities.alwaysMatch must be a JSON object');
});

test('process: firstMatch must be a non-empty array of valid objects', () => {
  invalidArg(() => processCapabilities({ capabilities: { firstMatch: [] } }, matchChrome), 'capabilities.firstMatch must contain at least one entry');
  invalidArg(() => processCapabilities({ capabilities: { firstMatch: {} } }, matchChrome), 'capabilities.firstMatch must be an array');
  invalidArg(() => processCapabilities({ capabilities: { firstMatch: [{}, 5] } }, matchChrome), 'capabilities.firstMatch[1] must be a JSON object');
  invalidArg(
    () => processCapabilities({ capabilities: { firstMatch: [{}, { timeouts: { script: 'x' } }] } }, matchChrome),
    'capabilities.firstMatch[1].timeouts.script must be null or an integer from 0 to 2^53-1',
  );
});

test('process: bad types in alwaysMatch are rejected with the path', () => {
  invalidArg(
    () => processCapabilities({ capabilities: { alwaysMatch: { timeouts: { script: -5 } } } }, matchChrome),
    'capabilities.alwaysMatch.timeouts.script must be null or an integer from 0 to 2^53-1',
  );
  invalidArg(
    () => processCapabilities({ capabilities: { alwaysMatch: { acceptInsecureCerts: 'yes' } } }, matchChrome),
    'capabilities.alwaysMatch.acceptInsecureCerts must be a boolean',
  );
});

test('process: a non-colon unknown key is rejected', () => {
  invalidArg(
    () => processCapabilities({ capabilities: { alwaysMatch: { chromeOptions: { args: [] } } } }, matchChrome),
    'capabilities.alwaysMatch.chromeOptions is not a W3C capability',
  );
  invalidArg(
    () => processCapabilities({ capabilities: { firstMatch: [{ version: '156' }] } }, matchChrome),
    'capabilities.firstMatch[0].version is not a W3C capability',
  );
});

test('process: everything is validated before anything is matched', () => {
  let calls = 0;
  invalidArg(
    () =>
      processCapabilities({ capabilities: { firstMatch: [{ browserName: 'chrome' }, { bogus: 1 }] } }, () => {
        calls++;
        return { ok: true, value: null };
      }),
    'capabilities.firstMatch[1].bogus',
  );
  assert.equal(calls, 0);
});

test('process: the second firstMatch wins when the first does not match', () => {
  const seen: unknown[] = [];
  const result = processCapabilities(
    {
      capabilities: {
        alwaysMatch: { platformName: 'linux' },
        firstMatch: [{ browserName: 'firefox' }, { browserName: 'chrome', 'goog:chromeOptions': { args: [] } }, { browserName: 'chromium' }],
      },
    },
    (merged) => {
      seen.push(merged.browserName);
      return matchChrome(merged);
    },
  );
  assert.deepEqual(seen, ['firefox', 'chrome']);
  assert.equal(result.matched, 'chrome-endpoint');
  assert.deepEqual(result.capabilities, { platformName: 'linux', browserName: 'chrome', 'goog:chromeOptions': { args: [] } });
});

test('process: no match → session not created naming every reason', () => {
  const e = assertWdError(
    () =>
      processCapabilities(
        { capabilities: { alwaysMatch: { browserVersion: '156' }, firstMatch: [{ browserName: 'firefox' }, { platformName: 'windows' }] } },
        matchChrome,
      ),
    'session not created',
  );
  assert.equal(
    e.message,
    'No matching capabilities found: firstMatch[0]: browserName "firefox" is not served (chrome, chromium); ' +
      'firstMatch[1]: platformName "windows" is not served (linux)',
  );
  assert.equal(e.status, 500);
});

test('process: default firstMatch that does not match names firstMatch[0]', () => {
  assertWdError(
    () => processCapabilities({ capabilities: { alwaysMatch: { browserVersion: '120' } } }, matchChrome),
    'session not created',
    'No matching capabilities found: firstMatch[0]: browserVersion "120" does not match the served version 156.0.8078.79',
  );
});

test('process: errors thrown by the matcher propagate unchanged', () => {
  const boom = new Error('boom');
  assert.throws(
    () =>
      processCapabilities({ capabilities: {} }, () => {
        throw boom;
      }),
    (e) => e === boom,
  );
});
