// What a session may ask of the machine (backends/policy/): every spelling each browser's parser
// takes brought to one form before a switch is judged, allow-lists for switches and arguments,
// the pref rules, the URL schemes, and the raw CDP and BiDi commands that reach files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidCapabilityError } from '../../backends/backend.ts';
import {
  bidiRefusal,
  cdpRefusal,
  checkChromeOptions,
  checkChromiumSwitches,
  checkFirefoxArgs,
  checkFirefoxPrefs,
  checkMiniBrowserArgs,
  checkReadableFiles,
  FileRefusal,
  fetchRefusal,
  firefoxArgvOf,
  firefoxArgText,
  navigationRefusal,
  type SessionFiles,
} from '../../backends/policy/index.ts';

const chromium = (args: string[], admitted: string[] = []) => checkChromiumSwitches(args, 'goog:chromeOptions.args', admitted);
const refusedWith = (pattern: RegExp) => (e: unknown) => e instanceof InvalidCapabilityError && pattern.test(e.message);

test('Chromium: every spelling of a switch that runs a program is refused, naming it and the config key', () => {
  // Chromium's parser (base/command_line.cc) takes "--" and "-"; chromedriver adds "--" to a bare one.
  for (const name of ['renderer-cmd-prefix', 'utility-cmd-prefix', 'browser-subprocess-path', 'gpu-launcher', 'plugin-launcher']) {
    for (const spelling of [`--${name}=/tmp/x`, `-${name}=/tmp/x`, `${name}=/tmp/x`, `--${name}`]) {
      assert.throws(() => chromium([spelling]), refusedWith(new RegExp(`--${name}.* is not allowed .*native\\.allowedArgs`)), spelling);
    }
  }
});

test('Chromium: switches that are not in the table are refused, whatever they look like', () => {
  for (const arg of ['--proxy-server=x:1', '-proxy-server=x:1', 'proxy-server=x:1', '--load-extension=/x', '--disable-web-security', '--log-file=/etc/x', '--enable-logging=/tmp/x', '--no-zygote', '--single-process', '--remote-allow-origins=*', '--app=file:///etc/passwd', '--homepage=file:///']) {
    assert.throws(() => chromium([arg]), InvalidCapabilityError, arg);
  }
  // Not a switch at all: a positional argument is a URL Chromium opens at start; "--" ends the switches.
  for (const arg of ['--', '-', '']) assert.throws(() => chromium([arg]), refusedWith(/not a browser switch/), JSON.stringify(arg));
  // A name is case-sensitive on Linux: --Renderer-Cmd-Prefix is not in the table either.
  assert.throws(() => chromium(['--Renderer-Cmd-Prefix=/x']), InvalidCapabilityError);
  assert.throws(() => chromium(['--lang=en\n--renderer-cmd-prefix=/x']), refusedWith(/control character/));
});

test('Chromium: the gateway\'s own switches are reserved in every spelling', () => {
  for (const arg of ['--user-data-dir=/root', '-user-data-dir=/root', 'user-data-dir=/root', '--remote-debugging-port=9222', '-remote-debugging-pipe']) {
    assert.throws(() => chromium([arg], ['--user-data-dir']), refusedWith(/is reserved/), arg);
  }
});

test('Chromium: allowed switches pass in one spelling, their values checked', () => {
  assert.deepEqual(chromium(['headless', '-disable-gpu', '--window-size=800,600', 'user-agent=Mozilla/5.0 (X11) test', '--lang=de-DE', '-force-device-scale-factor=2']), [
    '--headless',
    '--disable-gpu',
    '--window-size=800,600',
    '--user-agent=Mozilla/5.0 (X11) test',
    '--lang=de-DE',
    '--force-device-scale-factor=2',
  ]);
  assert.deepEqual(chromium(['--headless=new', '--enable-features=Foo,Bar:param/1', '--js-flags=--expose-gc']), ['--headless=new', '--enable-features=Foo,Bar:param/1', '--js-flags=--expose-gc']);
  for (const arg of ['--window-size=big', '--lang=en;rm', '--force-device-scale-factor=x', '--disable-gpu=/etc', '--js-flags=--logfile=/tmp/x', '--js-flags=--prof', '--unsafely-treat-insecure-origin-as-secure=file:///']) {
    assert.throws(() => chromium([arg]), refusedWith(/has a value wdgate does not pass/), arg);
  }
  // What the gateway decides (its sandbox) is accepted and given no effect.
  assert.deepEqual(chromium(['--no-sandbox', '-disable-setuid-sandbox', '--mute-audio']), ['--mute-audio']);
});

