// deploy/kubernetes/ as kubectl gives it to a cluster: the base and the example overlay built by
// `kubectl kustomize`, every manifest checked against its kind's OpenAPI schema (the Kubernetes
// API's, KEDA's ScaledObject, the Prometheus Operator's PodMonitor), a field in the wrong place
// included; and the overlay's settings where they belong (namespace, image registry, replica
// bounds, the addresses KEDA's operator asks from its own namespace).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { find, kustomize, schemaErrors, type Manifest } from '../helpers/manifests.ts';

const base = kustomize('base');
const overlay = kustomize('overlays/example');
const copy = (m: Manifest): Manifest => structuredClone(m);

describe('deploy/kubernetes against the Kubernetes schemas', () => {
  test('every manifest of the base and the example overlay passes its schema, with no field its schema lacks', () => {
    const kinds = new Set<string>();
    for (const [name, docs] of [['base', base], ['overlays/example', overlay]] as const) {
      assert.ok(docs.length >= 12, `${name} built ${docs.length} manifests`);
      for (const doc of docs) {
        kinds.add(`${doc.apiVersion} ${doc.kind}`);
        assert.deepEqual(schemaErrors(doc), [], `${name}: ${doc.kind} ${doc.metadata.name}`);
      }
    }
    for (const kind of ['apps/v1 Deployment', 'v1 PersistentVolumeClaim', 'policy/v1 PodDisruptionBudget', 'keda.sh/v1alpha1 ScaledObject', 'monitoring.coreos.com/v1 PodMonitor', 'networking.k8s.io/v1 NetworkPolicy']) {
      assert.ok(kinds.has(kind), `no ${kind} was checked`);
    }
  });

  test('a field in the wrong place fails: the security settings, the PodMonitor, the ScaledObject, the volumes', () => {
    const deployment = find(base, 'Deployment', 'wdgate');
    const broken: [string, (d: Manifest) => void, RegExp][] = [
      // The pod's security settings (issue 37), each moved where its schema does not have it.
      ['readOnlyRootFilesystem on the container, not its securityContext', (d) => (d.spec.template.spec.containers[0].readOnlyRootFilesystem = true), /containers\/0\/readOnlyRootFilesystem/],
      ['readOnlyRootFilesystem in the pod securityContext', (d) => (d.spec.template.spec.securityContext.readOnlyRootFilesystem = true), /securityContext\/readOnlyRootFilesystem/],
      ['automountServiceAccountToken on a container', (d) => (d.spec.template.spec.containers[1].automountServiceAccountToken = false), /containers\/1\/automountServiceAccountToken/],
      ['capabilities under the pod', (d) => (d.spec.template.spec.securityContext.capabilities = { drop: ['ALL'] }), /securityContext\/capabilities/],
      ['seccompProfile type misspelt', (d) => (d.spec.template.spec.containers[0].securityContext.seccompProfile.localhostProfil = 'x'), /seccompProfile\/localhostProfil/],
      ['a projected token with its expiry in the wrong place', (d) => (d.spec.template.spec.volumes.find((v: Manifest) => v.projected).projected.expirationSeconds = 3600), /projected\/expirationSeconds/],
      ['ephemeral-storage beside resources', (d) => (d.spec.template.spec.containers[0]['ephemeral-storage'] = '4Gi'), /ephemeral-storage/],
      ['a wrong type', (d) => (d.spec.template.spec.terminationGracePeriodSeconds = '600'), /terminationGracePeriodSeconds must be integer/],
    ];
    for (const [what, breakIt, expected] of broken) {
      const d = copy(deployment);
      breakIt(d);
      assert.match(schemaErrors(d).join('; '), expected, what);
    }
    const scaled = copy(find(base, 'ScaledObject', 'wdgate'));
    scaled.spec.triggers[0].threshold = '8';
    assert.match(schemaErrors(scaled).join(), /triggers\/0\/threshold/, "a trigger's threshold outside its metadata");
    const monitor = copy(find(base, 'PodMonitor', 'wdgate'));
    monitor.spec.podMetricsEndpoints[0].metricsPath = '/metrics';
    assert.match(schemaErrors(monitor).join(), /podMetricsEndpoints\/0\/metricsPath/, "a ServiceMonitor's spelling in a PodMonitor");
    const budget = copy(find(base, 'PodDisruptionBudget', 'wdgate'));
    budget.spec.maxUnavailable = [1];
    assert.notDeepEqual(schemaErrors(budget), []);
  });
});

