// What the trace viewer reads of a trace zip (docs/traces.md), as plain data: the index, the
// console, the network (from the HAR), and which step's picture, DOM and time window a step shows.
// Pure: it runs in the viewer's page and in the unit tests alike.
import { unzipSync } from 'fflate';
import { Snapshots } from './snapshots.ts';

export interface TraceSession {
  id: string;
  name?: string;
  build?: string;
  tags?: string[];
  principal?: string;
  backend?: string;
  browserName?: string;
  browserVersion?: string;
  startedAt?: string;
  endedAt?: string;
  durationMs?: number;
  result?: string;
  resultReason?: string;
  endReason?: string;
  /** deleted, crashed (its browser or upstream went away) or other. */
  endCause?: string;
  /** As asked (processed), and as New Session answered. */
  capabilities?: Record<string, unknown>;
  answeredCapabilities?: Record<string, unknown>;
  /** chromium, gecko or webkit, from the browser's name. */
  engine?: string;
  upstream?: string;
  /** The window's outer size when the session ended. */
  window?: { width: number; height: number };
  commands?: number;
  errors?: number;
}

/** CSS px of a window's viewport when a capture was taken, and how far its document was scrolled. */
export interface Viewport {
  width: number;
  height: number;
  scrollX?: number;
  scrollY?: number;
}

/** A rectangle in CSS px from the viewport's top left. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A capture of the page other than the step's own (after) one: before it ran, or as it acted. */
export interface Capture {
  snapshot?: string;
  screenshot?: string;
  viewport?: Viewport;
}

/** What a command addressed and where its pointer went down (docs/traces.md, "Before, action, after"). */
export interface ActionCapture extends Capture {
  element?: {
    /** The snapshot's element carrying data-wdgate-target="<marker>". */
    marker?: string;
    /** Else its CSS selector in the snapshot's document. */
    selector?: string;
    box?: Box;
  };
  point?: { x: number; y: number };
}

export type StepKind = 'command' | 'bidi' | 'forwarded' | 'marker' | 'event';

export interface TraceStep {
  n: number;
  kind: StepKind;
  name: string;
  /** ms since the epoch */
  startedAt: number;
  durationMs?: number;
  params?: unknown;
  result?: unknown;
  error?: { code: string; message: string };
  /** The web element reference the command addressed (from its URL). */
  element?: string;
  window?: string;
  url?: string;
  title?: string;
  screenshot?: string;
  snapshot?: string;
  /** Why a captured step has no picture of its own. */
  noScreenshot?: string;
  /** The viewport of the step's own (after) capture. */
  viewport?: Viewport;
  captureError?: string;
  before?: Capture;
  action?: ActionCapture;
  /** The page changed by itself after the capture before this step and before it acted. */
  changedBefore?: boolean;
  text?: string;
}

export interface ConsoleEntry {
  type: 'console' | 'pageerror';
  level: string;
  text: string;
  stack?: string;
  window?: string;
  timestamp: number;
}

export interface Header {
  name: string;
  value: string;
}

/** One request of the HAR, as the network tab lists and details it. */
export interface NetworkEntry {
  startedAt: number;
  durationMs: number;
  method: string;
  url: string;
  status: number;
  statusText: string;
  type: string;
  mimeType: string;
  size: number;
  requestHeaders: Header[];
  responseHeaders: Header[];
  /** HAR timings (ms; -1: not known). */
  timings: Record<string, number>;
  /** The response's text, when the trace kept it (text responses up to a size). */
  body?: string;
  /** Why it failed (no response, or the browser's error). */
  error?: string;
  window?: string;
}

export interface Trace {
  session: TraceSession;
  steps: TraceStep[];
  console: ConsoleEntry[];
  network: NetworkEntry[];
  /** The zip's entries by name (screenshots, snapshots, the video). */
  files: Record<string, Uint8Array>;
  video?: string;
}

const snapshotsOfTrace = new WeakMap<Trace, Snapshots>();

/** A DOM snapshot of the trace as HTML (./snapshots.ts: its references resolved), or undefined. */
export function snapshotHtml(trace: Trace, path: string): string | undefined {
  let snapshots = snapshotsOfTrace.get(trace);
  if (!snapshots) {
    const decoder = new TextDecoder();
    snapshots = new Snapshots((name) => (trace.files[name] ? decoder.decode(trace.files[name]) : undefined));
    snapshotsOfTrace.set(trace, snapshots);
  }
  return snapshots.html(path);
}

/** The file is not a trace this viewer reads; the message says why, for the person who chose it. */
export class TraceError extends Error {}

const FORMAT_VERSION = 1;

