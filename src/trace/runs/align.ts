// Two runs of one test, command by command: the same command with the same target is the same
// step, whatever its timing or element ids; then the first step where the failed run differs from
// the passed one — another command or target, an error where there was none, another URL or title,
// a request that failed or changed status, a page whose text or structure differs. Pure.
import { scriptReports } from '../../webdriver/reports.ts';
import { WEB_ELEMENT_IDENTIFIER as ELEMENT_KEY, SHADOW_ROOT_IDENTIFIER as SHADOW_KEY } from '../../webdriver/params.ts';

/** What the comparison needs of a trace step (trace.json, docs/traces.md). */
export interface TraceStepLike {
  n: number;
  kind: string;
  name: string;
  startedAt: number;
  params?: unknown;
  element?: string;
  result?: string;
  error?: { code: string; message: string };
  url?: string;
  title?: string;
  snapshot?: string;
}

/** A request of the trace's HAR, reduced. */
export interface RequestLike {
  startedAt: number;
  method: string;
  url: string;
  status: number;
}

/** One run, as loaded for the comparison. */
export interface RunTrace {
  steps: TraceStepLike[];
  requests: RequestLike[];
  /** A snapshot's HTML by its file name. */
  snapshot(name: string): string | undefined;
}

export type DifferenceKind = 'command' | 'missing' | 'error' | 'url' | 'title' | 'request' | 'page';

export interface Difference {
  kind: DifferenceKind;
  /** The step of the failed run (its `n`), or undefined when the failed run lacks a step the passed one had. */
  failedStep?: number;
  /** The step of the passed run it lines up with (its `n`). */
  passedStep?: number;
  /** One sentence saying what differs; steps in it are numbered from 1, as the viewer and transcript.md number them. */
  text: string;
}

/**
 * The comparison in one line, as the compare API's `summary` and transcript.md say it: "first
 * difference at step N: …", N numbered from 1 (the failed run's step, or the passed run's where
 * the failed run lacks it).
 */
export function differenceSummary(first: Difference | undefined): string {
  if (!first) return 'no difference found between the two runs';
  return `first difference at step ${(first.failedStep ?? first.passedStep!) + 1}: ${first.text}`;
}

export interface Comparison {
  /** Pairs of step numbers (failed, passed), in order; one side null where a step has no partner. */
  aligned: [number | null, number | null][];
  first: Difference | undefined;
}


/**
 * The steps that are commands. Markers and events are not aligned, nor is how a client reported
 * its result (Grid's se/event, a cloud grid's script): two runs that differ only in that are alike.
 */
const commands = (steps: TraceStepLike[]) => steps.filter((step) => (step.kind === 'command' || step.kind === 'forwarded' || step.kind === 'bidi') && !isReport(step));

function isReport(step: TraceStepLike): boolean {
  if (step.name === 'sessionEvent') return true;
  if (step.name !== 'executeScript' && step.name !== 'executeAsyncScript') return false;
  const script = (step.params as { script?: unknown } | undefined)?.script;
  if (typeof script !== 'string') return false;
  try {
    return scriptReports(script) !== undefined;
  } catch {
    return true; // a malformed report: still the client's report, never run in the page
  }
}

/**
 * Each step's key: kind, name and target. A find's target is its locator (and its parent's); an
 * element command's is the locator of the find that returned that element; a navigation's is its
 * URL without the origin (a test server's port changes from run to run); a script's, its text.
 */
export function stepKeys(steps: TraceStepLike[]): string[] {
  const locators = new Map<string, string>();
  return steps.map((step) => {
    const params = (typeof step.params === 'object' && step.params !== null ? step.params : {}) as Record<string, unknown>;
    const parent = step.element !== undefined ? (locators.get(step.element) ?? '?') : '';
    let target = parent;
    if (/^find/.test(step.name)) {
      target = `${parent}${parent ? ' > ' : ''}${String(params.using)}=${String(params.value)}`;
      for (const id of elementIds(step.result)) locators.set(id, target);
    } else if (step.name === 'navigateTo') target = withoutOrigin(String(params.url ?? ''));
    else if (step.name === 'executeScript' || step.name === 'executeAsyncScript') target = String(params.script ?? '').slice(0, 200);
    return `${step.kind === 'forwarded' ? 'command' : step.kind} ${step.name} ${target}`;
  });
}

