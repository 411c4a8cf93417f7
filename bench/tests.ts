// Across runs at scale (issue 34's target): a history of 10,000 ended sessions over 500 tests,
// written as the store writes it (src/trace/store.ts: a folder per session with its entry.json;
// most without a trace), served by a gateway: how long it takes to start with the index of tests
// rebuilt and with it present (beside a gateway on an empty history), GET /wdgate/tests p50/p99
// with and without filters (target: 100 ms p50), the index file's size (target: a few MB) and the
// gateway's RSS. No browser runs.
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type TestGateway } from '../test/helpers/gateway.ts';
import { median, time } from './measure.ts';

export interface TestsScale {
  sessions: number;
  tests: number;
  traces: number;
  /** ms from the gateway's spawn to its start line: on an empty history, rebuilding the index, with the index. */
  start: { empty: number; rebuilt: number; indexed: number };
  /** ms the gateway took to read the history's entries, and to rebuild the index (built from the entries, written), as it logs them. */
  read: number;
  rebuild: number;
  indexBytes: number;
  /** The gateway's RSS in MiB: on an empty history, and serving this one (after the requests). */
  rss: { empty: number; full: number };
  /** Per query: its times (ms) and the answer's size. */
  queries: { name: string; query: string; p50: number; p99: number; bytes: number; total: number }[];
}

const BUILDS = 20;
/** Starts of each kind, in turn. */
const ROUNDS = 5;
const CODES = [
  { code: 'no such element', command: 'findElement', message: 'no element matches css selector "#buy"' },
  { code: 'timeout', command: 'navigateTo', message: 'navigation did not finish within 30000 ms' },
  { code: 'element click intercepted', command: 'elementClick', message: 'another element would receive the click' },
  { code: 'stale element reference', command: 'elementSendKeys', message: 'the element is no longer attached to the DOM' },
];

/** A small deterministic PRNG (mulberry32): the same history every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `tests` tests, `sessions / tests` runs each over 20 builds: most stable (a rare failure), some
 * flaky (retried within a build), some failing since a build, some failing anew in the last one.
 * Failed runs of the last builds and each test's newest pass keep a trace (retain-on-failure).
 */
export async function fillHistory(directory: string, sessions: number, tests: number): Promise<{ traces: number }> {
  const rand = random(34);
  const perTest = Math.round(sessions / tests);
  const start = Date.now() - (BUILDS + 1) * 3_600_000;
  const writes: (() => Promise<void>)[] = [];
  let traces = 0;
  for (let t = 0; t < tests; t++) {
    const kind = t % 20 === 0 ? 'flaky' : t % 20 === 1 ? 'broken' : t % 20 === 2 ? 'new failure' : 'stable';
    const name = `suite ${t % 25}/test ${t}: ${['checkout shows the total', 'search finds coffee', 'login with a token', 'cart keeps its items'][t % 4]}`;
    const browserName = t % 10 === 9 ? 'firefox' : 'chrome';
    const principal = ['ci', 'ci', 'ci', 'alice', 'bob'][t % 5]!;
    const error = CODES[t % CODES.length]!;
    const runs: { build: string; at: number; failed: boolean }[] = [];
    for (let b = 0; runs.length < perTest; b++) {
      const failed = kind === 'flaky' ? rand() < 0.5 : kind === 'broken' ? b >= BUILDS - 5 : kind === 'new failure' ? b === BUILDS - 1 : rand() < 0.02;
      const at = start + b * 3_600_000 + t * 5000;
      runs.push({ build: `ci-${1000 + b}`, at, failed });
      // A flaky test's failure is retried in the same build, and passes.
      if (kind === 'flaky' && failed && rand() < 0.5 && runs.length < perTest) runs.push({ build: `ci-${1000 + b}`, at: at + 2000, failed: false });
    }
    const newestPass = runs.map((r) => !r.failed).lastIndexOf(true);
    runs.forEach((run, i) => {
      const id = `bench-${t}-${i}-${Math.floor(rand() * 1e9).toString(36)}`;
      const trace = i === newestPass || (run.failed && run.at > start + (BUILDS - 5) * 3_600_000);
      if (trace) traces++;
      const durationMs = 2000 + Math.floor(rand() * 20000);
      const entry = {
        id,
        name,
        build: run.build,
        tags: [],
        principal,
        backend: 'native',
        browserName,
        browserVersion: browserName === 'chrome' ? '156.0.8078.108' : '153.0',
        startedAt: new Date(run.at).toISOString(),
        endedAt: new Date(run.at + durationMs).toISOString(),
        durationMs,
        result: run.failed ? 'failed' : 'passed',
        resultReason: run.failed ? `${error.command}: ${error.code}: ${error.message}` : 'deleted by its client after its last command succeeded',
        endReason: 'deleted by its client',
        commands: 20 + Math.floor(rand() * 80),
        errors: run.failed ? 1 : 0,
        trace: 'retain-on-failure',
        ...(run.failed && { failure: error }),
        files: trace ? ['trace.zip'] : [],
        bytes: trace ? 2048 : 0,
      };
      writes.push(async () => {
        await mkdir(join(directory, id));
        // A stand-in for the trace (nothing here reads it): its bytes count against the budget.
        if (trace) await writeFile(join(directory, id, 'trace.zip'), Buffer.alloc(2048));
        await writeFile(join(directory, id, 'entry.json'), JSON.stringify(entry));
      });
    });
  }
  for (let i = 0; i < writes.length; i += 200) await Promise.all(writes.slice(i, i + 200).map((write) => write()));
  return { traces };
}

