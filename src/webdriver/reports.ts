// What a client tells the gateway about its test, through the conventions clients already use:
// Selenium Grid's session events (`POST /session/{id}/se/event`), and the cloud grids' commands
// sent through Execute Script (Sauce Labs `sauce:`, BrowserStack `browserstack_executor:`,
// LambdaTest `lambda-`), which are answered by the gateway and never run in the page. Pure.

import { WebDriverError } from './errors.ts';

export type TestResult = 'passed' | 'failed' | 'skipped';

/** One thing a client said. A report may carry several (a started test with its name). */
export type ClientReport =
  | { kind: 'result'; result: TestResult; reason?: string }
  | { kind: 'name'; name: string }
  | { kind: 'build'; build: string }
  | { kind: 'tags'; tags: string[] }
  | { kind: 'started' }
  /** An annotation in the trace's timeline (a marker, a log line the client sent, …). */
  | { kind: 'marker'; text: string; label: string };

/** Marker and reason texts longer than this are cut. */
const MAX_TEXT = 4096;

const text = (value: unknown): string | undefined => {
  if (value === undefined || value === null) return undefined;
  const s = typeof value === 'string' ? value : JSON.stringify(value);
  return s === undefined || s === '' ? undefined : s.slice(0, MAX_TEXT);
};

/** Why a report is refused: `invalid argument` with this message (a W3C error where it is made). */
export class ReportError extends WebDriverError {
  constructor(message: string) {
    super('invalid argument', message);
  }
}

/** Selenium Grid 4.41+ session events: `{eventType, payload}`. */
export function sessionEventReports(body: unknown): ClientReport[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ReportError('the body must be an object {eventType, payload}');
  const { eventType, payload } = body as Record<string, unknown>;
  if (typeof eventType !== 'string' || eventType === '') throw new ReportError('eventType must be a non-empty string (such as "test:failed")');
  if (payload !== undefined && payload !== null && (typeof payload !== 'object' || Array.isArray(payload))) throw new ReportError('payload must be an object');
  const data = (payload ?? {}) as Record<string, unknown>;
  const name = text(data.testName ?? data.name);
  const reports: ClientReport[] = [];
  switch (eventType) {
    case 'test:started':
      reports.push({ kind: 'started' });
      if (name) reports.push({ kind: 'name', name });
      break;
    case 'test:passed':
    case 'test:skipped':
      reports.push({ kind: 'result', result: eventType === 'test:passed' ? 'passed' : 'skipped', ...(text(data.reason) && { reason: text(data.reason) }) });
      break;
    case 'test:failed':
      reports.push({ kind: 'result', result: 'failed', ...(text(data.error ?? data.reason ?? data.message) && { reason: text(data.error ?? data.reason ?? data.message) }) });
      break;
    case 'marker:add':
      reports.push({ kind: 'marker', label: text(data.label) ?? 'marker', text: text(data.text ?? data.message ?? data.name) ?? (data.label === undefined ? text(data) : undefined) ?? '' });
      break;
    default:
      // log:collect, screenshot:capture and any other event: kept in the timeline as it came.
      reports.push({ kind: 'marker', label: eventType, text: text(Object.keys(data).length ? data : undefined) ?? '' });
  }
  return reports;
}

const SAUCE = /^\s*sauce:([a-z-]+)\s*=\s*([\s\S]*?)\s*$/i;
const LAMBDA = /^\s*lambda-([a-z-]+)\s*=\s*([\s\S]*?)\s*$/i;
const BROWSERSTACK = /^\s*browserstack_executor\s*:\s*([\s\S]*)$/;

const result = (value: string): TestResult | undefined => {
  const v = value.trim().toLowerCase();
  if (v === 'passed' || v === 'pass' || v === 'true') return 'passed';
  if (v === 'failed' || v === 'fail' || v === 'false' || v === 'error') return 'failed';
  if (v === 'skipped' || v === 'skip') return 'skipped';
  return undefined;
};

/**
 * An Execute Script body that is a cloud grid's command: what it reports, or undefined when the
 * script is an ordinary one (it runs in the page). A malformed command of a known prefix is a
 * ReportError (invalid argument), never run in the page either.
 */
