// A kept trace read for a comparison (./align.ts): its steps, its requests from the HAR, and its
// DOM snapshots on demand. Only the two traces compared are read, and only their index, HAR and
// the snapshots the comparison reaches.
import { readFile } from 'node:fs/promises';
import { unzipSync } from 'fflate';
import type { RequestLike, RunTrace, TraceStepLike } from './align.ts';

export async function loadRunTrace(path: string): Promise<RunTrace> {
  const zip = await readFile(path);
  const files = unzipSync(zip, { filter: (file) => file.name === 'trace.json' || file.name === 'network.har' });
  const index = JSON.parse(Buffer.from(files['trace.json']!).toString()) as { steps: TraceStepLike[] };
  const har = files['network.har'] ? (JSON.parse(Buffer.from(files['network.har']).toString()) as HarLike) : undefined;
  let snapshots: Record<string, Uint8Array> | undefined;
  return {
    steps: index.steps,
    requests: requestsOf(har),
    snapshot(name) {
      // Unzipped once, at the first snapshot the comparison looks at.
      snapshots ??= unzipSync(zip, { filter: (file) => file.name.startsWith('snapshots/') });
      const data = snapshots[name];
      return data && Buffer.from(data).toString();
    },
  };
}

/** The same within `ms` (the zip read and its index unzipped), or undefined. */
export async function loadRunTraceWithin(path: string, ms: number): Promise<RunTrace | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([loadRunTrace(path), late]);
  } finally {
    clearTimeout(timer);
  }
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
