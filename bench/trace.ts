// What tracing costs (issues 25, 30 and 38), on a gateway of its own, on each of the bench's
// pages (./trace-pages.ts: a small one, a list of 300 items with a timer, an application-like page
// of ~3,000 elements that re-renders ~200 on each click): N sessions busy at once, traced and
// untraced in alternated rounds, and the CPU a traced loop costs by process (./trace-load.ts); one
// session's navigate and click traced against untraced, in turn; the size of a kept 100-command
// trace; on the small page also the command mix of one session. `npm run bench -- --only tracing`
// runs this alone and writes bench/results-tracing.md.
import { loadavg } from 'node:os';
import { startGateway } from '../test/helpers/gateway.ts';
import { Client, ELEMENT } from '../test/helpers/client.ts';
import type { BenchPage } from './trace-pages.ts';
import { commandMix, inTurn, median, newSession, time, type Samples } from './measure.ts';
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

/**
 * One session's page-changing commands on a page, traced against untraced (two sessions on one
 * gateway, in turn pass by pass): navigate, then find → get text → click three times; medians in ms.
 */
export async function measureSingle(client: Client, caps: Record<string, unknown>, pageUrl: string, iterations: number, mode: string): Promise<{ name: string; off: number; on: number }[]> {
  const sides = await Promise.all(
    ['off', mode].map(async (trace) => ({ id: await newSession(client, { ...caps, 'wdgate:options': { trace } }), samples: new Map<string, number[]>() })),
  );
  const take = (samples: Map<string, number[]>, name: string, ms: number) => samples.set(name, [...(samples.get(name) ?? []), ms]);
  try {
    for (let i = 0; i < iterations; i++) {
      for (const side of i % 2 ? [...sides].reverse() : sides) {
        const s = (path: string) => `/session/${side.id}${path}`;
        take(side.samples, 'navigate', await time(() => client.ok('POST', s('/url'), { url: pageUrl })));
        for (let k = 0; k < 3; k++) {
          let button = '';
          take(side.samples, 'find element', await time(async () => (button = (await client.ok('POST', s('/element'), { using: 'css selector', value: '#go' }))[ELEMENT])));
          take(side.samples, 'get element text', await time(() => client.ok('GET', s(`/element/${button}/text`))));
          take(side.samples, 'click', await time(() => client.ok('POST', s(`/element/${button}/click`), {})));
        }
      }
    }
  } finally {
    await Promise.all(sides.map((side) => client.raw('DELETE', `/session/${side.id}`)));
  }
  return ['navigate', 'find element', 'get element text', 'click'].map((name) => ({ name, off: median(sides[0]!.samples.get(name)!), on: median(sides[1]!.samples.get(name)!) }));
}

/**
 * A kept trace ("on") of 100 commands on a page, as a test runs them: New Session, the window's
 * size, a navigation, then find → get text → click until the 99th, and Delete Session. Its zip's bytes.
 */
export async function traceOf100(client: Client, caps: Record<string, unknown>, pageUrl: string): Promise<number> {
  const id = await newSession(client, { ...caps, 'wdgate:options': { trace: 'on' } });
  const s = (path: string) => `/session/${id}${path}`;
  await client.ok('POST', s('/url'), { url: pageUrl });
  let commands = 3;
  let button = '';
  for (let k = 0; commands < 99; k++, commands++) {
    if (k % 3 === 0) button = (await client.ok('POST', s('/element'), { using: 'css selector', value: '#go' }))[ELEMENT];
    else if (k % 3 === 1) await client.ok('GET', s(`/element/${button}/text`));
    else await client.ok('POST', s(`/element/${button}/click`), {});
  }
  await client.ok('DELETE', s(''));
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${client.url}/wdgate/sessions/${id}/trace`);
    if (res.ok) return (await res.arrayBuffer()).byteLength;
    await new Promise((r) => setTimeout(r, 50));
  }
  return NaN;
}

const loadNow = () => loadavg().map((l) => l.toFixed(2)).join(', ');

/** The whole tracing section, on a gateway of its own with room for the most sessions asked: each page in turn. */
export async function tracingSection(pages: { page: BenchPage; url: string }[], options: TracingOptions): Promise<string[]> {
  const most = Math.max(...options.sessions);
  const gateway = await startGateway([], {
    config: { maxSessions: most + 8, newSessionsPerSecond: 1000, logLevel: 'warn', pool: { minWarm: 1, maxBrowsers: Math.max(1, Math.ceil(most / 8)), sessionsPerBrowser: 8, idleTimeout: 60000 } },
    ...(options.cpuProf && { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${options.cpuProf}`] }),
  });
  const { client } = gateway;
  const ready = async () => {
    for (let i = 0; i < 200 && !((await client.ok('GET', '/status')).pool[0]?.free >= 1); i++) await new Promise((r) => setTimeout(r, 20));
  };
  const lines: string[] = [];
  try {
    const caps = { browserName: 'chrome' };
    for (const { page, url } of pages) {
      const loadBefore = loadNow();
      options.log?.(`tracing: the ${page.name} page (load average ${loadBefore})`);
      const loads: LoadResult[] = [];
      for (const sessions of options.sessions) {
        loads.push(await measureTracingLoad(client, caps, url, { sessions, rounds: options.rounds, seconds: options.seconds, mode: options.mode, pid: gateway.process.pid, log: options.log }));
      }
      // A session that failed: what the gateway said (its warnings) goes to the log.
      if (loads.some((l) => l.untraced.errors || l.traced.errors)) options.log?.(`the gateway's output, last lines:\n${gateway.output().slice(-4000)}`);
      const cpu = await measureTracingCpu(client, caps, url, gateway.process.pid!, options.mode);
      const single = options.iterations > 0 ? await measureSingle(client, caps, url, options.iterations, options.mode) : [];
      const bytes = await traceOf100(client, caps, url);
      lines.push(
        '',
        `### The ${page.label}`,
        '',
        `Load average (1, 5, 15 min) before: ${loadBefore}; after: ${loadNow()}.`,
        ...tracingLoadTable(loads, options.seconds, options.rounds),
        ...tracingCpuTable(cpu),
      );
      if (single.length) {
        lines.push(
          '',
          `One session alone, traced ("${options.mode}") and untraced in turn, ${options.iterations} passes of navigate → (find → get text → click) × 3; medians in ms. Target: click and navigate ≤ 1.1×.`,
          '',
          '| command | trace off | traced | traced ÷ off |',
          '|---|---:|---:|---:|',
          ...single.map((row) => `| ${row.name} | ${row.off.toFixed(2)} | ${row.on.toFixed(2)} | ${(row.on / row.off).toFixed(2)} |`),
        );
      }
      lines.push('', `A kept trace ("on") of 100 commands on this page (navigate, then find → get text → click): ${(bytes / 2 ** 20).toFixed(2)} MiB (target ≤ 5 MB).`);
      // The small page also runs the command mix of issue 25.
      if (page.name === 'small' && options.iterations > 0) lines.push(...tracingTable(await measureTracing(client, caps, url, options.iterations, options.mode, ready), options.iterations));
    }
    return lines;
  } finally {
    await gateway.stop();
  }
}
