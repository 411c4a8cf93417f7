// Fair shares measured through a real gateway: one principal floods the queue with New Session
// requests, another sends a few once the flood waits; each session reads its page's title and
// ends (the shortest test: the queue, not the browser, is measured). How long the late principal waits, against how long the flood's last
// request waits (what the late one would wait first come, first served), for equal shares and for
// a late principal with share=3, with the queue, its timeout and the New Session rate raised so
// that the whole flood may wait (said in the results); and once more with every default, to say
// what a burst gets there. Writes bench/fairness.md.
// Usage: npm run bench:fairness [-- --flood 200 --late 10 --slots 4]
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { startGateway } from '../test/helpers/gateway.ts';
import type { Client } from '../test/helpers/client.ts';
import { median } from './measure.ts';
import { describeLimits } from './limits.ts';
import { resolveConfig } from '../src/config.ts';

const { values } = parseArgs({ options: { flood: { type: 'string', default: '200' }, late: { type: 'string', default: '10' }, slots: { type: 'string', default: '4' } } });
const FLOOD = Number(values.flood);
const LATE = Number(values.late);
const SLOTS = Number(values.slots);
const TOKENS = { flood: 'flood-token-3b5d7f9a1c2e4068', late: 'late-token-8a6c4e2f0b1d3579' };

interface Outcome {
  /** ms from asking to having the session, in order of having it. */
  waits: number[];
  /** When each session was made, in ms from the start. */
  madeAt: number[];
  /** New Sessions refused, by why (the gateway's message, its numbers taken out). */
  refused: Map<string, number>;
}

const newOutcome = (): Outcome => ({ waits: [], madeAt: [], refused: new Map() });
const refusedCount = (o: Outcome) => [...o.refused.values()].reduce((a, b) => a + b, 0);

/** Why a New Session was refused, in a few words: which limit. */
function reason(message: string): string {
  if (/newSessionsPerSecond/.test(message)) return 'refused at once: over newSessionsPerSecond';
  if (/queue of .* is full/.test(message)) return 'refused at once: its queue full (maxQueuedSessions)';
  if (/queue|timed out/i.test(message)) return 'timed out in the queue (sessionQueueTimeout)';
  return `refused: ${message}`;
}

/** A short test: a session, its title, the end. Records how long the session took to come, or why it did not. */
async function shortTest(client: Client, start: number, outcome: Outcome): Promise<void> {
  const asked = performance.now();
  const reply = await client.raw('POST', '/session', { capabilities: { alwaysMatch: {} } });
  if (reply.status !== 200) {
    const why = reason(String(reply.value?.message));
    outcome.refused.set(why, (outcome.refused.get(why) ?? 0) + 1);
    return;
  }
  outcome.waits.push(performance.now() - asked);
  outcome.madeAt.push(performance.now() - start);
  const id = reply.value.sessionId as string;
  await client.ok('GET', `/session/${id}/title`);
  await client.ok('DELETE', `/session/${id}`);
}

interface Scenario {
  name: string;
  lateShare: number;
  /** Limits and pool: what this run changes (the rest is config/default.json's). */
  settings: Record<string, unknown> & { maxSessions?: number };
}

/**
 * The fair-share measurement: room for the whole flood (queue, its timeout and the New Session
 * rate raised above the defaults, which would refuse most of it at once: see the defaults run),
 * SLOTS slots kept warm, so that what is measured is the order the queue serves, not a refusal.
 */
const raised = {
  maxSessions: SLOTS,
  maxQueuedSessions: FLOOD + LATE,
  sessionQueueTimeout: 30 * 60_000,
  newSessionsPerSecond: FLOOD + LATE,
  pool: { minWarm: SLOTS, maxBrowsers: 1, sessionsPerBrowser: SLOTS },
};
const SCENARIOS: Scenario[] = [
  { name: 'raised limits, equal shares', lateShare: 1, settings: raised },
  { name: 'raised limits, late share=3', lateShare: 3, settings: raised },
  { name: 'the defaults', lateShare: 1, settings: {} },
];

