// deploy/kubernetes/ against the real counterparts that can run here (no Kubernetes can): two
// gateways as two pods run them (the manifest's config.json, one shared history directory, the
// tokens of a fleet with principals), each behind a relay node made from the manifest's
// relay.toml, a hub from its hub.toml (the Selenium Grid 4.48 jar), and Debian's Prometheus
// scraping the gateways as the PodMonitor says. Asked what KEDA asks (the ScaledObject's
// Prometheus query; the GraphQL query of KEDA 2.20.1's selenium-grid scaler, its arithmetic in
// test/helpers/keda.ts), they give the replicas the manifests expect. A client's principal reaches
// the gateway through the hub. One history: a test's verdict sees its runs on both gateways, and
// a gateway scaled down leaves its sessions visible to a new replica. A pod stopping as the
// manifest's preStop hooks stop it: its node DRAINING in the Grid, kept past the hub's purge with
// its running session, while the node of a gateway that died is purged.
// Changed from the manifests, for a shared test machine: free ports on loopback instead of the
// pods' addresses, 2 slots a gateway instead of 8 (the formula's divisor with them), Prometheus
// scraping every second instead of 15 (targets given as the Operator's service discovery would
// label them), a 2 s drain notice, the hub purging every 5 s instead of 30.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, Session, type Reply } from '../helpers/client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { freePort, GRID_JSON, startGridProcess, type GridProcess } from '../helpers/grid.ts';
import { askGridLikeKeda, replicasByFormula, seleniumGridMetric } from '../helpers/keda.ts';
import { find, kustomize, type Manifest } from '../helpers/manifests.ts';
import { eventually, leftoverBrowsers, startPageServer, type PageServer } from '../helpers/pages.ts';
import { startPrometheus, type RunningPrometheus } from '../helpers/prometheus.ts';
import { unzipSync } from 'fflate';
import { proofText } from '../../src/server/relay.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const docs = kustomize('base');
const NAMESPACE = find(docs, 'Deployment', 'wdgate').metadata.namespace as string;
const configMap = find(docs, 'ConfigMap', 'wdgate-config').data;
const manifestConfig = JSON.parse(configMap['config.json']);
const podSpec = find(docs, 'Deployment', 'wdgate').spec.template.spec;
const nodePreStop: string = podSpec.containers.find((c: Manifest) => c.name === 'node').lifecycle.preStop.exec.command.at(-1);
const gatewayPreStop: string[] = podSpec.containers.find((c: Manifest) => c.name === 'wdgate').lifecycle.preStop.exec.command;
const scaled = find(docs, 'ScaledObject', 'wdgate').spec;
const trigger = (name: string) => scaled.triggers.find((t: Manifest) => t.name === name);
const monitor = find(docs, 'PodMonitor', 'wdgate');

const SLOTS = 2;
const TOKENS = { grid: 'relay-token-of-the-fleet-0001', alice: 'alice-token-of-the-fleet-0001', bob: 'bob-token-of-the-fleet-00001', ops: 'ops-token-of-the-fleet-00001' };

/** A manifest's text with each of its values swapped for the test's, every one of which must be there. */
function swap(text: string, pairs: [string, string][]): string {
  for (const [from, to] of pairs) {
    assert.ok(text.includes(from), `the manifest no longer has ${from}`);
    text = text.replaceAll(from, to);
  }
  return text;
}

/** A client's proof of its principal (README, "Kubernetes"): HMAC-SHA256 keyed by SHA-256 of its token. */
function proof(name: keyof typeof TOKENS, token = TOKENS[name]) {
  const issued = Math.floor(Date.now() / 1000);
  const nonce = randomBytes(12).toString('base64url');
  return { name, issued, nonce, proof: createHmac('sha256', createHash('sha256').update(token).digest()).update(proofText(name, issued, nonce)).digest('hex') };
}

interface Pod {
  name: string;
  gateway: TestGateway;
  metricsPort: number;
  node: GridProcess;
  nodePort: number;
}

let dir: string;
let history: string;
let pages: PageServer;
let hub: GridProcess;
let grid: Client;
let prometheus: RunningPrometheus;
const pods: Pod[] = [];
let passed = false;
const pids: number[] = [];
/** The gateways' settings (a new replica's too). */
let fleetConfig: Record<string, unknown>;

