// What tracing costs a busy gateway (issue 30): N sessions at once, each looping find → get
// text → click on the same page, traced (`wdgate:options.trace`, retain-on-failure by default)
// and untraced, in alternated rounds of one run (every other round the traced side goes first):
// commands per second over the round's window, p50/p99 of every command in it, and the CPU
// the gateway and its browsers spent per 1000 commands (from /proc: where the time goes).
import { readdirSync, readFileSync } from 'node:fs';
import { Client, ELEMENT } from '../test/helpers/client.ts';
import { median, newSession } from './measure.ts';

export interface LoadSide {
  /** Commands per second, one per round. */
  perSecond: number[];
  /** Every command's time in ms, over all rounds. */
  latencies: number[];
  /** CPU seconds per 1000 commands (mean of the rounds), by part: the gateway's process, its browsers' by process type. */
  cpu: Record<Part, number>;
  /** Sessions that failed (one stopped on an error: its round is measured again), and the first failure's message. */
  errors: number;
  firstError?: string;
  /** Rounds measured again because a session failed. */
  redone: number;
}

export interface LoadResult {
  sessions: number;
  mode: string;
  untraced: LoadSide;
  traced: LoadSide;
}

export interface LoadOptions {
  sessions: number;
  rounds: number;
  /** How long each side runs per round. */
  seconds: number;
  /** The traced side's `wdgate:options.trace`. */
  mode: string;
  /** The gateway's pid (its CPU and its browsers'), when known. */
  pid?: number;
  /** A line per round as it ends (progress on a slow machine). */
  log?: (line: string) => void;
}

const CLOCK_TICKS = 100;
/** Where a process's CPU is counted: the gateway itself, or its browsers' processes by their --type. */
export const PARTS = ['gateway', 'browser', 'renderer', 'gpu-process', 'other'] as const;
export type Part = (typeof PARTS)[number];

/** Each process under `root` (itself included): its part and its CPU seconds so far, from /proc. */
type CpuSample = Map<number, { part: Part; seconds: number }>;

function cpuOf(root: number): CpuSample {
  const children = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      children.set(Number(fields[1]), [...(children.get(Number(fields[1])) ?? []), Number(name)]);
      ticks.set(Number(name), Number(fields[11]) + Number(fields[12])); // utime + stime
    } catch {
      // gone meanwhile
    }
  }
  const all = [root];
  for (let i = 0; i < all.length; i++) all.push(...(children.get(all[i]!) ?? []));
  const sample: CpuSample = new Map();
  for (const pid of all) {
    let part: Part = 'gateway';
    if (pid !== root) {
      const cmdline = (() => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          return '';
        }
      })();
      const type = /--type=([\w-]+)/.exec(cmdline)?.[1];
      part = !/chrom/.test(cmdline) ? 'other' : type === undefined ? 'browser' : type === 'renderer' || type === 'gpu-process' ? type : 'other';
    }
    sample.set(pid, { part, seconds: (ticks.get(pid) ?? 0) / CLOCK_TICKS });
  }
  return sample;
}

/**
 * CPU seconds spent between two samples, by part: a process that began meanwhile counts whole;
 * one that ended meanwhile is left out (its last seconds are not known; a browser of the pool
 * may end between rounds).
 */
function cpuBetween(before: CpuSample, after: CpuSample): Record<Part, number> {
  const out = Object.fromEntries(PARTS.map((p) => [p, 0])) as Record<Part, number>;
  for (const [pid, { part, seconds }] of after) out[part] += seconds - (before.get(pid)?.seconds ?? 0);
  return out;
}

/** One round of one side: N sessions made and on the page, then busy for `seconds`, then deleted. */
async function round(client: Client, caps: object, pageUrl: string, options: LoadOptions, side: LoadSide): Promise<number> {
  const made = await Promise.allSettled(Array.from({ length: options.sessions }, () => newSession(client, caps)));
  const ids = made.flatMap((m) => (m.status === 'fulfilled' ? [m.value] : []));
  const failed = (e: unknown) => {
    side.errors++;
    side.firstError ??= (e as Error).message.split('\n')[0];
  };
  for (const m of made) if (m.status === 'rejected') failed(m.reason);
  try {
    // Each session on the page, its button found; one that fails here is left out of the round.
    const ready = await Promise.all(
      ids.map(async (id) => {
        try {
          await client.ok('POST', `/session/${id}/url`, { url: pageUrl });
          return { id, button: (await client.ok('POST', `/session/${id}/element`, { using: 'css selector', value: '#go' }))[ELEMENT] as string };
        } catch (e) {
          failed(e);
          return undefined;
        }
      }),
    );
    const cpuBefore = options.pid ? cpuOf(options.pid) : undefined;
    const start = performance.now();
    const deadline = start + options.seconds * 1000;
    let commands = 0;
    const timed = async (fn: () => Promise<unknown>) => {
      const began = performance.now();
      await fn();
      const ended = performance.now();
      if (ended <= deadline) {
        commands++;
        side.latencies.push(ended - began);
      }
    };
    await Promise.all(
      ready.map(async (session) => {
        if (!session) return;
        const s = (path: string) => `/session/${session.id}${path}`;
        try {
          while (performance.now() < deadline) {
            let button = session.button;
            await timed(async () => (button = (await client.ok('POST', s('/element'), { using: 'css selector', value: '#go' }))[ELEMENT]));
            await timed(() => client.ok('GET', s(`/element/${button}/text`)));
            await timed(() => client.ok('POST', s(`/element/${button}/click`), {}));
          }
        } catch (e) {
          // Counted and shown; the other sessions go on.
          failed(e);
        }
      }),
    );
    const perSecond = commands / options.seconds;
    side.perSecond.push(perSecond);
    if (cpuBefore) {
      const spent = cpuBetween(cpuBefore, cpuOf(options.pid!));
      for (const part of PARTS) side.cpu[part] += (spent[part] / commands / options.rounds) * 1000;
    }
    return perSecond;
  } finally {
    await Promise.all(ids.map((id) => client.raw('DELETE', `/session/${id}`)));
  }
}

