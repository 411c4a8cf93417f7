// Density (issue 40): how many busy sessions a machine holds. N sessions open at once, each busy
// on a page of a few hundred elements (find → text → click, in a loop, as a test does), the PSS of
// the server's whole process tree (./procs.ts: the tree walked from its pid, /proc/PID/smaps_rollup)
// sampled while they run; then the same sessions idle (their clients think: no command for a few
// seconds); then, where the server lets a client reach CDP (chromedriver), what a memory-pressure
// signal to each idle page gives back. 32 sessions, then 64 (32 more opened beside them).
import { Client, ELEMENT } from '../test/helpers/client.ts';
import { pssByKind, pssMiB, unsandboxed } from './procs.ts';

export interface DensitySide {
  name: string;
  client: Client;
  caps: object;
  /** The server's process: the root of the tree whose PSS is summed. */
  pid: number;
  /** It serves chromedriver's goog/cdp/execute to every session: the pressure signal is tried. */
  cdp?: boolean;
  /** Resolves once what opening the sessions made beside them is gone (wdgate: contexts prepared for the rate they came at). */
  settled?: () => Promise<void>;
}

export interface DensityPoint {
  sessions: number;
  /** PSS of the tree while every session is busy (median of the samples of the run's second half), MiB. */
  busy: number;
  /** PSS once the sessions have been idle for a while, MiB. */
  idle: number;
  /** After Memory.simulatePressureNotification (critical) in each idle session's page, MiB (chromedriver only). */
  pressured?: number;
  processes: number;
  /** Busy, by kind of process. */
  kinds: Map<string, { mib: number; processes: number }>;
  /** Commands answered per second over all sessions while busy (CPU-bound: noisy on a shared machine). */
  commandsPerSecond: number;
  failed: number;
  /** Some process of the tree runs with --no-sandbox. */
  unsandboxed: boolean;
}

