// The container image, built and run as its users run it: scripts/build-image.sh builds the
// Dockerfile with podman and no registry (the official base it names is made from Debian's
// packages where it is not already here), then the image runs with a published port and a token,
// and a client outside drives a session with selenium-webdriver. It runs as the Kubernetes pod
// runs it (deploy/kubernetes/wdgate.yaml): under the seccomp profile shipped there, without
// capabilities or privilege escalation, on a read-only root with its temporary directory and home
// writable. The browser runs as the image's non-root user inside its own sandbox, SIGTERM drains,
// and the image stays within its size.
//
// What it costs: the first build on a machine 7–8 minutes under load (the base 1–2.5 min, the
// image 5.5 min); podman keeps the base and the layers, so a later run builds only what changed
// (the sources: seconds; package-lock.json: 1.5 min). Under npm test the build runs in the
// background from the start (scripts/test.sh) and this test, last, reads what it said. The image it builds is kept
// (localhost/wdgate:test) for the next run; the image that tag named before goes.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Builder, By, type WebDriver } from 'selenium-webdriver';
import { decodePng } from '../helpers/png.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const IMAGE = 'localhost/wdgate:test';
const BASE = /^FROM (\S+)/m.exec(readFileSync(`${ROOT}Dockerfile`, 'utf8'))![1]!;
/** The size the README states: Debian's three engines, their drivers, ffmpeg and Xvfb are most of it (2.0 GB measured). */
const MAX_IMAGE_BYTES = 2.2e9;
/** The user the Dockerfile names (by number: Kubernetes' runAsNonRoot checks numbers). */
const USER_ID = 10001;
const NAME = `wdgate-image-test-${process.pid}`;
const TOKEN = randomBytes(18).toString('base64url');

async function unavailable(): Promise<string | null> {
  if (process.getuid?.() !== 0) return 'needs root: podman builds and runs the image rootful here';
  const podman = await run('podman', ['--version']).then(() => true, () => false);
  if (!podman) return 'needs podman, buildah and mmdebstrap (bash scripts/setup.sh installs them)';
  // Without the base, scripts/build-image.sh makes it with this machine's Node, which must be the 20 its name says.
  const base = await run('podman', ['image', 'exists', BASE]).then(() => true, () => false);
  if (!base && process.versions.node.split('.')[0] !== '20') return `${BASE} is not in podman's storage, and this machine's Node ${process.versions.node} cannot stand in for Node 20 (pull the image, or run with Node 20)`;
  return null;
}

const podman = async (...args: string[]) => (await run('podman', args, { maxBuffer: 64 * 1024 * 1024 })).stdout.trim();

