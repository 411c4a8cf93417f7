// Selenium Grid's remote file upload (POST /session/{id}/se/file) through the server: the file
// lands in the session's temporary directory, works with an <input type=file>, and goes with
// the session (Delete Session, gateway shutdown).
import { after, before, describe } from 'node:test';
import { test } from '../helpers/gaps.ts';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import type { Session } from '../helpers/client.ts';
import { eventually, leftoverBrowsers, startPageServer, type PageServer } from '../helpers/pages.ts';
import { makeZip, mimeBase64, type TestEntry } from '../helpers/zip.ts';
import { Builder, By, type FileDetector as BaseFileDetector } from 'selenium-webdriver';
import chrome from 'selenium-webdriver/chrome.js';

let gw: TestGateway;
let pages: PageServer;
let s: Session;
/** The gateway's --config tempDir: everything it makes lives here. */
let tempDir: string;

async function startWithTempDir(): Promise<TestGateway> {
  return startGateway([], { config: { tempDir } });
}

before(async () => {
  tempDir = mkdtempSync(join(tmpdir(), 'wdgate-upload-test-'));
  [gw, pages] = await Promise.all([startWithTempDir(), startPageServer()]);
  s = await gw.client.newSession();
});

after(async () => {
  await s?.end().catch(() => {});
  const pid = gw.process.pid!;
  await gw?.stop();
  await pages?.close();
  assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
  assert.deepEqual(
    readdirSync(tempDir).filter((name) => name.startsWith('wdgate-session-')),
    [],
    'no session directory outlives the gateway',
  );
  rmSync(tempDir, { recursive: true, force: true });
});

const upload = (entries: TestEntry[], session = s) => session.post('/se/file', { file: mimeBase64(makeZip(entries)) });

const READ_FIRST_FILE = `const done = arguments[arguments.length - 1];
const file = document.getElementById('f').files[0];
const reader = new FileReader();
reader.onload = () => done({ name: file.name, size: file.size, text: reader.result });
reader.onerror = () => done({ error: String(reader.error) });
reader.readAsText(file);`;

describe('uploading', () => {
  test("answers the unpacked file's absolute path, in the session's temporary directory", async () => {
    const text = 'Hello, upload ✓\n'.repeat(50);
    const path = await upload([{ name: 'hello.txt', data: text }]);
    assert.equal(typeof path, 'string');
    assert.ok(isAbsolute(path), path);
    assert.equal(basename(path), 'hello.txt', 'the file keeps its name (the browser shows it)');
    assert.ok(path.startsWith(tempDir + '/wdgate-session-'), path);
    assert.equal(readFileSync(path, 'utf8'), text);
  });

  test('end to end: send keys with the uploaded path to an <input type=file>', async () => {
    const text = 'first line\nsecond line ✓';
    const path = await upload([{ name: 'notes.txt', data: text }]);
    await s.navigate(pages.page('<input type="file" id="f">'));
    await s.post(`/element/${await s.find('#f')}/value`, { text: path });
    assert.deepEqual(await s.post('/execute/async', { script: READ_FIRST_FILE, args: [] }), {
      name: 'notes.txt',
      size: Buffer.byteLength(text),
      text,
    });
  });

  test('stored (uncompressed) archives, binary content, and plain unwrapped base64', async () => {
    const binary = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31) % 256));
    const path = await s.post('/se/file', { file: makeZip([{ name: 'data.bin', data: binary, method: 0 }]).toString('base64') });
    assert.deepEqual(readFileSync(path), binary);
  });

  test('each upload gets a fresh directory: the same name twice is two files', async () => {
    const one = await upload([{ name: 'same.txt', data: 'one' }]);
    const two = await upload([{ name: 'same.txt', data: 'two' }]);
    assert.notEqual(dirname(one), dirname(two));
    assert.equal(dirname(dirname(one)), dirname(dirname(two)), 'both in the session directory');
    assert.equal(readFileSync(one, 'utf8'), 'one');
    assert.equal(readFileSync(two, 'utf8'), 'two');
  });

  test('directory entries are skipped; a file in a folder keeps its relative path', async () => {
    const path = await upload([{ name: 'folder/', method: 0 }, { name: 'folder/inner.csv', data: 'a,b' }]);
    assert.equal(basename(path), 'inner.csv');
    assert.equal(basename(dirname(path)), 'folder');
    assert.equal(readFileSync(path, 'utf8'), 'a,b');
  });

  test('a user prompt stays open: uploading does not touch the page', async () => {
    await s.navigate(pages.page('<p>prompt</p>'));
    await s.execute('setTimeout(() => alert("still here"), 0)');
    // Wait for the alert to be open, then upload, then it is still there for the next command.
    await eventually(async () => (await s.raw('GET', '/alert/text')).status === 200, 'the alert did not open');
    await upload([{ name: 'during-alert.txt', data: 'x' }]);
    assert.equal(await s.get('/alert/text'), 'still here');
    await s.post('/alert/accept');
  });
});

