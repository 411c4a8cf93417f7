// Across runs (issue 34): the history's ended sessions grouped into tests — a test is its name,
// per browser and principal — each with its recent runs, its verdict (./verdicts.ts), and the last
// passing run whose trace is kept for comparison (./align.ts). The index is kept as sessions end,
// in one file beside the history's folders, and rebuilt from the entries when it is missing; no
// trace is read for it.
import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../base/log.ts';
import type { Principal } from '../../base/principal.ts';
import { DEFAULT_WINDOW, errorKey, VERDICTS, verdictOf, type Run, type Verdict } from './verdicts.ts';

export { VERDICTS, type Run, type Verdict } from './verdicts.ts';
export { compareRuns, differenceSummary, type Comparison, type Difference, type RunTrace } from './align.ts';

/** What the index takes of an ended session's history entry. */
export interface EndedRun {
  id: string;
  name?: string;
  build?: string;
  principal: string;
  browserName: string;
  result: Run['result'];
  startedAt: string;
  failure?: Run['failure'];
  /** Why it failed, as its client reported it (a reported failure carries no W3C failure). */
  resultReason?: string;
  /** Its trace is kept. */
  trace: boolean;
}

export interface TestRecord {
  name: string;
  browserName: string;
  principal: string;
  /** Oldest first, the newest MAX_RUNS. */
  runs: Run[];
}

export interface TestsQuery {
  name?: string;
  build?: string;
  verdict?: Verdict;
  limit: number;
  offset: number;
}

/** Runs kept per test (verdicts look at the last `window`; failures are grouped over these). */
const MAX_RUNS = 50;
/** A reported failure's reason is kept this long (it is shown with the run). */
const MAX_REASON = 300;
const INDEX_FILE = 'tests-index.json';
const VERSION = 1;
/** The index is written at most this often (ms) while sessions end. */
const SAVE_DELAY_MS = 1000;

export class TestRuns {
  readonly #file: string;
  readonly #log: Logger;
  readonly #window: number;
  readonly #tests = new Map<string, TestRecord>();
  /** Session id → its test's key (the runs kept). */
  readonly #testOf = new Map<string, string>();
  #saveTimer: NodeJS.Timeout | undefined;
  #saving: Promise<void> | undefined;

  constructor(directory: string, log: Logger, window = DEFAULT_WINDOW) {
    this.#file = join(directory, INDEX_FILE);
    this.#log = log;
    this.#window = window;
  }

