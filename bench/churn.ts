// Sessions under churn (issue 31): N clients each loop New Session → navigate to a small local
// page → find → click → Delete Session, as a CI suite's workers do with a session per test; every
// 5th loop also fails a find (no such element). wdgate and chromedriver take turns, N by N, in
// one run: sessions per minute, New Session's and each command's p50/p99, and CPU seconds per
// session of the server's own process and of the browsers under it (by process tree, /proc).
import { Client, ELEMENT } from '../test/helpers/client.ts';
import { CpuSampler, processTree } from './procs.ts';

export interface ChurnSide {
  name: string;
  client: Client;
  caps: object;
  /** The server's process: its own CPU, and its tree's for the browsers. */
  pid: number;
  /** Resolves once what the run made is gone (wdgate: the pool back to its baseline after its idle timeout). */
  settled?: () => Promise<void>;
}

export interface ChurnResult {
  clients: number;
  seconds: number;
  sessions: number;
  failed: number;
  /** Command → its times in ms (New Session, navigate, find, click, the failing find, Delete Session). */
  samples: Map<string, number[]>;
  /** CPU seconds over the run: the server's own process, and every process under it. */
  cpu: { server: number; browsers: number };
  /** The browsers' CPU seconds by kind of process (browser, renderer, gpu-process, utility …), and how many of each were started. */
  kinds: Map<string, { cpu: number; started: number }>;
  /** wdgate's pool during the run (GET /status each second), averaged: prepared, in preparation, the target, the rate, a preparation's ms. */
  pool?: { free: number; preparing: number; target: number; rate: number; prepareMs: number; browsers: number };
  /** Processes under the server before and after (once settled): nothing leaks. */
  processes: { before: number; after: number };
}

export const CHURN_COMMANDS = ['new session', 'new session, after 10 s', 'navigate', 'find element', 'click', 'find element (no such element)', 'delete session'] as const;
/** New Sessions after the first seconds of a run: the rate the pool prepares for has built up (a suite's start is apart). */
const SETTLED_AFTER_MS = 10_000;

/** What an error-answering command looks like: the loop goes on, and counts it. */
class Failed extends Error {}

async function command(client: Client, method: string, path: string, body: unknown, expect: number, samples: Map<string, number[]>, name: string): Promise<any> {
  const start = performance.now();
  const reply = await client.raw(method, path, body);
  const ms = performance.now() - start;
  if (reply.status !== expect) throw new Failed(`${name}: ${reply.status} ${JSON.stringify(reply.value).slice(0, 200)}`);
  samples.set(name, [...(samples.get(name) ?? []), ms]);
  return reply.value;
}

/** One client's loop until `until` (performance.now()); resolves with its sessions and failures. */
async function loop(side: ChurnSide, pageUrl: string, until: number, samples: Map<string, number[]>, offset: number): Promise<{ sessions: number; failed: number; errors: string[] }> {
  const { client } = side;
  const started = performance.now();
  let sessions = 0;
  let failed = 0;
  const errors: string[] = [];
  for (let i = offset; performance.now() < until; i++) {
    let id: string | undefined;
    try {
      const asked = performance.now();
      id = (await command(client, 'POST', '/session', { capabilities: { alwaysMatch: side.caps } }, 200, samples, 'new session')).sessionId as string;
      if (asked - started >= SETTLED_AFTER_MS) samples.set('new session, after 10 s', [...(samples.get('new session, after 10 s') ?? []), performance.now() - asked]);
      const s = (path: string) => `/session/${id}${path}`;
      await command(client, 'POST', s('/url'), { url: pageUrl }, 200, samples, 'navigate');
      const button = (await command(client, 'POST', s('/element'), { using: 'css selector', value: '#go' }, 200, samples, 'find element'))[ELEMENT];
      await command(client, 'POST', s(`/element/${button}/click`), {}, 200, samples, 'click');
      // A test that fails: its element is not there (no implicit wait: the session's default 0).
      if (i % 5 === 4) await command(client, 'POST', s('/element'), { using: 'css selector', value: '#missing' }, 404, samples, 'find element (no such element)');
      const deleting = id;
      id = undefined;
      await command(client, 'DELETE', `/session/${deleting}`, undefined, 200, samples, 'delete session');
      sessions++;
    } catch (e) {
      failed++;
      if (errors.length < 3) errors.push((e as Error).message);
      if (id) await client.raw('DELETE', `/session/${id}`).catch(() => {});
    }
  }
  return { sessions, failed, errors };
}