/** Element ids in a find step's answer summary (JSON of a reference or a list of them, maybe cut). */
function elementIds(result: string | undefined): string[] {
  if (!result) return [];
  return [...result.matchAll(new RegExp(`"(?:${ELEMENT_KEY}|${SHADOW_KEY})":"([^"]+)"`, 'g'))].map((m) => m[1]!);
}

function withoutOrigin(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.protocol.startsWith('http') ? `${parsed.pathname}${parsed.search}` : url.slice(0, 200);
  } catch {
    return url.slice(0, 200);
  }
}

/** Longest common subsequence of two key lists: pairs of indices, the unmatched ones with null. */
export function align(a: string[], b: string[]): [number | null, number | null][] {
  const n = a.length;
  const m = b.length;
  // Runs are hundreds of steps at most: a table of n × m lengths is fine (cut long runs first).
  const table: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
  const pairs: [number | null, number | null][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) pairs.push([i++, j++]);
    else if (table[i + 1]![j]! >= table[i]![j + 1]!) pairs.push([i++, null]);
    else pairs.push([null, j++]);
  }
  while (i < n) pairs.push([i++, null]);
  while (j < m) pairs.push([null, j++]);
  return pairs;
}

/** Most steps compared (a longer run is compared up to here). */
const MAX_STEPS = 2000;

