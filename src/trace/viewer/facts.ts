// What the viewer's Errors and Metadata tabs list, from a trace as model.ts reads it. Pure.
import { stepAt } from './captures.ts';
import { duration, type Trace } from './model.ts';

/** One thing that went wrong, and the step it belongs to. */
export interface ErrorItem {
  kind: 'command' | 'page' | 'crash';
  /** The step to select (undefined in a trace without steps). */
  n: number | undefined;
  title: string;
  message: string;
  at: number;
}

/**
 * The session's errors in time order: every command that failed (its W3C code and message), every
 * uncaught page error (at the step whose time holds it), and a browser that went away (at the last step).
 */
export function errorsOf(trace: Trace): ErrorItem[] {
  const { steps } = trace;
  const items: ErrorItem[] = [];
  for (const step of steps) {
    if (step.error) items.push({ kind: 'command', n: step.n, title: `${step.name}: ${step.error.code}`, message: step.error.message, at: step.startedAt });
  }
  for (const entry of trace.console) {
    if (entry.type === 'pageerror') items.push({ kind: 'page', n: stepAt(steps, entry.timestamp), title: 'Uncaught page error', message: entry.stack ?? entry.text, at: entry.timestamp });
  }
  const { session } = trace;
  if (session.endCause === 'crashed') {
    const last = steps.at(-1);
    const at = Date.parse(session.endedAt ?? '') || (last ? last.startedAt + (last.durationMs ?? 0) : 0);
    items.push({ kind: 'crash', n: last?.n, title: session.upstream ? 'The upstream went away' : 'The browser went away', message: session.endReason ?? '', at });
  }
  return items.sort((a, b) => a.at - b.at);
}

/** The Metadata tab: label and value, empty values left out; capabilities as JSON. */
export function metadataOf(trace: Trace): Array<[string, string]> {
  const s = trace.session;
  const pageErrors = trace.console.filter((c) => c.type === 'pageerror').length;
  const rows: Array<[string, string | undefined]> = [
    ['Name', s.name],
    ['Session', s.id],
    ['Result', s.result && (s.resultReason ? `${s.result} (${s.resultReason})` : s.result)],
    ['Browser', [s.browserName, s.browserVersion].filter(Boolean).join(' ')],
    ['Engine', s.engine],
    ['Backend', s.upstream ? `${s.backend} → ${s.upstream}` : s.backend],
    ['Principal', s.principal],
    ['Build', s.build],
    ['Tags', s.tags?.length ? s.tags.join(', ') : undefined],
    ['Window', s.window && `${s.window.width} × ${s.window.height}`],
    ['Started', s.startedAt && new Date(s.startedAt).toISOString()],
    ['Ended', s.endedAt && new Date(s.endedAt).toISOString()],
    ['Duration', duration(s.durationMs)],
    ['How it ended', s.endReason],
    ['Steps', String(trace.steps.length)],
    ['Commands', s.commands !== undefined ? String(s.commands) : undefined],
    ['Failed commands', String(trace.steps.filter((x) => x.error).length)],
    ['Console messages', String(trace.console.length - pageErrors)],
    ['Page errors', String(pageErrors)],
    ['Requests', String(trace.network.length)],
    ['Capabilities asked', s.capabilities && JSON.stringify(s.capabilities, null, 2)],
    ['Capabilities answered', s.answeredCapabilities && JSON.stringify(s.answeredCapabilities, null, 2)],
  ];
  return rows.filter((r): r is [string, string] => typeof r[1] === 'string' && r[1] !== '');
}
