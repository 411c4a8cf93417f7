// Fair shares measured through a real gateway: one principal floods the queue with New Session
// requests, another sends a few once the flood waits; each session reads its page's title and
// ends (the shortest test: the queue, not the browser, is measured). How long the late principal waits, against how long the flood's last
// request waits (what the late one would wait first come, first served), for equal shares and for
// a late principal with share=3. Writes bench/fairness.md.
// Usage: npm run bench:fairness [-- --flood 200 --late 10 --slots 4]
import { writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { startGateway } from '../test/helpers/gateway.ts';
import type { Client } from '../test/helpers/client.ts';
import { median } from './measure.ts';

const { values } = parseArgs({ options: { flood: { type: 'string', default: '200' }, late: { type: 'string', default: '10' }, slots: { type: 'string', default: '4' } } });
const FLOOD = Number(values.flood);
const LATE = Number(values.late);
const SLOTS = Number(values.slots);
const TOKENS = { flood: 'flood-token-3b5d7f9a1c2e4068', late: 'late-token-8a6c4e2f0b1d3579' };

interface Outcome {
  /** ms from asking to having the session, in order of asking. */
  waits: number[];
  /** When each session was made, in ms from the start. */
  madeAt: number[];
}

/** A short test: a session, its title, the end. Records how long the session took to come. */
async function shortTest(client: Client, start: number, outcome: Outcome): Promise<void> {
  const asked = performance.now();
  const s = await client.newSession();
  outcome.waits.push(performance.now() - asked);
  outcome.madeAt.push(performance.now() - start);
  await s.get('/title');
  await s.end();
}

async function run(lateShare: number) {
  const gw = await startGateway([], {
    config: {
      logLevel: 'warn',
      maxSessions: SLOTS,
      maxQueuedSessions: FLOOD + LATE,
      sessionQueueTimeout: 30 * 60_000,
      newSessionsPerSecond: FLOOD + LATE,
      pool: { minWarm: SLOTS, maxBrowsers: 1, sessionsPerBrowser: SLOTS },
      requireAuthOnLoopback: true,
      authTokens: [
        { name: 'flood', token: TOKENS.flood, share: 1 },
        { name: 'late', token: TOKENS.late, share: lateShare },
      ],
    },
  });
  try {
    const flood = gw.client.withToken(TOKENS.flood);
    const late = gw.client.withToken(TOKENS.late);
    const floodOutcome: Outcome = { waits: [], madeAt: [] };
    const lateOutcome: Outcome = { waits: [], madeAt: [] };
    const start = performance.now();
    const floods = Array.from({ length: FLOOD }, () => shortTest(flood, start, floodOutcome));
    // The late principal asks once the flood fills every slot and waits.
    for (;;) {
      const status = await flood.ok('GET', '/status');
      if ((status.sessions.principals.find((p: { principal: string }) => p.principal === 'flood')?.queued ?? 0) >= FLOOD - SLOTS * 2) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const lateAsked = performance.now() - start;
    await Promise.all([...floods, ...Array.from({ length: LATE }, () => shortTest(late, start, lateOutcome))]);
    const total = performance.now() - start;
    // Sessions the flood got between the late principal's asking and its last session.
    const lastLate = Math.max(...lateOutcome.madeAt);
    const floodMeanwhile = floodOutcome.madeAt.filter((t) => t > lateAsked && t <= lastLate).length;
    return {
      lateShare,
      lateMedian: median(lateOutcome.waits),
      lateMax: Math.max(...lateOutcome.waits),
      floodLastWait: Math.max(...floodOutcome.waits),
      floodMeanwhile,
      total,
      sessionsPerSecond: ((FLOOD + LATE) / total) * 1000,
    };
  } finally {
    await gw.stop();
  }
}

const rows = [];
for (const share of [1, 3]) rows.push(await run(share));
const s = (ms: number) => (ms / 1000).toFixed(1);
const table = [
  `| late principal's share | its ${LATE} sessions: median wait, s | longest wait, s | flood's sessions meanwhile | flood's longest wait, s (first come, first served: the late one's) | sessions per second |`,
  '|---:|---:|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${r.lateShare} | ${s(r.lateMedian)} | ${s(r.lateMax)} | ${r.floodMeanwhile} | ${s(r.floodLastWait)} | ${r.sessionsPerSecond.toFixed(1)} |`),
].join('\n');
const text = `# Fair shares

Written by \`npm run bench:fairness\` (${new Date().toISOString().slice(0, 10)}).

One gateway with ${SLOTS} session slots (native backend, warm pool); principal "flood" asks for ${FLOOD} sessions at once, principal "late" for ${LATE} once the flood waits. Each session reads its title and ends. "flood's sessions meanwhile": sessions the flood got from the late principal's asking to its last session (equal shares: about one for each of the late one's; share 3: about one for three).

Machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${Math.round(totalmem() / 2 ** 30)} GiB, shared with other work while it ran.

${table}
`;
writeFileSync(new URL('./fairness.md', import.meta.url), text);
process.stdout.write(`${text}\n`);
