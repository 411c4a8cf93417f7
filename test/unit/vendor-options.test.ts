// chromedriver's and geckodriver's vendor options as pure steps: every goog:chromeOptions key's
// decision, mobileEmulation read with chromedriver's rules, Firefox's pref files read as Firefox
// reads them, a profile archive checked entry by entry, the environment and log level, the moz:*
// capabilities, and a browser binary named by its launcher.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidCapabilityError } from '../../backends/backend.ts';
import {
  allowedBinary,
  checkChromeOptions,
  checkFirefoxOptions,
  checkFirefoxProfile,
  checkMozCapabilities,
  CHROME_OPTION_KEYS,
  nestPrefs,
  parsePrefsFile,
  PrefsFileError,
} from '../../backends/policy/index.ts';
import { clientHintsOf, deviceNamed, emulationCommands, parseMobileEmulation, userAgentOf } from '../../backends/emulation/index.ts';
import { makeZip } from '../helpers/zip.ts';

const refusedWith = (pattern: RegExp) => (e: unknown) => e instanceof InvalidCapabilityError && pattern.test(e.message);

test("goog:chromeOptions: each of chromedriver's keys is decided; another is chromedriver's 'unrecognized chrome option'", () => {
  // chromedriver 156's desktop and Android keys (capabilities.cc), none left without a decision.
  const chromedrivers = ['args', 'binary', 'detach', 'quitGracefully', 'excludeSwitches', 'extensions', 'extensionLoadTimeout', 'loadAsync', 'localState', 'logPath', 'minidumpPath', 'mobileEmulation', 'prefs', 'useAutomationExtension', 'browserStartupTimeout', 'perfLoggingPrefs', 'devToolsEventsToLog', 'windowTypes', 'enableExtensionTargets', 'w3c', 'debuggerAddress', 'androidActivity', 'androidDeviceSerial', 'androidPackage', 'androidProcess', 'androidExecName', 'androidDeviceSocket', 'androidUseRunningApp', 'androidKeepAppDataDir', 'androidDevToolsPort'];
  assert.deepEqual([...CHROME_OPTION_KEYS].sort(), [...chromedrivers].sort());
  assert.throws(() => checkChromeOptions({ mobileEmulatoin: {} }), refusedWith(/^goog:chromeOptions: unrecognized chrome option: mobileEmulatoin$/));
  // Accepted as chromedriver takes them, with nothing to do.
  checkChromeOptions({ loadAsync: true, useAutomationExtension: false, quitGracefully: true, browserStartupTimeout: 60000, extensionLoadTimeout: 0, w3c: true, windowTypes: ['page'], detach: false, extensions: [] });
  assert.throws(() => checkChromeOptions({ quitGracefully: 'yes' }), refusedWith(/quitGracefully must be a boolean/));
  assert.throws(() => checkChromeOptions({ enableExtensionTargets: true }), refusedWith(/enableExtensionTargets is refused/));
  assert.throws(() => checkChromeOptions({ devToolsEventsToLog: ['Network.requestWillBeSent'] }), refusedWith(/devtools events logging was not enabled/));
  checkChromeOptions({ devToolsEventsToLog: ['Network.requestWillBeSent'] }, { loggingPrefs: { devtools: 'ALL' } });
  checkChromeOptions({ perfLoggingPrefs: { enableNetwork: true, enablePage: false, traceCategories: 'devtools.timeline', bufferUsageReportingInterval: 1000 } }, { loggingPrefs: { performance: 'ALL' } });
  assert.throws(() => checkChromeOptions({ perfLoggingPrefs: { enableTimeline: true } }, { loggingPrefs: { performance: 'ALL' } }), refusedWith(/unrecognized performance logging option: enableTimeline/));
});