/** Processes under `pid` once they stop changing (a disposed context's renderer takes a moment to go). */
async function settledProcesses(pid: number): Promise<number> {
  let last = -1;
  for (let i = 0; i < 40; i++) {
    const now = processTree(pid).length;
    if (now === last) return now;
    last = now;
    await new Promise((r) => setTimeout(r, 250));
  }
  return last;
}

/** `clients` clients churning sessions on one server for `seconds`. */
export async function churn(side: ChurnSide, pageUrl: string, clients: number, seconds: number): Promise<ChurnResult> {
  const samples = new Map<string, number[]>();
  const before = await settledProcesses(side.pid);
  const sampler = new CpuSampler(side.pid);
  const start = performance.now();
  const until = start + seconds * 1000;
  const watching = watchPool(side.client, until);
  const loops = await Promise.all(Array.from({ length: clients }, (_, i) => loop(side, pageUrl, until, samples, i)));
  const pool = await watching;
  const elapsed = (performance.now() - start) / 1000;
  const cpu = sampler.stop();
  const errors = loops.flatMap((l) => l.errors);
  if (errors.length) console.error(`${side.name}, ${clients} clients: ${errors.slice(0, 3).join(' | ')}`);
  return {
    clients,
    seconds: elapsed,
    sessions: loops.reduce((n, l) => n + l.sessions, 0),
    failed: loops.reduce((n, l) => n + l.failed, 0),
    samples,
    cpu: { server: cpu.own, browsers: cpu.descendants },
    kinds: new Map([...cpu.byKind].map(([kind, used]) => [kind, { cpu: used, started: cpu.born.get(kind) ?? 0 }])),
    processes: { before, after: await side.settled?.().then(() => settledProcesses(side.pid)) ?? (await settledProcesses(side.pid)) },
    ...(pool && { pool }),
  };
}

/** wdgate's pool (its default key in GET /status) each second until `until`, averaged; chromedriver has none. */
async function watchPool(client: Client, until: number): Promise<ChurnResult['pool']> {
  const seen: NonNullable<ChurnResult['pool']>[] = [];
  while (performance.now() < until) {
    const key = (await client.raw('GET', '/status').catch(() => undefined))?.value?.pool?.[0];
    if (!key || key.target === undefined) return undefined;
    seen.push({ free: key.free, preparing: key.preparing, target: key.target, rate: key.rate, prepareMs: key.prepareMs, browsers: key.browsers });
    await new Promise((r) => setTimeout(r, 1000));
  }
  const mean = (k: keyof NonNullable<ChurnResult['pool']>) => seen.reduce((n, s) => n + s[k], 0) / Math.max(1, seen.length);
  return { free: mean('free'), preparing: mean('preparing'), target: mean('target'), rate: mean('rate'), prepareMs: mean('prepareMs'), browsers: mean('browsers') };
}

