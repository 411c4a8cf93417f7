// The command line as users meet it: help, version, bad options, TLS, the default time zone, and
// a headful session on a machine without a display.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Builder } from 'selenium-webdriver';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { leftoverBrowsers } from '../helpers/pages.ts';

const BIN = fileURLToPath(new URL('../../bin/wdgate.js', import.meta.url));

/**
 * One gateway for the tests that need a plain running one (its start line, --default-time-zone):
 * started by the first of them, stopped at the end with its browsers.
 */
let zonedGateway: Promise<TestGateway> | undefined;
const zoned = () => (zonedGateway ??= startGateway(['--default-time-zone', 'Asia/Tokyo']));
after(async () => {
  const gw = await zonedGateway?.catch(() => undefined);
  if (!gw) return;
  const pid = gw.process.pid!;
  await gw.stop();
  assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
});

function run(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 30_000, env }, (e, stdout, stderr) =>
      resolve({ code: e ? ((e as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

test('--help lists the documented options; --version prints the version', async () => {
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  for (const option of ['--port', '--listen-address', '--headless', '--certificate', '--force-cpu-painting', '--expose-experimental-interfaces', '--debug-process', '--default-time-zone', '--config']) {
    assert.ok(help.stdout.includes(option), `--help misses ${option}`);
  }
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  const version = await run(['--version']);
  assert.equal(version.code, 0);
  assert.equal(version.stdout.trim(), pkg.version);
});

test('unknown options and bad values exit with code 2 and a message', async () => {
  for (const [args, pattern] of [
    [['--no-such-option'], /no-such-option/],
    [['--port', 'eighty'], /port/],
    [['--port', '70000'], /port/],
    [['--default-time-zone', 'Mars/Olympus_Mons'], /time zone/],
    [['--debug-process=kernel'], /renderer/],
    [['--config', '/nonexistent/wdgate.json'], /config file/],
  ] as const) {
    const r = await run([...args]);
    assert.equal(r.code, 2, `${args.join(' ')} exited ${r.code}`);
    assert.match(r.stderr, pattern);
  }
});

test('the start line names the address, the backends and the uWebSockets.js build', async () => {
  const gw = await zoned();
  assert.match(gw.output(), /listening on http:\/\/127\.0\.0\.1:\d+ backends=native,playwright,remote uWebSockets\.js=native/);
  const line = gw.output().split('\n').map((l) => (l.startsWith('{') ? JSON.parse(l) : {})).find((l) => l.event === 'listening');
  const { name, version } = JSON.parse(readFileSync(new URL('../../node_modules/uWebSockets.js/package.json', import.meta.url), 'utf8'));
  assert.equal(line.uWebSocketsBuild, `${name}@${version} uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
});

test('asked for the JavaScript fallback (UWS_USE_FALLBACK), wdgate does not start: exit code 1, saying why', async () => {
  const r = await run(['--port', '0', '--listen-address', '127.0.0.1', '--headless'], { ...process.env, UWS_USE_FALLBACK: '1' });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^wdgate: UWS_USE_FALLBACK=1 asks for uWebSockets\.js's JavaScript fallback, and wdgate has none/);
  assert.match(r.stderr, /Unset UWS_USE_FALLBACK/);
  assert.doesNotMatch(r.stdout, /listening/, 'nothing was started');
});

test('--certificate serves HTTPS', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wdgate-tls-'));
  try {
    const pem = join(dir, 'server.pem');
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    // One PEM file holding the certificate and then the key, as --help documents.
    writeFileSync(pem, readFileSync(join(dir, 'cert.pem'), 'utf8') + readFileSync(join(dir, 'key.pem'), 'utf8'));
    const gw = await startGateway(['--certificate', pem], { scheme: 'https', config: { pool: { minWarm: 0 } } }); // no session: nothing warm
    try {
      assert.match(gw.output(), /listening on https:/);
      const body = await new Promise<string>((resolve, reject) => {
        const req = request(`${gw.url}/status`, { ca: readFileSync(join(dir, 'cert.pem')) }, (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve(text));
        });
        req.on('error', reject);
        req.end();
      });
      assert.equal(JSON.parse(body).value.ready, true);
    } finally {
      await gw.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A self-signed certificate for 127.0.0.1 and its key, in `dir` (cert.pem, key.pem). */
function makeCertificate(dir: string, name = ''): { cert: string; key: string } {
  const cert = join(dir, `${name}cert.pem`);
  const key = join(dir, `${name}key.pem`);
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' });
  return { cert, key };
}

test('a missing, unreadable or mismatched certificate or key is a startup error: exit code 2, naming the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wdgate-tls-'));
  try {
    const one = makeCertificate(dir, 'one-');
    const two = makeCertificate(dir, 'two-');
    const notPem = join(dir, 'not.pem');
    writeFileSync(notPem, 'hello');
    for (const [args, pattern] of [
      [['--certificate', join(dir, 'missing.pem')], /certificate .*missing\.pem cannot be read: ENOENT/],
      [['--certificate', dir], /certificate .* cannot be read: EISDIR/],
      [['--certificate', notPem], /not\.pem holds no PEM certificate/],
      [['--certificate', one.cert], /one-cert\.pem holds no private key/],
      [['--certificate', one.cert, '--certificate-key', join(dir, 'nokey.pem')], /private key .*nokey\.pem cannot be read/],
      [['--certificate', one.cert, '--certificate-key', one.cert], /holds no private key/],
      [['--certificate', one.cert, '--certificate-key', two.key], /two-key\.pem does not belong to the certificate .*one-cert\.pem/],
    ] as const) {
      const r = await run(['--port', '0', ...args]);
      assert.equal(r.code, 2, `${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      assert.match(r.stderr, pattern);
      assert.doesNotMatch(r.stdout, /listening/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an unreadable or malformed token file is a startup error: exit code 2, never echoing a token', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wdgate-tokens-'));
  try {
    const bad = join(dir, 'tokens');
    writeFileSync(bad, 'ci secret-token-0123456789 many\n');
    for (const [args, pattern] of [
      [['--auth-token-file', join(dir, 'missing')], /token file .*missing cannot be read: ENOENT/],
      [['--auth-token-file', bad], /tokens line 1: max-sessions must be a positive integer/],
    ] as const) {
      const r = await run(['--port', '0', ...args]);
      assert.equal(r.code, 2, `${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      assert.match(r.stderr, pattern);
      assert.doesNotMatch(r.stderr, /secret-token/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a real client over HTTPS: selenium-webdriver drives a session through --certificate and --certificate-key', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wdgate-tls-'));
  const { cert, key } = makeCertificate(dir);
  const gw = await startGateway(['--certificate', cert, '--certificate-key', key], { scheme: 'https' });
  try {
    // The client trusts exactly this certificate (no verification switched off).
    const agent = new Agent({ ca: readFileSync(cert), keepAlive: true });
    const driver = await new Builder().usingServer(gw.url).usingHttpAgent(agent).forBrowser('chrome').build();
    try {
      await driver.get('data:text/html,<title>over TLS</title>');
      assert.equal(await driver.getTitle(), 'over TLS');
    } finally {
      await driver.quit();
      agent.destroy();
    }
    // And a client that does not trust it gets no answer at all.
    await assert.rejects(fetch(`${gw.url}/status`));
  } finally {
    await gw.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--default-time-zone applies to every session', async () => {
  const gw = await zoned();
  const s = await gw.client.newSession();
  assert.equal(await s.execute('return Intl.DateTimeFormat().resolvedOptions().timeZone'), 'Asia/Tokyo');
  assert.equal(await s.execute('return new Date(0).getTimezoneOffset()'), -540);
  await s.end();
});

test('a headful session without a display fails and says to use --headless', async () => {
  const env = { ...process.env };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  const gw = await startGateway([], { headless: false, env });
  try {
    const e = await gw.client.fails('POST', '/session', { capabilities: {} }, 'session not created', 500);
    assert.match(e.message, /--headless/);
    // A session that asks for headless itself is still served.
    const s = await gw.client.newSession({ 'goog:chromeOptions': { args: ['--headless=new'] } });
    await s.end();
  } finally {
    await gw.stop();
  }
});
