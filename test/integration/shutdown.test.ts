// Nothing outlives the gateway: SIGTERM and SIGINT with live sessions end every browser and remove
// every profile (SIGTERM after its grace period, which the test gateways set to 0 unless a test
// asks); a gateway killed outright takes its browsers and drivers with it (their parent-death
// signal), and the files it could not remove are swept at the next start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startGateway } from '../helpers/gateway.ts';
import { descendants, eventually, leftoverBrowsers, markedProcesses, stillRunning, type ProcessEntry } from '../helpers/pages.ts';
import { makeZip } from '../helpers/zip.ts';

const profilesOf = (pid: number) => readdirSync(tmpdir()).filter((n) => n.startsWith(`wdgate-profile-${pid}-`));
const sessionDirsOf = (pid: number) => readdirSync(tmpdir()).filter((n) => n.startsWith(`wdgate-session-${pid}-`));

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} with live sessions ends every browser and profile`, async () => {
    const gw = await startGateway();
    const pid = gw.process.pid!;
    const exited = new Promise<number | null>((r) => gw.process.once('exit', (code) => r(code)));
    try {
      await Promise.all([gw.client.newSession(), gw.client.newSession()]);
      assert.ok((await leftoverBrowsers(pid)) > 0, 'the sessions should have browsers');
      assert.ok(profilesOf(pid).length >= 1);
      const signalled = Date.now();
      gw.process.kill(signal);
      assert.equal(await exited, 0);
      // The security issue's bound: every browser ended within 5 s of the signal.
      assert.ok(Date.now() - signalled < 5000, `the gateway took ${Date.now() - signalled} ms to end its sessions`);
    } finally {
      await gw.stop(); // a failed assertion must not leave the gateway running
    }
    assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
    assert.deepEqual(profilesOf(pid), []);
  });
}

test('with a browser per session and nothing warm, Delete Session ends its browser and profile', async () => {
  const gw = await startGateway([], { config: { pool: { minWarm: 0, sessionsPerBrowser: 1 } } });
  const pid = gw.process.pid!;
  try {
    const s = await gw.client.newSession();
    assert.equal(profilesOf(pid).length, 1);
    await s.end();
    // The answer comes first; the browser and profile go right after it.
    await eventually(async () => (await leftoverBrowsers(pid)) === 0 && profilesOf(pid).length === 0, 'browser or profile left after Delete Session');
  } finally {
    await gw.stop();
  }
});

test("nothing is left in the gateway's temporary directory: not a profile, not the browser's own files", async () => {
  // Chromium puts its own files (its process-singleton socket directory) in TMPDIR and leaves
  // them when it does not exit cleanly; they go with the profile. The directory's name is long:
  // a Unix socket's path is short (108 bytes), and a browser must start all the same.
  const temp = mkdtempSync(join(tmpdir(), 'wdgate-test-tmp-long-directory-name-'));
  // tsx, which runs the gateway here, keeps its compile cache there (tsx-<uid>): not the gateway's.
  const left = () => readdirSync(temp).filter((name) => !/^tsx-\d+$/.test(name));
  const gw = await startGateway([], { env: { ...process.env, TMPDIR: temp }, config: { pool: { minWarm: 0, sessionsPerBrowser: 1 } } });
  const pid = gw.process.pid!;
  // The browsers' launchers (parent-death signal) live as long as the gateway, not a session.
  const launchers = `wdgate-exec-${pid}`;
  const leftBySessions = () => left().filter((name) => name !== launchers);
  try {
    assert.ok(left().includes(launchers));
    const s = await gw.client.newSession();
    assert.notDeepEqual(leftBySessions(), []);
    await s.end();
    await eventually(async () => (await leftoverBrowsers(pid)) === 0 && leftBySessions().length === 0, 'something was left after Delete Session');
    await Promise.all([gw.client.newSession(), gw.client.newSession()]);
  } finally {
    await gw.stop();
  }
  assert.equal(await leftoverBrowsers(pid), 0);
  assert.deepEqual(left(), [], 'left after SIGTERM');
  rmSync(temp, { recursive: true, force: true });
});

test('a gateway killed with SIGKILL takes every browser and driver with it, on every engine; the next start sweeps its files', async () => {
  // Chromium and Firefox native, Playwright (its Chromium: its Firefox is launched the same way),
  // and the drivers the remote backend manages (chromedriver with its Chromium, WebKitWebDriver
  // with MiniBrowser and Xvfb).
  const engines: Record<string, Record<string, unknown>> = {
    'native chromium': {},
    'native firefox': { browserName: 'firefox', 'wdgate:options': { backend: 'native' } },
    'playwright chromium': { 'wdgate:options': { backend: 'playwright' } },
    chromedriver: { 'wdgate:options': { backend: 'remote' } },
    webkit: { browserName: 'webkit' },
  };
  const first = await startGateway();
  const pid = first.process.pid!;
  let tree: ProcessEntry[] = [];
  try {
    const sessions = await Promise.all(Object.values(engines).map((caps) => first.client.newSession(caps)));
    // A page in each, so that each browser runs its page processes too.
    await Promise.all(sessions.map((s) => s.navigate('data:text/html,<p>alive</p>')));
    // An upload gives a session a temporary directory too.
    await sessions[0]!.post('/se/file', { file: makeZip([{ name: 'a.txt', data: Buffer.from('a') }]).toString('base64') });
    tree = await descendants(pid);
    for (const name of ['chromium', 'firefox-esr', 'chromedriver', 'WebKitWebDriver', 'MiniBrowser', 'Xvfb']) {
      assert.ok(tree.some((p) => p.name.startsWith(name.slice(0, 15))), `no ${name} among the gateway's processes: ${tree.map((p) => p.name).join(', ')}`);
    }
  } finally {
    first.process.kill('SIGKILL');
    await first.stop();
  }
  // Every browser and driver ends with it (their parent-death signal), in moments, not at the
  // next start: what was in its process tree, and what left the tree (a crash handler forks twice)
  // but carries its mark or its profile.
  const left = async () => [...(await stillRunning(tree)), ...(await markedProcesses(pid))];
  await eventually(async () => (await left()).length === 0 && (await leftoverBrowsers(pid)) === 0, 'processes outlived the killed gateway', 10_000).catch(async (e) => {
    throw new Error(`${(e as Error).message}: ${(await left()).map((p) => `${p.name} (${p.pid})`).join(', ')}; with its profile: ${await leftoverBrowsers(pid)}`);
  });
  // Its files cannot go with it: the next start sweeps them.
  assert.ok(profilesOf(pid).length > 0, 'the killed gateway left no profile');
  assert.equal(sessionDirsOf(pid).length, 1);
  const second = await startGateway();
  try {
    assert.deepEqual(profilesOf(pid), []);
    assert.deepEqual(sessionDirsOf(pid), []);
    assert.deepEqual(readdirSync(tmpdir()).filter((n) => n.startsWith(`wdgate-exec-${pid}`) || n.startsWith(`wdgate-driver-${pid}-`) || n.startsWith(`wdgate-display-${pid}-`)), []);
  } finally {
    await second.stop();
  }
});

