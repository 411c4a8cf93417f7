#!/usr/bin/env node
// Keep a Kubernetes pod's deletion cost at the number of sessions its gateway runs or queues, so
// that a scale-down takes idle gateways first (a ReplicaSet deletes the pods of lowest
// `controller.kubernetes.io/pod-deletion-cost` first; the preStop drain, scripts/drain.mjs, lets
// the running sessions of a pod it takes anyway finish). Runs beside the gateway in its pod
// (deploy/kubernetes/wdgate.yaml): every --interval seconds it asks GET /wdgate/admin/queue on
// the pod's loopback and, when the count changed, patches the pod's annotation through the
// Kubernetes API with the pod's service account (which may patch pods in its namespace).
//
//   node scripts/deletion-cost.mjs [--url http://127.0.0.1:8000] [--interval 5] [--api URL]
//
// The pod: POD_NAME and POD_NAMESPACE (the downward API). The API: --api, else
// https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT (set in every pod), with the service
// account's token (WDGATE_KUBE_TOKEN_FILE, else /var/run/secrets/kubernetes.io/serviceaccount/token,
// read again at each patch: it is rotated) and its CA (NODE_EXTRA_CA_CERTS names ca.crt). An
// admin token for the gateway, where it needs one, comes from WDGATE_ADMIN_TOKEN. SIGTERM ends it.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { url: { type: 'string', default: 'http://127.0.0.1:8000' }, interval: { type: 'string', default: '5' }, api: { type: 'string' } },
});
const { POD_NAME: pod, POD_NAMESPACE: namespace } = process.env;
if (!pod || !namespace) {
  console.log('wdgate deletion-cost: POD_NAME and POD_NAMESPACE must name the pod (the downward API)');
  process.exit(2);
}
const api = values.api ?? `https://${process.env.KUBERNETES_SERVICE_HOST}:${process.env.KUBERNETES_SERVICE_PORT}`;
const tokenFile = process.env.WDGATE_KUBE_TOKEN_FILE ?? '/var/run/secrets/kubernetes.io/serviceaccount/token';
const gatewayHeaders = process.env.WDGATE_ADMIN_TOKEN ? { authorization: `Bearer ${process.env.WDGATE_ADMIN_TOKEN}` } : {};

/** Sessions that would end (or wait in vain) if this pod went: running and queued. */
async function sessions() {
  const response = await fetch(`${values.url}/wdgate/admin/queue`, { headers: gatewayHeaders, signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET /wdgate/admin/queue: ${response.status}`);
  const { value } = await response.json();
  return value.active + value.queued;
}

async function setCost(cost) {
  const token = (await readFile(tokenFile, 'utf8')).trim();
  const response = await fetch(`${api}/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify({ metadata: { annotations: { 'controller.kubernetes.io/pod-deletion-cost': String(cost) } } }),
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`PATCH pod ${namespace}/${pod}: ${response.status} ${(await response.text()).slice(0, 200)}`);
}

let set; // the cost last patched
let timer;
process.on('SIGTERM', () => {
  clearTimeout(timer);
  process.exit(0);
});
async function tick() {
  try {
    const cost = await sessions();
    if (cost !== set) {
      await setCost(cost);
      console.log(`wdgate deletion-cost: ${namespace}/${pod} costs ${cost}`);
      set = cost;
    }
  } catch (e) {
    // A gateway still starting, an API that is away: tried again at the next tick.
    console.log(`wdgate deletion-cost: ${e.message}`);
  }
  timer = setTimeout(tick, Number(values.interval) * 1000);
}
await tick();
