// A session's result, by the rule the README states ("Traces and history"): what its client
// reported wins; else failed if its browser went away, or if it was deleted right after a failure
// no later command recovered from; passed if deleted otherwise; unknown when it ended without its
// client (idle timeout, an operator, the gateway's shutdown). Kept at the seam for every session,
// so that the history, the metrics and the dashboard read one answer. Pure.
import { commandFacts } from './routes.ts';
import type { ClientReport, TestResult } from './reports.ts';

export type SessionResult = TestResult | 'unknown';

/** How a session ended, as far as its result is concerned. */
export type EndCause = 'deleted' | 'crashed' | 'other';

export class Outcome {
  commands = 0;
  errors = 0;
  /** The result the client reported (the last report wins). */
  reported: { result: TestResult; reason?: string } | undefined;
  /** The last failure no later command recovered from. */
  lastFailure: { command: string; code: string; message: string } | undefined;

  /** A command answered; a look around (route table: looksAround) after a failure is no recovery. */
  answered(name: string, error: { code: string; message: string } | undefined): void {
    this.commands++;
    if (error) {
      this.errors++;
      this.lastFailure = { command: name, code: error.code, message: error.message };
    } else if (!commandFacts(name).looksAround) {
      this.lastFailure = undefined;
    }
  }

  report(reports: readonly ClientReport[]): void {
    for (const report of reports) if (report.kind === 'result') this.reported = { result: report.result, ...(report.reason !== undefined && { reason: report.reason }) };
  }

  result(cause: EndCause, endReason: string): { result: SessionResult; reason: string } {
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
