// A fleet under a real Selenium Grid 4.48: a hub and two relay nodes, each in front of its own
// wdgate (ports and temporary directories of their own, as two machines would have), configured
// as the README's "Running a fleet". Sessions spread over both; one gateway is upgraded in the
// middle of a stream of sessions (SIGTERM, its drain notice, a new gateway on its port) without
// one failing; the other is killed outright: its sessions fail fast with a W3C error, new ones go
// to the survivor once the Grid has seen it down, and nothing of it is left running.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Client, type Session } from '../helpers/client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { freePort, GRID_JSON, hubToml, relayNodeToml, startGridProcess, type GridProcess } from '../helpers/grid.ts';
import { descendants, eventually, leftoverBrowsers, markedProcesses, startPageServer, stillRunning, type PageServer } from '../helpers/pages.ts';

/** Slots per node, and sessions per gateway. */
const SLOTS = 8;
/** The Grid checks each node's health every 10 s (its minimum); the notice outlasts one check. */
const HEALTH_CHECK_MS = 10_000;
const NOTICE_MS = 13_000;

interface Member {
  name: string;
  port: number;
  nodePort: number;
  tempDir: string;
  gateway: TestGateway;
  node: GridProcess;
  pids: number[];
}

let dir: string;
let hub: GridProcess;
let grid: Client;
let pages: PageServer;
const members: Member[] = [];
let passed = false;

/** A gateway of the fleet on its own port and temporary directory, as its relay node expects it. */
function startMember(port: number, tempDir: string): Promise<TestGateway> {
  return startGateway(['--port', String(port)], {
    shutdownGracePeriod: 120_000,
    env: { ...process.env, TMPDIR: tempDir },
    config: { maxSessions: SLOTS, drainNoticePeriod: NOTICE_MS, pool: { minWarm: 2, maxBrowsers: 1, sessionsPerBrowser: SLOTS, idleTimeout: 60_000 } },
  });
}

/** The Grid's view of each node: availability by node port. */
async function gridNodes(): Promise<Map<number, string>> {
  const status = await fetch(`${grid.url}/status`).then((r) => r.json(), () => null);
  return new Map((status?.value?.nodes ?? []).map((n: { uri: string; availability: string }) => [Number(new URL(n.uri).port), n.availability]));
}

/** Ids of the sessions a gateway runs (the relay's sessions are its local principal's, as ours). */
async function sessionsOn(member: Member): Promise<string[]> {
  return (await member.gateway.client.ok('GET', '/status')).sessions.own.map((s: { id: string }) => s.id);
}

/** A session through the Grid that has loaded a page (a test's first steps), named as Grid clients name them. */
async function startTest(label: string): Promise<Session> {
  const s = await grid.newSession({ browserName: 'chrome', 'se:name': label });
  await s.navigate(pages.page(`<p>${label}</p>`, label));
  assert.equal(await s.get('/title'), label);
  return s;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wdgate-fleet-'));
  // The gateways' temporary directories are in it: their browsers' user passes through it.
  chmodSync(dir, 0o711);
  pages = await startPageServer();
  // The hub starts meanwhile; the relay nodes once their gateways are up (a node registers only
  // with a ready gateway behind it). The JVMs' start is most of this test's time.
  const [hubPort, publish, subscribe] = [await freePort(), await freePort(), await freePort()];
  hub = startGridProcess('hub', hubToml(hubPort, publish, subscribe), dir, 'hub');
  grid = new Client(`http://127.0.0.1:${hubPort}`, GRID_JSON);
  const started: { name: string; port: number; tempDir: string; gateway: TestGateway }[] = [];
  try {
    for (const name of ['a', 'b']) {
      const port = await freePort();
      const tempDir = join(dir, `tmp-${name}`);
      mkdirSync(tempDir);
      started.push({ name, port, tempDir, gateway: await startMember(port, tempDir) });
    }
  } catch (e) {
    await Promise.all(started.map((g) => g.gateway.stop()));
    throw e;
  }
  process.stdout.write(`# hub on ${hubPort}; gateways on ${started.map((g) => `${g.name} ${g.port}`).join(', ')}\n`);
  for (const { name, port, tempDir, gateway } of started) {
    const nodePort = await freePort();
    process.stdout.write(`# node ${name} on ${nodePort}\n`);
    const node = startGridProcess('node', relayNodeToml({ port: nodePort, hub: hubPort, publish, subscribe, gateway: gateway.url, slots: SLOTS, name }), dir, `node-${name}`);
    members.push({ name, port, nodePort, tempDir, gateway, node, pids: [gateway.process.pid!] });
  }
  await eventually(
    async () => {
      const nodes = await gridNodes();
      return members.every((m) => nodes.get(m.nodePort) === 'UP');
    },
    'the Grid did not see both relay nodes up',
    120_000,
  ).catch((e) => {
    throw new Error(`${(e as Error).message}\n${hub.output().slice(-2000)}\n${members.map((m) => m.node.output().slice(-2000)).join('\n')}`);
  });
});

