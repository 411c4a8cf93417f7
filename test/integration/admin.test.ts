// Running it for a team: the admin API (admin principals only), draining for an upgrade, and the
// liveness probe, against a gateway with tokens.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '../helpers/client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, leftoverBrowsers } from '../helpers/pages.ts';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const DRAIN_SCRIPT = fileURLToPath(new URL('../../scripts/drain.mjs', import.meta.url));

const TOKENS = { ops: 'ops-token-5f1e9a3c7b2d4860', alice: 'alice-token-0a8c6e4f2b1d3957' };

let gw: TestGateway;
let dir: string;
let ops: Client;
let alice: Client;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wdgate-admin-'));
  writeFileSync(join(dir, 'tokens'), `ops ${TOKENS.ops} 5 admin\nalice ${TOKENS.alice} 5\n`);
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ allowOrigins: [] }));
  gw = await startGateway(['--auth-token-file', join(dir, 'tokens'), '--require-auth-on-loopback', '--config', join(dir, 'config.json')]);
  ops = gw.client.withToken(TOKENS.ops);
  alice = gw.client.withToken(TOKENS.alice);
});

after(async () => {
  const pid = gw?.process.pid;
  await gw?.stop();
  rmSync(dir, { recursive: true, force: true });
  if (pid) assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
});

