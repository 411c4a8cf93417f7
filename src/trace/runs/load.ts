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
  const har = files['network.har'] ? (JSON.parse(Buffer.from(files['network.har']).toString()) as { log?: { entries?: HarEntry[] } }) : undefined;
  const requests: RequestLike[] = (har?.log?.entries ?? []).map((e) => ({
    startedAt: Date.parse(e.startedDateTime),
    method: e.request.method,
    url: e.request.url,
    status: e.response?.status ?? 0,
  }));
  let snapshots: Record<string, Uint8Array> | undefined;
  return {
    steps: index.steps,
    requests,
    snapshot(name) {
      // Unzipped once, at the first snapshot the comparison looks at.
      snapshots ??= unzipSync(zip, { filter: (file) => file.name.startsWith('snapshots/') });
      const data = snapshots[name];
      return data && Buffer.from(data).toString();
    },
  };
}

interface HarEntry {
  startedDateTime: string;
  request: { method: string; url: string };
  response?: { status: number };
}