async function run(scenario: Scenario) {
  const slots = scenario.settings.maxSessions ?? resolveConfig().maxSessions;
  const gw = await startGateway([], {
    config: {
      logLevel: 'warn',
      ...scenario.settings,
      requireAuthOnLoopback: true,
      authTokens: [
        { name: 'flood', token: TOKENS.flood, share: 1 },
        { name: 'late', token: TOKENS.late, share: scenario.lateShare },
      ],
    },
  });
  try {
    const flood = gw.client.withToken(TOKENS.flood);
    const late = gw.client.withToken(TOKENS.late);
    const floodOutcome = newOutcome();
    const lateOutcome = newOutcome();
    const start = performance.now();
    const floods = Array.from({ length: FLOOD }, () => shortTest(flood, start, floodOutcome));
    // The late principal asks once the flood's requests are in: waiting in its queue, refused,
    // or served (at most a slot's worth of them still being made).
    for (;;) {
      const status = await flood.ok('GET', '/status');
      const queued = status.sessions.principals.find((p: { principal: string }) => p.principal === 'flood')?.queued ?? 0;
      if (queued + refusedCount(floodOutcome) + floodOutcome.waits.length >= FLOOD - slots) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const lateAsked = performance.now() - start;
    await Promise.all([...floods, ...Array.from({ length: LATE }, () => shortTest(late, start, lateOutcome))]);
    const total = performance.now() - start;
    // Sessions the flood got between the late principal's asking and its last session.
    const lastLate = Math.max(...lateOutcome.madeAt);
    const floodMeanwhile = floodOutcome.madeAt.filter((t) => t > lateAsked && t <= lastLate).length;
    return {
      scenario,
      flood: floodOutcome,
      late: lateOutcome,
      floodMeanwhile,
      floodLastWait: floodOutcome.waits.length ? Math.max(...floodOutcome.waits) : NaN,
      total,
      sessionsPerSecond: ((floodOutcome.waits.length + lateOutcome.waits.length) / total) * 1000,
    };
  } finally {
    await gw.stop();
  }
}

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const loadBefore = load();
const rows = [];
for (const scenario of SCENARIOS) rows.push(await run(scenario));
const loadAfter = load();
const s = (ms: number | undefined) => (ms === undefined || !Number.isFinite(ms) ? '–' : (ms / 1000).toFixed(1));
const made = (o: Outcome, of: number) => `${o.waits.length} of ${of}`;
const refusals = (o: Outcome) => (o.refused.size ? [...o.refused].map(([why, n]) => `${n} ${why}`).join('; ') : 'none');
const table = [
  `| run | late principal's share | flood: sessions made | flood: refused | late: sessions made | late: median wait, s | late: longest wait, s | flood's sessions meanwhile | flood's longest wait, s (first come, first served: the late one's) | sessions per second |`,
  '|---|---:|---:|---|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.scenario.name} | ${r.scenario.lateShare} | ${made(r.flood, FLOOD)} | ${refusals(r.flood)} | ${made(r.late, LATE)} | ${s(r.late.waits.length ? median(r.late.waits) : undefined)} | ${s(Math.max(...r.late.waits))} | ${r.floodMeanwhile} | ${s(r.floodLastWait)} | ${r.sessionsPerSecond.toFixed(1)} |`,
  ),
].join('\n');
const limits = [...new Map(SCENARIOS.map((sc) => [JSON.stringify(sc.settings), sc])).values()]
  .map((sc) => `- ${sc.name === 'the defaults' ? 'the defaults' : 'raised limits'}: ${describeLimits(sc.settings)}`)
  .join('\n');
const defaultsRun = rows.find((r) => r.scenario.name === 'the defaults')!;
const text = `# Fair shares

Written by \`npm run bench:fairness\` (${new Date().toISOString().slice(0, 10)}).

One gateway (native backend); principal "flood" asks for ${FLOOD} sessions at once, principal "late" for ${LATE} once the flood's requests are in (queued, refused or served). Each session reads its title and ends. "flood's sessions meanwhile": sessions the flood got from the late principal's asking to its last session (equal shares: about one for each of the late one's; share 3: about one for three).

The limits each run had (in bold what it changed from \`config/default.json\`):

${limits}

The raised limits give the whole flood room to wait, so that what is measured is the order the queue serves it in. With the defaults, ${defaultsRun.flood.waits.length} of a burst of ${FLOOD} got a session (${refusals(defaultsRun.flood)}), and the late principal's ${LATE} were ${defaultsRun.late.waits.length === LATE ? 'all' : `${defaultsRun.late.waits.length} of them`} served. A client that sends bursts retries a refused New Session, or the operator raises \`newSessionsPerSecond\` and \`maxQueuedSessions\` as the first runs did.

Machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, shared with other work while it ran (load average ${loadBefore} before, ${loadAfter} after).

${table}
`;
writeFileSync(new URL('./fairness.md', import.meta.url), text);
process.stdout.write(`${text}\n`);