test('goog:chromeOptions: prefs in either form, sorted and nested for the profile; switches left out by name', () => {
  const { prefs, localState, excludeSwitches } = checkChromeOptions({
    prefs: { 'profile.default_content_setting_values.notifications': 2, intl: { accept_languages: 'fr' } },
    localState: { browser: { last_redirect_origin: '' } },
    excludeSwitches: ['--enable-automation', 'disable-popup-blocking', 'enable-automation'],
  });
  assert.deepEqual(prefs, [['intl.accept_languages', 'fr'], ['profile.default_content_setting_values.notifications', 2]]);
  // As Default/Preferences holds them (JSON).
  assert.deepEqual(JSON.parse(JSON.stringify(nestPrefs(prefs))), { intl: { accept_languages: 'fr' }, profile: { default_content_setting_values: { notifications: 2 } } });
  assert.deepEqual(localState, [['browser.last_redirect_origin', '']]);
  assert.deepEqual(excludeSwitches, ['disable-popup-blocking', 'enable-automation']);
  // A pref named __proto__ is a pref, not the object's prototype.
  assert.equal(Object.getPrototypeOf(nestPrefs([['__proto__.x', 1]])), null);
  for (const name of ['user-data-dir', 'remote-debugging-pipe', '--headless']) {
    assert.throws(() => checkChromeOptions({ excludeSwitches: [name] }), refusedWith(/cannot be left out/), name);
  }
  assert.throws(() => checkChromeOptions({ excludeSwitches: ['a|b'] }), refusedWith(/is not a switch name/));
});