export function readTrace(bytes: Uint8Array): Trace {
  // Every zip starts with a local file header (or, empty, the end of its directory): "PK".
  if (bytes.length < 4 || bytes[0] !== 0x50 || bytes[1] !== 0x4b) throw new TraceError('this file is not a zip file (a trace is the zip wdgate records)');
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes);
  } catch (e) {
    throw new TraceError(`this zip file cannot be read: ${(e as Error).message}`);
  }
  const index = files['trace.json'];
  if (!index) throw new TraceError('this zip file is not a wdgate trace: it has no trace.json');
  const json = parseJson(index, 'trace.json') as { version?: unknown; session?: TraceSession; steps?: unknown; video?: unknown };
  if (json.version !== FORMAT_VERSION) throw new TraceError(`this trace is of format version ${String(json.version)}; this viewer reads version ${FORMAT_VERSION}`);
  if (!Array.isArray(json.steps) || typeof json.session !== 'object' || json.session === null) throw new TraceError('trace.json has no session or no steps');
  const steps = (json.steps as TraceStep[]).filter((s) => typeof s === 'object' && s !== null && typeof s.startedAt === 'number');
  const consoleEntries = files['console.json'] ? (parseJson(files['console.json'], 'console.json') as ConsoleEntry[]) : [];
  const har = files['network.har'] ? (parseJson(files['network.har'], 'network.har') as Har) : undefined;
  const video = typeof json.video === 'string' && files[json.video] ? json.video : undefined;
  return {
    session: json.session,
    steps,
    console: Array.isArray(consoleEntries) ? consoleEntries.filter((c) => typeof c?.timestamp === 'number') : [],
    network: networkEntries(har),
    files,
    ...(video && { video }),
  };
}

function parseJson(bytes: Uint8Array, name: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new TraceError(`${name} in this trace is not JSON: ${(e as Error).message}`);
  }
}

/** The few HAR 1.2 fields the network tab shows (http://www.softwareishard.com/blog/har-12-spec/). */
export interface Har {
  log?: {
    entries?: Array<{
      startedDateTime?: string;
      time?: number;
      request?: { method?: string; url?: string; headers?: Header[] };
      response?: { status?: number; statusText?: string; headers?: Header[]; bodySize?: number; content?: { size?: number; mimeType?: string; text?: string; encoding?: string }; _transferSize?: number; _error?: string };
      timings?: Record<string, number>;
      _resourceType?: string;
      _transferSize?: number;
      _window?: string;
    }>;
  };
}

const headerList = (h: unknown): Header[] => (Array.isArray(h) ? h.filter((x): x is Header => typeof x?.name === 'string' && typeof x?.value === 'string') : []);

/** The HAR's requests in time order (http://www.softwareishard.com/blog/har-12-spec/). */
export function networkEntries(har: Har | undefined): NetworkEntry[] {
  const entries = Array.isArray(har?.log?.entries) ? har.log.entries : [];
  return entries
    .map((e) => {
      const content = e.response?.content;
      const mimeType = content?.mimeType ?? '';
      const error = e.response?._error ?? (e.response?.status ? undefined : 'no response');
      return {
        startedAt: Date.parse(e.startedDateTime ?? ''),
        durationMs: typeof e.time === 'number' ? e.time : 0,
        method: e.request?.method ?? '',
        url: e.request?.url ?? '',
        status: e.response?.status ?? 0,
        statusText: e.response?.statusText ?? '',
        type: e._resourceType ?? mimeType.split(';')[0] ?? '',
        mimeType,
        size: Math.max(e._transferSize ?? -1, e.response?._transferSize ?? -1, e.response?.bodySize ?? -1, content?.size ?? -1),
        requestHeaders: headerList(e.request?.headers),
        responseHeaders: headerList(e.response?.headers),
        timings: e.timings && typeof e.timings === 'object' ? e.timings : {},
        ...(typeof content?.text === 'string' && content.encoding !== 'base64' && { body: content.text }),
        ...(error && { error }),
        ...(typeof e._window === 'string' && { window: e._window }),
      };
    })
    .filter((e) => !Number.isNaN(e.startedAt))
    .sort((a, b) => a.startedAt - b.startedAt);
}

/**
 * The time a step stands for in the console and network tabs: from its start to the next step's,
 * so what a click set off (a request, a log line a moment later) is the click's. The first step
 * also takes what came before it and the last what came after: nothing falls between steps.
 */
export function stepWindow(steps: TraceStep[], n: number): { from: number; to: number } {
  const at = steps.findIndex((s) => s.n === n);
  const from = at <= 0 ? -Infinity : steps[at]!.startedAt;
  const next = steps[at + 1];
  return { from, to: next ? next.startedAt : Infinity };
}

export function within<T>(entries: T[], time: (entry: T) => number, window: { from: number; to: number }): T[] {
  return entries.filter((e) => time(e) >= window.from && time(e) < window.to);
}

