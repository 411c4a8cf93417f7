// Session traces and history: the room's one entry point. The History is an observer of the
// command seam (src/webdriver/seam.ts), wired in src/app.ts: every session gets a SessionHistory
// when it opens (a Recorder too when it is traced), every step of every kind reaches it through
// the seam, already redacted; when the session ends, its entry (and trace, video and console log)
// goes into the store on disk, which survives restarts. docs/traces.md has the format.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Principal } from '../base/principal.ts';
import type { Logger } from '../base/log.ts';
import type { Session } from '../webdriver/session.ts';
import type { AnySession } from '../webdriver/sessions.ts';
import type { Observer, PendingCommand, SessionEnd, SessionRecord, Step } from '../webdriver/seam.ts';
import type { ClientReport } from '../webdriver/reports.ts';
import type { Redactor } from '../webdriver/redact.ts';
import type { TraceMode } from '../webdriver/session-options.ts';
import type { SessionResult } from '../webdriver/outcome.ts';
import { Recorder } from './recorder.ts';
import { SessionHistory } from './session-history.ts';
import { HistoryStore, type HistoryEntry, type HistoryFile } from './store.ts';
import { traceZip } from './trace-file.ts';
import { TestRuns } from './runs/index.ts';
import { compareWithPass, sinceLastPass, type CompareAnswer } from './runs/against-pass.ts';

export type { SessionHistory } from './session-history.ts';
export type { CompareAnswer } from './runs/against-pass.ts';

export interface TraceConfig {
  /** The default of `wdgate:options.trace`. */
  mode: TraceMode;
  /** Regular expressions whose matches never go into a trace. */
  secretPatterns: string[];
  /** Names (words, src/webdriver/credentials.ts) of headers, query parameters, form fields and members whose values never go into a trace. */
  secretNames: string[];
  /** Most bytes of screenshots and snapshots one session's trace keeps. */
  maxBytes: number;
  /** Most bytes of one DOM snapshot. */
  maxSnapshotBytes: number;
  /**
   * Pictures of steps no failure needs: "when-room" (when the machine has room, never waited for)
   * or "every-step" (after every page-changing step, waited for: about 20 ms of the browser's CPU each).
   */
  pictures: 'when-room' | 'every-step';
}


export interface HistoryConfig {
  /** Where ended sessions are kept; null: `$XDG_CACHE_HOME/wdgate/history` (or ~/.cache/…). */
  directory: string | null;
  retention: number;
  maxBytes: number;
  /** A test's verdict looks at its last this many runs (issue 34). */
  verdictWindow: number;
  /**
   * The directory is the fleet's (issue 41): every gateway writes its own sessions' entries into
   * it and reads the others', so that verdicts across runs see each replica's runs.
   */
  shared: boolean;
}

/** What the history needs of the rest of the gateway. */
export interface HistoryHost {
  log: Logger;
  /** A finished recording's files of the session, handed over (src/ops/recordings.ts). */
  takeRecording(id: string): { video?: string; log?: string } | undefined;
  counted: {
    traceWritten(): void;
    traceDropped(reason: string): void;
    captureDropped(reason: string): void;
  };
}

export interface ListQuery {
  state?: 'ended' | 'active' | 'all';
  name?: string;
  build?: string;
  result?: string;
  principal?: string;
  since?: number;
  until?: number;
  limit: number;
  offset: number;
}

/** An entry as listed: the stored one, or a running session's, with its links. */
export type ListedEntry = Omit<HistoryEntry, 'files' | 'bytes'> & { state: 'ended' | 'active'; links: Record<string, string> };

/** The history directory when none is configured: under the user's cache directory. */
export function defaultHistoryDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const cache = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(cache, 'wdgate', 'history');
}

export class History implements Observer {
  readonly store: HistoryStore;
  /** The ended sessions grouped into tests, with their verdicts (./runs/). */
  readonly runs: TestRuns;
  readonly trace: TraceConfig;
  readonly #host: HistoryHost;
  /** Running sessions' histories, by session id. */
  readonly #live = new Map<string, { session: AnySession; history: SessionHistory }>();
  /** Entries being written, by session id: shutdown waits for them, and so does a reader of one. */
  readonly #writing = new Map<string, Promise<void>>();

