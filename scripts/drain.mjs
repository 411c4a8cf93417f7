#!/usr/bin/env node
// Drain a gateway and wait until its last session has ended: before an upgrade, or as a
// Kubernetes preStop hook (deploy/kubernetes/). It asks POST /wdgate/admin/drain (GET /ready
// turns 503 at once, New Session is refused once the drain notice is over), then polls
// GET /wdgate/admin/queue until the gateway takes no new session and none runs, waits or is being
// created. Exit code 0 when drained, 1 at the timeout or on an error.
//
//   node scripts/drain.mjs [--url http://127.0.0.1:8000] [--timeout 300] [--message "upgrade"]
//
// An admin principal's token, where the gateway needs one, comes from WDGATE_ADMIN_TOKEN (never
// from the command line, which shows in ps).
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { url: { type: 'string', default: 'http://127.0.0.1:8000' }, timeout: { type: 'string', default: '300' }, message: { type: 'string', default: 'draining before the gateway stops' } },
});
const deadline = Date.now() + Number(values.timeout) * 1000;
const headers = { 'content-type': 'application/json', ...(process.env.WDGATE_ADMIN_TOKEN && { authorization: `Bearer ${process.env.WDGATE_ADMIN_TOKEN}` }) };

async function call(method, path, body) {
  const response = await fetch(`${values.url}${path}`, { method, headers, body: body && JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${answer.value?.message ?? ''}`);
  return answer.value;
}

try {
  const { sessions } = await call('POST', '/wdgate/admin/drain', { message: values.message });
  console.log(`wdgate drain: draining ${values.url} with ${sessions} sessions`);
  for (;;) {
    const queue = await call('GET', '/wdgate/admin/queue');
    if (!queue.takingSessions && queue.active === 0 && queue.queued === 0) break;
    if (Date.now() > deadline) {
      console.log(`wdgate drain: ${queue.active} sessions still running after ${values.timeout} s`);
      process.exit(1);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  console.log('wdgate drain: no session left');
} catch (e) {
  console.log(`wdgate drain: ${e.message}`);
  process.exit(1);
}
