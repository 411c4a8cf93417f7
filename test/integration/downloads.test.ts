// Selenium Grid's managed downloads through the gateway: with se:downloadsEnabled a session's
// downloads are saved into a folder of its own, listed, answered as ZIP archives and deleted
// through /session/{id}/se/files, and never seen by another session in the same browser.
import { after, before, describe } from 'node:test';
import { test } from '../helpers/gaps.ts';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { Builder } from 'selenium-webdriver';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import type { Session } from '../helpers/client.ts';
import { eventually, leftoverBrowsers, startPageServer, type PageServer } from '../helpers/pages.ts';
import { readZip } from '../../src/webdriver/zip.ts';

let gw: TestGateway;
let pages: PageServer;
/** The gateway's tempDir: session folders (and their downloads) live here. */
let tempDir: string;

before(async () => {
  tempDir = mkdtempSync(join(tmpdir(), 'wdgate-downloads-test-'));
  [gw, pages] = await Promise.all([startGateway([], { config: { tempDir } }), startPageServer()]);
});

after(async () => {
  const pid = gw.process.pid!;
  await gw?.stop();
  await pages?.close();
  rmSync(tempDir, { recursive: true, force: true });
  assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
});

const downloading = () => gw.client.newSession({ 'se:downloadsEnabled': true });

/** Click a link that downloads `name` holding `body` (`hold`: the download stays in progress). */
async function download(s: Session, name: string, body: string, hold = false): Promise<void> {
  const href = `/download?name=${encodeURIComponent(name)}&body=${encodeURIComponent(body)}${hold ? '&hold=1' : ''}`;
  await s.navigate(pages.page(`<a href="${pages.url}${href}">get ${name}</a>`));
  await s.post(`/element/${await s.find('a')}/click`);
}

const names = async (s: Session): Promise<string[]> => (await s.get('/se/files')).names;

async function contentsOf(s: Session, name: string): Promise<string> {
  const { filename, contents } = await s.post('/se/files', { name });
  assert.equal(filename, name);
  const entries = readZip(Buffer.from(contents, 'base64'), { maxEntries: 2, maxEntryBytes: 1 << 20, maxTotalBytes: 1 << 20 });
  assert.deepEqual(
    entries.map((e) => e.name),
    [name],
  );
  return entries[0]!.data.toString('utf8');
}