  constructor(trace: TraceConfig, history: HistoryConfig, host: HistoryHost) {
    this.trace = trace;
    this.#host = host;
    const directory = history.directory ?? defaultHistoryDirectory();
    this.runs = new TestRuns(directory, host.log, history.verdictWindow);
    this.store = new HistoryStore({ directory, retention: history.retention, maxBytes: history.maxBytes, shared: history.shared }, host.log, {
      keep: () => this.runs.baselines(),
      traceGone: (id) => this.runs.forgetTrace(id),
      // Another gateway's session: its run joins its test (its verdict was that gateway's to write).
      added: (entry) => void this.runs.add({ ...entry, trace: entry.files.includes('trace.zip') }),
    });
  }

  /** At start: the entries kept by earlier runs, and the index of tests (rebuilt from them if need be). */
  async load(): Promise<void> {
    await this.store.load();
    await this.runs.load(() => [...this.store.entries()].map((entry) => ({ ...entry, trace: entry.files.includes('trace.zip') })));
  }

  /** How a session is traced: as it asked (`wdgate:options.trace`), or the gateway's default. */
  mode(session: AnySession): TraceMode {
    return session.options.trace ?? this.trace.mode;
  }

  // ── The seam ──────────────────────────────────────────────────────────────────────────────

  keepsContent(session: AnySession): boolean {
    return this.mode(session) !== 'off';
  }

  /** A session begins: its history, and its recorder if it is traced (watching its browser once this resolves). */
  async opened(session: AnySession, record: SessionRecord): Promise<void> {
    const mode = this.mode(session);
    const recorder =
      mode === 'off' || !record.redactor
        ? undefined
        : new Recorder({
            redactor: record.redactor,
            maxBytes: this.trace.maxBytes,
            maxSnapshotBytes: this.trace.maxSnapshotBytes,
            everyStep: this.trace.pictures === 'every-step',
            dropped: (reason) => this.#host.counted.captureDropped(reason),
            // Whether the trace is kept if the session ends now (as #write decides: "on", the result
            // rule's "failed" so far, a named test's pass as a baseline): its last capture then has a picture.
            kept: () => {
              const { reported, lastFailure } = record.outcome;
              const failing = reported ? reported.result === 'failed' : lastFailure !== undefined;
              return mode === 'on' || failing || (mode === 'retain-on-failure' && session.options.labels.name !== undefined);
            },
          });
    this.#live.set(session.id, { session, history: new SessionHistory(record, mode, recorder) });
    if (recorder && session.kind === 'driven') {
      session.browser.keepResponseBodies?.(RESPONSE_BODIES);
      await recorder.watch(session);
    }
  }

  /** A traced session's classic command: what the previous one left on the page is captured first. */
  beforeCommand(session: AnySession, command: PendingCommand): Promise<void> | undefined {
    if (command.kind !== 'command' || session.kind !== 'driven') return undefined;
    return this.#live.get(session.id)?.history.recorder?.beforeCommand(session, command);
  }

  answered(step: Step): void {
    if (step.session) this.#live.get(step.session.id)?.history.step(step);
  }

  reported(session: AnySession, reports: readonly ClientReport[], via: string): void {
    this.#live.get(session.id)?.history.report(reports, via, session.options.labels.name);
  }

  /** The last capture while the browser is still there, and the window's size for the trace's metadata. */
  async closing(session: Session): Promise<void> {
    const history = this.#live.get(session.id)?.history;
    if (!history?.recorder) return;
    const window = session.currentWindow;
    await Promise.all([
      history.recorder.finish(session),
      // (A trace that will not be kept needs no window size: the session's end waits for nothing.)
      window !== null &&
        history.recorder.keeps &&
        session.browser
          .getWindowRect(window)
          .then(({ width, height }) => void (history.window = { width, height }))
          .catch(() => {}),
    ]);
  }

