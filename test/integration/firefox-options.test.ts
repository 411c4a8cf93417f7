// moz:firefoxOptions and the moz:* capabilities as suites written for geckodriver pass them
// through selenium-webdriver's firefox.Options: a profile directory, a binary by its launcher's
// path, the environment, the log level; each with the effect a user would notice, or New Session
// answering invalid argument naming what is refused and why (geckodriver's words where it has
// them).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Builder, type WebDriver } from 'selenium-webdriver';
import firefox from 'selenium-webdriver/firefox.js';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { leftoverBrowsers, startPageServer, type PageServer } from '../helpers/pages.ts';
import { makeZip } from '../helpers/zip.ts';

let gw: TestGateway;
let pages: PageServer;
let profile: string;

before(async () => {
  // The gateway's log at debug level: what a session's moz:firefoxOptions.log asks for goes there.
  [gw, pages] = await Promise.all([startGateway(['--log-level', 'debug'], { config: { pool: { minWarm: 0 } } }), startPageServer()]);
  // A profile directory as a suite keeps one: prefs in user.js and prefs.js, a handler that saves
  // PDFs, and the lock file of a Firefox that had it open.
  profile = await mkdtemp(join(tmpdir(), 'wdgate-test-profile-'));
  await writeFile(join(profile, 'user.js'), '// the suite\'s prefs\nuser_pref("intl.accept_languages", "fr-CA");\nuser_pref("general.useragent.override", "ProfileAgent/1.0");\n');
  await writeFile(join(profile, 'prefs.js'), '# Mozilla User Preferences\nuser_pref("layout.css.devPixelsPerPx", "2.0");\n');
  await writeFile(join(profile, 'handlers.json'), JSON.stringify({ defaultHandlersVersion: {}, mimeTypes: { 'application/pdf': { action: 0, extensions: ['pdf'] } } }));
  await writeFile(join(profile, '.parentlock'), '');
  await mkdir(join(profile, 'storage'));
});

after(async () => {
  const pid = gw.process.pid!;
  await gw?.stop();
  await pages?.close();
  await rm(profile, { recursive: true, force: true });
  assert.equal(await leftoverBrowsers(pid), 0);
});

function build(options: firefox.Options, backend: 'native' | 'playwright' = 'native'): Promise<WebDriver> {
  options.addArguments('-headless');
  if (backend === 'playwright') options.set('wdgate:options', { backend: 'playwright' });
  return new Builder().usingServer(gw.url).forBrowser('firefox').setFirefoxOptions(options).build();
}

for (const backend of ['native', 'playwright'] as const) {
  test(`${backend}: a profile directory (setProfile) is unpacked into the browser's profile: its user.js and prefs.js prefs apply; env sets the time zone; /usr/bin/firefox (Debian's launcher, what older clients send) starts firefox-esr`, async () => {
    const options = new firefox.Options().setProfile(profile).setBinary('/usr/bin/firefox') as firefox.Options;
    options.set('moz:firefoxOptions', { ...(options.get('moz:firefoxOptions') as object), env: { TZ: 'Asia/Tokyo' }, ...(backend === 'native' && { log: { level: 'debug' } }) });
    const driver = await build(options, backend);
    try {
      await driver.get(pages.page('<p>x</p>', 'profile'));
      const seen = (await driver.executeScript('return [navigator.userAgent, navigator.languages, devicePixelRatio, Intl.DateTimeFormat().resolvedOptions().timeZone]')) as unknown[];
      assert.deepEqual(seen, ['ProfileAgent/1.0', ['fr-CA'], 2, 'Asia/Tokyo']);
      const caps = await driver.getCapabilities();
      assert.equal(caps.get('moz:firefoxOptions').binary, '/usr/bin/firefox-esr');
      assert.equal(caps.get('moz:headless'), true);
      assert.equal(caps.get('moz:webdriverClick'), true);
      assert.match(String(caps.get('moz:buildID')), /^\d{14}$/);
      // Nothing that names the gateway's machine: the process, the profile's path.
      assert.equal(caps.get('moz:processID'), undefined);
      assert.equal(caps.get('moz:profile'), undefined);
    } finally {
      await driver.quit();
    }
    // The browser's log at the level asked, in the gateway's log (as geckodriver's in its own output).
    if (backend === 'native') assert.match(gw.output(), /"event":"firefox output".*RemoteAgent\\tDEBUG/);
  });
}