test('Chromium: an operator admits a switch by name, any spelling, any value', () => {
  assert.deepEqual(chromium(['-proxy-server=http://p:3128'], ['--proxy-server']), ['--proxy-server=http://p:3128']);
  assert.throws(() => chromium(['--host-rules=MAP * 1.2.3.4'], ['--proxy-server']), InvalidCapabilityError);
});

test('Firefox: arguments by Firefox\'s parsing (-x, --x, case, =value or the next argument)', () => {
  const firefox = (args: string[], admitted: string[] = []) => checkFirefoxArgs(args, 'moz:firefoxOptions.args', admitted).map(firefoxArgText);
  assert.deepEqual(firefox(['-headless', '--HEADLESS', '-width', '800', '--height=600']), ['--headless', '--headless', '--width=800', '--height=600']);
  assert.deepEqual(firefoxArgvOf(['--width=800', '--headless']), ['-width', '800', '-headless']);
  for (const arg of ['-profile', '--Profile=/x', '-P', '--marionette', '-remote-debugging-port=9', '--remote-allow-hosts=x', '-no-remote', '-new-instance']) {
    assert.throws(() => firefox([arg, 'x']), refusedWith(/is reserved/), arg);
  }
  for (const arg of ['-chrome', '--jsdebugger', '-start-debugger-server', '-screenshot', '-url', '-new-tab', '--greomni', '-MOZ_LOG_FILE', '-safe-mode']) {
    assert.throws(() => firefox([arg]), refusedWith(/is not allowed .*allowedFirefoxArgs/), arg);
  }
  assert.throws(() => firefox(['file:///etc/passwd']), refusedWith(/would open it as a URL/));
  assert.throws(() => firefox(['-width', 'wide']), refusedWith(/needs a value/));
  assert.throws(() => firefox(['--headless=1']), refusedWith(/takes no value/));
  assert.deepEqual(firefox(['-safe-mode'], ['-safe-mode']), ['--safe-mode']);
});

test('Firefox prefs: the families that reach the machine are refused, and no pref names a file', () => {
  const prefs = (p: Record<string, unknown>, admitted: string[] = []) => checkFirefoxPrefs(p, 'moz:firefoxOptions.prefs', admitted);
  assert.deepEqual(prefs({ 'intl.accept_languages': 'de', 'dom.webnotifications.enabled': false, 'browser.download.folderList': 2, 'fission.autostart': true }), {
    'intl.accept_languages': 'de',
    'dom.webnotifications.enabled': false,
    'browser.download.folderList': 2,
    'fission.autostart': true,
  });
  for (const name of ['security.sandbox.content.level', 'Security.Sandbox.content.level', 'devtools.debugger.remote-enabled', 'remote.force-local', 'marionette.port', 'extensions.autoDisableScopes', 'xpinstall.signatures.required', 'app.update.url', 'network.protocol-handler.app.ssh', 'general.config.filename', 'capability.policy.default.Window.foo', 'security.fileuri.strict_origin_policy', 'browser.tabs.remote.autostart', 'network.proxy.type']) {
    assert.throws(() => prefs({ [name]: 0 }), refusedWith(/is not allowed: .*allowedFirefoxPrefs/), name);
  }
  for (const value of ['/etc/passwd', 'file:///etc/passwd', '  FILE:///x', '~/x', 'resource://gre/', '../../x']) {
    assert.throws(() => prefs({ 'browser.download.dir': value }), refusedWith(/names a file or a local path/), value);
  }
  assert.deepEqual(prefs({ 'network.proxy.type': 1 }, ['network.proxy.']), { 'network.proxy.type': 1 });
  // What selenium-webdriver's Firefox options always send for its own driver: the gateway's to decide.
  assert.deepEqual(prefs({ 'remote.active-protocols': 1, 'intl.accept_languages': 'fr' }), { 'intl.accept_languages': 'fr' });
  assert.throws(() => prefs({ x: {} }), refusedWith(/must be a string, a number or a boolean/));
});

