// What KEDA's autoscaler computes from its counterparts' answers, written from KEDA 2.20.1's
// source (pkg/scalers/selenium_grid_scaler.go; pkg/scaling/modifiers/formula.go; the HPA's
// AverageValue rule), so that a test can ask a real Selenium Grid and a real Prometheus and say how
// many replicas KEDA would ask for. Only the arithmetic: no HTTP client of KEDA's is run here.
import { request } from 'node:http';

/** The GraphQL query the selenium-grid scaler sends (getSessionsQueueLength), as it sends it. */
export const SELENIUM_GRID_QUERY =
  '{ grid { sessionCount, maxSession, totalSlots }, nodesInfo { nodes { id, status, sessionCount, maxSession, slotCount, stereotypes, sessions { id, capabilities, slot { id, stereotype } } } }, sessionsInfo { sessionQueueRequests } }';

/**
 * POST the query as KEDA's Go client does: a JSON body `{"query": …}` and no Content-Type (Go's
 * http.NewRequest sets none), no authentication (the manifests' hub has none).
 */
export function askGridLikeKeda(graphqlUrl: string): Promise<GridAnswer> {
  const body = JSON.stringify({ query: SELENIUM_GRID_QUERY });
  return new Promise((resolve, reject) => {
    const req = request(graphqlUrl, { method: 'POST', headers: { 'content-length': Buffer.byteLength(body), 'user-agent': 'Go-http-client/1.1', 'accept-encoding': 'identity' } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text) as GridAnswer) : reject(new Error(`the Grid answered ${res.statusCode}: ${text.slice(0, 300)}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

export interface GridAnswer {
  data: {
    nodesInfo: { nodes: { id: string; status: string; sessionCount: number; maxSession: number; slotCount: number; stereotypes: string; sessions: { id: string; capabilities: string; slot: { id: string; stereotype: string } }[] }[] };
    sessionsInfo: { sessionQueueRequests: string[] };
  };
}

/** A selenium-grid trigger's metadata, as the ScaledObject writes it (strings). */
export interface SeleniumGridTrigger {
  browserName?: string;
  sessionBrowserName?: string;
  browserVersion?: string;
  platformName?: string;
  nodeMaxSessions?: string;
  enableManagedDownloads?: string;
  capabilities?: string;
}

type Caps = Record<string, unknown>;
const DOWNLOADS = 'se:downloadsEnabled';
const EXTENSION_PREFIXES = ['goog:', 'moz:', 'ms:', 'se:'];

/** Platforms by name and family (Selenium's Platform enum as the scaler maps it; abridged to the families). */
function platform(name: string): { name: string; family?: string } {
  const n = name.toLowerCase();
  if (n === '' || n === 'any') return { name: 'any' };
  if (['windows', 'mac', 'unix', 'android', 'ios'].includes(n)) return { name: n };
  if (['linux', 'bsd', 'solaris'].includes(n)) return { name: n, family: 'unix' };
  if (/^(windows|win|xp|winnt)/.test(n)) return { name: n, family: 'windows' };
  if (/^(mac|os x|darwin)/.test(n)) return { name: n, family: 'mac' };
  return { name: n };
}

/**
 * The scaler's metric: new nodes the queue needs (requests matching the trigger that no free
 * matching slot of a node that is UP takes, `nodeMaxSessions` to a new node) plus the running
 * sessions whose slot matches the trigger.
 */
export function seleniumGridMetric(answer: GridAnswer, trigger: SeleniumGridTrigger): { newNodes: number; onGoing: number; metric: number } {
  const want = { browserName: trigger.browserName ?? '', sessionBrowserName: trigger.sessionBrowserName || trigger.browserName || '', browserVersion: trigger.browserVersion ?? '', platformName: trigger.platformName ?? '' };
  const nodeMaxSessions = Number(trigger.nodeMaxSessions ?? '1');
  const wanted: Caps = trigger.capabilities ? JSON.parse(trigger.capabilities) : {};
  if ((trigger.enableManagedDownloads ?? 'true') === 'true') wanted[DOWNLOADS] = true;
  const str = (caps: Caps, key: string) => (typeof caps[key] === 'string' ? (caps[key] as string) : '');
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  const versionMatches = (v: string) => (v === '' && want.browserVersion === '') || (v !== '' && want.browserVersion.startsWith(v));
  const platformMatches = (p: string) => {
    const [a, b] = [platform(want.platformName), platform(p)];
    return a.name === b.name || (a.family !== undefined && a.family === b.family);
  };
  // A request (or a node) that asks for managed downloads needs them on the other side.
  const downloads = (asking: Caps, other: Caps) => asking[DOWNLOADS] !== true || other[DOWNLOADS] === true;
  // The trigger's own capabilities (extension ones aside, bar managed downloads) must be there as they are.
  const extensions = (caps: Caps) =>
    Object.entries(wanted).every(([key, value]) => key === DOWNLOADS || (EXTENSION_PREFIXES.some((p) => key.startsWith(p)) && key !== DOWNLOADS) || caps[key] === value);
  const requestMatches = (r: Caps) =>
    ((str(r, 'browserName') === '' && want.browserName === '') || same(want.browserName, str(r, 'browserName'))) &&
    versionMatches(str(r, 'browserVersion')) &&
    platformMatches(str(r, 'platformName')) &&
    downloads(r, wanted) &&
    extensions(r);
  const slotMatches = (s: Caps) =>
    ((str(s, 'browserName') === '' && want.browserName === '') || same(want.browserName, str(s, 'browserName')) || same(want.sessionBrowserName, str(s, 'browserName'))) &&
    versionMatches(str(s, 'browserVersion')) &&
    platformMatches(str(s, 'platformName')) &&
    downloads(s, wanted) &&
    extensions(s);
  const { nodes } = answer.data.nodesInfo;
  const sessionsMatching = (node: (typeof nodes)[number]) => node.sessions.filter((s) => slotMatches(JSON.parse(s.slot.stereotype))).length;

  // Free slots of UP nodes taken by matching requests, in queue order; then new nodes.
  const freeOf = new Map<string, number>();
  const newNodes: number[] = [];
  for (const text of answer.data.sessionsInfo.sessionQueueRequests) {
    if (!requestMatches(JSON.parse(text))) continue;
    let placed = false;
    for (const node of nodes) {
      const free = freeOf.get(node.id) ?? node.maxSession - node.sessionCount;
      if (node.status.toUpperCase() !== 'UP' || free <= 0) continue;
      const matchingSlots = (JSON.parse(node.stereotypes) as { slots: number; stereotype: Caps }[]).filter((s) => slotMatches(s.stereotype)).reduce((n, s) => n + s.slots, 0);
      if (matchingSlots === 0 || matchingSlots <= sessionsMatching(node)) continue;
      freeOf.set(node.id, free - 1);
      placed = true;
      break;
    }
    if (placed) continue;
    const room = newNodes.findIndex((slots) => slots > 0);
    if (room >= 0) newNodes[room]!--;
    else newNodes.push(nodeMaxSessions - 1);
  }
  const onGoing = nodes.reduce((n, node) => n + sessionsMatching(node), 0);
  return { newNodes: newNodes.length, onGoing, metric: newNodes.length + onGoing };
}

/**
 * The replicas KEDA asks the HPA for with scalingModifiers: the formula over the triggers'
 * metrics (expr-lang; the formulas here use + - * / and max/min, as JavaScript reads them), the
 * composite metric against `target` as AverageValue (replicas = ceil(value / target)), within
 * the replica bounds.
 */
export function replicasByFormula(formula: string, metrics: Record<string, number>, target: number, bounds: { min: number; max: number }): { value: number; replicas: number } {
  if (!/^[\w\s+\-*/(),.]+$/.test(formula)) throw new Error(`a formula this test does not read: ${formula}`);
  const names = Object.keys(metrics);
  const value = new Function('max', 'min', ...names, `return (${formula});`)(Math.max, Math.min, ...names.map((n) => metrics[n])) as number;
  return { value, replicas: Math.min(bounds.max, Math.max(bounds.min, Math.ceil(value / target))) };
}
