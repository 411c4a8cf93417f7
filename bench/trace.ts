// What tracing costs (issues 25 and 30), on a gateway of its own: N sessions busy at once, traced
// and untraced in alternated rounds, and the CPU a traced loop costs by process (./trace-load.ts);
// the command mix of one session traced against untraced, the two sessions in turn pass by pass
// (so the machine's drift cancels out); and the size of a 100-command session's trace file. `npm run bench -- --only tracing` runs this alone.
import { startGateway } from '../test/helpers/gateway.ts';
import { Client } from '../test/helpers/client.ts';
import { commandMix, inTurn, median, newSession, type Samples } from './measure.ts';
import { measureTracingCpu, measureTracingLoad, tracingCpuTable, tracingLoadTable, type LoadResult } from './trace-load.ts';

export interface TracingCost {
  mode: string;
  /** Per command of the mix: median ms without tracing and with it. */
  rows: { name: string; off: number; on: number }[];
  /** Sum of the mix's medians, off and on (one pass of the mix). */
  mixOff: number;
  mixOn: number;
  /** A session of `commands` commands (the mix, repeated), traced "on": its trace's bytes. */
  traceBytes: number;
  commands: number;
}

export interface TracingOptions {
  /** Passes of the mix, in turn. */
  iterations: number;
  /** The traced side's mode (issue 30's target is for retain-on-failure). */
  mode: string;
  /** Sessions busy at once, one table row each. */
  sessions: number[];
  rounds: number;
  seconds: number;
  /** Where the gateway writes a V8 CPU profile (node --cpu-prof) when it stops; none when undefined. */
  cpuProf?: string;
  log?: (line: string) => void;
}

const MIX = ['navigate', 'get title', 'find element', 'find elements (20)', 'get property', 'get element text', 'send keys', 'clear', 'click', 'execute script', 'screenshot', 'get cookies'];

export async function measureTracing(client: Client, caps: Record<string, unknown>, pageUrl: string, iterations: number, mode: string, ready?: () => Promise<void>): Promise<TracingCost> {
  const traced = { ...caps, 'wdgate:options': { trace: mode } };
  const untraced = { ...caps, 'wdgate:options': { trace: 'off' } };
  const [off, on]: [Samples, Samples] = await inTurn({ client, caps: untraced, ready }, { client, caps: traced, ready }, pageUrl, iterations);
  const rows = [...MIX, 'new session (warm)', 'delete session'].filter((name) => off.has(name)).map((name) => ({ name, off: median(off.get(name)!), on: median(on.get(name)!) }));
  const sum = (side: 'off' | 'on') => rows.filter((r) => MIX.includes(r.name)).reduce((total, r) => total + r[side], 0);

  // A 100-command session: the New Session, the window's size, 7 passes of the mix (13
  // commands each), a few reads and the Delete, as a test would run them; then its trace is fetched.
  const id = await newSession(client, { ...caps, 'wdgate:options': { trace: 'on' } });
  let commands = 2;
  for (let i = 0; commands + 13 <= 99; i++) commands += await commandMix(client, id, pageUrl, i);
  for (; commands < 99; commands++) await client.ok('GET', `/session/${id}/title`);
  await client.ok('DELETE', `/session/${id}`);
  commands++;
  let traceBytes = 0;
  for (let i = 0; i < 100 && traceBytes === 0; i++) {
    const res = await fetch(`${client.url}/wdgate/sessions/${id}/trace`);
    if (res.ok) traceBytes = (await res.arrayBuffer()).byteLength;
    else await new Promise((r) => setTimeout(r, 50));
  }
  return { mode, rows, mixOff: sum('off'), mixOn: sum('on'), traceBytes, commands };
}

/** The tracing table for bench/results.md. */
export function tracingTable(cost: TracingCost, iterations: number): string[] {
  const lines = [
    '',
    `Tracing on native Chromium, one session (wdgate:options.trace "${cost.mode}" against "off", one gateway, the two sessions in turn pass by pass, ${iterations} passes; medians in ms). ` +
      "A traced command's own answer does not wait for its capture. " +
      'Target: the mix at most 5 % slower; a 100-command session\'s trace ("on") at most 5 MB.',
    '',
    '| command | trace off | traced | traced ÷ off |',
    '|---|---:|---:|---:|',
  ];
  for (const row of cost.rows) lines.push(`| ${row.name} | ${row.off.toFixed(2)} | ${row.on.toFixed(2)} | ${(row.on / row.off).toFixed(2)} |`);
  lines.push(
    `| the mix (sum of its medians) | ${cost.mixOff.toFixed(2)} | ${cost.mixOn.toFixed(2)} | ${(cost.mixOn / cost.mixOff).toFixed(2)} |`,
    `| a ${cost.commands}-command session's trace file | | ${(cost.traceBytes / 2 ** 20).toFixed(2)} MiB | |`,
  );
  return lines;
}

/** The whole tracing section, on a gateway of its own with room for the most sessions asked. */
export async function tracingSection(pageUrl: string, options: TracingOptions): Promise<string[]> {
  const most = Math.max(...options.sessions);
  const gateway = await startGateway([], {
    config: { maxSessions: most + 8, newSessionsPerSecond: 1000, logLevel: 'warn', pool: { minWarm: 1, maxBrowsers: Math.max(1, Math.ceil(most / 8)), sessionsPerBrowser: 8, idleTimeout: 60000 } },
    ...(options.cpuProf && { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${options.cpuProf}`] }),
  });
  const { client } = gateway;
  const ready = async () => {
    for (let i = 0; i < 200 && !((await client.ok('GET', '/status')).pool[0]?.free >= 1); i++) await new Promise((r) => setTimeout(r, 20));
  };
  try {
    const caps = { browserName: 'chrome' };
    const loads: LoadResult[] = [];
    for (const sessions of options.sessions) {
      loads.push(await measureTracingLoad(client, caps, pageUrl, { sessions, rounds: options.rounds, seconds: options.seconds, mode: options.mode, pid: gateway.process.pid, log: options.log }));
    }
    // A session that failed: what the gateway said (its warnings) goes to the log.
    if (loads.some((l) => l.untraced.errors || l.traced.errors)) options.log?.(`the gateway's output, last lines:\n${gateway.output().slice(-4000)}`);
    const cpu = await measureTracingCpu(client, caps, pageUrl, gateway.process.pid!, options.mode);
    const mix = options.iterations > 0 ? await measureTracing(client, caps, pageUrl, options.iterations, options.mode, ready) : undefined;
    return [...tracingLoadTable(loads, options.seconds, options.rounds), ...tracingCpuTable(cpu), ...(mix ? tracingTable(mix, options.iterations) : [])];
  } finally {
    await gateway.stop();
  }
}