/**
 * What a step shows of the page: its own screenshot or snapshot, or else the latest one before
 * it (a read such as Get Title changes nothing, so the page is as the step before left it).
 */
export function latest(steps: TraceStep[], n: number, field: 'screenshot' | 'snapshot'): { path: string; from: number } | undefined {
  for (let i = steps.findIndex((s) => s.n === n); i >= 0; i--) {
    const path = steps[i]![field];
    if (path) return { path, from: steps[i]!.n };
  }
  return undefined;
}

/** The W3C web element identifier (§12.1) under which an element reference comes. */
const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';

/**
 * What found each element the trace's steps got back, by its reference: `css selector "#buy"`, the
 * locator of the Find Element(s) step whose answer holds it (the first). For the steps addressing
 * it: a reader sees what was clicked, not an opaque id.
 */
export function locators(steps: readonly TraceStep[]): Map<string, { locator: string; n: number }> {
  const found = new Map<string, { locator: string; n: number }>();
  const pattern = new RegExp(`"${ELEMENT_KEY}":\\s*"([^"]+)"`, 'g');
  for (const step of steps) {
    const p = step.params as { using?: unknown; value?: unknown } | undefined;
    if (typeof step.result !== 'string' || typeof p?.using !== 'string' || typeof p.value !== 'string') continue;
    for (const m of step.result.matchAll(pattern)) if (!found.has(m[1]!)) found.set(m[1]!, { locator: `${p.using} "${p.value}"`, n: step.n });
  }
  return found;
}

/** The element a step addressed, as a reader names it: its locator (and the step that found it), else its reference. */
export function elementTarget(step: TraceStep, found: Map<string, { locator: string; n: number }>): string | undefined {
  if (!step.element) return undefined;
  const by = found.get(step.element);
  return by ? `${by.locator} (found in step ${by.n + 1})` : `element ${step.element.slice(0, 16)}`;
}

/** One line of a step's parameters, for the list: the URL, the text typed, the script. */
export function paramsSummary(params: unknown): string {
  if (params === undefined || params === null) return '';
  if (typeof params !== 'object') return String(params);
  const p = params as Record<string, unknown>;
  for (const key of ['url', 'text', 'value', 'script', 'using', 'method']) {
    if (typeof p[key] === 'string') return key === 'using' && typeof p.value === 'string' ? `${p.using} ${p.value}` : String(p[key]);
  }
  const json = JSON.stringify(params);
  return json === '{}' ? '' : json;
}

/**
 * The step a trace opens at: a failed session's last failed command (the one no later command
 * recovered from, as the result rule reads it: what its reader came for), else the first step.
 */
export function openingStep(trace: Trace): number | undefined {
  const failed = trace.session.result === 'failed' ? [...trace.steps].reverse().find((s) => s.error) : undefined;
  return (failed ?? trace.steps[0])?.n;
}

/**
 * Time zero of the console's and network's offsets: the session's start, or its first step's if
 * earlier (New Session is a step, and it began before the session existed).
 */
export function traceStart(trace: Trace): number {
  const times = [Date.parse(trace.session.startedAt ?? ''), trace.steps[0]?.startedAt ?? NaN].filter(Number.isFinite);
  return times.length ? Math.min(...times) : 0;
}

/** Where in the video the page is as the step left it (seconds from the session's start). */
export function videoTime(trace: Trace, step: TraceStep): number {
  const start = Date.parse(trace.session.startedAt ?? '') || trace.steps[0]?.startedAt || step.startedAt;
  return Math.max(0, (step.startedAt + (step.durationMs ?? 0) - start) / 1000);
}

/** "84 ms", "1.25 s", "2 min 5 s". */
export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '';
  if (ms < 1000) return `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(2)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function mimeOf(path: string): string {
  if (path.endsWith('.png')) return 'image/png';
  if (path.endsWith('.jpg') || path.endsWith('.jpeg')) return 'image/jpeg';
  if (path.endsWith('.webm')) return 'video/webm';
  if (path.endsWith('.html')) return 'text/html';
  return 'application/octet-stream';
}

/**
 * A DOM snapshot as the snapshot frame's document. Its own policy comes first, on top of the
 * viewer's (which a srcdoc frame inherits): no script, nothing fetched, only inline styles and
 * data: or blob: images; the frame is sandboxed as well.
 */
export const SNAPSHOT_POLICY = "default-src 'none'; img-src data: blob:; style-src 'unsafe-inline'; font-src data:; media-src data: blob:";

export function snapshotDocument(html: string): string {
  return `<!doctype html><meta http-equiv="Content-Security-Policy" content="${SNAPSHOT_POLICY}">${html.replace(/^\s*<!doctype[^>]*>/i, '')}`;
}