export async function measureTracingLoad(client: Client, caps: Record<string, unknown>, pageUrl: string, options: LoadOptions): Promise<LoadResult> {
  const traced = { ...caps, 'wdgate:options': { ...(caps['wdgate:options'] as object), trace: options.mode } };
  const untracedCaps = { ...caps, 'wdgate:options': { ...(caps['wdgate:options'] as object), trace: 'off' } };
  const fresh = (): LoadSide => ({ perSecond: [], latencies: [], cpu: Object.fromEntries(PARTS.map((p) => [p, 0])) as Record<Part, number>, errors: 0, redone: 0 });
  const result: LoadResult = { sessions: options.sessions, mode: options.mode, untraced: fresh(), traced: fresh() };
  const sides = [
    { name: 'untraced', caps: untracedCaps, side: result.untraced },
    { name: options.mode, caps: traced, side: result.traced },
  ];
  for (let r = 0; r < options.rounds; r++) {
    for (const { name, caps: sideCaps, side } of r % 2 ? [...sides].reverse() : sides) {
      // A round in which a session failed (its browser went away) ran with fewer sessions: measured again, twice at most.
      for (let attempt = 0; ; attempt++) {
        const scratch = fresh();
        const perSecond = await round(client, sideCaps, pageUrl, options, scratch);
        options.log?.(`tracing under load: ${options.sessions} sessions, round ${r + 1}, ${name}: ${perSecond.toFixed(0)} commands/s${scratch.errors ? ` (${scratch.errors} sessions failed: ${scratch.firstError})` : ''}`);
        side.errors += scratch.errors;
        side.firstError ??= scratch.firstError;
        if (scratch.errors && attempt < 2) {
          side.redone++;
          continue;
        }
        side.perSecond.push(...scratch.perSecond);
        side.latencies.push(...scratch.latencies);
        for (const part of PARTS) side.cpu[part] += scratch.cpu[part];
        break;
      }
    }
  }
  return result;
}

export interface CpuSplit {
  mode: string;
  loops: number;
  /** CPU ms per loop (find → get text → click), by part, untraced and traced. */
  untraced: Record<Part, number>;
  traced: Record<Part, number>;
  /** Pictures of the traced session's clicks left out because the machine was busy (the others were taken). */
  busy: number;
}

/** wdgate_trace_captures_dropped_total{reason="machine busy"} now. */
async function busyDrops(client: Client): Promise<number> {
  const text = await (await fetch(`${client.url}/metrics`, { headers: client.headers })).text();
  return Number(/^wdgate_trace_captures_dropped_total\{reason="machine busy"\} (\d+)/m.exec(text)?.[1] ?? 0);
}

/**
 * Where a traced loop's time goes, robust to a busy machine: one untraced and one traced session
 * on the same gateway, each looping alone in blocks of `block` loops, in turn (the other first
 * every other block); the CPU each block cost the gateway's tree, by part. On a saturated
 * machine throughput goes as 1 / CPU per command, so traced ÷ untraced is the cost to aim at.
 */