describe('with a real client', () => {
  test("selenium-webdriver's FileDetector zips the local file and types the uploaded path", async () => {
    // selenium-webdriver/remote ships as remote/index.js, which its typings do not name.
    const remoteModule: string = 'selenium-webdriver/remote/index.js';
    const { FileDetector } = (await import(remoteModule)) as { FileDetector: new () => BaseFileDetector };
    const local = mkdtempSync(join(tmpdir(), 'wdgate-upload-client-'));
    const file = join(local, 'from-client.txt');
    const text = 'sent by selenium-webdriver ✓';
    writeFileSync(file, text);
    const options = new chrome.Options();
    options.addArguments('--headless=new');
    const driver = await new Builder().usingServer(gw.url).forBrowser('chrome').setChromeOptions(options).build();
    try {
      driver.setFileDetector(new FileDetector());
      await driver.get(pages.page('<input type="file" id="f">'));
      await driver.findElement(By.id('f')).sendKeys(file);
      // The local original goes: the browser must be reading the uploaded copy.
      rmSync(local, { recursive: true, force: true });
      assert.deepEqual(await driver.executeAsyncScript(READ_FIRST_FILE), { name: 'from-client.txt', size: Buffer.byteLength(text), text });
    } finally {
      await driver.quit();
      rmSync(local, { recursive: true, force: true });
    }
  });
});

describe('refusing', () => {
  test('a missing, non-string or non-base64 file member', async () => {
    await s.fails('POST', '/se/file', {}, 'invalid argument', 400);
    await s.fails('POST', '/se/file', { file: null }, 'invalid argument', 400);
    await s.fails('POST', '/se/file', { file: 42 }, 'invalid argument', 400);
    await s.fails('POST', '/se/file', { file: ['UEsDBA=='] }, 'invalid argument', 400);
    await s.fails('POST', '/se/file', { file: 'not base64 at all!' }, 'invalid argument', 400);
    await s.fails('POST', '/se/file', { file: 'UEs*DBA==' }, 'invalid argument', 400);
    await s.fails('POST', '/se/file', { file: '' }, 'invalid argument', 400);
  });

  test('what is not a ZIP archive, or a broken one', async () => {
    const fails = (archive: Buffer) => s.fails('POST', '/se/file', { file: archive.toString('base64') }, 'invalid argument', 400);
    await fails(Buffer.from('plain text, not an archive'));
    const good = makeZip([{ name: 'a.txt', data: 'hello '.repeat(100) }]);
    await fails(good.subarray(0, good.length - 10)); // truncated
    await fails(good.subarray(0, 40));
    await fails(makeZip([{ name: 'a.txt', data: 'hello', crc: 12345 }])); // bad CRC
    await fails(makeZip([{ name: 'a.bz2', data: 'hello', method: 12 }])); // unsupported method
  });

  test('not exactly one file', async () => {
    const e = await s.fails('POST', '/se/file', { file: mimeBase64(makeZip([{ name: 'a', data: '1' }, { name: 'b', data: '2' }])) }, 'invalid argument', 400);
    assert.match(e.message, /exactly one file/);
    await s.fails('POST', '/se/file', { file: mimeBase64(makeZip([])) }, 'invalid argument', 400);
    await s.fails('POST', '/se/file', { file: mimeBase64(makeZip([{ name: 'only-a-dir/', method: 0 }])) }, 'invalid argument', 400);
  });

  test('zip slip: names leaving the upload directory; nothing is written', async () => {
    const before = readdirSync(tempDir);
    for (const name of ['../escaped.txt', '../../escaped.txt', '/tmp/escaped.txt', 'a/../../escaped.txt', '..\\escaped.txt', 'a\0b']) {
      const e = await s.fails('POST', '/se/file', { file: mimeBase64(makeZip([{ name, data: 'x' }])) }, 'invalid argument', 400);
      assert.match(e.message, /unsafe entry name/);
    }
    // Nothing was added beside the session's own directory: browser profiles come and go with
    // the pool (and an earlier session's may still be going away), so they are not compared.
    const added = readdirSync(tempDir).filter((name) => !before.includes(name) && !name.startsWith('wdgate-profile-'));
    assert.deepEqual(added.filter((name) => !name.startsWith('wdgate-session-')), []);
    assert.ok(!existsSync(join(tempDir, 'escaped.txt')));
    assert.ok(!existsSync(join(dirname(tempDir), 'escaped.txt')));
  });

  test('zip bombs and oversized files', async () => {
    // 8 MiB of zeros deflate to a few KiB: declared as 10 bytes, inflating stops there.
    const bomb = makeZip([{ name: 'bomb.txt', data: Buffer.alloc(8 << 20), size: 10 }]);
    assert.ok(bomb.length < 64 * 1024);
    const e = await s.fails('POST', '/se/file', { file: bomb.toString('base64') }, 'invalid argument', 400);
    assert.match(e.message, /declared size/);
    // A declared size past the limit is refused before inflating anything.
    const huge = makeZip([{ name: 'huge.txt', data: 'x', size: 65 * 1024 * 1024 }]);
    assert.match((await s.fails('POST', '/se/file', { file: huge.toString('base64') }, 'invalid argument', 400)).message, /larger than/);
  });

  test('invalid session id', async () => {
    await gw.client.fails('POST', '/session/nope/se/file', { file: mimeBase64(makeZip([{ name: 'a', data: 'x' }])) }, 'invalid session id', 404);
  });
});