after(async () => {
  // A failure here is the Grid's story as much as ours: its logs go to the test's output.
  if (!passed && hub) {
    for (const [name, log] of [['hub', hub.output()], ...members.map((m) => [`node ${m.name}`, m.node.output()])]) {
      process.stdout.write(`# ${name}:\n${log.slice(-4000).replace(/^/gm, '#   ')}\n`);
    }
  }
  await Promise.all(members.map((m) => m.node.stop()));
  await hub?.stop();
  await Promise.all(members.map((m) => m.gateway.stop()));
  await pages?.close();
  rmSync(dir, { recursive: true, force: true });
  for (const pid of members.flatMap((m) => m.pids)) assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived a gateway');
});

// Longer than test/helpers/timeouts.ts's default: three JVMs, a drain notice and health checks (2-3 minutes on a busy machine).
test('a fleet of two wdgates under one Grid: sessions spread over both; one upgraded mid-run without a failed session; one killed outright', { timeout: 10 * 60_000 }, async () => {
  const [a, b] = members as [Member, Member];

  // 1. Sixteen tests at once: the Grid spreads them over both gateways, eight each.
  const first = await Promise.all(Array.from({ length: 2 * SLOTS }, (_, i) => startTest(`first ${i}`)));
  assert.equal((await sessionsOn(a)).length, SLOTS);
  assert.equal((await sessionsOn(b)).length, SLOTS);
  // Grid's se:* capabilities were taken: the node's stereotype (se:gateway, merged into each
  // request) is in every answer, and each session's history at its gateway bears its se:name.
  const onAFirst = new Set(await sessionsOn(a));
  for (const s of first) assert.equal(s.capabilities['se:gateway'], onAFirst.has(s.id) ? 'a' : 'b');
  // b's tests end, and half of a's: a has room the Grid may still use while it drains.
  const onA = new Set(await sessionsOn(a));
  const running = first.filter((s) => onA.has(s.id)).slice(0, SLOTS / 2);
  const ended = first.filter((s) => !running.includes(s));
  await Promise.all(ended.map((s) => s.delete('')));
  for (const s of ended) {
    const at = onAFirst.has(s.id) ? a : b;
    assert.equal((await at.gateway.client.ok('GET', `/wdgate/sessions/${s.id}`)).name, `first ${first.indexOf(s)}`);
  }

  // 2. Upgrade a: SIGTERM. Short tests keep coming while the Grid has not yet seen it go unready;
  // its drain notice serves those the Grid still sends it, so none fails. Once the Grid has it
  // down, every new one goes to b. a's running tests go on through the Grid and finish.
  const exitedA = new Promise<number | null>((resolve) => a.gateway.process.once('exit', (code) => resolve(code)));
  const signalled = Date.now();
  a.gateway.process.kill('SIGTERM');
  // When the Grid first shows a down (watched apart from the stream: a session may take seconds here).
  let downAfter: number | undefined;
  let watchFailed: unknown;
  const watching = (async () => {
    while ((await gridNodes()).get(a.nodePort) !== 'DOWN') {
      assert.ok(Date.now() - signalled < HEALTH_CHECK_MS + NOTICE_MS, 'the Grid did not see the gateway unready within its notice');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    downAfter = Date.now() - signalled;
  })().catch((e) => void (watchFailed = e));
  const stream: { on: string; afterDown: boolean }[] = [];
  while (downAfter === undefined || stream.filter((x) => x.afterDown).length < 3) {
    if (watchFailed) throw watchFailed;
    const afterDown = downAfter !== undefined;
    const session = await startTest(`during the upgrade ${stream.length}`);
    stream.push({ on: (await sessionsOn(b)).includes(session.id) ? 'b' : 'a', afterDown });
    await session.delete('');
  }
  await watching;
  // Out of the Grid's routing within one health check (and some slack for a loaded machine).
  assert.ok(downAfter! <= HEALTH_CHECK_MS + 3000, `the Grid saw it unready ${downAfter} ms after SIGTERM`);
  assert.deepEqual(stream.filter((x) => x.afterDown).map((x) => x.on), ['b', 'b', 'b'], 'a new session went to the draining gateway');
  for (const s of running) assert.match(await s.get('/title'), /^first /, 'a running test on the upgraded gateway broke');
  await Promise.all(running.map((s) => s.delete('')));
  assert.equal(await exitedA, 0);
  assert.ok(Date.now() - signalled >= NOTICE_MS, 'the gateway left before its notice was over');
  // How many the Grid still sent the draining gateway before it saw it unready (served in its notice).
  const servedInNotice = stream.filter((x) => !x.afterDown && x.on === 'a').length;
  process.stdout.write(`# upgrade: the Grid saw the gateway unready after ${downAfter} ms; ${stream.length} sessions meanwhile, ${servedInNotice} of them on the draining gateway\n`);

  // The new version on the same port: the Grid takes it again.
  a.gateway = await startMember(a.port, a.tempDir);
  a.pids.push(a.gateway.process.pid!);
  await eventually(async () => (await gridNodes()).get(a.nodePort) === 'UP', 'the Grid did not take the upgraded gateway again', 2 * HEALTH_CHECK_MS + 5000);

  // 3. b killed outright, with tests on it: their next command fails at once with a W3C error;
  // new tests go to a once the Grid has seen b down; nothing of b is left running.
  const third = await Promise.all(Array.from({ length: 6 }, (_, i) => startTest(`third ${i}`)));
  const onBNow = new Set(await sessionsOn(b));
  const doomed = third.filter((s) => onBNow.has(s.id));
  assert.ok(doomed.length > 0 && doomed.length < third.length, `the Grid put ${doomed.length} of 6 sessions on b`);
  const tree = await descendants(b.gateway.process.pid!);
  const killed = Date.now();
  b.gateway.process.kill('SIGKILL');
  await b.gateway.stop();
  for (const s of doomed) {
    const asked = Date.now();
    const reply = await s.client.raw('GET', s.path('/title'));
    assert.ok(Date.now() - asked < 5000, `a command of a session of the killed gateway took ${Date.now() - asked} ms`);
    assert.ok(reply.status >= 400 && typeof reply.value?.error === 'string' && typeof reply.value?.message === 'string', `not a W3C error: ${reply.status} ${JSON.stringify(reply.value).slice(0, 300)}`);
  }
  const left = async () => [...(await stillRunning(tree)), ...(await markedProcesses(b.gateway.process.pid!))];
  await eventually(async () => (await left()).length === 0, 'browsers outlived the killed gateway', 10_000);
  await eventually(async () => (await gridNodes()).get(b.nodePort) === 'DOWN', 'the Grid did not see the killed gateway down', HEALTH_CHECK_MS + 5000);
  assert.ok(Date.now() - killed <= HEALTH_CHECK_MS + 5000);
  const survivors = await Promise.all(Array.from({ length: 3 }, (_, i) => startTest(`after the kill ${i}`)));
  const onANow = new Set(await sessionsOn(a));
  for (const s of survivors) assert.ok(onANow.has(s.id), 'a new session went to the killed gateway');
  await Promise.all([...survivors, ...third.filter((s) => !onBNow.has(s.id))].map((s) => s.delete('')));
  passed = true;
});