/** The hub's nodes: availability by node port. */
async function gridNodes(): Promise<Map<number, string>> {
  const status = await fetch(`${grid.url}/status`).then((r) => r.json(), () => null);
  return new Map((status?.value?.nodes ?? []).map((n: { uri: string; availability: string }) => [Number(new URL(n.uri).port), n.availability]));
}

/** Sessions a gateway runs, as its admin sees them: id → principal. */
async function activeOn(pod: Pod): Promise<Map<string, string>> {
  const listed = await pod.gateway.client.withToken(TOKENS.ops).ok('GET', '/wdgate/sessions?state=active');
  return new Map(listed.sessions.map((s: { id: string; principal: string }) => [s.id, s.principal]));
}

const newGridSession = (caps: Record<string, unknown> = {}): Promise<Reply> => grid.raw('POST', '/session', { capabilities: { alwaysMatch: { browserName: 'chrome', ...caps } } });

async function gridSession(caps: Record<string, unknown> = {}): Promise<Session> {
  const reply = await newGridSession(caps);
  assert.equal(reply.status, 200, JSON.stringify(reply.value).slice(0, 500));
  return new Session(grid, reply.value.sessionId, reply.value.capabilities);
}

/** The ScaledObject's Prometheus query, as KEDA's prometheus scaler reads its answer (one sample). */
async function gatewaysMetric(): Promise<number | undefined> {
  const result = await prometheus.query(trigger('gateways').metadata.query);
  assert.ok(result.length <= 1, 'KEDA takes a query of one sample');
  return result[0]?.value;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wdgate-kubernetes-'));
  history = join(dir, 'history');
  pages = await startPageServer();
  const config = (fleetConfig = {
    ...manifestConfig,
    metricsPort: 0,
    maxSessions: SLOTS,
    drainNoticePeriod: 2000,
    pool: { minWarm: 1, maxBrowsers: 1, sessionsPerBrowser: SLOTS, idleTimeout: 60_000 },
    history: { ...manifestConfig.history, directory: null },
    // The relay authenticates (its URL's user:token@, once challenged); the probes need no token.
    requireAuthOnLoopback: true,
    authTokens: [
      { name: 'grid', token: TOKENS.grid, maxSessions: SLOTS, relay: true },
      { name: 'alice', token: TOKENS.alice, maxSessions: 1 },
      { name: 'bob', token: TOKENS.bob, maxSessions: 2 * SLOTS },
      { name: 'ops', token: TOKENS.ops, maxSessions: 1, admin: true },
    ],
  });
  // The gateways first, one after the other (the JVMs' start would slow theirs on a busy machine).
  const gateways: TestGateway[] = [];
  for (const _ of ['a', 'b']) gateways.push(await startGateway([], { config, historyDirectory: history }));
  const [hubPort, publish, subscribe] = [await freePort(), await freePort(), await freePort()];
  const hubToml = swap(find(docs, 'ConfigMap', 'selenium-hub-config').data['hub.toml'], [
    ['tcp://*:4442', `tcp://127.0.0.1:${publish}`],
    ['tcp://*:4443', `tcp://127.0.0.1:${subscribe}`],
    ['purge-nodes-interval = 30', 'purge-nodes-interval = 5'],
  ]);
  hub = startGridProcess('hub', `[server]\nhost = "127.0.0.1"\nport = ${hubPort}\n\n${hubToml}`, dir, 'hub');
  grid = new Client(`http://127.0.0.1:${hubPort}`, GRID_JSON);
  for (const [i, gateway] of gateways.entries()) {
    pids.push(gateway.process.pid!);
    const name = `wdgate-${'ab'[i]}`;
    const metricsPort = Number(/ metrics=http:\/\/[^\s]*:(\d+)\/metrics/.exec(gateway.output())![1]);
    const nodePort = await freePort();
    const relayToml = swap(configMap['relay.toml'], [
      ['tcp://selenium-hub:4442', `tcp://127.0.0.1:${publish}`],
      ['tcp://selenium-hub:4443', `tcp://127.0.0.1:${subscribe}`],
      ['http://selenium-hub:4444', grid.url],
      ['max-sessions = 8', `max-sessions = ${SLOTS}`],
      ['configs = ["8"', `configs = ["${SLOTS}"`],
      ['url = "http://127.0.0.1:8000"', `url = "http://grid:${TOKENS.grid}@127.0.0.1:${gateway.port}"`],
    ]);
    const node = startGridProcess('node', `[server]\nhost = "127.0.0.1"\nport = ${nodePort}\n\n${relayToml}`, dir, name);
    pods.push({ name, gateway, metricsPort, node, nodePort });
  }
  // Prometheus as the Prometheus Operator configures it from the PodMonitor: its job's name, the
  // endpoint's path, and each target labelled with its namespace, pod, container and endpoint.
  const [endpoint] = monitor.spec.podMetricsEndpoints;
  const promDir = join(dir, 'prometheus');
  mkdirSync(promDir);
  prometheus = await startPrometheus(
    [
      'global:',
      '  scrape_interval: 1s',
      'scrape_configs:',
      `  - job_name: podMonitor/${NAMESPACE}/${monitor.metadata.name}/0`,
      `    metrics_path: ${endpoint.path}`,
      '    static_configs:',
      ...pods.flatMap((pod) => [
        `      - targets: ["127.0.0.1:${pod.metricsPort}"]`,
        `        labels: { namespace: ${NAMESPACE}, pod: ${pod.name}, container: wdgate, endpoint: ${endpoint.port} }`,
      ]),
      '',
    ].join('\n'),
    promDir,
  );
  await eventually(async () => [...(await gridNodes()).values()].filter((a) => a === 'UP').length === 2, 'the hub did not see both relay nodes up', 120_000).catch((e) => {
    throw new Error(`${(e as Error).message}\n${hub.output().slice(-2000)}\n${pods.map((p) => p.node.output().slice(-2000)).join('\n')}`);
  });
});