describe('managed downloads (se:downloadsEnabled)', () => {
  test('the capability is echoed; a download is listed and answered as a ZIP archive of it', async () => {
    const s = await downloading();
    try {
      assert.equal(s.capabilities['se:downloadsEnabled'], true);
      assert.deepEqual(await names(s), []);
      await download(s, 'report.txt', 'first report');
      await eventually(async () => (await names(s)).includes('report.txt'), 'the download was not listed');
      assert.equal(await contentsOf(s, 'report.txt'), 'first report');
      // The page stayed where it was: a download is not a navigation.
      assert.match(await s.get('/url'), /\/html\//);
    } finally {
      await s.end();
    }
  });

  test('a click that starts a download waits for no page: it answers under a short page load timeout', async () => {
    const s = await downloading();
    try {
      await s.navigate(pages.page(`<a href="${pages.url}/download?name=quick.txt&body=quick">get</a>`));
      await s.post('/timeouts', { pageLoad: 1000 });
      await s.post(`/element/${await s.find('a')}/click`);
      await eventually(async () => (await names(s)).includes('quick.txt'), 'the download was not listed');
      assert.match(await s.get('/url'), /\/html\//);
    } finally {
      await s.end();
    }
  });

  test('two sessions in one browser each see only their own downloads', async () => {
    const [a, b] = await Promise.all([downloading(), downloading()]);
    try {
      // The key both sessions lease from (on another backend than native, not the first key listed).
      const key = ((await gw.client.ok('GET', '/status')).pool as { browsers: number; inUse: number }[]).find((k) => k.inUse === 2);
      assert.equal(key?.browsers, 1, 'the two sessions are not in one browser');
      await download(a, 'a.txt', 'for a');
      await download(b, 'b.txt', 'for b');
      await eventually(async () => (await names(a)).length === 1 && (await names(b)).length === 1, 'the downloads were not listed');
      assert.deepEqual(await names(a), ['a.txt']);
      assert.deepEqual(await names(b), ['b.txt']);
      await a.fails('POST', '/se/files', { name: 'b.txt' }, 'invalid argument', 400);
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  test('the same name twice keeps both; a download in progress is listed only once finished', async () => {
    const s = await downloading();
    try {
      await download(s, 'same.txt', 'one');
      await eventually(async () => (await names(s)).length === 1, 'the first download was not listed');
      await download(s, 'same.txt', 'two');
      await eventually(async () => (await names(s)).length === 2, 'the second download was not listed');
      // Named as the browser names a second download: Chromium "same (1).txt", Firefox "same(1).txt".
      const [second, first] = await names(s);
      assert.equal(first, 'same.txt');
      assert.match(second!, /^same ?\(1\)\.txt$/);
      assert.deepEqual([await contentsOf(s, first!), await contentsOf(s, second!)], ['one', 'two']);

      await s.delete('/se/files');
      assert.deepEqual(await names(s), []);
      await download(s, 'slow.txt', 'half', true);
      // Being written (on disk, where the backend writes as it goes), but not listed nor answered.
      await eventually(() => pages.held() === 1, 'the held download never started');
      const partial = join(sessionFolder(), 'downloads', '.partial');
      if (!process.env.WDGATE_TEST_BACKEND) await eventually(() => readdirSync(partial).length > 0, 'Chromium wrote nothing of the held download');
      assert.deepEqual(await names(s), []);
      await s.fails('POST', '/se/files', { name: 'slow.txt' }, 'invalid argument', 400);
      pages.finishHeld();
      await eventually(async () => (await names(s)).includes('slow.txt'), 'the finished download was not listed');
      assert.equal(await contentsOf(s, 'slow.txt'), 'half!');
    } finally {
      await s.end();
    }
  });

  test('names are only those listed: paths, unknown names and non-strings are invalid argument', async () => {
    const s = await downloading();
    try {
      await download(s, 'ok.txt', 'fine');
      await eventually(async () => (await names(s)).includes('ok.txt'), 'the download was not listed');
      writeFileSync(join(tempDir, 'secret.txt'), 'not yours');
      for (const name of ['../../secret.txt', '/etc/passwd', 'downloads/ok.txt', '.', '..', '', 'nope.txt']) {
        await s.fails('POST', '/se/files', { name }, 'invalid argument', 400);
      }
      await s.fails('POST', '/se/files', { name: 7 }, 'invalid argument', 400);
      await s.fails('POST', '/se/files', {}, 'invalid argument', 400);
    } finally {
      await s.end();
    }
  });

  test('without the capability the commands say how to enable them; a non-boolean is invalid argument', async () => {
    const s = await gw.client.newSession();
    try {
      assert.equal(s.capabilities['se:downloadsEnabled'], undefined);
      for (const [method, body] of [['GET'], ['POST', { name: 'x' }], ['DELETE']] as const) {
        const e = await s.fails(method, '/se/files', body, 'unsupported operation', 500);
        assert.match(e.message, /se:downloadsEnabled/);
      }
    } finally {
      await s.end();
    }
    await gw.client.fails('POST', '/session', { capabilities: { alwaysMatch: { 'se:downloadsEnabled': 'yes' } } }, 'invalid argument', 400);
  });

  test('the folder goes with the session', async () => {
    const s = await downloading();
    await download(s, 'gone.txt', 'soon gone');
    await eventually(async () => (await names(s)).includes('gone.txt'), 'the download was not listed');
    const folder = sessionFolder();
    await s.end();
    await eventually(() => !existsSync(folder), 'the session folder outlived the session');
  });
});

/** The one session folder in the gateway's tempDir (tests here run one downloading session at a time). */
function sessionFolder(): string {
  const folders = readdirSync(tempDir).filter((n) => n.startsWith('wdgate-session-'));
  assert.equal(folders.length, 1, `session folders: ${folders.join(', ')}`);
  return join(tempDir, folders[0]!);
}

/** selenium-webdriver's managed-download helpers (4.x; its type definitions lack them). */
interface ManagedDownloads {
  getDownloadableFiles(): Promise<string[]>;
  downloadFile(name: string, targetDirectory: string): Promise<void>;
  deleteDownloadableFiles(): Promise<void>;
}

describe('with a real client', () => {
  test("selenium-webdriver's getDownloadableFiles, downloadFile and deleteDownloadableFiles", async () => {
    const driver = await new Builder().usingServer(gw.url).withCapabilities({ browserName: 'chrome', 'se:downloadsEnabled': true }).build();
    const downloads = driver as unknown as ManagedDownloads;
    const target = mkdtempSync(join(tmpdir(), 'wdgate-downloads-client-'));
    try {
      await driver.get(pages.page(`<a href="${pages.url}/download?name=client.csv&body=a%2Cb">get</a>`));
      await driver.findElement({ css: 'a' }).click();
      await eventually(async () => (await downloads.getDownloadableFiles()).includes('client.csv'), 'the download was not listed');
      await downloads.downloadFile('client.csv', target);
      // The client unpacks the archive without waiting for it.
      await eventually(() => existsSync(join(target, 'client.csv')), 'the client did not unpack the file');
      await eventually(() => readFileSync(join(target, 'client.csv'), 'utf8') === 'a,b', 'the unpacked file is not the download');
      await downloads.deleteDownloadableFiles();
      assert.deepEqual(await downloads.getDownloadableFiles(), []);
    } finally {
      await driver.quit();
      rmSync(target, { recursive: true, force: true });
    }
  });

  // Debian's python3-selenium is 4.8.3, from before the managed-download helpers (4.14): the test
  // registers the commands as those helpers do (same names, same paths) and calls them through
  // the client's own executor, then unpacks the archive as get_downloadable_files' sibling
  // download_file does (base64 ZIP).
  test("Python Selenium's client: the managed-download commands (get_downloadable_files, download_file, delete_downloadable_files)", { skip: !existsSync('/usr/bin/python3') && 'no /usr/bin/python3' }, async () => {
    const script = `
import base64, io, sys, time, zipfile
from selenium import webdriver
options = webdriver.ChromeOptions()
options.set_capability('se:downloadsEnabled', True)
driver = webdriver.Remote(command_executor=sys.argv[1], options=options)
commands = driver.command_executor._commands
commands['getDownloadableFiles'] = ('GET', '/session/$sessionId/se/files')
commands['downloadFile'] = ('POST', '/session/$sessionId/se/files')
commands['deleteDownloadableFiles'] = ('DELETE', '/session/$sessionId/se/files')
try:
    assert driver.capabilities['se:downloadsEnabled'] is True
    driver.get(sys.argv[2])
    driver.find_element('css selector', 'a').click()
    for _ in range(200):
        names = driver.execute('getDownloadableFiles')['value']['names']
        if 'py.txt' in names:
            break
        time.sleep(0.05)
    assert names == ['py.txt'], names
    answer = driver.execute('downloadFile', {'name': 'py.txt'})['value']
    archive = zipfile.ZipFile(io.BytesIO(base64.b64decode(answer['contents'])))
    assert archive.read('py.txt') == b'from python', archive.namelist()
    driver.execute('deleteDownloadableFiles')
    assert driver.execute('getDownloadableFiles')['value']['names'] == []
    print('python downloads ok')
finally:
    driver.quit()
`;
    const page = pages.page(`<a href="${pages.url}/download?name=py.txt&body=from%20python">get</a>`);
    const out = await new Promise<string>((resolve, reject) => {
      execFile('/usr/bin/python3', ['-c', script, gw.url, page], { timeout: 60_000 }, (e, stdout, stderr) => (e ? reject(new Error(`${e.message}\n${stdout}\n${stderr}`)) : resolve(stdout)));
    });
    assert.match(out, /python downloads ok/);
  });
});
