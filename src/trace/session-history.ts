// What the history keeps of one session while it runs, traced or not: who and what, its name,
// build and tags, how many commands and errors, the result the client reported, and the failure
// nothing recovered from. Its recorder (./recorder.ts) exists only when the session is traced.
import type { ClientReport, TestResult } from './reports.ts';
import type { SessionLabels, TraceMode } from './options.ts';
import type { Recorder, TraceStep } from './recorder.ts';
import { cut } from './redact.ts';

export type SessionResult = TestResult | 'unknown';

/** How a session ended, as far as its result is concerned. */
export type EndCause = 'deleted' | 'crashed' | 'other';

export interface SessionFacts {
  id: string;
  principal: string;
  backend: string;
  upstream?: string;
  browserName: string;
  browserVersion: string;
  capabilities: Record<string, unknown>;
}

/**
 * Commands a client sends to look around after a failure (a reporter's screenshot, the page
 * source, the URL): their success is not a recovery from it.
 */
const DIAGNOSTIC = new Set([
  'takeScreenshot', 'takeElementScreenshot', 'getPageSource', 'getCurrentUrl', 'getTitle', 'getWindowHandle', 'getWindowHandles',
  'getAllCookies', 'getTimeouts', 'getWindowRect', 'getAlertText', 'getDownloadableFiles', 'status',
  'deleteSession', 'sessionEvent', 'GET /screenshot', 'GET /source', 'GET /url', 'GET /title', 'DELETE /',
]);

export class SessionHistory {
  readonly facts: SessionFacts;
  labels: SessionLabels;
  readonly mode: TraceMode;
  readonly startedAt = Date.now();
  commands = 0;
  errors = 0;
  /** The result the client reported (the last report wins). */
  reported: { result: TestResult; reason?: string } | undefined;
  /** The last failure no later command recovered from. */
  lastFailure: { command: string; code: string; message: string } | undefined;
  readonly recorder: Recorder | undefined;

  constructor(facts: SessionFacts, labels: SessionLabels, mode: TraceMode, recorder: Recorder | undefined) {
    this.facts = facts;
    this.labels = labels;
    this.mode = mode;
    this.recorder = recorder;
  }

  /**
   * A command answered (or failed): counted always; a step of the trace when traced (built only
   * then: an untraced session pays for two counters). `capture`: it may have changed the page.
   */
  command(
    kind: TraceStep['kind'],
    name: string,
    startedAt: number,
    durationMs: number,
    error: { code: string; message: string } | undefined,
    params?: unknown,
    value?: unknown,
    capture = false,
  ): void {
    this.commands++;
    if (error) {
      this.errors++;
      this.lastFailure = { command: name, code: error.code, message: error.message };
    } else if (!DIAGNOSTIC.has(name)) {
      this.lastFailure = undefined;
    }
    if (!this.recorder) return;
    this.recorder.add(
      {
        kind,
        name,
        startedAt,
        durationMs: Math.round(durationMs * 10) / 10,
        ...(params !== undefined && !isEmpty(params) && { params }),
        ...(!error && value !== undefined && value !== null && { result: summarize(value) }),
        ...(error && { error: { code: error.code, message: error.message } }),
      },
      // After a failure too: what the page showed when the test went wrong.
      capture || error !== undefined,
    );
  }

  /** What the client said of its test (./reports.ts); markers go into the trace's timeline. */
  report(reports: ClientReport[], source: string): void {
    for (const report of reports) {
      switch (report.kind) {
        case 'result':
          this.reported = { result: report.result, ...(report.reason !== undefined && { reason: report.reason }) };
          this.recorder?.add({ kind: 'event', name: `test:${report.result}`, startedAt: Date.now(), durationMs: 0, text: report.reason ?? source });
          break;
        case 'name':
          this.labels = { ...this.labels, name: report.name };
          break;
        case 'build':
          this.labels = { ...this.labels, build: report.build };
          break;
        case 'tags':
          this.labels = { ...this.labels, tags: report.tags };
          break;
        case 'started':
          this.recorder?.add({ kind: 'event', name: 'test:started', startedAt: Date.now(), durationMs: 0, text: this.labels.name ?? '' });
          break;
        case 'marker':
          this.recorder?.add({ kind: 'marker', name: report.label, startedAt: Date.now(), durationMs: 0, text: report.text });
          break;
      }
    }
  }

  /**
   * The session's result (README "Traces and history"): what the client reported; else failed if
   * its browser went away, or if it was deleted right after a failure nothing recovered from;
   * passed if it was deleted otherwise; unknown when it ended without its client (idle timeout,
   * an operator, the gateway's shutdown).
   */
  outcome(cause: EndCause, endReason: string): { result: SessionResult; reason: string } {
    if (this.reported) return { result: this.reported.result, reason: this.reported.reason ?? 'reported by the client' };
    if (cause === 'crashed') return { result: 'failed', reason: endReason };
    if (cause === 'deleted') {
      const failure = this.lastFailure;
      if (failure) return { result: 'failed', reason: `${failure.command}: ${failure.code}: ${failure.message}`.slice(0, 1000) };
      return { result: 'passed', reason: 'deleted by its client after its last command succeeded' };
    }
    return { result: 'unknown', reason: endReason };
  }
}

const isEmpty = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

/** An answer in a few hundred characters: large values (a screenshot's base64) by their size. */
function summarize(value: unknown): string {
  if (typeof value === 'object' && value !== null && 'text' in value && 'contentType' in value) {
    const { text, contentType } = value as { text: string | Buffer; contentType: string };
    return `[${contentType}, ${text.length} bytes]`;
  }
  if (typeof value === 'object' && value !== null && 'text' in value && typeof (value as { text: unknown }).text === 'string') {
    return cut((value as { text: string }).text, 500); // JSON text passed through as it is
  }
  if (typeof value === 'string' && value.length > 1000 && /^[A-Za-z0-9+/=]+$/.test(value.slice(0, 1000))) return `[base64, ${value.length} characters]`;
  return cut(typeof value === 'string' ? value : JSON.stringify(value) ?? String(value), 500);
}
