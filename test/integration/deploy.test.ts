// The Kubernetes pod's pieces, talking as they do in a cluster (deploy/kubernetes/): the gateway
// runs with the manifest's settings, and a peer on another address (a network namespace: another
// pod, Prometheus) reads GET /metrics on the metrics port while the gateway's own port refuses it
// every path but the probes. The metrics show what the autoscaler's query reads (busy slots and
// sessions waiting), and the deletion-cost script keeps the pod's cost at its sessions.
// (The manifests are deploy/kubernetes/base as `kubectl kustomize` builds them.)
// Changed from the manifest, for a shared test machine: free ports instead of 8000 and 8001, one
// session slot (so that a second session waits), no shutdown grace (the helper's stop), and a
// history directory of its own instead of the fleet's volume.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { createNamespace, namespaceUnavailable, type Namespace } from '../helpers/netns.ts';
import { eventually, leftoverBrowsers } from '../helpers/pages.ts';
import { kustomize } from '../helpers/manifests.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const docs: any[] = kustomize('base');
const find = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);
const manifestConfig = JSON.parse(find('ConfigMap', 'wdgate-config').data['config.json']);

const unavailable = await namespaceUnavailable();

describe("the pod's pieces, from another address", { skip: unavailable ?? false }, () => {
  let gw: TestGateway;
  let ns: Namespace;
  let metricsPort = 0;
  before(async () => {
    [gw, ns] = await Promise.all([
      // The image's entry point (--headless, the helper's) with the manifest's args (--config).
      startGateway(['--listen-address', manifestConfig.listenAddress], { config: { ...manifestConfig, metricsPort: 0, maxSessions: 1 } }),
      createNamespace(),
    ]);
    metricsPort = Number(/ metrics=http:\/\/[^\s]*:(\d+)\/metrics/.exec(gw.output())![1]);
  });
  after(async () => {
    await ns?.close();
    const pid = gw?.process.pid;
    await gw?.stop();
    if (pid) assert.equal(await leftoverBrowsers(pid), 0);
  });
  const gateway = (path: string, args: string[] = []) => ns.curl(`http://${ns.hostAddress}:${gw.port}${path}`, args);
  const metrics = (path = '/metrics', args: string[] = []) => ns.curl(`http://${ns.hostAddress}:${metricsPort}${path}`, args);

  test('Prometheus on another address reads /metrics on the metrics port; the gateway port refuses it every path but the probes', async () => {
    const scrape = await metrics();
    assert.equal(scrape.status, 200, scrape.text);
    assert.match(scrape.type, /^text\/plain; version=0\.0\.4/);
    assert.match(scrape.text, /^wdgate_sessions_active 0$/m);
    assert.match(scrape.text, /^wdgate_sessions_queued 0$/m);
    // No token is configured (the relay node is on loopback): off loopback, only the probes answer.
    for (const path of ['/metrics', '/status', '/wdgate/admin/queue']) {
      const refused = await gateway(path);
      assert.equal(refused.status, 403, path);
      assert.match(refused.value.message, new RegExp(`connections from ${ns.peerAddress.replace(/\./g, '\\.')} are refused`));
    }
    assert.equal((await gateway('/ready')).status, 200);
    assert.equal((await gateway('/health')).status, 200);
  });

  test('the metrics port serves nothing else, and keeps web pages out', async () => {
    for (const path of ['/status', '/session', '/wdgate/admin/queue', '/ui']) {
      const other = await metrics(path);
      assert.equal(other.status, 404, path);
      assert.equal(other.value.error, 'unknown command');
    }
    const post = await metrics('/session', ['-X', 'POST', '-H', 'content-type: application/json', '-d', '{"capabilities":{}}']);
    assert.equal(post.status, 404);
    const postMetrics = await metrics('/metrics', ['-X', 'POST', '-H', 'content-type: application/json', '-d', '{}']);
    assert.equal(postMetrics.status, 405);
    // DNS rebinding (a page that renamed its host to this address), a page's own request.
    assert.equal((await metrics('/metrics', ['-H', 'Host: attacker.example'])).status, 403);
    assert.equal((await metrics('/metrics', ['-H', 'Origin: https://attacker.example'])).status, 403);
  });

  // (What the autoscaler's query gives over these metrics, a real Prometheus answers: test/integration/kubernetes.test.ts.)
  test("the metrics count busy slots and waiting sessions; the pod's deletion cost follows its sessions", async () => {
    // A stand-in of the Kubernetes API's pod PATCH: what the deletion-cost script asks of it.
    const patches: { path: string; authorization: string; type: string; body: any }[] = [];
    const api = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        patches.push({ path: `${req.method} ${req.url}`, authorization: req.headers.authorization ?? '', type: req.headers['content-type'] ?? '', body: JSON.parse(body) });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    const apiPort = (api.address() as { port: number }).port;
    const dir = mkdtempSync(join(tmpdir(), 'wdgate-deletion-cost-'));
    writeFileSync(join(dir, 'token'), 'service-account-token\n');
    const script = spawn(process.execPath, [`${ROOT}scripts/deletion-cost.mjs`, '--url', gw.url, '--interval', '0.1', '--api', `http://127.0.0.1:${apiPort}`], {
      env: { ...process.env, POD_NAME: 'wdgate-5d8f-x2x7q', POD_NAMESPACE: 'browsers', WDGATE_KUBE_TOKEN_FILE: join(dir, 'token') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    script.stdout!.on('data', (c) => (output += c));
    script.stderr!.on('data', (c) => (output += c));
    const exited = new Promise<number | null>((resolve) => script.once('exit', resolve));
    const cost = () => patches.at(-1)?.body.metadata.annotations['controller.kubernetes.io/pod-deletion-cost'];
    const costs = (want: string) => eventually(() => cost() === want, `the pod's deletion cost stayed ${cost()}, not ${want}:\n${output}`, 30_000);
    const sessions: string[] = [];
    let waiting: Promise<{ status: number; value: any }> | undefined;
    try {
      await costs('0');
      assert.deepEqual(
        { path: patches[0]!.path, authorization: patches[0]!.authorization, type: patches[0]!.type },
        { path: 'PATCH /api/v1/namespaces/browsers/pods/wdgate-5d8f-x2x7q', authorization: 'Bearer service-account-token', type: 'application/merge-patch+json' },
      );
      // One session takes the only slot; a second waits for it.
      const first = await gw.client.raw('POST', '/session', { capabilities: {} });
      assert.equal(first.status, 200, JSON.stringify(first.value));
      sessions.push(first.value.sessionId);
      waiting = gw.client.raw('POST', '/session', { capabilities: {} });
      let text = '';
      await eventually(async () => /^wdgate_sessions_queued 1$/m.test((text = (await metrics()).text)), 'the second session never showed as waiting', 30_000);
      assert.match(text, /^wdgate_sessions_active 1$/m);
      assert.match(text, /^wdgate_slots_busy 1$/m);
      await costs('2');
      // The slot freed, the waiting one runs: one session left.
      assert.equal((await gw.client.raw('DELETE', `/session/${sessions.shift()}`)).status, 200);
      const second = await waiting;
      waiting = undefined;
      assert.equal(second.status, 200, JSON.stringify(second.value));
      sessions.push(second.value.sessionId);
      await costs('1');
      assert.equal((await gw.client.raw('DELETE', `/session/${sessions.shift()}`)).status, 200);
      await costs('0');
    } finally {
      const late = await waiting?.catch(() => undefined);
      if (late?.status === 200) sessions.push(late.value.sessionId);
      for (const id of sessions) await gw.client.raw('DELETE', `/session/${id}`).catch(() => {});
      script.kill('SIGTERM');
      assert.equal(await exited, 0);
      api.closeAllConnections();
      await new Promise((resolve) => api.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
