// The deployment (deploy/kubernetes/base, as `kubectl kustomize` builds it) cannot run here (no
// Kubernetes), so it must not drift from the code: every probe path is a route the gate lets a probe ask, every port the one
// the config listens on, the config a valid one, the grace periods in the order the README
// explains, the metrics the autoscaler reads ones the gateway exports on the port Prometheus is
// told to scrape, the Grid's queue counted with the relay's slots, and the memory asked for what
// the benchmark measured; and no container has power it does not use (issue 37): the service
// account's token in the one container that patches the pod, no capabilities, no privilege
// escalation, read-only root file systems, seccomp everywhere (the gateway's: a profile shipped
// here, the runtime's default plus what Chromium's sandbox needs); and nothing is lost at
// scale-down (issue 41): the history on a volume the fleet shares, disk asked for, a disruption
// budget, a drain within what a cluster autoscaler waits for, the hub purging dead nodes but not
// draining ones. (test/unit/deploy-schemas.test.ts checks the schemas; test/integration/deploy.test.ts
// runs the gateway as the pod does; test/integration/image.test.ts builds and runs the Dockerfile,
// under this seccomp profile, without capabilities, on a read-only root.)
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { resolveConfig } from '../../src/config.ts';
import defaultSettings from '../../config/default.json' with { type: 'json' };
import { Metrics } from '../../src/ops/metrics.ts';
import { matchRoute } from '../../src/webdriver/routes.ts';
import { isProbe } from '../../src/server/security.ts';
import { DEPLOY, kustomize } from '../helpers/manifests.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Doc = any;
const docs: Doc[] = kustomize('base');
const find = (kind: string, name: string) => {
  const doc = docs.find((d) => d.kind === kind && d.metadata.name === name);
  assert.ok(doc, `no ${kind} ${name} in deploy/kubernetes/`);
  return doc;
};

const configMap = find('ConfigMap', 'wdgate-config').data;
const config = resolveConfig(JSON.parse(configMap['config.json']));
const relayToml: string = configMap['relay.toml'];
const hubToml: string = find('ConfigMap', 'selenium-hub-config').data['hub.toml'];
const deployment = find('Deployment', 'wdgate');
const pod = deployment.spec.template.spec;
const gateway = pod.containers.find((c: Doc) => c.name === 'wdgate');
const node = pod.containers.find((c: Doc) => c.name === 'node');
const deletionCost = pod.containers.find((c: Doc) => c.name === 'deletion-cost');

/** A TOML setting's value (one line, `key = value`), as written. */
function toml(text: string, key: string): string {
  const m = new RegExp(`^${key} = (.+)$`, 'm').exec(text);
  assert.ok(m, `no ${key} in the TOML`);
  return m[1]!.trim();
}

