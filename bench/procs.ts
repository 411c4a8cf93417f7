// What a server's processes use, from /proc, by process tree (/proc/PID/stat's parent field):
// Chromium's zygote and renderers do not inherit the browser's environment, so a tree is the only
// way to find them all.
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/PID/stat's times (getconf CLK_TCK: 100 on Linux). */
const TICKS_PER_SECOND = 100;

interface Stat {
  parent: number;
  /** Start time since boot, in ticks: with the pid, names one process (pids are reused). */
  started: number;
  /** utime + stime: the process's own CPU, in ticks. */
  own: number;
  /** cutime + cstime: the CPU of its children that ended and that it waited for. */
  reaped: number;
}

function stat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces), from field 3 (state) on.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { parent: Number(f[1]), started: Number(f[19]), own: Number(f[11]) + Number(f[12]), reaped: Number(f[13]) + Number(f[14]) };
  } catch {
    return undefined; // gone meanwhile
  }
}

/** Every process under `root` (itself included), with its stat. */
function statTree(root: number): Map<number, Stat> {
  const stats = new Map<number, Stat>();
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(Number(name));
    if (!s) continue;
    stats.set(Number(name), s);
    children.set(s.parent, [...(children.get(s.parent) ?? []), Number(name)]);
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]!) ?? []));
  return new Map(out.filter((pid) => stats.has(pid)).map((pid) => [pid, stats.get(pid)!]));
}

/** Every process under `root` (itself included). */
export function processTree(root: number): number[] {
  return [...statTree(root).keys()];
}

/** Proportional set size of every process under `root`, in MiB (shared pages split among their users). */
export function pssMiB(root: number): { mib: number; processes: number } {
  const pids = processTree(root);
  let kb = 0;
  for (const pid of pids) {
    try {
      kb += Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return { mib: kb / 1024, processes: pids.length };
}

/** What a process is, for the breakdown: Chromium's --type= (renderer, gpu-process, zygote, utility …), or its program. */
function kind(pid: number): string {
  try {
    // Chromium rewrites its command line (one string, spaces between): read it as words.
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/).filter(Boolean);
    const type = argv.find((a) => a.startsWith('--type='))?.slice(7);
    if (type === 'utility') return `utility ${argv.find((a) => a.startsWith('--utility-sub-type='))?.slice(19).split('.').at(-2) ?? ''}`.trim();
    if (type) return type;
    if (argv.includes('-contentproc')) return `firefox ${argv.at(-1)}`; // Firefox's content processes name their kind last
    return argv[0]?.split('/').at(-1) ?? '?';
  } catch {
    return '?';
  }
}

/**
 * CPU seconds used by `root` and by every process under it while it runs, sampled every
 * `intervalMs`: each process (pid and start time) counts with the last CPU time seen of it, so a
 * process that ends (a disposed context's renderer; a chromedriver session's whole browser, whose
 * helpers no one may wait for: PID 1 does not reap here) still counts, less what it used after its
 * last sample. A process born and gone between two samples is missed.
 */
export class CpuSampler {
  readonly #root: number;
  readonly #seen = new Map<string, { first: number; last: number; kind: string; born: boolean }>();
  readonly #timer: NodeJS.Timeout;

  constructor(root: number, intervalMs = 200) {
    this.#root = root;
    this.#sample(false);
    this.#timer = setInterval(() => this.#sample(true), intervalMs);
  }

  #sample(born: boolean): void {
    for (const [pid, s] of statTree(this.#root)) {
      const id = `${pid}/${s.started}`;
      const known = this.#seen.get(id);
      if (known) known.last = s.own;
      else this.#seen.set(id, { first: born ? 0 : s.own, last: s.own, kind: pid === this.#root ? 'server' : kind(pid), born });
    }
  }

  /** Stop sampling: CPU seconds of the server's own process, of the rest, and of the rest by kind. */
  stop(): { own: number; descendants: number; byKind: Map<string, number>; born: Map<string, number> } {
    this.#sample(true);
    clearInterval(this.#timer);
    let own = 0;
    let descendants = 0;
    const byKind = new Map<string, number>();
    const born = new Map<string, number>();
    for (const [id, p] of this.#seen) {
      const used = (p.last - p.first) / TICKS_PER_SECOND;
      if (id.startsWith(`${this.#root}/`)) {
        own += used;
        continue;
      }
      descendants += used;
      byKind.set(p.kind, (byKind.get(p.kind) ?? 0) + used);
      if (p.born) born.set(p.kind, (born.get(p.kind) ?? 0) + 1);
    }
    return { own, descendants, byKind, born };
  }
}

/** PSS of every process under `root` by kind (the server itself, browser, renderer, gpu-process, zygote, utility …), in MiB. */
export function pssByKind(root: number): Map<string, { mib: number; processes: number }> {
  const out = new Map<string, { mib: number; processes: number }>();
  for (const pid of processTree(root)) {
    let kb = 0;
    try {
      kb = Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      continue; // gone meanwhile
    }
    const name = pid === root ? 'server' : kind(pid);
    const entry = out.get(name) ?? { mib: 0, processes: 0 };
    entry.mib += kb / 1024;
    entry.processes++;
    out.set(name, entry);
  }
  return out;
}

/** Whether any process under `root` runs without Chromium's sandbox (started with --no-sandbox). */
export function unsandboxed(root: number): boolean {
  return processTree(root).some((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/).includes('--no-sandbox');
    } catch {
      return false;
    }
  });
}