/** The page: a list of 300 items with a little style, a button that counts its clicks, an input. */
export function densityPage(): string {
  const items = Array.from({ length: 300 }, (_, i) => `<li class="i${i % 7}"><span>item ${i}</span> <a href="#${i}">link</a></li>`).join('');
  return (
    '<style>li{padding:2px;border-bottom:1px solid #ddd}.i0{color:#a00}.i3{font-weight:bold}li:nth-child(2n){background:#f6f6f6}</style>' +
    '<input id="name" value="x"><button id="go" onclick="this.textContent = String(Number(this.dataset.n = (+this.dataset.n || 0) + 1))">go</button>' +
    `<ul id="list">${items}</ul>`
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Run `fn` over `items`, at most `width` at a time. */
async function inBatches<T, R>(items: T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width) out.push(...(await Promise.all(items.slice(i, i + width).map(fn))));
  return out;
}

async function open(side: DensitySide, pageUrl: string): Promise<string> {
  const { sessionId } = await side.client.ok('POST', '/session', { capabilities: { alwaysMatch: side.caps } });
  await side.client.ok('POST', `/session/${sessionId}/url`, { url: pageUrl });
  return sessionId as string;
}

/** One session's loop until `until`: find the button, read an item's text, click; commands answered, and failures. */
async function busy(client: Client, id: string, until: number): Promise<{ commands: number; failed: number }> {
  let commands = 0;
  let failed = 0;
  for (let i = 0; performance.now() < until; i++) {
    try {
      const button = (await client.ok('POST', `/session/${id}/element`, { using: 'css selector', value: '#go' }))[ELEMENT];
      const item = (await client.ok('POST', `/session/${id}/element`, { using: 'css selector', value: `#list li:nth-child(${(i % 300) + 1}) span` }))[ELEMENT];
      await client.ok('GET', `/session/${id}/element/${item}/text`);
      await client.ok('POST', `/session/${id}/element/${button}/click`, {});
      commands += 4;
    } catch {
      failed++;
    }
  }
  return { commands, failed };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/** PSS now and then until `until`; the median of those taken in the second half. */
async function sampleWhile(pid: number, from: number, until: number): Promise<number> {
  const samples: { at: number; mib: number }[] = [];
  while (performance.now() < until) {
    samples.push({ at: performance.now(), mib: pssMiB(pid).mib });
    await sleep(2000);
  }
  const half = from + (until - from) / 2;
  return median(samples.filter((s) => s.at >= half).map((s) => s.mib));
}

/**
 * `counts` (ascending) sessions open at once on `side`, in turn: each count's sessions busy for
 * `busySeconds`, then idle for `idleSeconds`. Every session is ended at the end.
 */
export async function measureDensity(side: DensitySide, pageUrl: string, counts: number[], busySeconds: number, idleSeconds: number, log = console.error): Promise<DensityPoint[]> {
  const ids: string[] = [];
  const points: DensityPoint[] = [];
  try {
    for (const n of counts) {
      ids.push(...(await inBatches(Array.from({ length: n - ids.length }), 8, () => open(side, pageUrl))));
      await side.settled?.();
      const from = performance.now();
      const until = from + busySeconds * 1000;
      const [loops, busyMib] = await Promise.all([Promise.all(ids.map((id) => busy(side.client, id, until))), sampleWhile(side.pid, from, until)]);
      const kinds = pssByKind(side.pid);
      const processes = [...kinds.values()].reduce((sum, k) => sum + k.processes, 0);
      // Idle: the clients think. The last sample of a few counts (a page settles after its last command).
      await sleep(idleSeconds * 1000);
      const idle = median([pssMiB(side.pid).mib, (await sleep(1000), pssMiB(side.pid).mib), (await sleep(1000), pssMiB(side.pid).mib)]);
      let pressured: number | undefined;
      if (side.cdp) {
        await inBatches(ids, 8, (id) => side.client.ok('POST', `/session/${id}/goog/cdp/execute`, { cmd: 'Memory.simulatePressureNotification', params: { level: 'critical' } }));
        await sleep(3000);
        pressured = pssMiB(side.pid).mib;
      }
      const point: DensityPoint = {
        sessions: n,
        busy: busyMib,
        idle,
        ...(pressured !== undefined && { pressured }),
        processes,
        kinds,
        commandsPerSecond: loops.reduce((sum, l) => sum + l.commands, 0) / busySeconds,
        failed: loops.reduce((sum, l) => sum + l.failed, 0),
        unsandboxed: unsandboxed(side.pid),
      };
      points.push(point);
      const byKind = [...kinds].sort((a, b) => b[1].mib - a[1].mib).map(([kind, k]) => `${kind} ${k.mib.toFixed(0)} MiB (${k.processes})`);
      log(
        `density ${side.name}, ${n} sessions: busy ${(busyMib / n).toFixed(1)} MiB a session (${busyMib.toFixed(0)} MiB, ${processes} processes), idle ${(idle / n).toFixed(1)}` +
          `${pressured !== undefined ? `, pressured ${(pressured / n).toFixed(1)}` : ''}; ${point.commandsPerSecond.toFixed(0)} commands/s, ${point.failed} failed; ${byKind.join(', ')}`,
      );
    }
    return points;
  } finally {
    await inBatches(ids, 16, (id) => side.client.raw('DELETE', `/session/${id}`).catch(() => undefined));
  }
}

/** What a variant is, its points, and what it ran as. */
export interface DensityRow {
  name: string;
  /** What differs from wdgate's defaults (the capabilities or the config the bench gave it). */
  what: string;
  points: DensityPoint[];
}

const mib = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '–' : x.toFixed(1));

/** The density table: per side and count, MiB a session busy and idle, and against the first row (wdgate) and chromedriver. */
export function densityTable(rows: DensityRow[], chromedriver: DensityRow, busySeconds: number, idleSeconds: number, context: string): string[] {
  const counts = chromedriver.points.map((p) => p.sessions);
  const base = rows[0]!;
  const lines = [
    `Density: N sessions open at once, each busy on a page of 300 list items (find → find → text → click, in a loop) for ${busySeconds} s; PSS of the server's whole ` +
      `process tree (walked from its pid; /proc/PID/smaps_rollup) once wdgate's pool has let go of the contexts it prepared while the sessions were opened (its idle timeout 10 s here), while busy (median of the samples of the second half), then after ${idleSeconds} s with no command (idle). ` +
      `MiB a session = the tree's PSS ÷ N (the gateway or driver process and every browser included). ${context}`,
    '',
    `| server | what differs | ${counts.map((n) => `${n} busy: MiB a session`).join(' | ')} | ${counts.map((n) => `${n} idle`).join(' | ')} | ${counts.map((n) => `${n}: vs wdgate`).join(' | ')} | ${counts.map((n) => `${n}: vs chromedriver`).join(' | ')} | processes (${counts.at(-1)}) | renderers (${counts.at(-1)}) | sandbox | failed |`,
    `|---|---|${counts.map(() => '---:|').join('').repeat(4)}---:|---:|---|---:|`,
  ];
  for (const row of [...rows, chromedriver]) {
    const at = (n: number) => row.points.find((p) => p.sessions === n);
    const per = (n: number, which: 'busy' | 'idle') => (at(n) ? at(n)![which] / n : NaN);
    const ratio = (n: number, other: DensityRow) => {
      const o = other.points.find((p) => p.sessions === n);
      return at(n) && o ? `${(at(n)!.busy / o.busy).toFixed(2)}` : '–';
    };
    const last = row.points.at(-1);
    const renderers = last?.kinds.get('renderer')?.processes ?? 0;
    lines.push(
      `| ${row.name} | ${row.what} | ${counts.map((n) => mib(per(n, 'busy'))).join(' | ')} | ${counts.map((n) => mib(per(n, 'idle'))).join(' | ')} | ${counts.map((n) => ratio(n, base)).join(' | ')} | ` +
        `${counts.map((n) => ratio(n, chromedriver)).join(' | ')} | ${last?.processes ?? '–'} | ${renderers} | ${last ? (last.unsandboxed ? 'off' : 'on') : '–'} | ${row.points.reduce((s, p) => s + p.failed, 0)} |`,
    );
  }
  const pressured = chromedriver.points.filter((p) => p.pressured !== undefined);
  if (pressured.length) {
    lines.push(
      '',
      `Idle, then a memory-pressure signal (CDP Memory.simulatePressureNotification, critical) to every page, on chromedriver's sessions (the one server here that lets a client send it): ` +
        pressured.map((p) => `${p.sessions} sessions: ${mib(p.idle / p.sessions)} → ${mib(p.pressured! / p.sessions)} MiB a session`).join('; ') +
        '.',
    );
  }
  lines.push('', `Busy, by kind of process (MiB a session, at ${counts.at(-1)} sessions; in brackets, how many processes):`, '');
  const kinds = [...new Set([...rows, chromedriver].flatMap((r) => [...(r.points.at(-1)?.kinds.keys() ?? [])]))].sort();
  lines.push(`| server | ${kinds.join(' | ')} |`, `|---|${kinds.map(() => '---:|').join('')}`);
  for (const row of [...rows, chromedriver]) {
    const last = row.points.at(-1);
    if (!last) continue;
    lines.push(`| ${row.name} | ${kinds.map((k) => (last.kinds.has(k) ? `${mib(last.kinds.get(k)!.mib / last.sessions)} (${last.kinds.get(k)!.processes})` : '')).join(' | ')} |`);
  }
  return lines;
}