test('goog:chromeOptions keys that reach the machine are refused; prefs in either form are checked', () => {
  for (const key of ['debuggerAddress', 'minidumpPath', 'extensions', 'detach', 'androidPackage']) {
    assert.throws(() => checkChromeOptions({ [key]: key === 'extensions' ? ['Q3I0'] : key === 'detach' ? true : 'x' }), refusedWith(new RegExp(`goog:chromeOptions\\.${key} is refused`)), key);
  }
  checkChromeOptions({ extensions: [], detach: false, mobileEmulation: { deviceName: 'Pixel 7' }, excludeSwitches: ['enable-automation'], prefs: { intl: { accept_languages: 'fr' }, 'profile.default_content_setting_values.notifications': 2 } });
  assert.throws(() => checkChromeOptions({ prefs: { download: { default_directory: '/root' } } }), refusedWith(/download\.default_directory names a file/));
  assert.throws(() => checkChromeOptions({ prefs: { 'download.extensions_to_open': 'sh' } }), refusedWith(/programs of the machine/));
  assert.throws(() => checkChromeOptions({ prefs: { plugins: { always_open_pdf_externally: true } } }), refusedWith(/programs of the machine/));
  assert.throws(() => checkChromeOptions({ localState: { browser: { enabled_labs_experiments: ['x'] } } }), refusedWith(/browser flags/));
});

test('MiniBrowser: GLib spellings, file options and file-access settings refused', () => {
  assert.deepEqual(checkMiniBrowserArgs(['--automation', '-p', '--time-zone', 'Europe/Berlin', '--enable-javascript=false', '--user-agent=x'], 'a'), [
    '--automation',
    '--private',
    '--time-zone=Europe/Berlin',
    '--enable-javascript=false',
    '--user-agent=x',
  ]);
  for (const arg of ['--cookies-file=/root/x', '-c', '--session-file=/x', '--content-filter=/x', '--config=/x', '--allow-file-access-from-file-urls=true', '--allow-universal-access-from-file-urls=true', '--disable-web-security=true', 'file:///etc/passwd', '--proxy=x']) {
    assert.throws(() => checkMiniBrowserArgs([arg, 'x'], 'a'), InvalidCapabilityError, arg);
  }
});