describe('cleanup', () => {
  test("Delete Session removes the session's uploads", async () => {
    const other = await gw.client.newSession();
    const path = await upload([{ name: 'bye.txt', data: 'bye' }], other);
    const sessionDir = dirname(dirname(path));
    assert.ok(existsSync(path));
    await other.end();
    await eventually(() => !existsSync(sessionDir), `${sessionDir} outlived its session`);
  });

  test('gateway shutdown (SIGTERM) removes every session’s uploads', async () => {
    const gw2 = await startWithTempDir();
    const pid = gw2.process.pid!;
    try {
      const [a, b] = [await gw2.client.newSession(), await gw2.client.newSession()];
      const paths = [await upload([{ name: 'a.txt', data: 'a' }], a), await upload([{ name: 'b.txt', data: 'b' }], b)];
      for (const path of paths) assert.ok(existsSync(path));
      assert.equal(await gw2.stop(), 0);
      for (const path of paths) assert.ok(!existsSync(dirname(dirname(path))), `${path} outlived the gateway`);
    } finally {
      await gw2.stop();
    }
    assert.equal(await leftoverBrowsers(pid), 0);
  });
});

describe('fileInputDirectories: file inputs take files only from the configured directories', () => {
  let limited: TestGateway;
  let ls: Session;
  let allowedDir: string;
  let outsideDir: string;

  before(async () => {
    allowedDir = mkdtempSync(join(tempDir, 'allowed-'));
    outsideDir = mkdtempSync(join(tempDir, 'outside-'));
    writeFileSync(join(allowedDir, 'fine.txt'), 'fine');
    writeFileSync(join(outsideDir, 'secret.txt'), 'secret');
    // A link inside the allowed directory that leads out of it.
    symlinkSync(join(outsideDir, 'secret.txt'), join(allowedDir, 'link.txt'));
    limited = await startGateway([], { config: { tempDir, fileInputDirectories: [allowedDir] } });
    ls = await limited.client.newSession();
    await ls.navigate(pages.page('<input type="file" id="f" multiple>', 'limited'));
  });

  after(async () => {
    await ls?.end().catch(() => {});
    await limited?.stop();
  });

  test('a file in an allowed directory is taken; one outside, through .., or through a symbolic link is invalid argument', async () => {
    const input = await ls.find('#f');
    await ls.post(`/element/${input}/value`, { text: join(allowedDir, 'fine.txt') });
    assert.deepEqual(await ls.execute('return [...document.getElementById("f").files].map((f) => f.name)'), ['fine.txt']);
    for (const path of [join(outsideDir, 'secret.txt'), join(allowedDir, '..', basename(outsideDir), 'secret.txt'), join(allowedDir, 'link.txt')]) {
      const e = await ls.fails('POST', `/element/${input}/value`, { text: path }, 'invalid argument', 400);
      assert.match(e.message, /outside the directories file inputs may read \(fileInputDirectories/);
    }
    assert.deepEqual(await ls.execute('return [...document.getElementById("f").files].map((f) => f.name)'), ['fine.txt'], 'nothing refused was added');
  });

  test("files uploaded to the session (/se/file) are the session's own to use", async () => {
    const path = await upload([{ name: 'uploaded.txt', data: 'up' }], ls);
    const input = await ls.find('#f');
    await ls.post(`/element/${input}/value`, { text: path });
    assert.ok((await ls.execute('return [...document.getElementById("f").files].map((f) => f.name)')).includes('uploaded.txt'));
  });

  test('a directory that is not there is a startup error', async () => {
    const bad = await startGateway([], { config: { fileInputDirectories: [join(tempDir, 'no-such-dir')] } }).then(
      async (g) => (await g.stop(), 'started'),
      (e: Error) => e.message,
    );
    assert.match(bad, /fileInputDirectories: .*no-such-dir is not a readable directory/);
  });
});