describe('deploy/kubernetes: kustomize', () => {
  for (const [name, docs, namespace] of [['base', base, 'wdgate'], ['overlays/example', overlay, 'browsers']] as const) {
    test(`${name}: everything in the namespace ${namespace}; KEDA's operator (in its own namespace) asks the hub by its full name and Prometheus for this namespace's gateways`, () => {
      for (const doc of docs) assert.equal(doc.metadata.namespace, namespace, `${doc.kind} ${doc.metadata.name}`);
      const scaled = find(docs, 'ScaledObject', 'wdgate').spec;
      const hub = find(docs, 'Service', 'selenium-hub');
      for (const trigger of scaled.triggers.filter((t: Manifest) => t.type === 'selenium-grid')) {
        const url = new URL(trigger.metadata.url);
        assert.equal(url.hostname, `${hub.metadata.name}.${namespace}.svc.cluster.local`, trigger.name);
        assert.ok(hub.spec.ports.some((p: Manifest) => p.port === Number(url.port) && p.name === 'http'));
        assert.equal(url.pathname, '/graphql');
      }
      const query: string = scaled.triggers.find((t: Manifest) => t.type === 'prometheus').metadata.query;
      const selectors = [...query.matchAll(/wdgate_\w+\{([^}]*)\}/g)].map((m) => m[1]);
      assert.deepEqual(selectors, [`namespace="${namespace}"`, `namespace="${namespace}"`], query);
      assert.equal(new URL(scaled.triggers.find((t: Manifest) => t.type === 'prometheus').metadata.serverAddress).hostname.split('.')[2], 'svc', 'a full name');
      // The role binding names the service account in the same namespace.
      assert.equal(find(docs, 'RoleBinding', 'wdgate-deletion-cost').subjects[0].namespace ?? namespace, namespace);
    });
  }

  test('the example overlay: the image from its registry in both containers that run it, 3 to 30 gateways, a storage class for the history; the rest as the base', () => {
    const pod = find(overlay, 'Deployment', 'wdgate').spec.template.spec;
    const images = pod.containers.map((c: Manifest) => [c.name, c.image]);
    assert.deepEqual(images, [
      ['wdgate', 'registry.example.com/qa/wdgate:0.1.0'],
      ['deletion-cost', 'registry.example.com/qa/wdgate:0.1.0'],
      ['node', find(base, 'Deployment', 'wdgate').spec.template.spec.containers[2].image],
    ]);
    const scaled = find(overlay, 'ScaledObject', 'wdgate').spec;
    assert.deepEqual([scaled.minReplicaCount, scaled.maxReplicaCount], [3, 30]);
    assert.equal(find(overlay, 'PersistentVolumeClaim', 'wdgate-history').spec.storageClassName, 'shared-files');
    assert.deepEqual(find(overlay, 'PersistentVolumeClaim', 'wdgate-history').spec.accessModes, ['ReadWriteMany']);
    // Apart from what the overlay sets, the same manifests.
    const strip = (docs: Manifest[]) =>
      docs
        .map((d) => ({ ...d, metadata: { ...d.metadata, namespace: undefined } }))
        .filter((d) => !['ScaledObject', 'PersistentVolumeClaim'].includes(d.kind))
        .map((d) => JSON.stringify(d).replaceAll('registry.example.com/qa/wdgate:0.1.0', 'wdgate:0.1.0').replaceAll('"namespace":"browsers"', '"namespace":"wdgate"'))
        .sort();
    assert.deepEqual(strip(overlay), strip(base));
  });
});