  /**
   * The session ended (`end.finished`: what ends with it, its recording included, is done): its
   * entry, and its trace unless it is not to be kept. Never throws.
   */
  ended(session: AnySession, end: SessionEnd): Promise<void> {
    const live = this.#live.get(session.id);
    if (!live) return Promise.resolve();
    const writing = this.#write(session, live.history, end)
      .catch((e) => {
        this.#host.log.warn({ event: 'history entry not written', sessionId: session.id, reason: (e as Error).message });
        this.#host.counted.traceDropped('write failed');
      })
      .finally(() => this.#live.delete(session.id));
    this.#writing.set(session.id, writing);
    void writing.finally(() => this.#writing.delete(session.id));
    return writing;
  }

  /** Resolves once the entry of a session that just ended is written (at once for any other). */
  async settled(id: string): Promise<void> {
    await this.#writing.get(id);
  }

  async #write(session: AnySession, history: SessionHistory, end: SessionEnd): Promise<void> {
    const endedAt = Date.now();
    const { result } = end;
    await end.finished.catch(() => {});
    if (session.kind === 'pass-through') await history.recorder?.finish(undefined);
    const entry: Omit<HistoryEntry, 'files' | 'bytes'> = this.#entryOf(session, history, { endedAt, result, resultReason: end.resultReason, endReason: end.reason });
    const { lastFailure } = history.record.outcome;
    if (result === 'failed' && lastFailure && !history.record.outcome.reported) entry.failure = lastFailure;
    const files: { name: HistoryFile; data?: Uint8Array; from?: string }[] = [];
    const recording = this.#host.takeRecording(session.id);
    // retain-on-failure keeps a failed session's trace; and a named test's passing trace, as the
    // one its next failure is compared with, until a newer pass replaces it (./runs/).
    const baseline = history.mode === 'retain-on-failure' && result === 'passed' && entry.name !== undefined;
    const keepTrace = history.recorder && (history.mode === 'on' || result === 'failed' || baseline);
    if (history.recorder && !keepTrace) this.#host.counted.traceDropped('retain-on-failure');
    if (keepTrace) {
      const video = recording?.video ? await readFile(recording.video).catch(() => undefined) : undefined;
      try {
        const session = {
          ...entry,
          engine: engineOf(history.facts.browserName),
          endCause: end.cause,
          ...(history.window && { window: history.window }),
          capabilities: history.facts.capabilities,
          ...(history.facts.answered && { answeredCapabilities: history.facts.answered }),
        };
        const data = await traceZip(history.recorder!, { session, browser: { name: history.facts.browserName, version: history.facts.browserVersion } }, video, sinceLastPass(this.store, this.runs, this.#host.log, entry));
        files.push({ name: 'trace.zip', data });
        this.#host.counted.traceWritten();
      } catch (e) {
        this.#host.log.warn({ event: 'trace not written', sessionId: session.id, reason: (e as Error).message });
        this.#host.counted.traceDropped('write failed');
      }
    }
    if (recording?.video) files.push({ name: 'video.webm', from: recording.video });
    // The test's verdict as of this run (written into its entry), with the runs other gateways of
    // the fleet ended until now.
    await this.store.refresh();
    const ended = { ...entry, trace: files.some((file) => file.name === 'trace.zip') };
    const replaced = ended.trace && result === 'passed' ? this.runs.baselineOf(ended) : undefined;
    const verdict = this.runs.add(ended);
    if (verdict) entry.verdict = verdict;
    // The console log under the trace's rules: what became known as secret while the session ran
    // (a password typed after a line was written) is hidden in every line.
    if (recording?.log) {
      const redactor = history.record.redactor;
      const log = redactor ? await readFile(recording.log, 'utf8').catch(() => undefined) : undefined;
      files.push(log !== undefined && redactor ? { name: 'console.log', data: Buffer.from(redactLog(redactor, log)) } : { name: 'console.log', from: recording.log });
    }
    await this.store.put(entry, files);
    // A newer pass replaces the test's baseline: the older one's trace, kept only as that, goes.
    const old = replaced && this.store.get(replaced);
    if (old && old.result === 'passed' && old.trace === 'retain-on-failure') await this.store.dropFile(old.id, 'trace.zip');
  }

  #entryOf(session: AnySession, history: SessionHistory, end: { endedAt: number; result: SessionResult; resultReason: string; endReason: string }): Omit<HistoryEntry, 'files' | 'bytes'> {
    const { facts } = history;
    const { labels } = session.options;
    const { outcome } = history.record;
    return {
      id: facts.id,
      ...(labels.name !== undefined && { name: labels.name }),
      ...(labels.build !== undefined && { build: labels.build }),
      tags: labels.tags,
      principal: facts.principal,
      backend: facts.backend,
      ...(facts.upstream !== undefined && { upstream: facts.upstream }),
      browserName: facts.browserName,
      browserVersion: facts.browserVersion,
      startedAt: new Date(history.startedAt).toISOString(),
      endedAt: new Date(end.endedAt).toISOString(),
      durationMs: end.endedAt - history.startedAt,
      result: end.result,
      resultReason: end.resultReason,
      endReason: end.endReason,
      commands: outcome.commands,
      errors: outcome.errors,
      trace: history.mode,
    };
  }

  // ── Reading ────────────────────────────────────────────────────────────────────────────────

  /** Sessions a principal may see (its own; an admin's: all), newest first, filtered and paged. */
  list(principal: Principal, query: ListQuery): { sessions: ListedEntry[]; total: number; offset: number; limit: number } {
    const state = query.state ?? 'ended';
    const all: ListedEntry[] = [];
    if (state !== 'ended') for (const { session, history } of this.#live.values()) all.push(this.#listedLive(session, history));
    if (state !== 'active') for (const entry of this.store.entries()) all.push(listed(entry));
    const contains = (value: string | undefined, part: string | undefined) => part === undefined || (value ?? '').toLowerCase().includes(part.toLowerCase());
    const matching = all.filter(
      (e) =>
        (principal.admin || e.principal === principal.name) &&
        contains(e.name, query.name) &&
        contains(e.build, query.build) &&
        (query.result === undefined || e.result === query.result) &&
        (query.principal === undefined || e.principal === query.principal) &&
        (query.since === undefined || Date.parse(e.startedAt) >= query.since) &&
        (query.until === undefined || Date.parse(e.startedAt) <= query.until),
    );
    // ISO times in UTC sort as text: no date parsed per comparison (10,000 entries).
    matching.sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0));
    return { sessions: matching.slice(query.offset, query.offset + query.limit), total: matching.length, offset: query.offset, limit: query.limit };
  }

  /** One session, running or ended, if the principal may see it. */
  entry(id: string, principal: Principal): ListedEntry | undefined {
    const running = this.#live.get(id);
    const found = running ? this.#listedLive(running.session, running.history) : this.store.get(id) && listed(this.store.get(id)!);
    return found && (principal.admin || found.principal === principal.name) ? found : undefined;
  }

  /** An ended session's file, if the principal may see it. */
  file(id: string, principal: Principal, file: HistoryFile): string | undefined {
    const entry = this.store.get(id);
    if (!entry || (!principal.admin && entry.principal !== principal.name)) return undefined;
    return this.store.path(id, file);
  }

  #listedLive(session: AnySession, history: SessionHistory): ListedEntry {
    const now = Date.now();
    const { reported } = history.record.outcome;
    return {
      ...this.#entryOf(session, history, { endedAt: now, result: 'unknown', resultReason: reported ? `${reported.result} (reported)` : 'running', endReason: '' }),
      ...(reported && { result: reported.result }),
      endedAt: '',
      state: 'active',
      links: { viewer: `/ui/trace?session=${history.facts.id}` },
    };
  }

