// What the history keeps of one session while it runs, traced or not: who and what, how it is
// traced, and its recorder (./recorder.ts) when it is. Its name, build and tags are the session's
// own (the client may report others); its counts and result are the seam's (src/webdriver/outcome.ts).
import type { ClientReport } from '../webdriver/reports.ts';
import type { SessionRecord, Step } from '../webdriver/seam.ts';
import type { TraceMode } from '../webdriver/session-options.ts';
import type { Recorder } from './recorder.ts';
import { cut } from '../webdriver/redact.ts';

export type { EndCause, SessionResult } from '../webdriver/outcome.ts';
export type { SessionFacts } from '../webdriver/seam.ts';

export class SessionHistory {
  readonly record: SessionRecord;
  readonly mode: TraceMode;
  readonly recorder: Recorder | undefined;
  /** The window's outer size as the session ended (a traced driven session's). */
  window: { width: number; height: number } | undefined;

  constructor(record: SessionRecord, mode: TraceMode, recorder: Recorder | undefined) {
    this.record = record;
    this.mode = mode;
    this.recorder = recorder;
  }

  get facts() {
    return this.record.facts;
  }

  get startedAt(): number {
    return this.record.startedAt;
  }

  /** A command answered: a step of the trace when traced (built only then). */
  step(step: Step): void {
    if (!this.recorder) return;
    this.recorder.add(
      {
        kind: step.kind,
        name: step.name,
        startedAt: step.startedAt,
        durationMs: Math.round(step.durationMs * 10) / 10,
        // The element it addressed (an id of this session; the find step that returned it names it).
        ...(step.urlParams?.elementId !== undefined && { element: step.urlParams.elementId }),
        ...(step.params !== undefined && !isEmpty(step.params) && { params: step.params }),
        ...(!step.error && step.value !== undefined && step.value !== null && { result: summarize(step.value) }),
        ...(step.error && { error: { code: step.error.code, message: step.error.message } }),
      },
      // After a failure too: what the page showed when the test went wrong.
      step.kind === 'command' && step.changesPage,
      step.notes,
    );
  }

  /** What the client said of its test (src/webdriver/reports.ts): results and markers go into the trace's timeline. */
  report(reports: readonly ClientReport[], source: string, name: string | undefined): void {
    if (!this.recorder) return;
    for (const report of reports) {
      if (report.kind === 'result') this.recorder.add({ kind: 'event', name: `test:${report.result}`, startedAt: Date.now(), durationMs: 0, text: report.reason ?? source });
      if (report.kind === 'started') this.recorder.add({ kind: 'event', name: 'test:started', startedAt: Date.now(), durationMs: 0, text: name ?? '' });
      if (report.kind === 'marker') this.recorder.add({ kind: 'marker', name: report.label, startedAt: Date.now(), durationMs: 0, text: report.text });
    }
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
