// Session traces and history: the room's one entry point. Every session gets a SessionHistory at
// New Session (name, build, tags, counts, result; a Recorder when it is traced); the command path
// feeds it from one place per kind of session (the Gateway for classic commands, the BiDi
// connection, the pass-through edge); when the session ends, its entry (and trace, video and
// console log) goes into the store on disk, which survives restarts. docs/traces.md has the format.
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Principal } from '../server/auth.ts';
import type { Logger } from '../ops/log.ts';
import type { AnySession } from '../webdriver/sessions.ts';
import type { TraceMode, SessionLabels } from './options.ts';
import { Recorder } from './recorder.ts';
import { Redactor } from './redact.ts';
import { SessionHistory, type EndCause, type SessionFacts, type SessionResult } from './session-history.ts';
import { HistoryStore, type HistoryEntry, type HistoryFile } from './store.ts';
import { traceZip } from './trace-file.ts';

export { sessionLabels, traceMode, type TraceMode } from './options.ts';
export { scriptReports, sessionEventReports, ReportError } from './reports.ts';
import { ReportError, scriptReports, sessionEventReports } from './reports.ts';
import { error } from '../webdriver/errors.ts';
export { PAGE_CHANGING } from './recorder.ts';
export type { SessionHistory, EndCause } from './session-history.ts';

export interface TraceConfig {
  /** The default of `wdgate:options.trace`. */
  mode: TraceMode;
  /** Regular expressions whose matches never go into a trace. */
  secretPatterns: string[];
  /** Most bytes of screenshots and snapshots one session's trace keeps. */
  maxBytes: number;
  /** Most bytes of one DOM snapshot. */
  maxSnapshotBytes: number;
}

export interface HistoryConfig {
  /** Where ended sessions are kept; null: `$XDG_CACHE_HOME/wdgate/history` (or ~/.cache/…). */
  directory: string | null;
  retention: number;
  maxBytes: number;
}

/** What the history needs of the rest of the gateway. */
export interface HistoryHost {
  log: Logger;
  /** Sessions running now. */
  live(): AnySession[];
  /** A finished recording's files of the session, handed over (src/ops/recordings.ts). */
  takeRecording(id: string): { video?: string; log?: string } | undefined;
  counted: {
    traceWritten(): void;
    traceDropped(reason: string): void;
    captureDropped(reason: string): void;
    sessionEnded(result: SessionResult): void;
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

export class History {
  readonly store: HistoryStore;
  readonly trace: TraceConfig;
  readonly #host: HistoryHost;
  /** Entries being written, by session id: shutdown waits for them, and so does a reader of one. */
  readonly #writing = new Map<string, Promise<void>>();

  constructor(trace: TraceConfig, history: HistoryConfig, host: HistoryHost) {
    this.trace = trace;
    this.#host = host;
    this.store = new HistoryStore({ directory: history.directory ?? defaultHistoryDirectory(), retention: history.retention, maxBytes: history.maxBytes }, host.log);
  }

  /** At start: the entries kept by earlier runs. */
  async load(): Promise<void> {
    await this.store.load();
  }

  /** A session begins: its history, and its recorder if it is traced (watching its browser once this resolves). */
  async open(session: AnySession, facts: SessionFacts, labels: SessionLabels, mode: TraceMode): Promise<SessionHistory> {
    const recorder =
      mode === 'off'
        ? undefined
        : new Recorder({
            redactor: new Redactor(this.trace.secretPatterns),
            maxBytes: this.trace.maxBytes,
            maxSnapshotBytes: this.trace.maxSnapshotBytes,
            dropped: (reason) => this.#host.counted.captureDropped(reason),
            // The result rule's "failed" so far (a crash aside): the last capture then has its picture.
            kept: () => mode === 'on' || (history.reported ? history.reported.result === 'failed' : history.lastFailure !== undefined),
          });
    const history: SessionHistory = new SessionHistory(facts, labels, mode, recorder);
    session.history = history;
    if (recorder && session.kind === 'driven') {
      await recorder.watch(session);
      // The last capture while the browser is still there (the session's finishers run before its context goes).
      session.finishers.push(() => recorder.finish(session));
    }
    return history;
  }

  /**
   * The session ended (`finished`: what ends with it, its recording included, is done): its
   * entry, and its trace unless it is not to be kept. Never throws.
   */
  ended(session: AnySession, endReason: string, cause: EndCause, finished: Promise<unknown>): Promise<void> {
    const writing = this.#write(session, endReason, cause, finished).catch((e) => {
      this.#host.log.warn({ event: 'history entry not written', sessionId: session.id, reason: (e as Error).message });
      this.#host.counted.traceDropped('write failed');
    });
    this.#writing.set(session.id, writing);
    void writing.finally(() => this.#writing.delete(session.id));
    return writing;
  }

  /** Resolves once the entry of a session that just ended is written (at once for any other). */
  async settled(id: string): Promise<void> {
    await this.#writing.get(id);
  }

  async #write(session: AnySession, endReason: string, cause: EndCause, finished: Promise<unknown>): Promise<void> {
    const history = session.history;
    if (!history) return;
    const endedAt = Date.now();
    const { result, reason } = history.outcome(cause, endReason);
    this.#host.counted.sessionEnded(result);
    await finished.catch(() => {});
    if (session.kind === 'pass-through') await history.recorder?.finish(undefined);
    const entry = this.#entryOf(history, { endedAt, result, resultReason: reason, endReason });
    const files: { name: HistoryFile; data?: Uint8Array; from?: string }[] = [];
    const recording = this.#host.takeRecording(session.id);
    const keepTrace = history.recorder && (history.mode === 'on' || result === 'failed');
    if (history.recorder && !keepTrace) this.#host.counted.traceDropped('retain-on-failure');
    if (keepTrace) {
      const video = recording?.video ? await readFile(recording.video).catch(() => undefined) : undefined;
      try {
        const data = await traceZip(history.recorder!, { session: { ...entry, capabilities: history.facts.capabilities }, browser: { name: history.facts.browserName, version: history.facts.browserVersion } }, video);
        files.push({ name: 'trace.zip', data });
        this.#host.counted.traceWritten();
      } catch (e) {
        this.#host.log.warn({ event: 'trace not written', sessionId: session.id, reason: (e as Error).message });
        this.#host.counted.traceDropped('write failed');
      }
    }
    if (recording?.video) files.push({ name: 'video.webm', from: recording.video });
    if (recording?.log) files.push({ name: 'console.log', from: recording.log });
    await this.store.put(entry, files);
  }