const rssMiB = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

/** A gateway on `directory` that starts no browser; the time from its spawn to its start line. */
async function timedStart(directory: string): Promise<{ gw: TestGateway; ms: number }> {
  let gw: TestGateway | undefined;
  const ms = await time(async () => (gw = await startGateway([], { historyDirectory: directory, config: { logLevel: 'info', pool: { minWarm: 0 } } })));
  return { gw: gw!, ms };
}

/** How long the gateway says a step of its start took (its log line's ms: "history read", "tests index rebuilt"). */
function loggedMs(gw: TestGateway, event: string): number {
  const line = gw.output().split('\n').find((l) => l.includes(`"event":"${event}"`));
  return line ? (JSON.parse(line) as { ms: number }).ms : NaN;
}

export async function measureTestsScale(sessions = 10_000, tests = 500, requests = 50): Promise<TestsScale> {
  const root = await mkdtemp(join(tmpdir(), 'wdgate-bench-tests-'));
  const [full, empty] = [join(root, 'history'), join(root, 'empty')];
  await Promise.all([mkdir(full), mkdir(empty)]);
  try {
    const { traces } = await fillHistory(full, sessions, tests);
    // Starts in turn (each reads every entry; the index missing, or there): medians of 3.
    const starts = { empty: [] as number[], rebuilt: [] as number[], indexed: [] as number[] };
    const [reads, rebuilds]: number[][] = [[], []];
    let emptyRss = NaN;
    for (let round = 0; round < ROUNDS; round++) {
      const blank = await timedStart(empty);
      starts.empty.push(blank.ms);
      emptyRss = rssMiB(blank.gw.process.pid!);
      await blank.gw.stop();
      await rm(join(full, 'tests-index.json'), { force: true });
      const rebuilt = await timedStart(full);
      starts.rebuilt.push(rebuilt.ms);
      rebuilds.push(loggedMs(rebuilt.gw, 'tests index rebuilt'));
      reads.push(loggedMs(rebuilt.gw, 'history read'));
      await rebuilt.gw.stop();
      const indexed = await timedStart(full);
      starts.indexed.push(indexed.ms);
      reads.push(loggedMs(indexed.gw, 'history read'));
      if (!Number.isNaN(loggedMs(indexed.gw, 'tests index rebuilt'))) throw new Error(`the index was rebuilt though it was there:\n${indexed.gw.output()}`);
      if (round < ROUNDS - 1) await indexed.gw.stop();
      else {
        try {
          return { sessions, tests, traces, start: { empty: median(starts.empty), rebuilt: median(starts.rebuilt), indexed: median(starts.indexed) }, read: median(reads), rebuild: median(rebuilds), indexBytes: (await stat(join(full, 'tests-index.json'))).size, ...(await queries(indexed.gw, requests, emptyRss)) };
        } finally {
          await indexed.gw.stop();
        }
      }
    }
    throw new Error('unreachable');
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** GET /wdgate/tests, `requests` times each query, in turn (so that the machine's drift is shared). */
async function queries(gw: TestGateway, requests: number, emptyRss: number): Promise<Pick<TestsScale, 'queries' | 'rss'>> {
  const QUERIES = [
    { name: 'every test (the first 100)', query: '' },
    { name: 'name= (a part: one suite)', query: '?name=suite%2012/' },
    { name: 'build= (one build, with its summary)', query: '?build=ci-1019' },
    { name: 'verdict=flaky', query: '?verdict=flaky' },
  ];
  const samples = QUERIES.map(() => [] as number[]);
  const bytes: number[] = [];
  const totals: number[] = [];
  for (let i = 0; i < requests + 1; i++) {
    for (const [q, { query }] of QUERIES.entries()) {
      let body = '';
      const ms = await time(async () => {
        const res = await fetch(`${gw.url}/wdgate/tests${query}`);
        body = await res.text();
        if (!res.ok) throw new Error(`GET /wdgate/tests${query}: ${res.status} ${body}`);
      });
      if (i === 0) {
        bytes[q] = Buffer.byteLength(body); // the first round warms up, and is not counted
        totals[q] = JSON.parse(body).value.total;
      } else samples[q]!.push(ms);
    }
  }
  const p = (xs: number[], at: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * at))]!;
  return {
    queries: QUERIES.map((q, i) => ({ ...q, p50: p(samples[i]!, 0.5), p99: p(samples[i]!, 0.99), bytes: bytes[i]!, total: totals[i]! })),
    rss: { empty: emptyRss, full: rssMiB(gw.process.pid!) },
  };
}

/** The results as markdown lines (bench/results.md, the README). */
export function testsTable(r: TestsScale, load: string): string[] {
  return [
    `Across runs at scale: ${r.sessions.toLocaleString('en')} ended sessions over ${r.tests} tests (${r.traces} with a trace kept), GET /wdgate/tests by an admin (every test), ` +
      `50 requests of each query in turn; starts are medians of ${ROUNDS}, in turn. Load before the run: ${load}.`,
    '',
    '| GET /wdgate/tests | p50 ms | p99 ms | tests matching | answer |',
    '|---|---:|---:|---:|---:|',
    ...r.queries.map((q) => `| ${q.name} | ${q.p50.toFixed(1)} | ${q.p99.toFixed(1)} | ${q.total} | ${(q.bytes / 1024).toFixed(0)} KiB |`),
    '',
    '| the gateway | empty history | this history |',
    '|---|---:|---:|',
    `| start, to its start line: index rebuilt / index present | ${r.start.empty.toFixed(0)} ms | ${r.start.rebuilt.toFixed(0)} / ${r.start.indexed.toFixed(0)} ms |`,
    `| of which: its entries read / the index rebuilt (its log lines) | | ${r.read.toFixed(0)} / ${r.rebuild.toFixed(0)} ms |`,
    `| RSS (after the requests) | ${r.rss.empty.toFixed(0)} MiB | ${r.rss.full.toFixed(0)} MiB |`,
    `| index of tests (tests-index.json) | | ${(r.indexBytes / 2 ** 20).toFixed(2)} MiB |`,
  ];
}
