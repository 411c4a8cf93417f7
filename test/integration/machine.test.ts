// A token reaches its own browser and nothing else on the gateway's machine (backends/policy/),
// tried as an attacker would: a client on another address (a network namespace) with a token,
// and the same principal's BiDi and CDP sockets. Capabilities that would run a program, read a
// file or leave the sandbox are refused naming what and why; file: and the browser's own pages
// are refused on every path (Navigate To, BiDi, raw CDP, a page's links, frames, popups and
// redirects, pass-through); file inputs get the session's own uploads only; and the browsers run
// as a user of their own, sandboxed, which cannot read the tokens file even where a principal
// may open file: URLs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { BidiSocket } from '../helpers/bidi.ts';
import { ELEMENT, type Client, type Session } from '../helpers/client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { createNamespace, namespaceUnavailable, run, type Namespace } from '../helpers/netns.ts';
import { descendants, eventually, leftoverBrowsers } from '../helpers/pages.ts';
import { makeZip, mimeBase64 } from '../helpers/zip.ts';

const TOKENS = { mallory: 'mallory-3b9e1d7c5a2f4e6081', carol: 'carol-8a6c4e2b0d9f7a5c31' };

/** The machine's side: a directory others may pass through, with the tokens file (0600) and a marker path. */
const dir = mkdtempSync(join(tmpdir(), 'wdgate-machine-'));
chmodSync(dir, 0o755);
const tokenFile = join(dir, 'tokens');
writeFileSync(tokenFile, `mallory ${TOKENS.mallory} 4\ncarol ${TOKENS.carol} 4 files\n`, { mode: 0o600 });
const marker = join(dir, 'ran');
const program = join(dir, 'program.sh');
writeFileSync(program, `#!/bin/sh\ntouch ${marker}\nexec "$@"\n`, { mode: 0o755 });
const readable = join(dir, 'readable.txt');
writeFileSync(readable, 'a world-readable file of the machine', { mode: 0o644 });

/** Pages that try to reach file: by themselves. */
let pages: Server;
let pagesUrl: string;
function startAttackPages(): Promise<void> {
  const target = `file://${tokenFile}`;
  const html: Record<string, string> = {
    '/link': `<a id=go href="${target}">go</a>`,
    '/popup': `<script>window.opened = window.open(${JSON.stringify(target)});</script>`,
    '/frame': `<iframe id=f src="${target}"></iframe>`,
    '/input': '<input type=file id=f>',
  };
  pages = createServer((req, res) => {
    if (req.url === '/redirect') {
      res.writeHead(302, { location: target });
      return res.end();
    }
    res.writeHead(html[req.url!] ? 200 : 404, { 'content-type': 'text/html' });
    res.end(html[req.url!] ?? 'no');
  });
  return new Promise((resolve) =>
    pages.listen(0, '127.0.0.1', () => {
      pagesUrl = `http://127.0.0.1:${(pages.address() as { port: number }).port}`;
      resolve();
    }),
  );
}

let gw: TestGateway;
let ns: Namespace | undefined;
let unavailable: string | null;
let mallory: Client;
let carol: Client;

before(async () => {
  unavailable = await namespaceUnavailable();
  [gw, ns] = await Promise.all([
    startGateway(['--listen-address', '0.0.0.0', '--auth-token-file', tokenFile]),
    unavailable ? undefined : createNamespace(),
    startAttackPages(),
  ]);
  mallory = gw.client.withToken(TOKENS.mallory);
  carol = gw.client.withToken(TOKENS.carol);
});

after(async () => {
  await ns?.close();
  const pid = gw?.process.pid;
  await gw?.stop();
  pages?.close();
  rmSync(dir, { recursive: true, force: true });
  if (pid) assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
});

