// Writing a trace: one zip (docs/traces.md) of the index, the screenshots, the DOM snapshots,
// the HAR, the console, the transcript and the video. Texts are redacted here, as they are written, so a secret
// learnt late in the session is scrubbed from what came before it too. Written one file at a
// time, yielding between files: a trace is written while other sessions' commands run.
import { setImmediate as yieldToOthers } from 'node:timers/promises';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import pkg from '../../package.json' with { type: 'json' };
import { toHar } from './har.ts';
import type { Recorder } from './recorder.ts';
import type { RunTrace } from './runs/align.ts';
import { requestsOf } from './runs/load.ts';
import { transcript, type SinceLastPass } from './transcript.ts';
import { networkEntries, type ConsoleEntry, type TraceSession, type TraceStep } from './viewer/model.ts';
import { isTree, Snapshots, type ElementNode, type SnapshotFile, type SnapshotNode } from './viewer/snapshots.ts';
import type { Redactor } from '../webdriver/redact.ts';

export interface TraceSummary {
  session: Record<string, unknown>;
  browser: { name: string; version: string };
}

/**
 * The trace as zip bytes. `sinceLastPass`, given this run as the comparison reads a trace (what is
 * written, redacted), compares it with its test's last pass for transcript.md (src/trace/runs/).
 */
export async function traceZip(recorder: Recorder, summary: TraceSummary, video: Buffer | undefined, sinceLastPass?: (run: RunTrace) => Promise<SinceLastPass | undefined>): Promise<Buffer> {
  const { redactor } = recorder;
  const har = toHar(recorder.network, recorder.pages, summary.browser, pkg.version, redactor);
  const consoleRecords = recorder.console.map((c) => ({ ...c, text: redactor.text(c.text), ...(c.stack !== undefined && { stack: redactor.text(c.stack) }) }));
  const index = {
    version: 1,
    session: redactor.value(summary.session),
    steps: recorder.steps.map((step) => ({
      ...step,
      ...(step.params !== undefined && { params: redactor.value(step.params) }),
      ...(step.result !== undefined && { result: redactor.text(step.result) }),
      ...(step.error && { error: { code: step.error.code, message: redactor.text(step.error.message) } }),
      ...(step.url !== undefined && { url: redactor.text(step.url) }),
      ...(step.title !== undefined && { title: redactor.text(step.title) }),
      ...(step.text !== undefined && { text: redactor.text(step.text) }),
    })),
    consoleCount: recorder.console.filter((c) => c.type === 'console').length,
    pageErrorCount: recorder.console.filter((c) => c.type === 'pageerror').length,
    requestCount: recorder.network.length,
    ...(video && { video: 'video.webm' }),
  };
  const archive = new ZipWriter();
  // The index first: a reader finds it at once.
  archive.add('trace.json', JSON.stringify(index));
  archive.add('network.har', JSON.stringify(har));
  archive.add('console.json', JSON.stringify(consoleRecords));
  // Snapshots as they are written below: redacted (and their references resolved for the comparison).
  const written = new Map<string, string>();
  const redacted = (name: string): string | undefined => {
    const content = recorder.files.get(name);
    if (typeof content !== 'string') return content?.toString();
    let text = written.get(name);
    if (text === undefined) written.set(name, (text = redactFile(redactor, name, content)));
    return text;
  };
  // From what is written above, redacted already.
  const snapshots = new Snapshots(redacted);
  const since = await sinceLastPass?.({
    steps: index.steps,
    requests: requestsOf(har),
    snapshot: (name) => snapshots.html(name),
  });
  archive.add('transcript.md', transcript({ session: index.session as TraceSession, steps: index.steps as TraceStep[], console: consoleRecords as ConsoleEntry[], network: networkEntries(har) }, since));
  for (const [name, content] of recorder.files) {
    await yieldToOthers();
    archive.add(name, typeof content === 'string' ? redacted(name)! : content);
  }
  if (video) archive.add('video.webm', video);
  return archive.end();
}

/**
 * A text file of the trace redacted: a snapshot tree string by string (its texts and attribute
 * values; its structure, and so its references, untouched), any other text as a whole.
 */
function redactFile(redactor: Redactor, name: string, content: string): string {
  if (!isTree(name)) return redactor.text(content);
  const file = JSON.parse(content) as SnapshotFile;
  const walk = (node: SnapshotNode): SnapshotNode => {
    if (typeof node === 'string') return redactor.text(node);
    if (!Array.isArray(node) || typeof node[0] !== 'string') return node;
    const [tag, attrs, ...children] = node as ElementNode;
    const out: Record<string, string> = {};
    // A frame's document of its own is named by its id and version: those stay as they are.
    for (const [key, value] of Object.entries(attrs ?? {})) out[key] = tag === '#document' ? value : redactor.text(value);
    return [tag, out, ...children.map(walk)];
  };
  return JSON.stringify({ ...file, html: walk(file.html) });
}

/** A zip built in memory: texts deflated, bytes (pictures, video: compressed already) stored. */
class ZipWriter {
  readonly #chunks: Uint8Array[] = [];
  readonly #zip = new Zip((error, chunk) => {
    if (error) throw error;
    this.#chunks.push(chunk);
  });

  add(name: string, content: string | Buffer): void {
    const text = typeof content === 'string';
    const file = text ? new ZipDeflate(name, { level: 6 }) : new ZipPassThrough(name);
    this.#zip.add(file);
    file.push(text ? new TextEncoder().encode(content) : content, true);
  }

  end(): Buffer {
    this.#zip.end();
    return Buffer.concat(this.#chunks);
  }
}