/** Poll until `check` gives a value, or fail saying what was awaited. */
async function until<T>(what: string, check: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const skip = await unavailable();

describe('the container image', { skip: skip ?? false }, () => {
  let built = '';
  let buildSeconds = 0;
  let url = '';
  let home = '';
  let history = '';
  let pages: Server | undefined;
  let pageUrl = '';
  let driver: WebDriver | undefined;
  let sessionId = '';
  const auth = { authorization: `Bearer ${TOKEN}` };

  // The first build on a machine takes minutes (see above): longer than any one test may.
  before(async () => {
    const started = performance.now();
    // npm test builds it from its start, in the background (scripts/test.sh): what that build said.
    const { WDGATE_IMAGE_BUILD_LOG: log, WDGATE_IMAGE_BUILD_STATUS: status, WDGATE_IMAGE_BUILD_SECONDS: seconds } = process.env;
    if (log !== undefined) {
      const output = readFileSync(log, 'utf8');
      if (status !== '0') throw new Error(`scripts/build-image.sh failed (${status}):\n${output.slice(-4000)}`);
      built = output;
      buildSeconds = Number(seconds);
    } else built = await new Promise<string>((resolve, reject) => {
      const build = spawn('bash', [`${ROOT}scripts/build-image.sh`, '--tag', IMAGE], { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      build.stdout.on('data', (c) => (output += c));
      build.stderr.on('data', (c) => (output += c));
      build.once('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`scripts/build-image.sh failed (${code}):\n${output.slice(-4000)}`))));
    });
    if (log === undefined) buildSeconds = (performance.now() - started) / 1000;
    // The user's home, with the history of ended sessions, kept outside the container (as the
    // pod's volume): the image's user must own it.
    home = mkdtempSync(join(tmpdir(), 'wdgate-image-home-'));
    history = join(home, '.cache/wdgate/history');
    mkdirSync(history, { recursive: true });
    for (const dir of [home, join(home, '.cache'), join(home, '.cache/wdgate'), history]) chownSync(dir, USER_ID, USER_ID);
    // The token reaches the container from this environment (--env NAME: never on a command line).
    await run(
      'podman',
      [
        'run', '--detach', '--name', NAME, '--env', 'WDGATE_TOKEN', '--publish', '127.0.0.1::8000',
        // The pod's securityContext: its seccomp profile, no capabilities, no privilege escalation, a read-only root.
        '--security-opt', `seccomp=${ROOT}deploy/kubernetes/seccomp/chromium.json`, '--cap-drop', 'ALL', '--security-opt', 'no-new-privileges',
        '--read-only', '--tmpfs', '/tmp:rw,exec,mode=1777', '--volume', `${home}:/home/wdgate`,
        IMAGE, '--shutdown-grace-period', '120000',
      ],
      { env: { ...process.env, WDGATE_TOKEN: TOKEN } },
    );
    url = `http://${await podman('port', NAME, '8000/tcp')}`;
    await until('the gateway in the container to answer GET /health', async () => ((await fetch(`${url}/health`)).ok ? true : undefined));
    // A page the test serves where the container reaches this machine: host.containers.internal
    // is the podman network's gateway address.
    const gateway = await podman('network', 'inspect', 'podman', '--format', '{{range .Subnets}}{{.Gateway}}{{end}}');
    pages = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>from the host</title><h1 id="greeting" style="background: rgb(0, 0, 255); color: white; height: 200px">Hello from the host</h1>');
    });
    await new Promise<void>((resolve) => pages!.listen(0, gateway, resolve));
    const address = pages.address();
    pageUrl = `http://host.containers.internal:${typeof address === 'object' && address ? address.port : 0}/`;
  }, { timeout: 20 * 60_000 });

  after(async () => {
    await driver?.quit().catch(() => {});
    await run('podman', ['rm', '--force', '--time', '0', NAME]).catch(() => {});
    pages?.closeAllConnections();
    await new Promise((resolve) => (pages ? pages.close(resolve) : resolve(undefined)));
    if (home) rmSync(home, { recursive: true, force: true });
  });

  test(`FROM ${BASE}, built with no registry; a non-root user by number; within ${MAX_IMAGE_BYTES / 1e9} GB`, async (t) => {
    const stand = (await podman('image', 'inspect', '--format', '{{index .Labels "wdgate.stand-in"}}', BASE)) === 'true';
    t.diagnostic(`build: ${buildSeconds.toFixed(0)} s; base: ${stand ? "the stand-in made from Debian's packages" : 'the official image'}`);
    assert.match(built, /Successfully tagged localhost\/wdgate:test/);
    const [user, size] = (await podman('image', 'inspect', '--format', '{{.Config.User}} {{.Size}}', IMAGE)).split(' ');
    assert.equal(user, String(USER_ID));
    t.diagnostic(`image: ${(Number(size) / 1e6).toFixed(0)} MB`);
    assert.ok(Number(size) <= MAX_IMAGE_BYTES, `the image is ${size} bytes, more than the ${MAX_IMAGE_BYTES} the README states`);
    // Node 20 from the base, uWebSockets.js's native build for it.
    const logs = await podman('logs', NAME);
    assert.match(logs, /wdgate listening on http:\/\/0\.0\.0\.0:8000 backends=native,playwright,remote uWebSockets\.js=native headless/);
  });

  test('from outside, only the probes answer without the token; with it, the gateway does', async () => {
    // The client is not on the container's loopback (the published port arrives from the bridge).
    const refused = await fetch(`${url}/status`);
    assert.equal(refused.status, 401);
    assert.match((await refused.json()).value.message, /a token is required/);
    assert.equal((await fetch(`${url}/health`)).status, 200);
    const status = await fetch(`${url}/status`, { headers: auth });
    assert.equal(status.status, 200);
    assert.equal((await status.json()).value.ready, true);
    // The image's HEALTHCHECK passes.
    await podman('healthcheck', 'run', NAME);
  });

  test("selenium-webdriver drives a session: a page this machine serves, an element found, a screenshot", async () => {
    const [host, port] = url.slice('http://'.length).split(':');
    driver = await new Builder().usingServer(`http://test:${TOKEN}@${host}:${port}`).forBrowser('chrome').build();
    sessionId = (await driver.getSession()).getId();
    await driver.get(pageUrl);
    assert.equal(await driver.getTitle(), 'from the host');
    const greeting = await driver.findElement(By.id('greeting'));
    assert.equal(await greeting.getText(), 'Hello from the host');
    const shot = decodePng(await greeting.takeScreenshot());
    assert.ok(shot.width > 100 && shot.height === 200, `${shot.width}×${shot.height}`);
    assert.deepEqual(shot.pixel(2, 2).slice(0, 3), [0, 0, 255]);
  });

  test("the browser runs as the image's user inside Chromium's own sandbox (renderers in namespaces of their own, under seccomp)", async () => {
    const rows = (await podman('top', NAME, 'hpid', 'user', 'args'))
      .split('\n')
      .slice(1)
      // A process in one of the sandbox's own PID namespaces may show no host PID ("?").
      .map((line) => /^\s*(\d+|\?)\s+(\S+)\s+(.*)$/.exec(line)!)
      .map(([, pid, user, args]) => ({ pid: pid!, user: user!, args: args! }));
    assert.deepEqual([...new Set(rows.map((r) => r.user))], ['wdgate'], 'every process of the container is the image user');
    const ns = (pid: string, kind: string) => readlinkSync(`/proc/${pid}/ns/${kind}`);
    const gatewayPid = rows.find((r) => r.args.includes('/opt/wdgate/bin/wdgate.js') && r.args.startsWith('node'))!.pid;
    const chromium = rows.filter((r) => r.args.startsWith('/usr/lib/chromium/chromium'));
    assert.ok(chromium.length > 0);
    for (const r of chromium) assert.doesNotMatch(r.args, /--no-sandbox/);
    const renderers = chromium.filter((r) => r.args.includes('--type=renderer') && r.pid !== '?');
    assert.ok(renderers.length > 0, 'a renderer runs the page');
    for (const r of renderers) {
      // A renderer that ended meanwhile has no /proc entry left: skip it.
      if (!existsSync(`/proc/${r.pid}`)) continue;
      for (const kind of ['user', 'pid', 'net']) assert.notEqual(ns(r.pid, kind), ns(gatewayPid, kind), `a renderer shares the gateway's ${kind} namespace`);
      assert.match(readFileSync(`/proc/${r.pid}/status`, 'utf8'), /^Seccomp:\s+2$/m, 'a renderer is not under a seccomp-bpf filter');
    }
  });

  test('SIGTERM drains: not ready at once, no new session, the running one goes on; the container ends with it, its history kept', async () => {
    assert.ok(driver);
    await podman('kill', '--signal', 'TERM', NAME);
    await until('GET /ready to answer 503', async () => ((await fetch(`${url}/ready`)).status === 503 ? true : undefined), 30_000);
    const refused = await fetch(`${url}/session`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ capabilities: { alwaysMatch: { browserName: 'chrome' } } }),
    });
    assert.equal(refused.status, 500);
    assert.match((await refused.json()).value.message, /shutting down/);
    // The running session is served as before.
    await driver.navigate().refresh();
    assert.equal(await driver.findElement(By.id('greeting')).getText(), 'Hello from the host');
    assert.equal(await podman('inspect', '--format', '{{.State.Running}}', NAME), 'true');
    await driver.quit();
    driver = undefined;
    assert.equal(await podman('wait', NAME), '0');
    // It ended because its last session did (0 left), long before the 120 s grace period.
    const shutdown = (await podman('logs', NAME))
      .split('\n')
      .filter((line) => line.includes('"event":"shutdown"'))
      .map((line) => JSON.parse(line));
    assert.equal(shutdown.at(-1).sessions, 0);
    assert.ok(existsSync(join(history, sessionId, 'entry.json')), 'the ended session is in the mounted history directory');
  });
});