/** A request from the namespace, as mallory. */
const fromOutside = (method: string, path: string, body?: unknown) =>
  ns!.curl(`http://${ns!.hostAddress}:${gw.port}${path}`, [
    '-X',
    method,
    '-H',
    `Authorization: Bearer ${TOKENS.mallory}`,
    '-H',
    'Content-Type: application/json',
    ...(body === undefined ? [] : ['-d', JSON.stringify(body)]),
  ]);

/** What a page shows: its source, as a client would read it. */
const source = (s: Session): Promise<string> => s.get('/source');

describe('capabilities cannot reach the machine', () => {
  test('a switch that runs a program is refused in every spelling, and nothing runs', async (t) => {
    if (unavailable) return t.skip(unavailable);
    const tries: Record<string, unknown>[] = [
      { 'goog:chromeOptions': { args: [`-renderer-cmd-prefix=${program}`] } },
      { 'goog:chromeOptions': { args: [`--utility-cmd-prefix=${program}`] } },
      { 'goog:chromeOptions': { args: [`browser-subprocess-path=${program}`] } },
      { 'wdgate:options': { args: [`-gpu-launcher=${program}`] } },
      { 'goog:chromeOptions': { args: ['-proxy-server=http://10.0.0.1:3128'] } },
      { 'goog:chromeOptions': { args: ['--headless', `file://${tokenFile}`] } },
      { 'goog:chromeOptions': { binary: program } },
      { 'goog:chromeOptions': { extensions: ['Q3IyNA=='] } },
      { 'goog:chromeOptions': { prefs: { download: { extensions_to_open: 'sh' } } } },
      { 'goog:chromeOptions': { minidumpPath: dir } },
      { browserName: 'firefox', 'moz:firefoxOptions': { args: ['-chrome', 'chrome://browser/content/browser.xhtml'] } },
      { browserName: 'firefox', 'moz:firefoxOptions': { args: ['--start-debugger-server', '6000'] } },
      { browserName: 'firefox', 'moz:firefoxOptions': { prefs: { 'security.sandbox.content.level': 0 } } },
      { browserName: 'firefox', 'moz:firefoxOptions': { prefs: { 'network.protocol-handler.app.mailto': program } } },
      { browserName: 'firefox', 'moz:firefoxOptions': { prefs: { 'browser.download.dir': dir } } },
      { proxy: { proxyType: 'pac', proxyAutoconfigUrl: `file://${dir}/proxy.pac` } },
      { browserName: 'webkit', 'webkitgtk:browserOptions': { args: [`--cookies-file=${dir}/cookies`] } },
    ];
    for (const alwaysMatch of tries) {
      const reply = await fromOutside('POST', '/session', { capabilities: { alwaysMatch } });
      assert.equal(reply.status, 400, `${JSON.stringify(alwaysMatch)}: ${reply.text}`);
      assert.equal(reply.value.error, 'invalid argument', reply.text);
    }
    // The refusal names the switch and the config key that admits it.
    const named = await fromOutside('POST', '/session', { capabilities: { alwaysMatch: { 'goog:chromeOptions': { args: [`-renderer-cmd-prefix=${program}`] } } } });
    assert.match(named.value.message, /\(--renderer-cmd-prefix\) is not allowed .*native\.allowedArgs/);
    assert.equal(existsSync(marker), false, 'the program ran');
  });

  test("allowed switches pass in chromedriver's spellings and take effect", async () => {
    const s = await mallory.newSession({ 'goog:chromeOptions': { args: ['headless', 'user-agent=wdgate-policy-test', '-window-size=700,500'] } });
    try {
      assert.equal(await s.execute('return navigator.userAgent'), 'wdgate-policy-test');
      assert.equal(await s.execute('return window.outerWidth'), 700);
    } finally {
      await s.end();
    }
  });
});