/** A Kubernetes quantity in bytes (`4Gi`, `512Mi`, `20G`). */
function quantity(q: string | number): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(String(q));
  assert.ok(m, `not a quantity: ${q}`);
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 }[m[2] ?? ''] ?? 1;
  return Number(m[1]) * unit;
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
    assert.deepEqual(ports, [config.port, config.metricsPort]);
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

  test("the relay node asks the gateway's /health on its loopback (a draining gateway's node stays DRAINING, not DOWN), with as many slots as the gateway has sessions", () => {
    const url = JSON.parse(toml(relayToml, 'url'));
    assertGatewayUrl(url);
    assert.equal(new URL(url).hostname, '127.0.0.1', 'the relay is beside the gateway: loopback needs no token');
    const statusEndpoint = JSON.parse(toml(relayToml, 'status-endpoint'));
    assert.equal(statusEndpoint, '/health');
    assert.ok(isProbe('GET', statusEndpoint));
    assertGatewayUrl(`${url}${statusEndpoint}`);
    const [slots] = JSON.parse(toml(relayToml, 'configs'));
    assert.equal(Number(slots), config.maxSessions);
    assert.equal(Number(toml(relayToml, 'max-sessions')), config.maxSessions);
  });

  test('a drain outlasts nothing it must not: the notice a health check, the idle timeout the Grid’s session timeout, the pod’s grace the drain and SIGTERM’s, all within what a cluster autoscaler waits', () => {
    // Out of the Grid's routing before New Session is refused.
    assert.ok(config.drainNoticePeriod > Number(toml(hubToml, 'healthcheck-interval')) * 1000);
    // The hub purges dead nodes; a draining one is DRAINING in the Grid (its preStop), not DOWN.
    assert.ok(Number(toml(hubToml, 'purge-nodes-interval')) > 0);
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
    // cluster-autoscaler's --max-graceful-termination-sec, 600 by default (10*60 in its main.go):
    // it evicts with the smaller grace period, then kills.
    assert.ok(pod.terminationGracePeriodSeconds <= 600);
    // The node drains in the Grid at its own port, then goes on relaying until the gateway has stopped.
    const wait: string = node.lifecycle.preStop.exec.command.join(' ');
    const [drainNode, gatewayHealth] = [...wait.matchAll(/http:\/\/[^\s;]+/g)].map((m) => new URL(m[0]));
    assert.equal(drainNode!.pathname, '/se/grid/node/drain');
    assert.equal(Number(drainNode!.port), node.ports[0].containerPort);
    assert.equal(drainNode!.hostname, '127.0.0.1');
    assertGatewayUrl(gatewayHealth!.href);
    assert.equal(gatewayHealth!.pathname, '/health');
  });

  test('nothing lost at scale-down: the history on a volume every gateway shares, larger than its budget; disk asked for; one pod at a time', () => {
    const history = JSON.parse(configMap['config.json']).history;
    assert.equal(history.shared, true, "the gateways read each other's sessions");
    assert.equal(config.history.directory, history.directory);
    const claim = find('PersistentVolumeClaim', 'wdgate-history');
    assert.deepEqual(claim.spec.accessModes, ['ReadWriteMany'], 'mounted by pods on many nodes at once');
    const volume = pod.volumes.find((v: Doc) => v.persistentVolumeClaim?.claimName === claim.metadata.name);
    const mount = gateway.volumeMounts.find((m: Doc) => m.name === volume.name);
    assert.ok(history.directory.startsWith(`${mount.mountPath}/`), `${history.directory} is not on the volume (${mount.mountPath})`);
    assert.deepEqual(pod.containers.filter((c: Doc) => c.volumeMounts?.some((m: Doc) => m.name === volume.name)).map((c: Doc) => c.name), ['wdgate']);
    assert.ok(quantity(claim.spec.resources.requests.storage) > config.history.maxBytes, 'the volume is larger than the history the gateways keep');
    assert.equal(pod.securityContext.fsGroup, Number(/^USER (\d+)$/m.exec(readFileSync(`${ROOT}Dockerfile`, 'utf8'))![1]), "the volume's files are the image's user's group");
    // Every container asks for the disk its volumes on the node may take, and may take no more than its limit.
    for (const d of docs.filter((x) => x.kind === 'Deployment')) {
      const spec = d.spec.template.spec;
      for (const c of spec.containers) {
        const onDisk = (c.volumeMounts ?? [])
          .map((m: Doc) => spec.volumes.find((v: Doc) => v.name === m.name))
          .filter((v: Doc) => v.emptyDir && v.emptyDir.medium !== 'Memory')
          .reduce((sum: number, v: Doc) => sum + quantity(v.emptyDir.sizeLimit), 0);
        const requested = quantity(c.resources.requests['ephemeral-storage'] ?? '0');
        assert.ok(requested > 0 && requested >= onDisk, `${d.metadata.name}/${c.name} asks ${requested} bytes of disk for ${onDisk} of volumes`);
        assert.ok(quantity(c.resources.limits['ephemeral-storage']) >= requested, `${d.metadata.name}/${c.name}`);
      }
    }
    // Voluntary evictions one gateway at a time.
    const budget = find('PodDisruptionBudget', 'wdgate').spec;
    assert.deepEqual(budget.selector.matchLabels, deployment.spec.template.metadata.labels);
    assert.equal(budget.maxUnavailable, 1);
    // The hub: evicted, it would forget every session's route.
    assert.equal(find('Deployment', 'selenium-hub').spec.template.metadata.annotations['cluster-autoscaler.kubernetes.io/safe-to-evict'], 'false');
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

  test('Prometheus is told to scrape the metrics port (the PodMonitor, and the annotations), which the network policy opens to the monitoring namespace alone', () => {
    const monitor = find('PodMonitor', 'wdgate').spec;
    assert.deepEqual(monitor.selector.matchLabels, deployment.spec.template.metadata.labels);
    assert.equal(monitor.podMetricsEndpoints.length, 1);
    const [endpoint] = monitor.podMetricsEndpoints;
    assert.equal(gateway.ports.find((p: Doc) => p.name === endpoint.port)?.containerPort, config.metricsPort);
    assert.equal(endpoint.path, '/metrics');
    const annotations = deployment.spec.template.metadata.annotations;
    assert.equal(annotations['prometheus.io/scrape'], 'true');
    assert.equal(Number(annotations['prometheus.io/port']), config.metricsPort);
    assert.equal(annotations['prometheus.io/path'], '/metrics');
    assert.equal(matchRoute('GET', '/metrics').kind, 'found');
    const policy = find('NetworkPolicy', 'wdgate').spec;
    assert.deepEqual(policy.podSelector.matchLabels, deployment.spec.template.metadata.labels);
    const opened = policy.ingress.map((rule: Doc) => ({ ports: rule.ports.map((p: Doc) => p.port), from: rule.from }));
    const metricsRule = opened.find((r: Doc) => r.ports.includes(config.metricsPort));
    assert.deepEqual(metricsRule.ports, [config.metricsPort]);
    assert.deepEqual(metricsRule.from, [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }]);
    // The hub reaches the relay node; nobody off the pod reaches the gateway's own port.
    const nodePort = node.ports[0].containerPort;
    assert.deepEqual(opened.find((r: Doc) => r.ports.includes(nodePort)).from, [{ podSelector: { matchLabels: find('Deployment', 'selenium-hub').spec.selector.matchLabels } }]);
    assert.ok(!opened.some((r: Doc) => r.ports.includes(config.port)));
  });

  test('the autoscaler counts sessions 8 to a gateway (at the gateways: their metrics; in the Grid: running ones) and adds the gateways the Grid queue needs', async () => {
    const { text } = await new Metrics({ sessionsActive: () => 0, slotsBusy: () => 0, sessionsQueued: () => 0, queuedByPrincipal: () => [], pool: () => [], bidiConnections: () => 0 }).scrape();
    const exported = new Set([...text.matchAll(/^# TYPE (\w+)/gm)].map((m) => m[1]));
    const scaled = find('ScaledObject', 'wdgate').spec;
    assert.deepEqual(scaled.scaleTargetRef, { kind: 'Deployment', name: 'wdgate' });
    const trigger = (name: string) => scaled.triggers.find((t: Doc) => t.name === name);
    const prometheus = trigger('gateways');
    assert.equal(prometheus.type, 'prometheus');
    assert.deepEqual(prometheus.metadata.query.match(/wdgate_\w+/g), ['wdgate_slots_busy', 'wdgate_sessions_queued']);
    for (const name of prometheus.metadata.query.match(/wdgate_\w+/g)) assert.ok(exported.has(name), `${name} is not exported`);
    // The Grid: the hub's GraphQL at its Service, the relay's browser, the relay's slots.
    const [slots, stereotype] = JSON.parse(toml(relayToml, 'configs'));
    const browserName = JSON.parse(stereotype).browserName;
    const grid = trigger('grid');
    const gridSessions = trigger('gridSessions');
    for (const t of [grid, gridSessions]) {
      assert.equal(t.type, 'selenium-grid');
      assert.equal(new URL(t.metadata.url).port, String(find('Service', 'selenium-hub').spec.ports.find((p: Doc) => p.name === 'http').port));
      assert.equal(Number(t.metadata.nodeMaxSessions), Number(slots));
    }
    assert.equal(grid.metadata.browserName, browserName);
    // gridSessions: no request asks for its browserName, so only running sessions count (KEDA
    // matches a request by browserName, a node's session by browserName or sessionBrowserName).
    assert.notEqual(gridSessions.metadata.browserName, browserName);
    assert.equal(gridSessions.metadata.sessionBrowserName, browserName);
    // The formula: every trigger by its name, sessions divided by a gateway's slots; what scales.
    const modifiers = scaled.advanced.scalingModifiers;
    assert.deepEqual(new Set(modifiers.formula.match(/[A-Za-z]\w*/g).filter((w: string) => !['max', 'min'].includes(w))), new Set(scaled.triggers.map((t: Doc) => t.name)));
    assert.equal(Number(/\/\s*(\d+)/.exec(modifiers.formula)![1]), config.maxSessions);
    assert.deepEqual([modifiers.target, modifiers.metricType], ['1', 'AverageValue']);
    // Scale-down one pod at a time, after a wave.
    const scaleDown = scaled.advanced.horizontalPodAutoscalerConfig.behavior.scaleDown;
    assert.ok(scaleDown.stabilizationWindowSeconds >= 60);
    assert.deepEqual(scaleDown.policies, [{ type: 'Pods', value: 1, periodSeconds: 60 }]);
  });

  test("scale-down takes idle pods first: each pod's deletion cost is its sessions, patched by its own service account", () => {
    // Only a ReplicaSet (a Deployment) reads pod-deletion-cost; a StatefulSet takes the highest ordinal.
    assert.equal(deployment.kind, 'Deployment');
    assert.equal(deletionCost.image, gateway.image);
    const script = deletionCost.command.find((a: string) => a.endsWith('deletion-cost.mjs'));
    assert.ok(existsSync(ROOT + script.replace('/opt/wdgate/', '')), `${script} is not in the repository`);
    assertGatewayUrl(argument(deletionCost.command, '--url'));
    const env = Object.fromEntries(deletionCost.env.map((e: Doc) => [e.name, e.valueFrom?.fieldRef?.fieldPath ?? e.value]));
    assert.deepEqual(env, { POD_NAME: 'metadata.name', POD_NAMESPACE: 'metadata.namespace', NODE_EXTRA_CA_CERTS: '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt' });
    assert.equal(pod.serviceAccountName, find('ServiceAccount', 'wdgate').metadata.name);
    const binding = find('RoleBinding', 'wdgate-deletion-cost');
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: pod.serviceAccountName, namespace: deployment.metadata.namespace }]);
    assert.deepEqual(find('Role', binding.roleRef.name).rules, [{ apiGroups: [''], resources: ['pods'], verbs: ['patch'] }]);
    // A rolling update never has fewer pods than asked for (old ones drain while new ones serve).
    assert.deepEqual(deployment.spec.strategy.rollingUpdate, { maxSurge: 1, maxUnavailable: 0 });
  });
});

