// The deployment on paper (deploy/kubernetes/, Dockerfile) cannot run here (no Kubernetes, no
// Docker engine), so it must not drift from the code: every probe path is a route the gate lets
// a probe ask, every port the one the config listens on, the config a valid one, the grace
// periods in the order the README explains, the metric the autoscaler reads one the gateway
// exports, and the memory asked for what the benchmark measured.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { resolveConfig } from '../../src/config.ts';
import { Metrics } from '../../src/ops/metrics.ts';
import { matchRoute } from '../../src/server/routes.ts';
import { isProbe } from '../../src/server/security.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEPLOY = `${ROOT}deploy/kubernetes/`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;
const docs: Doc[] = readdirSync(DEPLOY)
  .filter((f) => f.endsWith('.yaml'))
  .flatMap((f) =>
    parseAllDocuments(readFileSync(DEPLOY + f, 'utf8')).map((d) => {
      assert.deepEqual(d.errors, [], `${f} is not valid YAML`);
      return d.toJS();
    }),
  );
const find = (kind: string, name: string) => {
  const doc = docs.find((d) => d.kind === kind && d.metadata.name === name);
  assert.ok(doc, `no ${kind} ${name} in deploy/kubernetes/`);
  return doc;
};

const configMap = find('ConfigMap', 'wdgate-config').data;
const config = resolveConfig(JSON.parse(configMap['config.json']));
const relayToml: string = configMap['relay.toml'];
const hubToml: string = find('ConfigMap', 'selenium-hub-config').data['hub.toml'];
const pod = find('StatefulSet', 'wdgate').spec.template.spec;
const gateway = pod.containers.find((c: Doc) => c.name === 'wdgate');
const node = pod.containers.find((c: Doc) => c.name === 'node');

/** A TOML setting's value (one line, `key = value`), as written. */
function toml(text: string, key: string): string {
  const m = new RegExp(`^${key} = (.+)$`, 'm').exec(text);
  assert.ok(m, `no ${key} in the TOML`);
  return m[1]!.trim();
}

/** The value after `--name` in a command. */
function argument(command: string[], name: string): string {
  const at = command.indexOf(name);
  assert.ok(at >= 0 && at + 1 < command.length, `no ${name} in ${command.join(' ')}`);
  return command[at + 1]!;
}

/** A URL the pod asks the gateway at: its port is the config's, its path a route. */
function assertGatewayUrl(url: string, method = 'GET'): void {
  const parsed = new URL(url);
  assert.equal(Number(parsed.port), config.port, `${url}: not the gateway's port`);
  if (parsed.pathname !== '/') assert.equal(matchRoute(method, parsed.pathname).kind, 'found', `${url}: no such route`);
}