  /**
   * At start: the index as last saved, or (missing, unreadable, or behind the entries) rebuilt
   * from them. Which runs keep a trace is read from the entries (the index may have been written
   * before an entry or its trace went, or not at all after a crash).
   */
  async load(entries: () => Iterable<EndedRun>): Promise<void> {
    const started = performance.now();
    const saved = await readFile(this.#file, 'utf8').then((text) => JSON.parse(text) as { version: number; tests: TestRecord[] }, () => undefined);
    const valid = saved?.version === VERSION && Array.isArray(saved.tests);
    if (valid) for (const test of saved.tests) this.#put(test);
    const traced = new Set<string>();
    let added = 0;
    for (const entry of entries()) {
      if (entry.trace) traced.add(entry.id);
      if (entry.name === undefined || this.#testOf.has(entry.id)) continue;
      // (A run older than its test's newest MAX_RUNS is not kept, and not added again at each start.)
      if (this.#add(entry).kept) added++;
    }
    let corrected = 0;
    for (const test of this.#tests.values()) {
      for (const run of test.runs) {
        if (run.trace === traced.has(run.id)) continue;
        run.trace = traced.has(run.id);
        corrected++;
      }
    }
    if (added > 0 || corrected > 0 || !valid) {
      await this.#save();
      this.#log.info({ event: 'tests index rebuilt', runsAdded: added, tracesCorrected: corrected, tests: this.#tests.size, ms: Math.round(performance.now() - started) });
    }
  }

  /** A session ended: its run goes into its test; its verdict as of this run (none for an unnamed session). */
  add(entry: EndedRun): Verdict | undefined {
    if (entry.name === undefined) return undefined;
    const { test } = this.#add(entry);
    this.#scheduleSave();
    return verdictOf(test.runs, this.#window);
  }

  /** An entry left the history (retention): its run stays for the verdicts, without its trace. */
  forgetTrace(id: string): void {
    const test = this.#tests.get(this.#testOf.get(id) ?? '');
    const run = test?.runs.find((r) => r.id === id);
    if (run?.trace) {
      run.trace = false;
      this.#scheduleSave();
    }
  }

  /** Each test's newest passing run whose trace is kept: the history keeps these while its budget allows. */
  baselines(): Set<string> {
    const ids = new Set<string>();
    for (const test of this.#tests.values()) {
      const baseline = newest(test.runs, (run) => run.result === 'passed' && run.trace);
      if (baseline) ids.add(baseline.id);
    }
    return ids;
  }

  /** The test's baseline now (its newest passing run with a trace), before `entry` is added. */
  baselineOf(entry: EndedRun): string | undefined {
    if (entry.name === undefined) return undefined;
    const test = this.#tests.get(testKey({ name: entry.name, browserName: entry.browserName, principal: entry.principal }));
    return test && newest(test.runs, (run) => run.result === 'passed' && run.trace)?.id;
  }

  /** The run a failed session is compared with: its test's newest passed run before it, with a trace. */
  lastPassedBefore(id: string): Run | undefined {
    const test = this.#tests.get(this.#testOf.get(id) ?? '');
    const run = test?.runs.find((r) => r.id === id);
    if (!test || !run) return undefined;
    return newest(test.runs, (r) => r.result === 'passed' && r.trace && r.startedAt < run.startedAt);
  }

  /** The same, for a session ending now, before its run is added (its transcript is written first). */
  lastPassedBeforeEnded(entry: EndedRun): Run | undefined {
    if (entry.name === undefined) return undefined;
    const test = this.#tests.get(testKey({ name: entry.name, browserName: entry.browserName, principal: entry.principal }));
    const startedAt = Date.parse(entry.startedAt);
    return test && newest(test.runs, (r) => r.result === 'passed' && r.trace && r.startedAt < startedAt && r.id !== entry.id);
  }

  /** The test of a session, if it was named. */
  testOf(id: string): TestRecord | undefined {
    return this.#tests.get(this.#testOf.get(id) ?? '');
  }

  /**
   * Tests a principal may see (its own; an admin's: all), filtered, the most telling first. With
   * `build`, each test as of that build (its runs up to the build's last one), and the build's
   * summary over the tests that match `name`, whatever their verdict.
   */
  list(principal: Principal, query: TestsQuery) {
    const contains = (value: string | undefined, part: string | undefined) => part === undefined || (value ?? '').toLowerCase().includes(part.toLowerCase());
    const rank = (verdict: Verdict) => VERDICTS.indexOf(verdict);
    const rows = [];
    for (const test of this.#tests.values()) {
      if (!principal.admin && test.principal !== principal.name) continue;
      if (!contains(test.name, query.name)) continue;
      // A build filter looks at the test as of that build: its runs up to the build's last one.
      const inBuild = query.build === undefined ? test.runs : test.runs.filter((run) => contains(run.build, query.build));
      if (inBuild.length === 0) continue;
      const upTo = inBuild.at(-1)!.startedAt;
      const runs = query.build === undefined ? test.runs : test.runs.filter((run) => run.startedAt <= upTo);
      rows.push({ test, runs, verdict: verdictOf(runs, this.#window), latest: upTo });
    }
    const summary = query.build === undefined ? undefined : buildSummary(rows);
    const matching = query.verdict === undefined ? rows : rows.filter((row) => row.verdict === query.verdict);
    matching.sort((a, b) => rank(a.verdict) - rank(b.verdict) || b.latest - a.latest);
    const page = matching.slice(query.offset, query.offset + query.limit).map(({ test, runs, verdict }) => ({
      name: test.name,
      browserName: test.browserName,
      principal: test.principal,
      verdict,
      runs: this.#listedRuns(runs),
      failures: groupFailures(runs),
    }));
    return { tests: page, total: matching.length, offset: query.offset, limit: query.limit, ...(summary && { build: { name: query.build, ...summary } }) };
  }

  /** A test's last `window` runs as listed, oldest first; a failed one links to its comparison when a passing run with a trace came before it. */
  #listedRuns(runs: Run[]) {
    const shown = runs.slice(-this.#window);
    let passedBefore = runs.slice(0, runs.length - shown.length).some((run) => run.result === 'passed' && run.trace);
    return shown.map((run) => {
      const listed = {
        id: run.id,
        ...(run.build !== undefined && { build: run.build }),
        result: run.result,
        startedAt: new Date(run.startedAt).toISOString(),
        ...(run.failure && { error: run.failure }),
        ...(run.reason !== undefined && { reason: run.reason }),
        links: {
          entry: `/wdgate/sessions/${run.id}`,
          ...(run.trace && { viewer: `/ui/trace?session=${run.id}` }),
          ...(run.result === 'failed' && passedBefore && { compare: `/wdgate/sessions/${run.id}/compare` }),
        },
      };
      if (run.result === 'passed' && run.trace) passedBefore = true;
      return listed;
    });
  }

  /** The gateway ends: the index is written. */
  async close(): Promise<void> {
    clearTimeout(this.#saveTimer);
    this.#saveTimer = undefined;
    await this.#saving;
    await this.#save();
  }

  #put(test: TestRecord): void {
    const key = testKey(test);
    this.#tests.set(key, test);
    for (const run of test.runs) this.#testOf.set(run.id, key);
  }

  /** A run into its test, in order of start; `kept`: it is among the test's newest MAX_RUNS. */
  #add(entry: EndedRun): { test: TestRecord; kept: boolean } {
    const shape = { name: entry.name!, browserName: entry.browserName, principal: entry.principal };
    const key = testKey(shape);
    let test = this.#tests.get(key);
    if (!test) this.#tests.set(key, (test = { ...shape, runs: [] }));
    const run: Run = {
      id: entry.id,
      ...(entry.build !== undefined && { build: entry.build }),
      result: entry.result,
      startedAt: Date.parse(entry.startedAt),
      ...(entry.failure && { failure: entry.failure }),
      ...(entry.result === 'failed' && !entry.failure && entry.resultReason !== undefined && { reason: entry.resultReason.slice(0, MAX_REASON) }),
      trace: entry.trace,
    };
    if (test.runs.length >= MAX_RUNS && run.startedAt < test.runs[0]!.startedAt) return { test, kept: false };
    test.runs.push(run);
    test.runs.sort((a, b) => a.startedAt - b.startedAt);
    while (test.runs.length > MAX_RUNS) this.#testOf.delete(test.runs.shift()!.id);
    this.#testOf.set(run.id, key);
    return { test, kept: true };
  }

  #scheduleSave(): void {
    this.#saveTimer ??= setTimeout(() => {
      this.#saveTimer = undefined;
      this.#saving = this.#save().finally(() => (this.#saving = undefined));
    }, SAVE_DELAY_MS);
    this.#saveTimer.unref();
  }

  /**
   * Written whole to a new file, then renamed over the old one (a crash leaves one or the other);
   * the new file's name is this gateway's own (a fleet's gateways share the history directory).
   */
  async #save(): Promise<void> {
    const text = JSON.stringify({ version: VERSION, tests: [...this.#tests.values()] });
    const temporary = `${this.#file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, text);
      await rename(temporary, this.#file);
    } catch (e) {
      this.#log.warn({ event: 'tests index not written', reason: (e as Error).message });
    }
  }
}

/** The newest run (runs are oldest first) that matches. */
function newest(runs: Run[], match: (run: Run) => boolean): Run | undefined {
  for (let i = runs.length - 1; i >= 0; i--) if (match(runs[i]!)) return runs[i];
  return undefined;
}

const testKey = (test: { name: string; browserName: string; principal: string }) => JSON.stringify([test.principal, test.name, test.browserName]);

/** Failures grouped by their error (W3C code and failing command), the most frequent first. */
function groupFailures(runs: Run[]): { error: string; count: number; sessions: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const run of runs) {
    const key = errorKey(run);
    if (key === undefined) continue;
    groups.set(key, [...(groups.get(key) ?? []), run.id]);
  }
  return [...groups].map(([error, sessions]) => ({ error, count: sessions.length, sessions: sessions.slice(-10) })).sort((a, b) => b.count - a.count);
}

/** A build's summary: its tests by what their runs in it were, and its flaky and new failures. */
function buildSummary(rows: { runs: Run[]; verdict: Verdict }[]): { tests: number; passed: number; failed: number; flaky: number; newFailures: number } {
  let passed = 0;
  let failed = 0;
  for (const { runs } of rows) {
    if (runs.at(-1)?.result === 'passed') passed++;
    else if (runs.at(-1)?.result === 'failed') failed++;
  }
  return { tests: rows.length, passed, failed, flaky: rows.filter((r) => r.verdict === 'flaky').length, newFailures: rows.filter((r) => r.verdict === 'new failure').length };
}