describe('deploy/kubernetes: no ambient power', () => {
  const deployments = docs.filter((d) => d.kind === 'Deployment');
  const profile = JSON.parse(readFileSync(`${DEPLOY}seccomp/chromium.json`, 'utf8'));
  /** The syscalls the profile lets through whatever their arguments. */
  const allowed = new Set<string>(profile.syscalls.filter((r: Doc) => r.action === 'SCMP_ACT_ALLOW' && !r.args).flatMap((r: Doc) => r.names));

  test("no container has the service account's token but deletion-cost: a projected token, mounted there alone, where the script reads it", () => {
    assert.equal(find('ServiceAccount', 'wdgate').automountServiceAccountToken, false);
    for (const d of deployments) assert.equal(d.spec.template.spec.automountServiceAccountToken, false, `${d.metadata.name} mounts the service account's token by default`);
    const tokenVolumes = pod.volumes.filter((v: Doc) => v.projected?.sources.some((s: Doc) => s.serviceAccountToken));
    assert.equal(tokenVolumes.length, 1);
    const [volume] = tokenVolumes;
    const source = volume.projected.sources.find((s: Doc) => s.serviceAccountToken).serviceAccountToken;
    assert.ok(source.expirationSeconds <= 3600, 'a short-lived token (the kubelet renews it; the script reads it at each patch)');
    assert.deepEqual(
      pod.containers.filter((c: Doc) => c.volumeMounts?.some((m: Doc) => m.name === volume.name)).map((c: Doc) => c.name),
      ['deletion-cost'],
    );
    const mount = deletionCost.volumeMounts.find((m: Doc) => m.name === volume.name);
    assert.equal(mount.readOnly, true);
    const script = readFileSync(`${ROOT}scripts/deletion-cost.mjs`, 'utf8');
    const tokenFile = /WDGATE_KUBE_TOKEN_FILE \?\? '([^']+)'/.exec(script)?.[1];
    assert.equal(`${mount.mountPath}/${source.path}`, tokenFile);
    const ca = volume.projected.sources.find((s: Doc) => s.configMap)?.configMap;
    assert.deepEqual(ca, { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] });
    assert.equal(deletionCost.env.find((e: Doc) => e.name === 'NODE_EXTRA_CA_CERTS').value, `${mount.mountPath}/ca.crt`);
  });

  test('the Role has the verbs the script uses and nothing else: patch, on pods', () => {
    const script = readFileSync(`${ROOT}scripts/deletion-cost.mjs`, 'utf8');
    const verbs = [...new Set([...script.matchAll(/method: '([A-Z]+)'/g)].map((m) => m[1]!.toLowerCase()))];
    assert.deepEqual(verbs, ['patch']);
    for (const rule of find('Role', 'wdgate-deletion-cost').rules) {
      assert.deepEqual(rule.verbs, verbs);
      assert.deepEqual(rule.resources, ['pods']);
      assert.ok(![...rule.verbs, ...rule.resources, ...rule.apiGroups].includes('*'));
    }
  });

  test('every container: no capabilities, no privilege escalation, not privileged, a read-only root; its writable paths are volumes', () => {
    for (const d of deployments) {
      for (const c of d.spec.template.spec.containers) {
        const at = `${d.metadata.name}/${c.name}`;
        assert.equal(c.securityContext?.allowPrivilegeEscalation, false, `${at}: allowPrivilegeEscalation`);
        assert.deepEqual(c.securityContext?.capabilities, { drop: ['ALL'] }, `${at}: capabilities`);
        assert.equal(c.securityContext?.privileged, undefined, `${at}: privileged`);
        assert.equal(c.securityContext?.readOnlyRootFilesystem, true, `${at}: readOnlyRootFilesystem`);
        assert.equal(d.spec.template.spec.securityContext?.runAsNonRoot, true, `${at}: runAsNonRoot`);
        if (c.command?.[0] === 'java') assert.ok(c.volumeMounts.some((m: Doc) => m.mountPath === '/tmp'), `${at}: the JVM's /tmp`);
      }
    }
    // The gateway writes its temporary files (browsers' profiles, uploads, recordings) and the
    // history (~/.cache/wdgate of the image's user); Firefox writes ~/.config, or does not start.
    assert.equal(JSON.parse(configMap['config.json']).tempDir ?? defaultSettings.tempDir, null, "the gateway's temporary directory is the system's (/tmp: the image sets no TMPDIR)");
    const home = /useradd [^\n]*--create-home[^\n]* (\w+)\s*\\?$/m.exec(readFileSync(`${ROOT}Dockerfile`, 'utf8'))?.[1];
    assert.equal(home, 'wdgate');
    const mounts = gateway.volumeMounts.map((m: Doc) => m.mountPath);
    for (const path of ['/tmp', `/home/${home}`, '/dev/shm']) assert.ok(mounts.includes(path), `${path} is not a volume of the gateway's container`);
  });

  test('seccomp everywhere, Unconfined nowhere: the runtime default, and for the browsers a Localhost profile shipped here', () => {
    for (const f of (readdirSync(DEPLOY, { recursive: true }) as string[]).filter((name) => /\.(ya?ml|json)$/.test(name))) assert.doesNotMatch(readFileSync(DEPLOY + f, 'utf8').toString(), /Unconfined/, `${f} names Unconfined`);
    for (const d of deployments) {
      assert.deepEqual(d.spec.template.spec.securityContext.seccompProfile, { type: 'RuntimeDefault' }, d.metadata.name);
      for (const c of d.spec.template.spec.containers) {
        const own = c.securityContext?.seccompProfile;
        if (own && c !== gateway) assert.fail(`${d.metadata.name}/${c.name} has a seccomp profile of its own`);
      }
    }
    const own = gateway.securityContext.seccompProfile;
    assert.equal(own.type, 'Localhost');
    assert.equal(own.localhostProfile, 'wdgate/chromium.json', 'the path the README says to install the profile at');
    assert.ok(existsSync(`${DEPLOY}seccomp/${own.localhostProfile.split('/').pop()}`));
  });

  test("the browsers' profile: the runtime's default (an allow-list, errors otherwise) plus clone with namespaces, unshare and chroot; nothing that reaches the kernel's or the host's state", () => {
    // The OCI runtime spec's shape (what containerd, CRI-O and runc read): no Docker-only keys, which containerd would ignore.
    assert.deepEqual(Object.keys(profile).sort(), ['architectures', 'defaultAction', 'defaultErrnoRet', 'syscalls']);
    assert.equal(profile.defaultAction, 'SCMP_ACT_ERRNO');
    for (const rule of profile.syscalls) {
      for (const key of Object.keys(rule)) assert.ok(['names', 'action', 'args', 'errnoRet'].includes(key), `a rule has ${key}`);
      assert.ok(['SCMP_ACT_ALLOW', 'SCMP_ACT_ERRNO'].includes(rule.action), rule.action);
    }
    assert.ok(profile.architectures.includes('SCMP_ARCH_X86_64') && profile.architectures.includes('SCMP_ARCH_AARCH64'));
    // What Chromium's namespace sandbox needs (sandbox/linux/services/credentials.cc, namespace_sandbox.cc).
    for (const name of ['clone', 'unshare', 'chroot']) assert.ok(allowed.has(name), `${name} is not allowed whatever its arguments`);
    // clone3's flags are in memory seccomp cannot read: ENOSYS, so that libc falls back to clone (as the default profiles do).
    assert.deepEqual(profile.syscalls.find((r: Doc) => r.names.includes('clone3')), { names: ['clone3'], action: 'SCMP_ACT_ERRNO', errnoRet: 38 });
    // What the default profiles refuse a container without capabilities, refused here too.
    const refused = ['mount', 'umount2', 'setns', 'pivot_root', 'bpf', 'keyctl', 'add_key', 'request_key', 'kexec_load', 'kexec_file_load', 'init_module', 'finit_module',
      'delete_module', 'open_by_handle_at', 'perf_event_open', 'reboot', 'swapon', 'swapoff', 'acct', 'settimeofday', 'clock_settime', 'iopl', 'ioperm',
      'lookup_dcookie', 'quotactl', 'fsopen', 'fsmount', 'fsconfig', 'move_mount', 'open_tree', 'userfaultfd', 'io_uring_setup', 'vm86', 'sethostname', 'syslog'];
    const named = new Set(profile.syscalls.flatMap((r: Doc) => (r.action === 'SCMP_ACT_ALLOW' ? r.names : [])));
    for (const name of refused) assert.ok(!named.has(name), `${name} is allowed`);
    // socket(2): every family but AF_ALG (38) and AF_VSOCK (40), as containerd's default.
    const socket = profile.syscalls.filter((r: Doc) => r.names.includes('socket')).map((r: Doc) => r.args);
    assert.deepEqual(socket, [[{ index: 0, value: 38, op: 'SCMP_CMP_LT' }], [{ index: 0, value: 39, op: 'SCMP_CMP_EQ' }], [{ index: 0, value: 40, op: 'SCMP_CMP_GT' }]]);
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