  /** Shutdown: every entry being written is written. */
  async close(): Promise<void> {
    while (this.#writing.size) await Promise.all(this.#writing.values());
    await this.store.close();
    await this.runs.close();
  }

  // ── Across runs (./runs/against-pass.ts) ──────────────────────────────────────────────────

  /** A failed session against a passing run of its test: GET /wdgate/sessions/{id}/compare. */
  async compare(id: string, principal: Principal, withId?: string): Promise<CompareAnswer> {
    await this.settled(id);
    return compareWithPass(this.store, this.runs, id, principal, withId);
  }
}

/** The browser engine a browser name stands for (the trace's metadata; Playwright's viewer names it so). */
export function engineOf(browserName: string): string {
  const name = browserName.toLowerCase();
  if (/firefox|gecko/.test(name)) return 'gecko';
  if (/webkit|safari|minibrowser|epiphany/.test(name)) return 'webkit';
  if (/chrom|edge|opera|brave/.test(name)) return 'chromium';
  return '';
}

/** A response body a trace keeps: text, at most 64 KiB each, 8 MiB for a session. */
const RESPONSE_BODIES = { each: 64 * 1024, total: 8 * 1024 * 1024 };

/** A recording's console log (a JSON object per line) with every line's text redacted. */
function redactLog(redactor: Redactor, log: string): string {
  return log
    .split('\n')
    .map((line) => {
      if (line === '') return line;
      try {
        const entry = JSON.parse(line) as { text?: unknown };
        if (typeof entry.text === 'string') return JSON.stringify({ ...entry, text: redactor.text(entry.text) });
      } catch {
        // not JSON: redacted as text
      }
      return redactor.text(line);
    })
    .join('\n');
}

function listed(entry: HistoryEntry): ListedEntry {
  const { files, bytes: _bytes, ...rest } = entry;
  const base = `/wdgate/sessions/${entry.id}`;
  const links: Record<string, string> = {};
  if (files.includes('trace.zip')) Object.assign(links, { trace: `${base}/trace`, har: `${base}/har`, viewer: `/ui/trace?session=${entry.id}` });
  if (files.includes('video.webm')) links.video = `${base}/video`;
  if (files.includes('console.log')) links.log = `${base}/log`;
  return { ...rest, state: 'ended', links };
}
