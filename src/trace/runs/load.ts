// A kept trace read for a comparison (./align.ts): its steps, its requests from the HAR, and its
// DOM snapshots on demand. Only the two traces compared are read, and only their index, HAR and
// the snapshots the comparison reaches.
import { readFile } from 'node:fs/promises';
import { unzipSync } from 'fflate';
import type { RequestLike, RunTrace, TraceStepLike } from './align.ts';
import { Snapshots } from '../viewer/snapshots.ts';

export async function loadRunTrace(path: string): Promise<RunTrace> {
  const zip = await readFile(path);
  const files = unzipSync(zip, { filter: (file) => file.name === 'trace.json' || file.name === 'network.har' });
  const index = JSON.parse(Buffer.from(files['trace.json']!).toString()) as { steps: TraceStepLike[] };
  const har = files['network.har'] ? (JSON.parse(Buffer.from(files['network.har']).toString()) as HarLike) : undefined;
  // Only the snapshots asked for (and those their references name) are inflated, when the comparison reaches them.
  const snapshots = new Snapshots((name) => {
    const data = unzipSync(zip, { filter: (file) => file.name === name })[name];
    return data && Buffer.from(data).toString();
  });
  return {
    steps: index.steps,
    requests: requestsOf(har),
    snapshot: (name) => snapshots.html(name),
  };
}

/** The HAR's requests as the comparison reads them (a trace being written is compared from its HAR too). */
export function requestsOf(har: HarLike | undefined): RequestLike[] {
  return (har?.log?.entries ?? []).map((e) => ({
    startedAt: Date.parse(e.startedDateTime),
    method: e.request.method,
    url: e.request.url,
    status: e.response?.status ?? 0,
  }));
}

export interface HarLike {
  log?: { entries?: { startedDateTime: string; request: { method: string; url: string }; response?: { status: number } }[] };
}