  #entryOf(history: SessionHistory, end: { endedAt: number; result: SessionResult; resultReason: string; endReason: string }): Omit<HistoryEntry, 'files' | 'bytes'> {
    const { facts, labels } = history;
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
      commands: history.commands,
      errors: history.errors,
      trace: history.mode,
    };
  }

  // ── Reading ────────────────────────────────────────────────────────────────────────────────

  /** Sessions a principal may see (its own; an admin's: all), newest first, filtered and paged. */
  list(principal: Principal, query: ListQuery): { sessions: ListedEntry[]; total: number; offset: number; limit: number } {
    const state = query.state ?? 'ended';
    const all: ListedEntry[] = [];
    if (state !== 'ended') for (const session of this.#host.live()) if (session.history) all.push(this.#live(session.history));
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
    matching.sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt));
    return { sessions: matching.slice(query.offset, query.offset + query.limit), total: matching.length, offset: query.offset, limit: query.limit };
  }

  /** One session, running or ended, if the principal may see it. */
  entry(id: string, principal: Principal): ListedEntry | undefined {
    const running = this.#host.live().find((s) => s.id === id);
    const found = running?.history ? this.#live(running.history) : this.store.get(id) && listed(this.store.get(id)!);
    return found && (principal.admin || found.principal === principal.name) ? found : undefined;
  }

  /** An ended session's file, if the principal may see it. */
  file(id: string, principal: Principal, file: HistoryFile): string | undefined {
    const entry = this.store.get(id);
    if (!entry || (!principal.admin && entry.principal !== principal.name)) return undefined;
    return this.store.path(id, file);
  }

  #live(history: SessionHistory): ListedEntry {
    const now = Date.now();
    return {
      ...this.#entryOf(history, { endedAt: now, result: 'unknown', resultReason: history.reported ? `${history.reported.result} (reported)` : 'running', endReason: '' }),
      ...(history.reported && { result: history.reported.result }),
      endedAt: '',
      state: 'active',
      links: { viewer: `/ui/trace?session=${history.facts.id}` },
    };
  }

  /** Shutdown: every entry being written is written. */
  async close(): Promise<void> {
    while (this.#writing.size) await Promise.all(this.#writing.values());
    await this.store.close();
  }
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

/**
 * POST /session/{id}/se/event, for a driven session or a forwarded one: the report goes into the
 * session's history, and the answer is Selenium Grid's.
 */
export function answerSessionEvent(history: SessionHistory | undefined, body: unknown): { success: true; eventType: string } {
  let reports;
  try {
    reports = sessionEventReports(body);
  } catch (e) {
    if (e instanceof ReportError) throw error('invalid argument', `se/event: ${e.message}`);
    throw e;
  }
  history?.report(reports, 'se/event');
  return { success: true, eventType: (body as { eventType: string }).eventType };
}

/**
 * A pass-through session's request that is a report for the history (se/event; a cloud grid's
 * command sent as a script): its answer, or undefined for a request to forward. A malformed
 * report is invalid argument.
 */
export function forwardedReport(history: SessionHistory | undefined, method: string, rest: string, body: Buffer): { value: unknown } | undefined {
  if (method !== 'POST') return undefined;
  const json = () => {
    try {
      return JSON.parse(body.toString()) as unknown;
    } catch (e) {
      throw error('invalid argument', `request body is not valid JSON: ${(e as Error).message}`);
    }
  };
  if (rest === '/se/event') return { value: answerSessionEvent(history, json()) };
  if (rest !== '/execute/sync' && rest !== '/execute/async') return undefined;
  // Most scripts are ordinary: the body is parsed only when it may be a report.
  if (!body.includes('sauce:') && !body.includes('lambda-') && !body.includes('browserstack_executor')) return undefined;
  const script = (json() as { script?: unknown } | null)?.script;
  if (typeof script !== 'string') return undefined;
  let reports;
  try {
    reports = scriptReports(script);
  } catch (e) {
    if (e instanceof ReportError) throw error('invalid argument', e.message);
    throw e;
  }
  if (!reports) return undefined;
  history?.report(reports, 'execute script');
  return { value: null };
}