describe('the admin API', () => {
  test('only an admin principal may use it: another gets 403 naming why, and no session of anyone', async () => {
    for (const [method, path] of [
      ['GET', '/wdgate/admin/sessions'],
      ['DELETE', '/wdgate/admin/sessions'],
      ['DELETE', '/wdgate/admin/sessions/x'],
      ['GET', '/wdgate/admin/queue'],
      ['POST', '/wdgate/admin/drain'],
      ['POST', '/wdgate/admin/undrain'],
    ] as const) {
      const reply = await alice.raw(method, path, method === 'POST' ? {} : undefined);
      assert.equal(reply.status, 403, `${method} ${path}`);
      assert.match(reply.value.message, /alice is not an admin/);
    }
    assert.equal((await gw.client.raw('GET', '/wdgate/admin/sessions')).status, 401, 'no token at all');
  });

  test("an admin sees every principal's sessions and ends one of another principal's; its client is told why", async () => {
    const mine = await ops.newSession();
    const hers = await alice.newSession();
    try {
      const listed = (await ops.ok('GET', '/wdgate/admin/sessions')) as Record<string, unknown>[];
      const byId = new Map(listed.map((s) => [s.id, s]));
      assert.equal(byId.get(hers.id)?.principal, 'alice');
      assert.equal(byId.get(mine.id)?.principal, 'ops');
      const entry = byId.get(hers.id)!;
      assert.equal(entry.backend, 'native');
      assert.equal(entry.browserName, 'chrome');
      assert.match(String(entry.browserVersion), /^\d+\./);
      assert.ok(typeof entry.ageMs === 'number' && typeof entry.idleMs === 'number');
      // Alice's own Status still shows only her session.
      assert.deepEqual(
        (await alice.ok('GET', '/status')).sessions.own.map((s: { id: string }) => s.id),
        [hers.id],
      );
      assert.equal(await ops.ok('DELETE', `/wdgate/admin/sessions/${hers.id}`), null);
      const after = await hers.fails('GET', '/title', undefined, 'invalid session id', 404);
      assert.match(after.message, /an admin \(ops\) ended it/);
      assert.equal((await ops.raw('DELETE', '/wdgate/admin/sessions/no-such-session')).value.error, 'invalid session id');
      assert.equal(typeof (await mine.get('/title')), 'string', "the admin's own session goes on");
    } finally {
      await mine.end();
    }
  });

  test('drain: New Session is refused with the message, /status is not ready, GET /ready is 503 saying why, running sessions go on; undrain takes sessions again', async () => {
    const running = await alice.newSession();
    try {
      // The readiness probe needs no token, even here (a kubelet or a Grid relay cannot send one).
      const before = await gw.client.raw('GET', '/ready');
      assert.equal(before.status, 200);
      assert.deepEqual(before.value, { ready: true, message: 'wdgate is ready to create a session' });
      assert.deepEqual(await ops.ok('POST', '/wdgate/admin/drain', { message: 'upgrading to 2.0' }), { draining: true, sessions: 1 });
      const unready = await gw.client.raw('GET', '/ready');
      assert.equal(unready.status, 503);
      assert.equal(unready.value.ready, false);
      assert.match(unready.value.message, /draining.*upgrading to 2\.0/);
      const status = await alice.ok('GET', '/status');
      assert.equal(status.ready, false);
      assert.match(status.message, /draining.*upgrading to 2\.0/);
      const refused = await alice.raw('POST', '/session', { capabilities: {} });
      assert.equal(refused.status, 500);
      assert.equal(refused.value.error, 'session not created');
      assert.match(refused.value.message, /upgrading to 2\.0/);
      assert.equal((await ops.ok('GET', '/health')).draining, true);
      assert.equal(typeof (await running.get('/title')), 'string', 'a running session goes on');
      assert.deepEqual(await ops.ok('POST', '/wdgate/admin/undrain'), { draining: false });
      assert.equal((await alice.ok('GET', '/status')).ready, true);
      assert.equal((await gw.client.raw('GET', '/ready')).status, 200);
      const again = await alice.newSession();
      await again.end();
    } finally {
      await ops.raw('POST', '/wdgate/admin/undrain');
      await running.end();
    }
  });

  test('scripts/drain.mjs (a preStop hook) drains the gateway and returns once its last session has ended', async () => {
    const running = await alice.newSession();
    const script = spawn(process.execPath, [DRAIN_SCRIPT, '--url', gw.url, '--timeout', '60', '--message', 'pod stopping'], {
      env: { ...process.env, WDGATE_ADMIN_TOKEN: TOKENS.ops },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    script.stdout!.on('data', (c) => void (output += c));
    const exited = new Promise<number | null>((resolve) => script.once('exit', (code) => resolve(code)));
    try {
      await eventually(async () => (await gw.client.raw('GET', '/ready')).status === 503, 'the script did not drain the gateway');
      assert.match((await gw.client.raw('GET', '/ready')).value.message, /pod stopping/);
      assert.equal(script.exitCode, null, 'the script returned while a session was running');
      assert.equal(typeof (await running.get('/title')), 'string', 'a running session goes on');
      await running.end();
      assert.equal(await exited, 0, output);
      assert.match(output, /no session left/);
      assert.doesNotMatch(output, new RegExp(TOKENS.ops));
    } finally {
      script.kill();
      await ops.raw('POST', '/wdgate/admin/undrain');
      await running.end().catch(() => {});
    }
  });

  test('the queue, and ending every session at once', async () => {
    const sessions = await Promise.all([alice.newSession(), ops.newSession()]);
    const queue = await ops.ok('GET', '/wdgate/admin/queue');
    assert.equal(queue.queued, 0);
    assert.equal(queue.takingSessions, true);
    assert.equal(queue.active, 2);
    assert.equal(typeof queue.maxSessions, 'number');
    assert.ok(Array.isArray(queue.pool));
    assert.deepEqual(await ops.ok('DELETE', '/wdgate/admin/sessions'), { ended: 2 });
    for (const s of sessions) await s.fails('GET', '/title', undefined, 'invalid session id', 404);
    await eventually(async () => (await ops.ok('GET', '/wdgate/admin/sessions')).length === 0, 'sessions were left');
  });

  test('GET /health answers without touching a browser (as any principal, and without a token)', async () => {
    const health = await alice.ok('GET', '/health');
    assert.equal(health.status, 'ok');
    assert.equal(health.closing, false);
    assert.ok(health.uptimeMs > 0);
    assert.equal((await gw.client.raw('GET', '/health')).status, 200);
    // Only the probes: anything else still needs the token here.
    assert.equal((await gw.client.raw('GET', '/status')).status, 401);
  });
});

describe('SIGHUP reads the tokens and the config again', () => {
  test("a removed token's sessions end, saying why; the others go on; a new token works; the config's allow-lists change; a broken file changes nothing", async () => {
    const carol = gw.client.withToken('carol-token-7d3b1f9e5a2c4086');
    const hers = await alice.newSession();
    const mine = await ops.newSession();
    try {
      writeFileSync(join(dir, 'tokens'), `ops ${TOKENS.ops} 5 admin\ncarol carol-token-7d3b1f9e5a2c4086 2\n`);
      gw.process.kill('SIGHUP');
      await eventually(async () => (await carol.raw('GET', '/status')).status === 200, 'the new token was not taken');
      // Her session ended, and the log says why (her token no longer opens the gateway to ask).
      await eventually(async () => !(await ops.ok('GET', '/wdgate/admin/sessions')).some((s: { id: string }) => s.id === hers.id), "the removed token's session went on");
      assert.match(gw.output(), new RegExp(`"event":"session ended","sessionId":"${hers.id}","principal":"alice","reason":"the token of alice was removed"`));
      assert.equal((await alice.raw('GET', '/status')).status, 401, "the removed token opens nothing");
      assert.equal(typeof (await mine.get('/title')), 'string', 'the other sessions go on');
      // The config file is read again too: an origin allowed now is served.
      const fromDashboard = { headers: { Origin: 'https://ops.example' } };
      assert.equal((await ops.raw('GET', '/status', undefined, fromDashboard)).status, 403);
      writeFileSync(join(dir, 'config.json'), JSON.stringify({ allowOrigins: ['https://ops.example'] }));
      gw.process.kill('SIGHUP');
      await eventually(async () => (await ops.raw('GET', '/status', undefined, fromDashboard)).status === 200, 'the allowed origin was not taken');
      // A token file that cannot be used: logged, and the tokens stay as they were.
      writeFileSync(join(dir, 'tokens'), 'short\n');
      gw.process.kill('SIGHUP');
      await eventually(async () => /"event":"reload failed"/.test(gw.output()), 'the failed reload was not logged');
      assert.equal((await carol.raw('GET', '/status')).status, 200);
      assert.doesNotMatch(gw.output(), /carol-token/);
    } finally {
      await mine.end();
    }
  });
});