/** The failed run against the passed one: the aligned steps and the first difference. */
export function compareRuns(failed: RunTrace, passed: RunTrace): Comparison {
  const steps = comparing(failed, passed);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * The same, one pair of steps at a time: it yields after each pair it looked at, so that a caller
 * in the gateway can let other work run between them, or stop (./compare.ts). A pair's work is
 * bounded by the snapshots' size (trace.maxSnapshotBytes); a run's by MAX_STEPS.
 */
export function* comparing(failed: RunTrace, passed: RunTrace): Generator<void, Comparison> {
  const f = commands(failed.steps).slice(0, MAX_STEPS);
  const p = commands(passed.steps).slice(0, MAX_STEPS);
  const pairs = align(stepKeys(f), stepKeys(p));
  const aligned = pairs.map(([i, j]) => [i === null ? null : f[i]!.n, j === null ? null : p[j]!.n] as [number | null, number | null]);
  const describe = (step: TraceStepLike) => `${step.name}${step.params && typeof step.params === 'object' && 'value' in step.params ? ` ${JSON.stringify((step.params as { value: unknown }).value)}` : ''}`;
  for (let k = 0; k < pairs.length; k++) {
    const [i, j] = pairs[k]!;
    if (i !== null && j === null) return { aligned, first: { kind: 'command', failedStep: f[i]!.n, text: `step ${f[i]!.n + 1} (${describe(f[i]!)}) has no counterpart in the passed run: another command or target` } };
    if (i === null && j !== null) {
      // The failed run stopped, or went another way, before this step of the passed run.
      const next = pairs.slice(k).find(([x]) => x !== null)?.[0];
      return {
        aligned,
        first: { kind: 'missing', passedStep: p[j]!.n, ...(next != null && { failedStep: f[next]!.n }), text: `the passed run's step ${p[j]!.n + 1} (${describe(p[j]!)}) did not happen in the failed run` },
      };
    }
    const a = f[i!]!;
    const b = p[j!]!;
    const found = differs(a, b, failed, passed, f[i! + 1]?.startedAt ?? Infinity, p[j! + 1]?.startedAt ?? Infinity);
    if (found) return { aligned, first: { ...found, failedStep: a.n, passedStep: b.n } };
    yield;
  }
  return { aligned, first: undefined };
}

/** How two lined-up steps differ, the most telling first; undefined when they do not. */
function differs(a: TraceStepLike, b: TraceStepLike, failed: RunTrace, passed: RunTrace, aEnd: number, bEnd: number): Omit<Difference, 'failedStep' | 'passedStep'> | undefined {
  if (a.error && (!b.error || b.error.code !== a.error.code)) return { kind: 'error', text: `step ${a.n + 1} (${a.name}) failed with ${a.error.code}${b.error ? ` where the passed run had ${b.error.code}` : ', where it succeeded in the passed run'}: ${a.error.message.slice(0, 200)}` };
  if (a.url !== undefined && b.url !== undefined && withoutOrigin(a.url) !== withoutOrigin(b.url)) return { kind: 'url', text: `after step ${a.n + 1} (${a.name}) the page was ${withoutOrigin(a.url)}, in the passed run ${withoutOrigin(b.url)}` };
  if (a.title !== undefined && b.title !== undefined && a.title !== b.title) return { kind: 'title', text: `after step ${a.n + 1} (${a.name}) the title was ${JSON.stringify(a.title)}, in the passed run ${JSON.stringify(b.title)}` };
  const request = requestDifference(requestsDuring(failed, a.startedAt, aEnd), requestsDuring(passed, b.startedAt, bEnd));
  if (request) return { kind: 'request', text: `during step ${a.n + 1} (${a.name}) ${request}` };
  const aPage = a.snapshot ? failed.snapshot(a.snapshot) : undefined;
  const bPage = b.snapshot ? passed.snapshot(b.snapshot) : undefined;
  // The same DOM is the same page (most pairs of a run that went alike): nothing to read.
  if (aPage !== undefined && bPage !== undefined && aPage !== bPage) {
    const page = pageDifference(pageOf(aPage), pageOf(bPage));
    if (page) return { kind: 'page', text: `after step ${a.n + 1} (${a.name}) the page differs: ${page}` };
  }
  return undefined;
}

function requestsDuring(run: RunTrace, from: number, to: number): RequestLike[] {
  return run.requests.filter((r) => r.startedAt >= from && r.startedAt < to);
}

/** A request that failed, or answered another status, than its counterpart (same method and URL without origin). */
function requestDifference(a: RequestLike[], b: RequestLike[]): string | undefined {
  const statuses = new Map(b.map((r) => [`${r.method} ${withoutOrigin(r.url)}`, r.status]));
  for (const r of a) {
    const key = `${r.method} ${withoutOrigin(r.url)}`;
    const before = statuses.get(key);
    const failedNow = r.status === 0 || r.status >= 400;
    if (before !== undefined && before !== r.status) return `${key} answered ${r.status || 'nothing (failed)'}, in the passed run ${before || 'nothing (failed)'}`;
    if (before === undefined && failedNow) return `${key} ${r.status ? `answered ${r.status}` : 'failed'}, a request the passed run did not make`;
  }
  return undefined;
}

/** A page reduced to what a person sees of it: its text, line by line, and its elements' structure. */
export interface PageShape {
  text: string[];
  structure: string;
}

/** The snapshot's visible text (no styles or scripts) and its tag structure, attributes left out. */
export function pageOf(html: string): PageShape {
  const body = html.replace(/<(style|script|noscript|template)\b[\s\S]*?<\/\1>/gi, ' ').replace(/<!--[\s\S]*?-->/g, ' ');
  const tags = [...body.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((m) => (m[0].startsWith('</') ? '/' : '') + m[1]!.toLowerCase());
  const text = body
    .replace(/<[^>]*>/g, '\n')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  return { text, structure: tags.join(' ') };
}

/** The first text that differs, or a change of structure; undefined when the pages look alike. */
export function pageDifference(a: PageShape, b: PageShape): string | undefined {
  const n = Math.max(a.text.length, b.text.length);
  for (let i = 0; i < n; i++) {
    if (a.text[i] !== b.text[i]) {
      const now = a.text[i] === undefined ? 'nothing' : JSON.stringify(a.text[i]!.slice(0, 120));
      const then = b.text[i] === undefined ? 'nothing' : JSON.stringify(b.text[i]!.slice(0, 120));
      return `it shows ${now} where the passed run showed ${then}`;
    }
  }
  if (a.structure !== b.structure) return 'its elements are arranged differently (the same text)';
  return undefined;
}