describe('deploy/kubernetes', () => {
  test("the gateway's settings are valid, and it listens where the probes reach it", () => {
    assert.notEqual(config.listenAddress, '127.0.0.1', 'the kubelet probes the pod address');
    assert.ok(config.headless);
    const ports = gateway.ports.map((p: Doc) => p.containerPort);
    assert.deepEqual(ports, [config.port]);
    assert.equal(argument(gateway.args, '--config'), `${gateway.volumeMounts.find((v: Doc) => v.name === 'config').mountPath}/config.json`);
  });

  test('readiness is GET /ready, liveness GET /health: routes, on its port, that the gate answers without a token', () => {
    assert.equal(gateway.readinessProbe.httpGet.path, '/ready');
    assert.equal(gateway.livenessProbe.httpGet.path, '/health');
    for (const probe of [gateway.readinessProbe, gateway.livenessProbe]) {
      const { path, port } = probe.httpGet;
      const route = matchRoute('GET', path);
      assert.ok(route.kind === 'found' && ['ready', 'health'].includes(route.route.command), path);
      assert.ok(isProbe('GET', path), `${path} would need a token`);
      assert.equal(port, config.port);
    }
  });

  test("the relay node asks the gateway's /ready on its loopback, with as many slots as the gateway has sessions", () => {
    const url = JSON.parse(toml(relayToml, 'url'));
    assertGatewayUrl(url);
    assert.equal(new URL(url).hostname, '127.0.0.1', 'the relay is beside the gateway: loopback needs no token');
    const statusEndpoint = JSON.parse(toml(relayToml, 'status-endpoint'));
    assert.equal(statusEndpoint, '/ready');
    assertGatewayUrl(`${url}${statusEndpoint}`);
    const [slots] = JSON.parse(toml(relayToml, 'configs'));
    assert.equal(Number(slots), config.maxSessions);
    assert.equal(Number(toml(relayToml, 'max-sessions')), config.maxSessions);
  });

  test('a drain outlasts nothing it must not: the notice a health check, the idle timeout the Grid’s session timeout, the pod’s grace the drain and SIGTERM’s', () => {
    // Out of the Grid's routing before New Session is refused.
    assert.ok(config.drainNoticePeriod > Number(toml(hubToml, 'healthcheck-interval')) * 1000);
    // The hub keeps a draining gateway's node (and its sessions) however long the drain.
    assert.equal(Number(toml(hubToml, 'purge-nodes-interval')), 0);
    // The Grid ends idle sessions itself; the gateway ends those it forgot.
    assert.ok(config.sessionIdleTimeout > Number(toml(relayToml, 'session-timeout')) * 1000);
    // preStop: the repository's drain script, at the gateway's port; then SIGTERM's grace period.
    const preStop: string[] = gateway.lifecycle.preStop.exec.command;
    const script = preStop.find((a) => a.endsWith('drain.mjs'))!;
    assert.ok(existsSync(ROOT + script.replace('/opt/wdgate/', '')), `${script} is not in the repository`);
    assert.match(readFileSync(`${ROOT}Dockerfile`, 'utf8'), /^WORKDIR \/opt\/wdgate$/m);
    assertGatewayUrl(argument(preStop, '--url'));
    const drain = Number(argument(preStop, '--timeout'));
    assert.ok(config.drainNoticePeriod < drain * 1000);
    assert.ok(pod.terminationGracePeriodSeconds > drain + config.shutdownGracePeriod / 1000);
    // The node goes on relaying until the gateway has stopped.
    const wait = node.lifecycle.preStop.exec.command.join(' ');
    assertGatewayUrl(/http:\/\/[^\s]+/.exec(wait)![0]);
    assert.match(wait, /\/health/);
  });

  test("the Grid's JVMs let go of idle connections before the gateway closes them (10 s)", () => {
    const hub = find('Deployment', 'selenium-hub').spec.template.spec.containers[0];
    for (const command of [hub.command, node.command] as string[][]) {
      const option = command.find((a) => a.startsWith('-Djdk.httpclient.keepalive.timeout='));
      assert.ok(option && Number(option.split('=')[1]) < 10, command.join(' '));
    }
  });

  test('memory asked for is what the benchmark measured per session, times the sessions', () => {
    const results = readFileSync(`${ROOT}bench/results.md`, 'utf8');
    const m = /\| 10 sessions open: PSS of every process, MiB \| (\d+)/.exec(results);
    assert.ok(m, 'bench/results.md has no memory row');
    const perSession = Number(m[1]) / 10;
    const mebibytes = (q: string) => Number(/^(\d+)Mi$/.exec(q)?.[1] ?? Number(/^(\d+)Gi$/.exec(q)![1]) * 1024);
    assert.ok(mebibytes(gateway.resources.requests.memory) >= perSession * config.maxSessions);
    assert.ok(mebibytes(gateway.resources.limits.memory) > mebibytes(gateway.resources.requests.memory));
  });

  test('the autoscaler reads metrics the gateway exports', async () => {
    const { text } = await new Metrics({ sessionsActive: () => 0, sessionsQueued: () => 0, queuedByPrincipal: () => [], pool: () => [], bidiConnections: () => 0 }).scrape();
    const exported = new Set([...text.matchAll(/^# TYPE (\w+)/gm)].map((m) => m[1]));
    const trigger = find('ScaledObject', 'wdgate').spec.triggers[0].metadata;
    for (const name of trigger.query.match(/wdgate_\w+/g)) assert.ok(exported.has(name), `${name} is not exported`);
    assert.ok(exported.has(trigger.metricName));
    assert.equal(find('ScaledObject', 'wdgate').spec.scaleTargetRef.name, 'wdgate');
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(`${ROOT}Dockerfile`, 'utf8');

  test('Debian 12 with Node 20 (the official image, by its full name), the runtime packages only, a non-root user by number, wdgate --headless, a health check on /health', () => {
    assert.match(dockerfile, /^FROM docker\.io\/library\/node:20-bookworm-slim$/m);
    assert.match(dockerfile, /scripts\/setup\.sh --runtime/);
    // runAsNonRoot (wdgate.yaml) can check a number only: a name makes the kubelet refuse the pod.
    const user = /^USER (\S+)$/m.exec(dockerfile)?.[1];
    assert.match(user ?? '', /^[1-9]\d*$/);
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.match(dockerfile, /^ENTRYPOINT \[.*"\/opt\/wdgate\/bin\/wdgate\.js", "--headless"\]$/m);
    const health = /^HEALTHCHECK .*(http:\/\/[^'"]+)/m.exec(dockerfile);
    assert.ok(health);
    assertGatewayUrl(health[1]!);
    assert.equal(new URL(health[1]!).pathname, '/health');
    assert.match(dockerfile, new RegExp(`^EXPOSE ${config.port}$`, 'm'));
  });
});