test('playwright: moz:firefoxOptions.log is refused, naming why (Playwright passes on no output of a running browser)', async () => {
  const e = await gw.client.fails('POST', '/session', { capabilities: { alwaysMatch: { browserName: 'firefox', 'wdgate:options': { backend: 'playwright' }, 'moz:firefoxOptions': { log: { level: 'trace' } } } } }, 'invalid argument');
  assert.match(e.message, /moz:firefoxOptions\.log is refused on the Playwright backend/);
});

test('what reaches the machine, and keys geckodriver does not know, are invalid argument naming them', async () => {
  const refused = async (caps: Record<string, unknown>, message: RegExp) => {
    const e = await gw.client.fails('POST', '/session', { capabilities: { alwaysMatch: { browserName: 'firefox', ...caps } } }, 'invalid argument', 400);
    assert.match(e.message, message, JSON.stringify(caps).slice(0, 200));
  };
  const moz = (options: Record<string, unknown>) => ({ 'moz:firefoxOptions': options });
  const zipped = (entries: { name: string; data?: string }[]) => moz({ profile: makeZip(entries).toString('base64') });

  await refused(moz({ binary: '/usr/bin/chromium' }), /browser binary "\/usr\/bin\/chromium" is not allowed \(allowed: \/usr\/bin\/firefox-esr\)$/);
  await refused(moz({ foo: 1 }), /Invalid moz:firefoxOptions field foo/);
  await refused(moz({ androidPackage: 'org.mozilla.firefox' }), /androidPackage is refused: there is no Android device/);
  await refused({ 'moz:foo': true }, /Unrecognised option moz:foo/);
  await refused({ 'moz:debuggerAddress': 'yes' }, /moz:debuggerAddress is not a boolean/);
  await refused({ 'moz:webdriverClick': false }, /moz:webdriverClick: false is refused/);
  await refused({ 'moz:webdriverClick': 'yes' }, /moz:webdriverClick is not a boolean/);
  await refused(moz({ env: { LD_PRELOAD: '/tmp/x.so' } }), /env: LD_PRELOAD is not allowed .*"native\.allowedFirefoxEnv"/);
  await refused(moz({ env: { MOZ_LOG: 'nsHttp:5' } }), /env: MOZ_LOG is not allowed/);
  await refused(moz({ env: { TZ: ':/etc/localtime' } }), /env\.TZ/);
  await refused(moz({ log: { level: 'loud' } }), /Not a valid log level: loud/);
  await refused(moz({ log: { file: '/tmp/x' } }), /Invalid log field file/);
  await refused(moz({ prefs: { 'security.sandbox.content.level': 0 } }), /pref security\.sandbox\.content\.level is not allowed/);
  // The profile: code, programs, the machine's files and paths out of it, in every spelling.
  await refused(zipped([{ name: 'extensions/evil@example.com.xpi', data: 'x' }]), /extensions\/evil@example\.com\.xpi is refused: extensions are code/);
  await refused(zipped([{ name: 'chrome/userChrome.css', data: '' }]), /chrome\/userChrome\.css is refused/);
  await refused(zipped([{ name: 'user.js', data: 'user_pref("security.sandbox.content.level", 0);' }]), /user\.js: pref security\.sandbox\.content\.level is not allowed/);
  await refused(zipped([{ name: 'prefs.js', data: 'user_pref("security.sandbox\\x2econtent.level", 0);' }]), /prefs\.js: pref security\.sandbox\.content\.level is not allowed/);
  await refused(zipped([{ name: 'user.js', data: 'user_pref("browser.download.dir", "/root");' }]), /browser\.download\.dir names a file/);
  await refused(zipped([{ name: 'user.js', data: 'user_pref("x", 1) garbage' }]), /user\.js cannot be read as a pref file/);
  await refused(zipped([{ name: 'pkcs11.txt', data: 'library=/usr/lib/x86_64-linux-gnu/libevil.so\nname=evil\n' }]), /pkcs11\.txt is refused/);
  await refused(zipped([{ name: 'handlers.json', data: JSON.stringify({ schemes: { mailto: { action: 4 } } }) }]), /handlers\.json is refused: schemes\.mailto hands URLs to a program/);
  await refused(zipped([{ name: '../outside.txt', data: 'x' }]), /unsafe entry name/);
  await refused(moz({ profile: 'not base64!' }), /profile: cannot base64 decode/);
});