test('mobileEmulation: chromedriver\'s rules and words; device names from Playwright\'s descriptors, chromedriver\'s mapped', () => {
  const pixel = parseMobileEmulation({ deviceName: 'Pixel 7' });
  assert.deepEqual(pixel.metrics, { width: 412, height: 839, deviceScaleFactor: 2.625, mobile: true, touch: true });
  assert.match(pixel.userAgent!, /Pixel 7/);
  // chromedriver's "iPhone SE" is the 375×667 one (Playwright's of that name is the first, 320 wide).
  assert.equal(deviceNamed('iPhone SE')!.metrics!.width, 375);
  assert.equal(deviceNamed('iPhone 6/7/8')!.metrics!.width, 375);
  assert.equal(deviceNamed('Samsung Galaxy A55')!.metrics!.width, deviceNamed('Galaxy A55')!.metrics!.width);
  assert.equal(deviceNamed('Toaster'), undefined);
  // Missing metrics are chromedriver's defaults: mobile and touch, the screen's ratio.
  assert.deepEqual(parseMobileEmulation({ deviceMetrics: { width: 360, height: 640 } }).metrics, { width: 360, height: 640, deviceScaleFactor: 0, mobile: true, touch: true });
  assert.throws(() => parseMobileEmulation({ deviceName: 'Pixel 7', deviceMetrics: {} }), refusedWith(/'deviceName' must be used alone/));
  assert.throws(() => parseMobileEmulation({ deviceMetrics: { width: 1.5 } }), refusedWith(/'width' must be an integer/));
  assert.throws(() => parseMobileEmulation({ deviceMetrics: { touch: 1 } }), refusedWith(/'touch' must be a boolean/));
  assert.throws(() => parseMobileEmulation({ clientHints: { mobile: true } }), refusedWith(/'clientHints.platform' must be provided/));
  assert.throws(() => parseMobileEmulation({ clientHints: { platform: 'iOS' } }), refusedWith(/'userAgent' is required for platforms other than: Android, Chrome OS/));
  assert.throws(() => parseMobileEmulation({ clientHints: { platform: 'Android', brands: [{ brand: 'x' }] } }), refusedWith(/must have a 'version' field/));
  assert.throws(() => parseMobileEmulation({ userAgent: 'x\r\nX-Evil: 1' }), refusedWith(/control character/));

  // Client hints without a user agent: Chromium's reduced agent for the platform and version.
  const hinted = parseMobileEmulation({ clientHints: { platform: 'Android', mobile: true, model: 'Pixel 9' } });
  assert.equal(userAgentOf(hinted, '156.0.8078.108'), 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36');
  // A user agent without hints: chromedriver's "legacy mode" guesses the platform, mobile only for a mobile Android one.
  assert.deepEqual(clientHintsOf({ userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) Mobile/15E148' }), { platform: 'iOS', platformVersion: '', architecture: '', bitness: '', model: '', mobile: false, wow64: false });
  assert.equal(clientHintsOf({ userAgent: 'Mozilla/5.0 (Linux; Android 14; Pixel 7) Mobile Safari/537.36' })!.mobile, true);
  assert.deepEqual(
    emulationCommands(pixel, '156.0.0.0').map((c) => c.method),
    ['Emulation.setUserAgentOverride', 'Emulation.setDeviceMetricsOverride', 'Emulation.setTouchEmulationEnabled'],
  );
});

test("Firefox pref files are read as Firefox reads them: comments, both quotes, escapes, attributes; what it cannot read is refused", () => {
  const text = [
    '# Mozilla User Preferences',
    '/* a block',
    '   comment */ user_pref("a.b", "x\\"y");',
    "pref('c', -42, locked); // trailing",
    'sticky_pref("d", true);',
    'user_pref("sec\\x75rity.sandbox.level", 0);',
    'user_pref("e\\u0066", false);',
  ].join('\n');
  assert.deepEqual(parsePrefsFile(text), [
    ['a.b', 'x"y'],
    ['c', -42],
    ['d', true],
    ['security.sandbox.level', 0],
    ['ef', false],
  ]);
  for (const bad of ['user_pref("a", 1)', 'user_pref("a" 1);', 'user_pref("a", 1.5);', 'user_pref("a", 99999999999);', 'user_pref("a", "x);', 'user_pref("a\\q", 1);', 'exec("a", 1);', '/* open', 'user_pref("a", 1, global);']) {
    assert.throws(() => parsePrefsFile(bad), PrefsFileError, bad);
  }
});

test('a Firefox profile archive: data kept, lock files left out, user.js prefs apart, code and programs and paths out of it refused', () => {
  const zip = (entries: Parameters<typeof makeZip>[0]) => makeZip(entries).toString('base64');
  const profile = checkFirefoxProfile(
    zip([
      { name: 'user.js', data: 'user_pref("intl.accept_languages", "fr");' },
      { name: 'prefs.js', data: 'user_pref("browser.startup.page", 0);' },
      { name: 'cookies.sqlite', data: 'SQLite format 3\0' },
      { name: 'storage/' },
      { name: 'parent.lock', data: '' },
      { name: 'pkcs11.txt', data: 'library=\nname=NSS Internal PKCS #11 Module\n' },
      { name: 'handlers.json', data: JSON.stringify({ mimeTypes: { 'application/pdf': { action: 3 } }, schemes: { mailto: { action: 1, handlers: [null, { name: 'Mail', uriTemplate: 'https://mail.example/?to=%s' }] } } }) },
    ]),
    [],
  );
  assert.deepEqual(profile.userPrefs, { 'intl.accept_languages': 'fr' });
  assert.deepEqual(profile.entries.map((e) => e.name), ['prefs.js', 'cookies.sqlite', 'storage/', 'handlers.json']);
  assert.match(profile.digest, /^[0-9a-f]{64}$/);
  const refused = (entries: Parameters<typeof makeZip>[0], pattern: RegExp) => assert.throws(() => checkFirefoxProfile(zip(entries), []), refusedWith(pattern), JSON.stringify(entries.map((e) => e.name)));
  refused([{ name: 'Extensions/x.xpi', data: 'x' }], /extensions are code/);
  refused([{ name: 'extensions.json', data: '{}' }], /extensions are code/);
  refused([{ name: 'gmp-gmpopenh264/2.3/libgmpopenh264.so', data: 'x' }], /media plugins are code/);
  refused([{ name: 'storage/lib.so', data: 'x' }], /program code/);
  refused([{ name: 'sessionstore.jsonlz4', data: 'x' }], /restores tabs/);
  refused([{ name: 'handlers.json', data: JSON.stringify({ mimeTypes: { 'application/pdf': { action: 0, handlers: [{ name: 'evince', path: '/usr/bin/evince' }] } } }) }], /names an application of the machine/);
  refused([{ name: 'handlers.json', data: JSON.stringify({ mimeTypes: { 'application/x-sh': { action: 2 } } }) }], /hands files to a program/);
  refused([{ name: 'user.js', data: 'user_pref("capability.policy.default.x", "allAccess");' }], /capability\.policy\.default\.x is not allowed/);
  refused([{ name: '/etc/passwd', data: 'x' }], /unsafe entry name/);
  refused([{ name: 'a\\..\\b', data: 'x' }], /unsafe entry name/);
  // Sizes are bounded before anything is inflated.
  refused([{ name: 'big.sqlite', data: 'x', size: 40 * 1024 * 1024 }], /larger than/);
  // An admitted pref family is admitted in a profile too.
  assert.deepEqual(checkFirefoxProfile(zip([{ name: 'user.js', data: 'user_pref("network.proxy.type", 0);' }]), ['network.proxy.']).userPrefs, { 'network.proxy.type': 0 });
});

test('moz:firefoxOptions env and log, and the moz:* capabilities, as geckodriver takes them', () => {
  assert.deepEqual(checkFirefoxOptions({ env: { TZ: 'America/Argentina/Buenos_Aires', LANG: 'de_DE.UTF-8', LC_TIME: 'C', MOZ_HEADLESS_WIDTH: '1024' } }).env, [
    ['LANG', 'de_DE.UTF-8'],
    ['LC_TIME', 'C'],
    ['MOZ_HEADLESS_WIDTH', '1024'],
    ['TZ', 'America/Argentina/Buenos_Aires'],
  ]);
  for (const [name, value] of [['TZ', '/etc/localtime'], ['TZ', '../../etc/x'], ['LANG', 'de;rm -rf'], ['MOZ_HEADLESS_WIDTH', 'wide']]) {
    assert.throws(() => checkFirefoxOptions({ env: { [name!]: value } }), refusedWith(new RegExp(`env\\.${name}`)), `${name}=${value}`);
  }
  for (const name of ['LD_PRELOAD', 'GTK_MODULES', 'MOZ_LOG', 'MOZ_LOG_FILE', 'MOZ_DISABLE_CONTENT_SANDBOX', 'DISPLAY', 'HOME']) {
    assert.throws(() => checkFirefoxOptions({ env: { [name]: 'x' } }), refusedWith(new RegExp(`${name} is not allowed`)), name);
  }
  assert.deepEqual(checkFirefoxOptions({ env: { MOZ_LOG: 'nsHttp:5' } }, ['MOZ_LOG']).env, [['MOZ_LOG', 'nsHttp:5']]);
  assert.equal(checkFirefoxOptions({ log: { level: 'trace' } }).logLevel, 'Trace');
  assert.equal(checkFirefoxOptions({ log: {} }).logLevel, undefined);
  assert.throws(() => checkFirefoxOptions({ androidIntentArguments: [] }), refusedWith(/androidIntentArguments is refused/));
  assert.throws(() => checkFirefoxOptions({ profile: 42 }), refusedWith(/profile is not a string/));
  // Python's Selenium sends moz:debuggerAddress: true in every Firefox session.
  checkMozCapabilities({ 'moz:firefoxOptions': {}, 'moz:webdriverClick': true, 'moz:debuggerAddress': true, 'goog:chromeOptions': {} });
  for (const name of ['moz:accessibilityChecks', 'moz:headless', 'moz:useNonSpecCompliantPointerOrigin', 'moz:processID']) {
    assert.throws(() => checkMozCapabilities({ [name]: false }), refusedWith(new RegExp(`^Unrecognised option ${name}$`)), name);
  }
});

test('a browser binary by its launcher: a link to an allowed one or a system script that execs it stands for it; nothing else does', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wdgate-test-binaries-'));
  try {
    const allowed = { binary: '/usr/bin/firefox-esr', allowedBinaries: ['/usr/bin/firefox-esr'] };
    await symlink('/usr/bin/firefox-esr', join(dir, 'link'));
    assert.equal(allowedBinary(join(dir, 'link'), allowed), '/usr/bin/firefox-esr');
    await writeFile(join(dir, 'launcher'), '#!/bin/sh\nexec firefox-esr "$@"\n', { mode: 0o755 });
    if (process.getuid?.() === 0) assert.equal(allowedBinary(join(dir, 'launcher'), allowed), '/usr/bin/firefox-esr');
    // One others may write is not the system's: not taken for the binary it names.
    await writeFile(join(dir, 'writable'), '#!/bin/sh\nexec firefox-esr "$@"\n');
    await chmod(join(dir, 'writable'), 0o777);
    assert.throws(() => allowedBinary(join(dir, 'writable'), allowed), refusedWith(/is not allowed \(allowed: \/usr\/bin\/firefox-esr\)$/));
    await writeFile(join(dir, 'other'), '#!/bin/sh\nexec /bin/sh "$@"\n', { mode: 0o755 });
    assert.throws(() => allowedBinary(join(dir, 'other'), allowed), InvalidCapabilityError);
    if (existsSync('/usr/bin/firefox')) assert.equal(allowedBinary('/usr/bin/firefox', allowed), '/usr/bin/firefox-esr');
    assert.throws(() => allowedBinary('firefox', allowed), InvalidCapabilityError);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
