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
  /** Commands that failed (the session then stops looping), and the first failure's message. */
  errors: number;
  firstError?: string;
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

/** CPU seconds of `root` and of every process under it, by part, from /proc. */
function cpuOf(root: number): Record<Part, number> {
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
  const out = Object.fromEntries(PARTS.map((p) => [p, 0])) as Record<Part, number>;
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
    out[part] += (ticks.get(pid) ?? 0) / CLOCK_TICKS;
  }
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
      const after = cpuOf(options.pid!);
      for (const part of PARTS) side.cpu[part] += ((after[part] - cpuBefore[part]) / commands / options.rounds) * 1000;
    }
    return perSecond;
  } finally {
    await Promise.all(ids.map((id) => client.raw('DELETE', `/session/${id}`)));
  }
}

export async function measureTracingLoad(client: Client, caps: Record<string, unknown>, pageUrl: string, options: LoadOptions): Promise<LoadResult> {
  const traced = { ...caps, 'wdgate:options': { ...(caps['wdgate:options'] as object), trace: options.mode } };
  const untracedCaps = { ...caps, 'wdgate:options': { ...(caps['wdgate:options'] as object), trace: 'off' } };
  const fresh = (): LoadSide => ({ perSecond: [], latencies: [], cpu: Object.fromEntries(PARTS.map((p) => [p, 0])) as Record<Part, number>, errors: 0 });
  const result: LoadResult = { sessions: options.sessions, mode: options.mode, untraced: fresh(), traced: fresh() };
  const sides = [
    { name: 'untraced', caps: untracedCaps, side: result.untraced },
    { name: options.mode, caps: traced, side: result.traced },
  ];
  for (let r = 0; r < options.rounds; r++) {
    for (const { name, caps: sideCaps, side } of r % 2 ? [...sides].reverse() : sides) {
      const perSecond = await round(client, sideCaps, pageUrl, options, side);
      options.log?.(`tracing under load: ${options.sessions} sessions, round ${r + 1}, ${name}: ${perSecond.toFixed(0)} commands/s`);
    }
  }
  return result;
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
  const failures = results.flatMap((r) => [r.untraced, r.traced].filter((s) => s.errors).map((s) => `${s === r.untraced ? 'untraced' : 'traced'} at ${r.sessions}: ${s.errors} sessions stopped on an error (${s.firstError})`));
  if (failures.length) lines.push('', `Failed: ${failures.join('; ')}.`);
  return lines;
}