/** The gateway's log lines of an event, parsed. */
function logged(output: string, event: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.event === event);
}

test('SIGTERM with a grace period: no new session, running ones go on; the gateway ends once the last one does', async () => {
  const gw = await startGateway([], { shutdownGracePeriod: 60_000 });
  const pid = gw.process.pid!;
  const exited = new Promise<number | null>((r) => gw.process.once('exit', (code) => r(code)));
  try {
    const running = await gw.client.newSession();
    gw.process.kill('SIGTERM');
    await eventually(async () => (await gw.client.ok('GET', '/status')).ready === false, 'Status stayed ready');
    assert.match((await gw.client.ok('GET', '/status')).message, /shutting down/);
    const refused = await gw.client.raw('POST', '/session', { capabilities: {} });
    assert.equal(refused.value.error, 'session not created');
    assert.match(refused.value.message, /shutting down/);
    assert.equal(typeof (await running.get('/title')), 'string', 'a running session goes on');
    await running.end();
    assert.equal(await exited, 0);
    // It ended because no session was left, not at the deadline.
    assert.deepEqual(
      logged(gw.output(), 'shutdown').map((line) => line.sessions),
      [1, 0],
    );
  } finally {
    await gw.stop();
  }
  assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
});

test('SIGTERM: sessions still running at the end of the grace period are ended, with every browser', async () => {
  const gw = await startGateway([], { shutdownGracePeriod: 500 });
  const pid = gw.process.pid!;
  const exited = new Promise<number | null>((r) => gw.process.once('exit', (code) => r(code)));
  try {
    await gw.client.newSession();
    gw.process.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.deepEqual(
      logged(gw.output(), 'shutdown').map((line) => line.sessions),
      [1, 1],
    );
  } finally {
    await gw.stop();
  }
  assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
  assert.deepEqual(profilesOf(pid), []);
});

test('SIGTERM with a drain notice: GET /ready is 503 at once, New Session is still served until the notice is over, then refused; the gateway ends once the last session does', async () => {
  const notice = 4000;
  const gw = await startGateway([], { shutdownGracePeriod: 60_000, config: { drainNoticePeriod: notice } });
  const pid = gw.process.pid!;
  const exited = new Promise<number | null>((r) => gw.process.once('exit', (code) => r(code)));
  try {
    const running = await gw.client.newSession();
    assert.equal((await gw.client.raw('GET', '/ready')).status, 200);
    const signalled = Date.now();
    gw.process.kill('SIGTERM');
    await eventually(async () => (await gw.client.raw('GET', '/ready')).status === 503, 'GET /ready stayed 200');
    assert.match((await gw.client.raw('GET', '/ready')).value.message, /shutting down/);
    // A router that has not looked yet still gets its sessions made.
    const late = await gw.client.newSession();
    assert.ok(Date.now() - signalled < notice, 'the machine was too slow to ask within the notice');
    await late.end();
    // Asked again until refused; what is still made meanwhile ends at once.
    await eventually(
      async () => {
        const reply = await gw.client.raw('POST', '/session', { capabilities: {} });
        if (reply.status === 200) await gw.client.raw('DELETE', `/session/${reply.value.sessionId}`);
        return reply.value.error === 'session not created';
      },
      'New Session was still served after the notice',
      notice + 5000,
    );
    assert.ok(Date.now() - signalled >= notice, 'refused before the notice was over');
    assert.equal(typeof (await running.get('/title')), 'string', 'a running session goes on');
    await running.end();
    const ended = Date.now();
    assert.equal(await exited, 0);
    // It ended because no session was left, not at the deadline.
    assert.ok(Date.now() - ended < 20_000, `the gateway took ${Date.now() - ended} ms to end after its last session`);
  } finally {
    await gw.stop();
  }
  assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
});

test('SIGTERM with a drain notice and no session: the gateway stays for the notice (routers may still send), then ends', async () => {
  const notice = 1500;
  const gw = await startGateway([], { shutdownGracePeriod: 60_000, config: { drainNoticePeriod: notice } });
  const exited = new Promise<number | null>((r) => gw.process.once('exit', (code) => r(code)));
  try {
    const signalled = Date.now();
    gw.process.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.ok(Date.now() - signalled >= notice, `it ended ${Date.now() - signalled} ms after SIGTERM, before its notice was over`);
  } finally {
    await gw.stop();
  }
});