describe('file: and the browser\'s own pages are the machine\'s', () => {
  let s: Session;
  before(async () => {
    s = await mallory.newSession();
  });
  after(() => s?.end());

  test('Navigate To a file, a listing, view-source of one or a browser page is invalid argument, from outside', async (t) => {
    if (unavailable) return t.skip(unavailable);
    for (const url of [`file://${tokenFile}`, `file://${dir}/`, 'FILE:///etc/passwd', `view-source:file://${tokenFile}`, 'chrome://settings', 'chrome://downloads', 'about:config']) {
      const reply = await fromOutside('POST', `/session/${s.id}/url`, { url });
      assert.equal(reply.status, 400, `${url}: ${reply.text}`);
      assert.equal(reply.value.error, 'invalid argument', reply.text);
      assert.match(reply.value.message, /may not navigate to|view-source/);
    }
    assert.doesNotMatch(await source(s), new RegExp(TOKENS.carol));
  });

  for (const engine of ['chromium', 'firefox'] as const) {
    test(`a page's link, popup, frame or redirect to a file shows nothing of it (${engine})`, async () => {
      const page = engine === 'chromium' ? s : await mallory.newSession({ browserName: 'firefox' });
      try {
        await page.navigate(`${pagesUrl}/link`);
        await page.post(`/element/${await page.find('#go')}/click`);
        await page.navigate(`${pagesUrl}/popup`);
        await page.navigate(`${pagesUrl}/frame`);
        const redirected = await page.raw('POST', '/url', { url: `${pagesUrl}/redirect` });
        // Whatever each answered, no window of the session shows the file, and none is at a file: URL.
        for (const handle of await page.get('/window/handles')) {
          await page.post('/window', { handle });
          assert.doesNotMatch(await page.get('/url'), /^file:/);
          assert.doesNotMatch(await source(page), new RegExp(`${TOKENS.mallory}|${TOKENS.carol}`), `window ${handle}`);
        }
        assert.ok(redirected.status === 200 || redirected.value?.error === 'unknown error', JSON.stringify(redirected.value));
      } finally {
        if (page !== s) await page.end();
      }
    });
  }

  test('a principal allowed files reaches file: URLs, but the browsers\' user cannot read the tokens file', async () => {
    const c = await carol.newSession();
    try {
      await c.navigate(`file://${readable}`);
      assert.match(await source(c), /a world-readable file of the machine/);
      // The browser runs as its own user: the gateway's 0600 file is not its to read.
      await c.raw('POST', '/url', { url: `file://${tokenFile}` });
      assert.doesNotMatch(await source(c), new RegExp(`${TOKENS.mallory}|${TOKENS.carol}`));
    } finally {
      await c.end();
    }
  });

  test('a loopback client without a token, where tokens are configured, may not reach files either', async () => {
    const local = await gw.client.newSession();
    try {
      await local.fails('POST', '/url', { url: `file://${readable}` }, 'invalid argument', 400);
    } finally {
      await local.end();
    }
  });
});