test('URLs: the web for everyone; file:, the browser\'s own pages and programs only with files', () => {
  const noFiles = { files: false };
  for (const url of ['https://example.com/', 'http://127.0.0.1:8/x', 'data:text/html,hi', 'about:blank', 'about:blank#x', 'about:srcdoc', 'javascript:void 0', 'blob:https://example.com/uuid', 'view-source:https://example.com/', 'not a url']) {
    assert.equal(navigationRefusal(url, noFiles), null, url);
  }
  for (const url of ['file:///etc/passwd', 'FILE:///etc/passwd', 'file://localhost/etc', 'view-source:file:///etc/passwd', 'chrome://settings', 'chrome://downloads', 'about:config', 'about:profiles', 'blob:file:///x', 'filesystem:file:///x', 'devtools://devtools/bundled/inspector.html', 'mailto:a@b.c', 'ssh://host']) {
    assert.match(navigationRefusal(url, noFiles) ?? '', /may not navigate to|view-source/, url);
    assert.equal(navigationRefusal(url, { files: true }), null, url);
  }
  assert.match(navigationRefusal('file:///x', noFiles)!, /"files" on the principal's token line/);
  assert.equal(fetchRefusal('https://proxy/pac.js', noFiles), null);
  assert.match(fetchRefusal('file:///etc/pac.js', noFiles)!, /only http, https and data/);
});

async function withFiles(fn: (dir: string, own: string, files: (grant: boolean, directories?: string[] | null) => SessionFiles) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'wdgate-policy-'));
  const own = join(dir, 'session');
  await mkdir(join(own, 'upload-1'), { recursive: true });
  await writeFile(join(own, 'upload-1', 'mine.txt'), 'mine');
  await writeFile(join(dir, 'secret.txt'), 'not yours');
  await symlink(join(dir, 'secret.txt'), join(own, 'upload-1', 'link.txt'));
  try {
    await fn(dir, own, (grant, directories = null) => ({ files: grant, directories, ownDirectory: async () => own, makeOwnDirectory: async () => own }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('files: a session hands a page its own uploads; the machine\'s other files only with files', () =>
  withFiles(async (dir, own, files) => {
    assert.deepEqual(await checkReadableFiles([join(own, 'upload-1', 'mine.txt')], files(false)), [join(own, 'upload-1', 'mine.txt')]);
    await assert.rejects(checkReadableFiles([join(dir, 'secret.txt')], files(false)), (e) => e instanceof FileRefusal && /is not this session's/.test(e.message));
    // A link out of the session's folder is judged by where it leads.
    await assert.rejects(checkReadableFiles([join(own, 'upload-1', 'link.txt')], files(false)), FileRefusal);
    await assert.rejects(checkReadableFiles([join(own, 'upload-1', '..', '..', 'secret.txt')], files(false)), FileRefusal);
    await assert.rejects(checkReadableFiles(['/nonexistent/x'], files(true)), /file not found/);
    assert.equal((await checkReadableFiles([join(dir, 'secret.txt')], files(true))).length, 1);
    await assert.rejects(checkReadableFiles([join(dir, 'secret.txt')], files(true, [own])), /outside the directories file inputs may read/);
    // Without files: a missing file outside is refused as an existing one is (no existence oracle);
    // missing in the session's own folder, it is not found.
    await assert.rejects(checkReadableFiles([join(dir, 'missing.txt')], files(false)), /is not this session's/);
    await assert.rejects(checkReadableFiles([join(own, 'missing.txt')], files(false)), /file not found/);
    // An allowed directory (real paths, as the gateway keeps them) named through a link to it: judged by where it leads.
    const shared = join(dir, 'shared');
    await mkdir(shared);
    await writeFile(join(shared, 'doc.txt'), 'shared');
    await symlink(shared, join(dir, 'shared-link'));
    assert.equal((await checkReadableFiles([join(dir, 'shared-link', 'doc.txt')], files(false, [shared]))).length, 1);
  }));

test('CDP: navigations, loads, downloads, file inputs and machine-reaching domains are checked', () =>
  withFiles(async (dir, own, files) => {
    const no = files(false);
    assert.equal(cdpRefusal('Runtime.evaluate', { expression: '1' }, no), null);
    assert.equal(cdpRefusal('Page.navigate', { url: 'https://example.com' }, no), null);
    for (const [method, params] of [
      ['Page.navigate', { url: 'file:///etc/passwd' }],
      ['Target.createTarget', { url: 'chrome://settings' }],
      ['Network.loadNetworkResource', { url: 'file:///etc/passwd', frameId: 'x', options: {} }],
      ['Fetch.continueRequest', { requestId: 'x', url: 'file:///etc/passwd' }],
      ['PWA.install', { manifestId: 'x' }],
      ['Extensions.loadUnpacked', { path: '/tmp' }],
      ['Tethering.bind', { port: 22 }],
      ['Browser.executeBrowserCommand', { commandId: 'openTabSearch' }],
      ['Target.exposeDevToolsProtocol', { targetId: 'x' }],
    ] as const) {
      assert.match(String(await cdpRefusal(method, params, no)), /not allowed|may not navigate/, method);
    }
    assert.match(String(await cdpRefusal('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: dir }, no)), /session's own folder/);
    assert.equal(await cdpRefusal('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: join(own, 'downloads') }, no), null);
    assert.match(String(await cdpRefusal('DOM.setFileInputFiles', { files: [join(dir, 'secret.txt')], nodeId: 1 }, no)), /is not this session's/);
    assert.match(String(await cdpRefusal('Input.dispatchDragEvent', { type: 'drop', x: 0, y: 0, data: { items: [], files: [join(dir, 'secret.txt')], dragOperationsMask: 1 } }, no)), /is not this session's/);
    assert.equal(await cdpRefusal('DOM.setFileInputFiles', { files: [join(own, 'upload-1', 'mine.txt')], nodeId: 1 }, no), null);
  }));

test('BiDi: navigate, files, downloads, a user context\'s PAC, extensions by path and raw CDP are checked', () =>
  withFiles(async (dir, own, files) => {
    const no = files(false);
    assert.equal(bidiRefusal('script.evaluate', { expression: 'location = "file:///etc/passwd"' }, no), null);
    assert.match(String(bidiRefusal('browsingContext.navigate', { context: 'x', url: 'file:///etc/passwd' }, no)), /may not navigate to file/);
    assert.match(String(bidiRefusal('network.continueRequest', { request: 'x', url: 'file:///etc/passwd' }, no)), /may not navigate to file/);
    assert.match(String(await bidiRefusal('input.setFiles', { context: 'x', element: {}, files: [join(dir, 'secret.txt')] }, no)), /is not this session's/);
    assert.match(String(await bidiRefusal('browser.setDownloadBehavior', { downloadBehavior: { type: 'allowed', destinationFolder: '/root' } }, no)), /session's own folder/);
    assert.match(String(bidiRefusal('browser.createUserContext', { proxy: { proxyType: 'pac', proxyAutoconfigUrl: 'file:///x.pac' } }, no)), /only http, https and data/);
    assert.match(String(await bidiRefusal('webExtension.install', { extensionData: { type: 'path', path: dir } }, no)), /an extension from a path/);
    assert.equal(await bidiRefusal('webExtension.install', { extensionData: { type: 'base64', value: 'UEsFBg==' } }, no), null);
    assert.match(String(await bidiRefusal('goog:cdp.sendCommand', { method: 'Page.navigate', params: { url: 'file:///etc/passwd' } }, no)), /Page\.navigate: .*may not navigate/);
    assert.equal(bidiRefusal('browsingContext.navigate', { context: 'x', url: 'file:///etc/passwd' }, files(true)), null);
  }));

test("the README's table names every switch and argument a session may pass, and every pref family refused", async () => {
  const { readFile } = await import('node:fs/promises');
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const table = readme.slice(readme.indexOf('### What a session may pass'), readme.indexOf('**Limits**'));
  const { ALLOWED_CHROMIUM_SWITCHES, IGNORED_CHROMIUM_SWITCHES, ALLOWED_FIREFOX_ARGS, DENIED_FIREFOX_PREF_FAMILIES, IGNORED_FIREFOX_PREFS } = await import('../../backends/policy/index.ts');
  for (const name of [...ALLOWED_CHROMIUM_SWITCHES, ...IGNORED_CHROMIUM_SWITCHES]) assert.match(table, new RegExp('`' + name.replace(/[-]/g, '\\-') + '(=[^`]*)?`'), `--${name}`);
  for (const name of ALLOWED_FIREFOX_ARGS) assert.match(table, new RegExp('`-' + name + '( N)?`'), `-${name}`);
  for (const family of [...DENIED_FIREFOX_PREF_FAMILIES, ...IGNORED_FIREFOX_PREFS]) assert.ok(table.toLowerCase().includes('`' + family), family);
});
