// What tracing costs (issue 25's targets): the command mix on native Chromium with tracing on
// against tracing off, the same gateway, the two sessions in turn pass by pass (so the machine's
// drift cancels out); and the size of a 100-command session's trace file.
import { Client } from '../test/helpers/client.ts';
import { commandMix, inTurn, median, newSession, type Samples } from './measure.ts';

export interface TracingCost {
  /** Per command of the mix: median ms without tracing and with it. */
  rows: { name: string; off: number; on: number }[];
  /** Sum of the mix's medians, off and on (one pass of the mix). */
  mixOff: number;
  mixOn: number;
  /** A session of `commands` commands (the mix, repeated), traced: its trace's bytes. */
  traceBytes: number;
  commands: number;
}

const MIX = ['navigate', 'get title', 'find element', 'find elements (20)', 'get property', 'get element text', 'send keys', 'clear', 'click', 'execute script', 'screenshot', 'get cookies'];

export async function measureTracing(client: Client, caps: Record<string, unknown>, pageUrl: string, iterations: number, ready?: () => Promise<void>): Promise<TracingCost> {
  const traced = { ...caps, 'wdgate:options': { trace: 'on' } };
  const [off, on]: [Samples, Samples] = await inTurn({ client, caps, ready }, { client, caps: traced, ready }, pageUrl, iterations);
  const rows = [...MIX, 'new session (warm)', 'delete session'].filter((name) => off.has(name)).map((name) => ({ name, off: median(off.get(name)!), on: median(on.get(name)!) }));
  const sum = (side: 'off' | 'on') => rows.filter((r) => MIX.includes(r.name)).reduce((total, r) => total + r[side], 0);

  // A 100-command session: the New Session, the window's size, 7 passes of the mix (13
  // commands each), a few reads and the Delete, as a test would run them; then its trace is fetched.
  const id = await newSession(client, traced);
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
  return { rows, mixOff: sum('off'), mixOn: sum('on'), traceBytes, commands };
}

/** The tracing table for bench/results.md. */
export function tracingTable(cost: TracingCost, iterations: number): string[] {
  const lines = [
    '',
    `Tracing on native Chromium (wdgate:options.trace "on" against "off", one gateway, the two sessions in turn pass by pass, ${iterations} passes; medians in ms). ` +
      "A traced command's own answer does not wait for its capture: the DOM snapshot is taken right before the session's next command, " +
      'and on Chromium the screenshot is the first screencast frame drawn after that moment, so the cost shows on the command after a page-changing one. ' +
      'Target: the mix at most 10 % slower; a 100-command session\'s trace at most 5 MB.',
    '',
    '| command | trace off | trace on | on ÷ off |',
    '|---|---:|---:|---:|',
  ];
  for (const row of cost.rows) lines.push(`| ${row.name} | ${row.off.toFixed(2)} | ${row.on.toFixed(2)} | ${(row.on / row.off).toFixed(2)} |`);
  lines.push(
    `| the mix (sum of its medians) | ${cost.mixOff.toFixed(2)} | ${cost.mixOn.toFixed(2)} | ${(cost.mixOn / cost.mixOff).toFixed(2)} |`,
    `| a ${cost.commands}-command session's trace file | | ${(cost.traceBytes / 2 ** 20).toFixed(2)} MiB | |`,
  );
  return lines;
}