describe('file inputs get the session\'s own files', () => {
  test('Send Keys with a file of the machine is invalid argument; an uploaded file is taken', async (t) => {
    if (unavailable) return t.skip(unavailable);
    const s = await mallory.newSession();
    try {
      await s.navigate(`${pagesUrl}/input`);
      const input = await s.find('#f');
      // A path that is not there gets the same answer: nothing tells what the machine has.
      for (const path of [tokenFile, readable, '/etc/passwd', join(dir, 'not-there')]) {
        const reply = await fromOutside('POST', `/session/${s.id}/element/${input}/value`, { text: path });
        assert.equal(reply.status, 400, reply.text);
        assert.match(reply.value.message, /is not this session's/);
      }
      assert.equal(await s.execute('return document.getElementById("f").files.length'), 0);
      const uploaded = await s.post('/se/file', { file: mimeBase64(makeZip([{ name: 'mine.txt', data: 'mine' }])) });
      await s.post(`/element/${input}/value`, { text: uploaded });
      assert.equal(await s.execute('return document.getElementById("f").files[0].name'), 'mine.txt');
    } finally {
      await s.end();
    }
  });
});

describe("a principal allowed files gives a page the machine's files, as the browser can read them", () => {
  test("a file only root may read reaches the page whole, as a copy in the session's folder; raw BiDi says how instead", async (t) => {
    if (process.getuid?.() !== 0) return t.skip('the gateway switches users only as root');
    const own = mkdtempSync(join(tmpdir(), 'wdgate-machine-root-only-'));
    const file = join(own, 'fixture.txt');
    writeFileSync(file, 'eight by');
    const s = await carol.newSession({ webSocketUrl: true });
    const bidi = await BidiSocket.open(s.capabilities.webSocketUrl, { Authorization: `Bearer ${TOKENS.carol}` });
    try {
      await s.navigate(`${pagesUrl}/input`);
      await s.post(`/element/${await s.find('#f')}/value`, { text: file });
      const read = await s.post('/execute/async', {
        script: 'const done = arguments[0]; const f = document.getElementById("f").files[0]; f.text().then((t) => done([f.name, t]));',
        args: [],
      });
      assert.deepEqual(read, ['fixture.txt', 'eight by']);
      // Never the gateway's own files, though the gateway could read and copy them: not the tokens file.
      const refused = await s.fails('POST', `/element/${await s.find('#f')}/value`, { text: tokenFile }, 'invalid argument', 400);
      assert.match(refused.message, /is the gateway's own/);
      assert.deepEqual(await s.execute('return [...document.getElementById("f").files].map((f) => f.name)'), ['fixture.txt']);
      const { contexts } = await bidi.call('browsingContext.getTree');
      const { result } = await bidi.call('script.evaluate', { expression: 'document.getElementById("f")', target: { context: contexts[0].context }, awaitPromise: false });
      const answer = await bidi.command('input.setFiles', { context: contexts[0].context, element: { sharedId: result.sharedId }, files: [file] });
      assert.equal(answer.error, 'invalid argument');
      assert.match(answer.message!, /cannot be read by the browsers' user.*Element Send Keys/);
    } finally {
      bidi.close();
      await s.end();
      rmSync(own, { recursive: true, force: true });
    }
  });
});

describe('BiDi and raw CDP pass the same policy', () => {
  test('browsingContext.navigate, input.setFiles, downloads and goog:cdp.sendCommand are refused', async () => {
    const s = await mallory.newSession({ webSocketUrl: true });
    const bidi = await BidiSocket.open(s.capabilities.webSocketUrl, { Authorization: `Bearer ${TOKENS.mallory}` });
    try {
      const { contexts } = await bidi.call('browsingContext.getTree');
      const context = contexts[0].context;
      const refused = async (method: string, params: Record<string, unknown>, pattern: RegExp) => {
        const answer = await bidi.command(method, params);
        assert.equal(answer.error, 'invalid argument', `${method}: ${JSON.stringify(answer)}`);
        assert.match(answer.message!, pattern);
      };
      await refused('browsingContext.navigate', { context, url: `file://${tokenFile}`, wait: 'complete' }, /may not navigate to file/);
      await refused('browser.setDownloadBehavior', { downloadBehavior: { type: 'allowed', destinationFolder: dir } }, /session's own folder/);
      await refused('goog:cdp.sendCommand', { method: 'Target.createTarget', params: { url: `file://${tokenFile}` } }, /may not navigate to file/);
      await bidi.call('browsingContext.navigate', { context, url: `${pagesUrl}/input`, wait: 'complete' });
      const { result } = await bidi.call('script.evaluate', { expression: 'document.getElementById("f")', target: { context }, awaitPromise: false });
      await refused('input.setFiles', { context, element: { sharedId: result.sharedId }, files: [tokenFile] }, /is not this session's/);
      // The web is the session's.
      assert.equal((await bidi.call('script.evaluate', { expression: 'location.href', target: { context }, awaitPromise: false })).result.value, `${pagesUrl}/input`);
    } finally {
      bidi.close();
      await s.end();
    }
  });

  test("a browser of its own's CDP cannot open files or write downloads elsewhere", async () => {
    const s = await mallory.newSession({ 'wdgate:options': { ownBrowser: true } });
    const ws = new WebSocket(`ws://127.0.0.1:${gw.port}/session/${s.id}/se/cdp`, { headers: { Authorization: `Bearer ${TOKENS.mallory}` } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const answers = new Map<number, any>();
    ws.on('message', (data) => {
      const m = JSON.parse(String(data));
      if (typeof m.id === 'number') answers.set(m.id, m);
    });
    let id = 0;
    const send = async (method: string, params: Record<string, unknown> = {}) => {
      const mine = ++id;
      ws.send(JSON.stringify({ id: mine, method, params }));
      await eventually(() => answers.has(mine), `no answer to ${method}`);
      return answers.get(mine);
    };
    try {
      assert.match((await send('Browser.getVersion')).result.product, /Chrome/);
      for (const [method, params] of [
        ['Target.createTarget', { url: `file://${tokenFile}` }],
        ['Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: dir }],
        ['PWA.install', { manifestId: 'https://x/' }],
        ['Target.exposeDevToolsProtocol', { targetId: 'x' }],
      ] as const) {
        const answer = await send(method, params);
        assert.ok(answer.error, `${method} was sent: ${JSON.stringify(answer)}`);
        assert.match(answer.error.message, /not allowed|may not navigate|own folder/, method);
      }
    } finally {
      ws.close();
      await s.end();
    }
  });
});

/** The test's (and the gateway's) own user namespace. */
const mine = (await run('readlink', ['/proc/self/ns/user'])).stdout.trim();

describe('browsers run as a user of their own, sandboxed', () => {
  /** uid, seccomp mode and user namespace of each of the gateway's processes named like `name`. */
  async function processes(name: RegExp): Promise<{ pid: number; uid: number; seccomp: number; userns: string; cmd: string }[]> {
    const out = [];
    for (const entry of await descendants(gw.process.pid!)) {
      // (A process may end while it is looked at: a content process Firefox no longer needs.)
      let cmd: string;
      let status: string;
      try {
        cmd = readFileSync(`/proc/${entry.pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
        status = readFileSync(`/proc/${entry.pid}/status`, 'utf8');
      } catch {
        continue;
      }
      if (!name.test(cmd)) continue;
      const userns = await run('readlink', [`/proc/${entry.pid}/ns/user`]).then((r) => r.stdout.trim(), () => '');
      out.push({ pid: entry.pid, uid: Number(/^Uid:\s+(\d+)/m.exec(status)![1]), seccomp: Number(/^Seccomp:\s+(\d+)/m.exec(status)![1]), userns, cmd });
    }
    return out;
  }

  test('Chromium: no process of the browser runs as root; its renderers are in a sandbox', async (t) => {
    if (process.getuid?.() !== 0) return t.skip('the gateway switches users only as root');
    const s = await mallory.newSession();
    try {
      await s.navigate(`${pagesUrl}/link`);
      const chromium = await processes(/\/chromium/);
      assert.ok(chromium.length > 0);
      for (const p of chromium) assert.notEqual(p.uid, 0, `runs as root: ${p.cmd.slice(0, 120)}`);
      assert.ok(!chromium.some((p) => /--no-sandbox/.test(p.cmd)), 'a browser runs with --no-sandbox');
      const renderers = chromium.filter((p) => /--type=renderer/.test(p.cmd));
      assert.ok(renderers.length > 0, 'no renderer');
      for (const r of renderers) {
        assert.equal(r.seccomp, 2, `renderer ${r.pid} has no seccomp filter`);
        assert.notEqual(r.userns, mine, `renderer ${r.pid} is in the gateway's user namespace`);
      }
    } finally {
      await s.end();
    }
  });

  test('Firefox: no process runs as root; its content processes are in a sandbox', async (t) => {
    if (process.getuid?.() !== 0) return t.skip('the gateway switches users only as root');
    const s = await mallory.newSession({ browserName: 'firefox' });
    try {
      await s.navigate(`${pagesUrl}/link`);
      await s.fails('POST', '/url', { url: `file://${tokenFile}` }, 'invalid argument', 400);
      const firefox = await processes(/firefox/);
      assert.ok(firefox.length > 0);
      for (const p of firefox) assert.notEqual(p.uid, 0, `runs as root: ${p.cmd.slice(0, 120)}`);
      const content = firefox.filter((p) => /-isForBrowser|tab\b/.test(p.cmd));
      assert.ok(content.length > 0, 'no content process');
      for (const c of content) assert.equal(c.seccomp, 2, `content process ${c.pid} has no seccomp filter`);
    } finally {
      await s.end();
    }
  });

  test('chromedriver behind the remote backend: not root, and its sessions pass the same policy', async (t) => {
    if (process.getuid?.() !== 0) return t.skip('the gateway switches users only as root');
    const s = await mallory.newSession({ 'wdgate:options': { backend: 'remote' } });
    try {
      await s.fails('POST', '/url', { url: `file://${tokenFile}` }, 'invalid argument', 400);
      await s.navigate(`${pagesUrl}/input`);
      const input = await s.find('#f');
      assert.match((await s.fails('POST', `/element/${input}/value`, { text: tokenFile }, 'invalid argument', 400)).message, /is not this session's/);
      // chromedriver serves the older upload path (its /se/file is an unknown command).
      const uploaded = await s.post('/file', { file: makeZip([{ name: 'mine.txt', data: 'mine' }]).toString('base64') });
      await s.post(`/element/${input}/value`, { text: uploaded });
      assert.equal(await s.execute('return document.getElementById("f").files[0].name'), 'mine.txt');
      const driven = await processes(/chromedriver|\/chromium/);
      assert.ok(driven.some((p) => /chromedriver/.test(p.cmd)));
      for (const p of driven) assert.notEqual(p.uid, 0, `runs as root: ${p.cmd.slice(0, 120)}`);
    } finally {
      await s.end();
    }
  });
});

describe('the gateway keeps its secrets from the browsers', () => {
  test('a tokens file the browsers\' user could read stops the start, saying how to fix it', async (t) => {
    if (process.getuid?.() !== 0) return t.skip('the gateway switches users only as root');
    const open = join(dir, 'open-tokens');
    writeFileSync(open, `x ${TOKENS.mallory}x 1\n`, { mode: 0o644 });
    await assert.rejects(startGateway(['--auth-token-file', open]), (e: Error) => /exited with 2/.test(e.message) && /can read it: .*chmod 600/.test(e.message));
  });
});

describe('the sandbox is the operator\'s to turn off, never a session\'s', () => {
  test('browsers.sandbox false: warned at start, and Chromium runs with --no-sandbox; as root with no browsers\' user the sandbox cannot be kept: no start', async (t) => {
    if (process.getuid?.() !== 0) return t.skip('the gateway switches users only as root');
    await assert.rejects(startGateway([], { config: { browsers: { user: null } } }), (e: Error) => /exited with 2/.test(e.message) && /browsers\.user is null.*browsers\.sandbox: false/.test(e.message));
    const off = await startGateway([], { config: { browsers: { sandbox: false }, pool: { minWarm: 0 } } });
    try {
      assert.match(off.output(), /"level":"warn".*browsers run WITHOUT their sandbox/);
      const s = await off.client.newSession();
      const cmdlines = (await descendants(off.process.pid!)).map((p) => {
        try {
          return readFileSync(`/proc/${p.pid}/cmdline`, 'utf8');
        } catch {
          return '';
        }
      });
      assert.ok(cmdlines.some((c) => c.includes('--no-sandbox')), 'no browser runs without its sandbox');
      await s.end();
    } finally {
      await off.stop();
    }
  });
});