after(async () => {
  if (!passed && hub) {
    for (const [name, log] of [['hub', hub.output()], ...pods.map((p) => [p.name, p.node.output()]), ['prometheus', prometheus?.output() ?? '']]) {
      process.stdout.write(`# ${name}:\n${log.slice(-3000).replace(/^/gm, '#   ')}\n`);
    }
  }
  await prometheus?.stop();
  await Promise.all(pods.map((p) => p.node.stop()));
  await hub?.stop();
  await Promise.all(pods.map((p) => p.gateway.stop()));
  await pages?.close();
  rmSync(dir, { recursive: true, force: true });
  for (const pid of pids) assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived a gateway');
});

describe('deploy/kubernetes with a real Prometheus and a real Grid', { timeout: 10 * 60_000 }, () => {
  test("Prometheus, scraping as the PodMonitor says, answers the ScaledObject's query with the sessions running and waiting at the gateways", async () => {
    const [a, b] = pods as [Pod, Pod];
    // Both targets scraped (up), the fleet idle: the query's one sample is 0.
    await eventually(async () => (await prometheus.query(`up{namespace="${NAMESPACE}"}`)).filter((s) => s.value === 1).length === 2 && (await gatewaysMetric()) === 0, 'Prometheus did not scrape both gateways', 30_000);
    // Clients of the gateways themselves (as bob): a's slots both busy and one waiting, one on b.
    const bobA = a.gateway.client.withToken(TOKENS.bob);
    const bobB = b.gateway.client.withToken(TOKENS.bob);
    const opened: Session[] = [];
    let waiting: Promise<Reply> | undefined;
    let last: number | undefined;
    const comesTo = (value: number, what: string) => eventually(async () => (last = await gatewaysMetric()) === value, `the query did not come to ${value} (${what}): ${last}`, 30_000);
    try {
      opened.push(await bobA.newSession(), await bobA.newSession());
      waiting = bobA.raw('POST', '/session', { capabilities: {} });
      opened.push(await bobB.newSession());
      await comesTo(4, '2 busy and 1 waiting on a, 1 busy on b');
      // The sessions end: so does the count.
      await Promise.all(opened.splice(0).map((s) => s.delete('')));
      const late = await waiting;
      waiting = undefined;
      assert.equal(late.status, 200);
      opened.push(new Session(bobA, late.value.sessionId, late.value.capabilities));
      await comesTo(1, 'the waiting one running alone');
      await Promise.all(opened.splice(0).map((s) => s.delete('')));
      await comesTo(0, 'no session');
    } finally {
      const late = await waiting;
      if (late?.status === 200) opened.push(new Session(bobA, late.value.sessionId, late.value.capabilities));
      await Promise.all(opened.map((s) => s.delete('')));
    }
  });

  test("KEDA's selenium-grid scaler asks the real hub: with both gateways' slots busy and 3 sessions in the Grid's queue, the formula asks for 4 gateways (KEDA's Grid metric alone: 6)", async () => {
    const running = await Promise.all(Array.from({ length: 2 * SLOTS }, () => gridSession()));
    for (const pod of pods) assert.equal((await activeOn(pod)).size, SLOTS);
    const queued = Array.from({ length: 3 }, () => newGridSession());
    try {
      let answer = await askGridLikeKeda(`${grid.url}/graphql`);
      await eventually(async () => (answer = await askGridLikeKeda(`${grid.url}/graphql`)).data.sessionsInfo.sessionQueueRequests.length === 3, 'the Grid did not queue 3 requests', 30_000);
      const withSlots = (t: Manifest) => ({ ...t.metadata, nodeMaxSessions: String(SLOTS) });
      const gridMetric = seleniumGridMetric(answer, withSlots(trigger('grid')));
      const sessionsMetric = seleniumGridMetric(answer, withSlots(trigger('gridSessions')));
      // 4 running sessions; 3 requests that no free slot takes: 2 new nodes of 2 slots.
      assert.deepEqual(gridMetric, { newNodes: 2, onGoing: 4, metric: 6 });
      // The running sessions alone: no request asks for its browserName.
      assert.deepEqual(sessionsMetric, { newNodes: 0, onGoing: 4, metric: 4 });
      await eventually(async () => (await gatewaysMetric()) === 4, "Prometheus did not count the Grid's 4 sessions at the gateways", 30_000);
      const formula = (scaled.advanced.scalingModifiers.formula as string).replace(`/ ${manifestConfig.maxSessions}`, `/ ${SLOTS}`);
      const { value, replicas } = replicasByFormula(formula, { gateways: (await gatewaysMetric())!, grid: gridMetric.metric, gridSessions: sessionsMetric.metric }, Number(scaled.advanced.scalingModifiers.target), { min: 1, max: 100 });
      // 4 sessions on 2-slot gateways, and 3 waiting: 2 + 2 gateways.
      assert.deepEqual({ value, replicas }, { value: 4, replicas: 4 });
      process.stdout.write(`# ${formula} = ${value}: ${replicas} gateways; KEDA's selenium-grid metric alone would ask for ${gridMetric.metric}\n`);
    } finally {
      await Promise.all(running.map((s) => s.delete('')));
      for (const reply of await Promise.all(queued)) if (reply.status === 200) await grid.raw('DELETE', `/session/${reply.value.sessionId}`);
    }
  });

  test("a client's principal reaches its gateway through the hub: its own proof, not the token; another's cannot be claimed; quotas hold per principal", async () => {
    const opened: Session[] = [];
    try {
      const aliceProof = proof('alice');
      const alice = await gridSession({ 'wdgate:principal': aliceProof, 'se:name': 'as alice' });
      opened.push(alice);
      // (The Grid merges the request's capabilities into its answer, and shows them: the proof, not the token.)
      const where = async (id: string) => {
        for (const pod of pods) {
          const principal = (await activeOn(pod)).get(id);
          if (principal) return { pod, principal };
        }
        assert.fail(`${id} runs on no gateway`);
      };
      const aliceAt = await where(alice.id);
      assert.equal(aliceAt.principal, 'alice');
      // The relay drives alice's session as alice.
      await alice.navigate(pages.page('<p>alice</p>', 'alice through the Grid'));
      assert.equal(await alice.get('/title'), 'alice through the Grid');
      // bob's proof, bob's session; no proof: the relay's own principal.
      const bob = await gridSession({ 'wdgate:principal': proof('bob') });
      opened.push(bob);
      assert.equal((await where(bob.id)).principal, 'bob');
      // bob cannot claim alice: a proof not made with alice's token.
      const forged = await newGridSession({ 'wdgate:principal': proof('alice', TOKENS.bob) });
      assert.notEqual(forged.status, 200);
      assert.match(JSON.stringify(forged.value), /the proof for alice does not hold/);
      // alice may have 1 session a gateway (max-sessions): more through the Grid are refused, by whichever gateway gets them.
      const refusals: string[] = [];
      for (let i = 0; i < 3; i++) {
        const reply = await newGridSession({ 'wdgate:principal': proof('alice') });
        if (reply.status === 200) opened.push(new Session(grid, reply.value.sessionId, reply.value.capabilities));
        else refusals.push(JSON.stringify(reply.value));
      }
      for (const pod of pods) assert.ok([...(await activeOn(pod)).values()].filter((p) => p === 'alice').length <= 1, `${pod.name} runs more than 1 session of alice`);
      assert.ok(refusals.length >= 2, `${refusals.length} refused`);
      for (const refusal of refusals) assert.match(refusal, /alice has 1 sessions, its maximum/);
      // The gateway took the proof out: its session's capabilities (in the trace kept of this
      // named test's pass) and its log hold none of it.
      opened.splice(opened.indexOf(alice), 1);
      await alice.delete('');
      const ops = aliceAt.pod.gateway.client.withToken(TOKENS.ops);
      await eventually(async () => (await ops.raw('GET', `/wdgate/sessions/${alice.id}`)).value?.links?.trace !== undefined, "alice's session left no trace", 20_000);
      const zip = await fetch(`${aliceAt.pod.gateway.url}/wdgate/sessions/${alice.id}/trace`, { headers: { authorization: `Bearer ${TOKENS.ops}` } });
      const index = Buffer.from(unzipSync(new Uint8Array(await zip.arrayBuffer()))['trace.json']!).toString();
      assert.match(index, /"se:name":"as alice"/);
      assert.doesNotMatch(index, new RegExp(`wdgate:principal|${aliceProof.proof}`));
      assert.ok(!aliceAt.pod.gateway.output().includes(aliceProof.proof));
    } finally {
      await Promise.all(opened.map((s) => s.delete('')));
    }
  });

  test("one history: a test's verdict on one gateway sees its run on the other", async () => {
    const [a, b] = pods as [Pod, Pod];
    const bobA = a.gateway.client.withToken(TOKENS.bob);
    const bobB = b.gateway.client.withToken(TOKENS.bob);
    // On a, checkout fails (a find that no later command recovered from, then Delete Session) …
    const failing = await bobA.newSession({ 'wdgate:options': { name: 'checkout' } });
    await failing.navigate(pages.page('<button>Purchase</button>', 'shop'));
    await failing.fails('POST', '/element', { using: 'css selector', value: '#buy' }, 'no such element');
    await failing.delete('');
    await eventually(async () => (await bobA.raw('GET', `/wdgate/sessions/${failing.id}`)).value?.result === 'failed', "a did not keep the failed run", 20_000);
    // … then passes on b: fixed, which b can tell only from a's run.
    const passing = await bobB.newSession({ 'wdgate:options': { name: 'checkout' } });
    await passing.navigate(pages.page('<button id="buy">Buy</button>', 'shop'));
    await passing.find('#buy');
    await passing.delete('');
    await eventually(async () => (await bobB.raw('GET', `/wdgate/sessions/${passing.id}`)).value?.verdict === 'fixed', 'the verdict on b did not see the failed run on a', 20_000);
    const tests = await bobB.ok('GET', '/wdgate/tests?name=checkout');
    assert.deepEqual(tests.tests[0].runs.map((r: { id: string; result: string }) => [r.id, r.result]), [[failing.id, 'failed'], [passing.id, 'passed']]);
  });

  test("a pod stopping as the manifest's preStop hooks stop it: its node DRAINING in the Grid, kept past the purge with its running session; a dead gateway's node purged; the stopped gateway's history seen from a new replica", async () => {
    const [a, b] = pods as [Pod, Pod];
    // A test running on a (through the Grid, as bob).
    const candidates = [await gridSession({ 'wdgate:principal': proof('bob') }), await gridSession({ 'wdgate:principal': proof('bob') })];
    const onA = await activeOn(a);
    const running = candidates.find((s) => onA.has(s.id));
    assert.ok(running, 'the Grid put no session on a');
    await Promise.all(candidates.filter((s) => s !== running).map((s) => s.delete('')));
    // The pod is deleted: both preStop hooks at once, as the kubelet runs them.
    const shell = spawn('sh', ['-c', swap(nodePreStop, [['127.0.0.1:5555', `127.0.0.1:${a.nodePort}`], ['127.0.0.1:8000', `127.0.0.1:${a.gateway.port}`]])], { stdio: 'ignore' });
    const shellDone = new Promise<number | null>((resolve) => shell.once('exit', resolve));
    const drainArgs = swap(gatewayPreStop.slice(1).join('\n'), [['/opt/wdgate/', ROOT], ['http://127.0.0.1:8000', a.gateway.url]]).split('\n');
    const drain = spawn(process.execPath, drainArgs, { env: { ...process.env, WDGATE_ADMIN_TOKEN: TOKENS.ops }, stdio: ['ignore', 'pipe', 'pipe'] });
    let drainOutput = '';
    drain.stdout!.on('data', (c) => (drainOutput += c));
    drain.stderr!.on('data', (c) => (drainOutput += c));
    const drained = new Promise<number | null>((resolve) => drain.once('exit', resolve));
    const nodeAExited = new Promise<void>((resolve) => (a.node.process.exitCode !== null ? resolve() : a.node.process.once('exit', () => resolve())));
    await eventually(async () => (await gridNodes()).get(a.nodePort) === 'DRAINING', 'the hub did not mark the draining pod\'s node DRAINING', 20_000);
    // Meanwhile another pod's gateway dies: its node, DOWN at each health check, is purged after
    // 5 of them (while it still sends heartbeats) — what a draining node DOWN would be too.
    const killed = Date.now();
    b.gateway.process.kill('SIGKILL');
    await b.gateway.stop();
    await eventually(async () => !(await gridNodes()).has(b.nodePort), "the hub did not purge the dead gateway's node", 150_000);
    const purgedAfter = Date.now() - killed;
    // The draining node outlived that purge, as many health checks later, and its session goes on.
    assert.equal((await gridNodes()).get(a.nodePort), 'DRAINING');
    assert.equal(await running.get('/title'), '');
    await running.navigate(pages.page('<p>still here</p>', 'after the purge'));
    assert.equal(await running.get('/title'), 'after the purge');
    // Its last session ends: the gateway's drain returns, the node stops by itself, SIGTERM ends the gateway.
    await running.delete('');
    assert.equal(await drained, 0, drainOutput);
    await nodeAExited;
    assert.equal(await a.gateway.stop(), 0);
    assert.equal(await shellDone, 0);
    process.stdout.write(`# the dead gateway's node was purged ${purgedAfter} ms after the kill; the draining one was kept until its session ended\n`);
    // What a ran, a new replica on the fleet's history shows: the session just ended and the failed checkout run.
    const c = await startGateway([], { config: fleetConfig, historyDirectory: history });
    pids.push(c.process.pid!);
    try {
      const opsC = c.client.withToken(TOKENS.ops);
      await eventually(async () => (await opsC.raw('GET', `/wdgate/sessions/${running.id}`)).status === 200, "the new replica did not see the stopped gateway's last session", 20_000);
      assert.equal((await opsC.ok('GET', `/wdgate/sessions/${running.id}`)).principal, 'bob');
      const failed = (await opsC.ok('GET', '/wdgate/sessions?name=checkout&result=failed')).sessions[0];
      assert.ok(failed?.links.trace, 'the failed run on a has no trace on the new replica');
      const trace = await opsC.raw('GET', failed.links.trace);
      assert.equal(trace.status, 200);
    } finally {
      await c.stop();
    }
    passed = true;
  });
});