export function scriptReports(script: string): ClientReport[] | undefined {
  let m = SAUCE.exec(script);
  if (m) {
    const [, key, value] = m as unknown as [string, string, string];
    switch (key.toLowerCase()) {
      case 'job-result': {
        const r = result(value);
        if (!r) throw new ReportError(`sauce:job-result must be passed or failed (got ${JSON.stringify(value)})`);
        return [{ kind: 'result', result: r, reason: 'sauce:job-result' }];
      }
      case 'job-name':
        return value ? [{ kind: 'name', name: value.slice(0, MAX_TEXT) }] : [];
      case 'job-build':
        return value ? [{ kind: 'build', build: value.slice(0, MAX_TEXT) }] : [];
      case 'job-tags':
        return [{ kind: 'tags', tags: value.split(',').map((t) => t.trim()).filter(Boolean) }];
      case 'context':
        return [{ kind: 'marker', label: 'sauce:context', text: value.slice(0, MAX_TEXT) }];
      default:
        // sauce:break, sauce:job-info … : nothing to do here, and never JavaScript.
        return [];
    }
  }
  m = LAMBDA.exec(script);
  if (m) {
    const [, key, value] = m as unknown as [string, string, string];
    switch (key.toLowerCase()) {
      case 'status': {
        const r = result(value);
        if (!r) throw new ReportError(`lambda-status must be passed, failed or skipped (got ${JSON.stringify(value)})`);
        return [{ kind: 'result', result: r, reason: 'lambda-status' }];
      }
      case 'name':
        return value ? [{ kind: 'name', name: value.slice(0, MAX_TEXT) }] : [];
      case 'build':
        return value ? [{ kind: 'build', build: value.slice(0, MAX_TEXT) }] : [];
      default:
        return [];
    }
  }
  m = BROWSERSTACK.exec(script);
  if (m) return browserStackReports(m[1]!);
  return undefined;
}

/** `browserstack_executor: {"action": "...", "arguments": {...}}`. */
function browserStackReports(json: string): ClientReport[] {
  let command: unknown;
  try {
    command = JSON.parse(json);
  } catch {
    throw new ReportError('browserstack_executor: the command after the colon must be JSON {"action", "arguments"}');
  }
  if (typeof command !== 'object' || command === null || Array.isArray(command)) throw new ReportError('browserstack_executor: the command must be an object {"action", "arguments"}');
  const { action, arguments: args = {} } = command as Record<string, unknown>;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) throw new ReportError('browserstack_executor: arguments must be an object');
  const a = args as Record<string, unknown>;
  switch (action) {
    case 'setSessionStatus': {
      const r = typeof a.status === 'string' ? result(a.status) : undefined;
      if (!r) throw new ReportError('browserstack_executor setSessionStatus: arguments.status must be "passed" or "failed"');
      return [{ kind: 'result', result: r, ...(text(a.reason) && { reason: text(a.reason) }) }];
    }
    case 'setSessionName': {
      const name = text(a.name);
      if (!name) throw new ReportError('browserstack_executor setSessionName: arguments.name must be a non-empty string');
      return [{ kind: 'name', name }];
    }
    case 'annotate':
      return [{ kind: 'marker', label: String(a.level ?? 'annotate'), text: text(a.data) ?? '' }];
    default:
      // Other executor actions (file transfers, …) are BrowserStack's own: nothing here.
      return [];
  }
}

/**
 * A request of a pass-through session that is a report (se/event; a cloud grid's command sent as
 * a script): what it reports and the answer to give, or undefined for a request to forward. A
 * malformed report is a ReportError (invalid argument).
 */
export function forwardedReports(method: string, rest: string, body: Buffer): { reports: ClientReport[]; via: string; value: unknown } | undefined {
  if (method !== 'POST') return undefined;
  const json = () => {
    try {
      return JSON.parse(body.toString()) as unknown;
    } catch (e) {
      throw new ReportError(`request body is not valid JSON: ${(e as Error).message}`);
    }
  };
  if (rest === '/se/event') {
    const event = json();
    return { reports: eventReports(event), via: 'se/event', value: sessionEventAnswer(event) };
  }
  if (rest !== '/execute/sync' && rest !== '/execute/async') return undefined;
  // Most scripts are ordinary: the body is parsed only when it may be a report.
  if (!body.includes('sauce:') && !body.includes('lambda-') && !body.includes('browserstack_executor')) return undefined;
  const script = (json() as { script?: unknown } | null)?.script;
  if (typeof script !== 'string') return undefined;
  const reports = scriptReports(script);
  return reports && { reports, via: 'execute script', value: null };
}

/** Selenium Grid's answer to a session event (after sessionEventReports accepted it). */
export function sessionEventAnswer(body: unknown): { success: true; eventType: string } {
  return { success: true, eventType: (body as { eventType: string }).eventType };
}

/** sessionEventReports, its refusals saying that they are about se/event. */
export function eventReports(body: unknown): ClientReport[] {
  try {
    return sessionEventReports(body);
  } catch (e) {
    if (e instanceof ReportError) throw new ReportError(`se/event: ${e.message}`);
    throw e;
  }
}