export async function measureTracingCpu(client: Client, caps: Record<string, unknown>, pageUrl: string, pid: number, mode: string, blocks = 12, block = 40): Promise<CpuSplit> {
  const zero = () => Object.fromEntries(PARTS.map((p) => [p, 0])) as Record<Part, number>;
  const sides = await Promise.all(
    ['off', mode].map(async (trace) => {
      const id = await newSession(client, { ...caps, 'wdgate:options': { ...(caps['wdgate:options'] as object), trace } });
      await client.ok('POST', `/session/${id}/url`, { url: pageUrl });
      return { id, cpu: zero() };
    }),
  );
  const loop = async (id: string) => {
    const button = (await client.ok('POST', `/session/${id}/element`, { using: 'css selector', value: '#go' }))[ELEMENT];
    await client.ok('GET', `/session/${id}/element/${button}/text`);
    await client.ok('POST', `/session/${id}/element/${button}/click`, {});
  };
  let busy = 0;
  try {
    for (const side of sides) for (let i = 0; i < 5; i++) await loop(side.id);
    busy = -(await busyDrops(client));
    for (let b = 0; b < blocks; b++) {
      for (const side of b % 2 ? [...sides].reverse() : sides) {
        const before = cpuOf(pid);
        for (let i = 0; i < block; i++) await loop(side.id);
        const spent = cpuBetween(before, cpuOf(pid));
        for (const part of PARTS) side.cpu[part] += (spent[part] * 1000) / (blocks * block);
      }
    }
    busy += await busyDrops(client);
  } finally {
    await Promise.all(sides.map((side) => client.raw('DELETE', `/session/${side.id}`)));
  }
  return { mode, loops: blocks * block, untraced: sides[0]!.cpu, traced: sides[1]!.cpu, busy };
}

/** The CPU split as table rows. */
export function tracingCpuTable(split: CpuSplit): string[] {
  const total = (cpu: Record<Part, number>) => PARTS.reduce((sum, p) => sum + cpu[p], 0);
  const row = (name: string, cpu: Record<Part, number>) => `| ${name} | ${total(cpu).toFixed(2)} | ${PARTS.map((p) => cpu[p].toFixed(2)).join(' | ')} |`;
  return [
    '',
    `Where a traced loop's time goes: CPU ms per find → get text → click loop of one session (the gateway's process; its browsers' processes by type), ` +
      `an untraced and a "${split.mode}" session on one gateway looping alone in turn, ${split.loops} loops each; of the traced clicks' pictures ${split.busy} were left out ` +
      `because the machine was busy, the others taken (when it had room). On a saturated machine throughput goes as 1 / CPU.`,
    '',
    `| session | CPU ms per loop | ${PARTS.join(' | ')} |`,
    `|---|---:|${PARTS.map(() => '---:').join('|')}|`,
    row('untraced', split.untraced),
    row(split.mode, split.traced),
    `| traced ÷ untraced | ${(total(split.traced) / total(split.untraced)).toFixed(2)} | ${PARTS.map((p) => (split.untraced[p] > 0.05 ? (split.traced[p] / split.untraced[p]).toFixed(2) : '')).join(' | ')} |`,
  ];
}

export const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The rows of the loaded table: one per number of sessions. */
export function tracingLoadTable(results: LoadResult[], seconds: number, rounds: number): string[] {
  const mode = results[0]?.mode ?? 'retain-on-failure';
  const lines = [
    '',
    `Tracing under load (native Chromium): N sessions at once, each looping find element → get element text → click on the same page, ` +
      `traced (wdgate:options.trace "${mode}") and untraced, ${rounds} alternated rounds of ${seconds} s each side (every other round the traced side first); ` +
      'commands per second (mean of the rounds; each round in brackets), p50/p99 in ms over every command of the rounds, and CPU seconds per 1000 commands ' +
      `(${PARTS.join(', ')}: the gateway's process, its browsers' processes by type). Target at 32 sessions: traced ≥ 0.9× the untraced commands/s, p99 ≤ 1.25× the untraced p99.`,
    '',
    '| sessions | untraced commands/s | traced commands/s | traced ÷ untraced | untraced p50 / p99 | traced p50 / p99 | p99 traced ÷ untraced | CPU s / 1000 commands untraced | traced |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const [u, t] = [r.untraced, r.traced];
    const rate = (s: LoadSide) => `${mean(s.perSecond).toFixed(0)} (${s.perSecond.map((x) => x.toFixed(0)).join(', ')})`;
    const lat = (s: LoadSide) => `${median(s.latencies).toFixed(1)} / ${percentile(s.latencies, 99).toFixed(0)}`;
    const cpu = (s: LoadSide) => `${PARTS.reduce((sum, p) => sum + s.cpu[p], 0).toFixed(1)} (${PARTS.map((p) => s.cpu[p].toFixed(1)).join(' + ')})`;
    lines.push(
      `| ${r.sessions} | ${rate(u)} | ${rate(t)} | ${(mean(t.perSecond) / mean(u.perSecond)).toFixed(2)} | ${lat(u)} | ${lat(t)} | ${(percentile(t.latencies, 99) / percentile(u.latencies, 99)).toFixed(2)} | ${cpu(u)} | ${cpu(t)} |`,
    );
  }
  const failures = results.flatMap((r) =>
    [r.untraced, r.traced].filter((s) => s.errors).map((s) => `${s === r.untraced ? 'untraced' : 'traced'} at ${r.sessions}: ${s.errors} sessions failed, ${s.redone} rounds measured again (${s.firstError})`),
  );
  if (failures.length) lines.push('', `Failed: ${failures.join('; ')}.`);
  return lines;
}