export const percentile = (xs: number[] | undefined, p: number): number => {
  if (!xs?.length) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

/**
 * Every N for both sides, in turn (the side that goes first alternates with N), each for
 * `seconds`: the machine's drift over the run falls on both.
 */
export async function measureChurn(ours: ChurnSide, theirs: ChurnSide, pageUrl: string, clients: number[], seconds: number, log = console.error): Promise<[ChurnResult, ChurnResult][]> {
  const out: [ChurnResult, ChurnResult][] = [];
  for (const [i, n] of clients.entries()) {
    const order = i % 2 ? [theirs, ours] : [ours, theirs];
    const results = new Map<ChurnSide, ChurnResult>();
    for (const side of order) {
      const result = await churn(side, pageUrl, n, seconds);
      const kinds = [...result.kinds].sort((a, b) => b[1].cpu - a[1].cpu).map(([kind, k]) => `${kind} ${(k.cpu / Math.max(1, result.sessions)).toFixed(3)} s (${k.started} started)`);
      log(
        `churn ${side.name}, ${n} clients: ${((result.sessions / result.seconds) * 60).toFixed(0)} sessions/min, New Session p50 ${percentile(result.samples.get('new session'), 50).toFixed(0)} ms, ` +
          `${result.failed} failed; ${result.pool ? `pool (mean): ${Object.entries(result.pool).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}; ` : ''}CPU per session: server ${(result.cpu.server / Math.max(1, result.sessions)).toFixed(3)} s, ${kinds.join(', ')}`,
      );
      results.set(side, result);
    }
    out.push([results.get(ours)!, results.get(theirs)!]);
  }
  return out;
}

const ms = (x: number) => (Number.isNaN(x) ? '–' : x >= 100 ? x.toFixed(0) : x.toFixed(1));

/** The churn rows as markdown: per N, wdgate and chromedriver side by side. */
export function churnTable(results: [ChurnResult, ChurnResult][], seconds: number, load: string): string[] {
  const lines = [
    '',
    `Churn: N clients each loop New Session → navigate → find → click → Delete Session (every 5th loop also a find that fails), ` +
      `${seconds} s per side and N, the sides in turn; times in ms (p50 / p99), CPU in seconds per session (the server's own process; ` +
      `every process under it: the browsers). "after 10 s": New Sessions after a run's first 10 s. Processes: under the server before a run and ` +
      `after it, once settled (wdgate: once its pool is back to its baseline, its idle timeout 10 s here). Load before the run: ${load}.`,
    '',
    '| clients | | sessions/min | new session | new session, after 10 s | navigate | find element | click | failing find | delete session | CPU server | CPU browsers | failed | processes before → after |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const row = (name: string, r: ChurnResult) => {
    const pp = (cmd: string) => `${ms(percentile(r.samples.get(cmd), 50))} / ${ms(percentile(r.samples.get(cmd), 99))}`;
    const perSession = (cpu: number) => (r.sessions ? (cpu / r.sessions).toFixed(3) : '–');
    return `| ${r.clients} | ${name} | ${((r.sessions / r.seconds) * 60).toFixed(0)} | ${CHURN_COMMANDS.map(pp).join(' | ')} | ${perSession(r.cpu.server)} | ${perSession(r.cpu.browsers)} | ${r.failed} | ${r.processes.before} → ${r.processes.after} |`;
  };
  for (const [ours, theirs] of results) {
    lines.push(row('wdgate', ours), row('chromedriver', theirs));
    const p50 = (r: ChurnResult, cmd: string) => percentile(r.samples.get(cmd), 50);
    const ratio = (cmd: string) => (p50(ours, cmd) / p50(theirs, cmd)).toFixed(2);
    const rate = (r: ChurnResult) => r.sessions / r.seconds;
    const cpu = (r: ChurnResult, which: 'server' | 'browsers') => (r.sessions ? r.cpu[which] / r.sessions : NaN);
    lines.push(
      `| ${ours.clients} | ratio | ${(rate(ours) / rate(theirs)).toFixed(2)} × | ${CHURN_COMMANDS.map((cmd) => `${ratio(cmd)} (p50)`).join(' | ')} | ${(cpu(ours, 'server') / cpu(theirs, 'server')).toFixed(2)} | ${(cpu(ours, 'browsers') / cpu(theirs, 'browsers')).toFixed(2)} | | |`,
    );
  }
  return lines;
}
