// transcript.md: a session told in plain Markdown, to read in a CI log or to hand to a language
// model (docs/traces.md, "transcript.md"). Built from what the trace holds, which is redacted
// already: its steps one line each (time, command, target, value, result or error), the console
// errors and failed requests of each step's time beneath it, markers and the client's results, the
// final page, and the failure with the steps that led to it; for a failed run of a test that passed
// before, the first step where it differs from that pass (src/trace/runs/), last. Pure.
import { differenceSummary, type Difference } from './runs/align.ts';
import { errorsOf } from './viewer/facts.ts';
import { duration, elementTarget, locators, openingStep, stepWindow, traceStart, within, type Trace, type TraceStep } from './viewer/model.ts';

/** How many steps before the failure its section repeats. */
const LEAD_UP = 5;
const MAX_TEXT = 160;

/** A failed run compared with its test's last passing run, as its trace was written (src/trace/runs/against-pass.ts, sinceLastPass). */
export interface SinceLastPass {
  /** The passing run's session id. */
  session: string;
  /** The first step where the failed run differs from it; none: no difference was found. */
  first?: Difference;
}

/** The transcript of a trace (the parts model.ts reads: session, steps, console, network), and its comparison with the last pass. */
export function transcript(trace: Pick<Trace, 'session' | 'steps' | 'console' | 'network'>, since?: SinceLastPass): string {
  const { session, steps } = trace;
  const start = traceStart(trace as Trace);
  const at = (t: number) => `+${((t - start) / 1000).toFixed(3)} s`;
  const found = locators(steps);
  const line = (step: TraceStep) => stepLine(step, at, elementTarget(step, found));
  const lines: string[] = [];
  const result = session.result ?? 'unknown';
  lines.push(`# ${oneLine(session.name ?? `session ${session.id}`)} — ${result}`, '');
  const pageErrors = trace.console.filter((c) => c.type === 'pageerror').length;
  const failedSteps = steps.filter((s) => s.error).length;
  const about = [
    ['Result', `${result}${session.resultReason ? ` — ${oneLine(session.resultReason)}` : ''}`],
    ['Session', `${session.id}${session.endReason ? ` (ended: ${oneLine(session.endReason)})` : ''}`],
    ['Browser', [[session.browserName, session.browserVersion].filter(Boolean).join(' '), session.engine && `engine ${session.engine}`, session.backend && `backend ${session.backend}${session.upstream ? ` → ${session.upstream}` : ''}`].filter(Boolean).join(', ')],
    ['Who', [session.principal && `principal ${session.principal}`, session.build && `build ${session.build}`, session.tags?.length ? `tags ${session.tags.join(', ')}` : ''].filter(Boolean).join(', ')],
    ['Started', [session.startedAt, session.durationMs !== undefined && `lasted ${duration(session.durationMs)}`].filter(Boolean).join(', ')],
    ['Counts', `${count(steps.length, 'step')} (${failedSteps} failed), ${count(trace.console.length - pageErrors, 'console message')}, ${count(pageErrors, 'page error')}, ${count(trace.network.length, 'request')}`],
  ];
  const last = [...steps].reverse().find((s) => s.url);
  if (last) about.push(['Final page', `${oneLine(last.url!)}${last.title ? ` — "${oneLine(last.title)}"` : ''} (after step ${last.n + 1})`]);
  for (const [label, value] of about) if (value) lines.push(`- **${label}:** ${value}`);

  const failure = failureOf(trace);
  if (failure) {
    lines.push('', '## Failure', '', failure.text, '');
    const at0 = steps.findIndex((s) => s.n === failure.n);
    const before = steps.slice(Math.max(0, at0 - LEAD_UP), at0 + 1);
    if (before.length) {
      lines.push(before.length > 1 ? 'The steps that led to it:' : 'The step:', '');
      for (const step of before) lines.push(line(step));
    }
  }

  lines.push('', '## Steps', '', `Times from the session's start (${session.startedAt ?? new Date(start).toISOString()}).`, '');
  for (const step of steps) {
    lines.push(line(step));
    const window = stepWindow(steps, step.n);
    for (const c of within(trace.console, (e) => e.timestamp, window)) {
      if (c.type === 'pageerror') lines.push(`    - page error ${at(c.timestamp)}: ${cut(oneLine(c.text))}`);
      else if (c.level === 'error') lines.push(`    - console error ${at(c.timestamp)}: ${cut(oneLine(c.text))}`);
    }
    for (const r of within(trace.network, (e) => e.startedAt, window)) {
      if (r.status >= 400 || r.status === 0 || r.error) lines.push(`    - request failed ${at(r.startedAt)}: ${r.method} ${cut(r.url)} → ${r.status ? `${r.status} ${r.statusText}`.trim() : (r.error ?? 'no response')}`);
    }
  }
  if (since) lines.push('', '## Since the last pass', '', sinceLastPass(session.id, since));
  return `${lines.join('\n')}\n`;
}

/** The comparison in one paragraph: "Since the last pass (session ID): first difference at step N: …", and where to see both runs side by side. */
export function sinceLastPass(id: string, since: SinceLastPass): string {
  const said = oneLine(differenceSummary(since.first));
  const sentence = /[.!?]$/.test(said) ? said : `${said}.`;
  return `Since the last pass (session ${since.session}): ${sentence} Side by side: /ui/trace?session=${encodeURIComponent(id)}&compare=${encodeURIComponent(since.session)}`;
}

/** The failure a reader came for: the command the session failed at, a browser gone, or the result the client reported. */
function failureOf(trace: Pick<Trace, 'session' | 'steps' | 'console' | 'network'>): { n: number; text: string } | undefined {
  const { session, steps } = trace;
  if (session.result !== 'failed' || !steps.length) return undefined;
  const crash = errorsOf(trace as Trace).find((e) => e.kind === 'crash');
  if (crash) return { n: crash.n!, text: `${crash.title}: ${oneLine(crash.message)}` };
  const n = openingStep(trace as Trace)!;
  const step = steps.find((s) => s.n === n)!;
  if (step.error) return { n, text: `Step ${n + 1}, **${step.name}**, failed: **${step.error.code}** — ${cut(oneLine(step.error.message), 500)}` };
  // Reported failed by the client: its reason, at its report (or the last step).
  const reported = [...steps].reverse().find((s) => s.kind === 'event' && s.name === 'test:failed') ?? steps.at(-1)!;
  return { n: reported.n, text: `The client reported the test failed${session.resultReason ? `: ${cut(oneLine(session.resultReason), 500)}` : ''}.` };
}

/** One step as one line: `N. +t s name target value — result (duration)`; `element`: the element it addressed, named. */
function stepLine(step: TraceStep, at: (t: number) => string, element: string | undefined): string {
  const head = `${step.n + 1}. ${at(step.startedAt)}`;
  if (step.kind === 'marker') return `${head} ⚑ marker ${step.name}${step.text ? `: ${cut(oneLine(step.text))}` : ''}`;
  if (step.kind === 'event') return `${head} event ${step.name}${step.text ? `: ${cut(oneLine(step.text))}` : ''}`;
  const kind = step.kind === 'bidi' ? ' (BiDi)' : step.kind === 'forwarded' ? ' (forwarded)' : '';
  const described = describe(step.params);
  const target = [element, described.target].filter(Boolean).join(' ');
  const { value } = described;
  const outcome = step.error ? `**ERROR ${step.error.code}**: ${cut(oneLine(step.error.message))}` : step.result !== undefined ? `→ ${cut(oneLine(typeof step.result === 'string' ? step.result : JSON.stringify(step.result)), 100)}` : 'ok';
  const parts = [`${head} **${step.name}**${kind}`, target, value && `value ${value}`, '—', outcome, `(${duration(step.durationMs)})`];
  return parts.filter(Boolean).join(' ');
}

/** What a command was aimed at (an element, a URL, a locator, a window) and the value it carried, from its parameters. */
function describe(params: unknown): { target: string; value: string } {
  if (params === null || typeof params !== 'object') return { target: '', value: params === undefined ? '' : cut(oneLine(String(params)), 80) };
  const p = { ...(params as Record<string, unknown>) };
  const targets: string[] = [];
  const take = (key: string, show: (v: string) => string) => {
    if (typeof p[key] !== 'string') return;
    targets.push(show(p[key] as string));
    delete p[key];
  };
  take('url', (v) => cut(oneLine(v), 120));
  if (typeof p.using === 'string' && typeof p.value === 'string') {
    targets.push(`${p.using} "${cut(oneLine(p.value), 100)}"`);
    delete p.using;
    delete p.value;
  }
  take('id', (v) => `element ${v.slice(0, 12)}`);
  take('elementId', (v) => `element ${v.slice(0, 12)}`);
  take('handle', (v) => `window ${v.slice(0, 12)}`);
  take('context', (v) => `context ${v.slice(0, 12)}`);
  let value = '';
  if (typeof p.text === 'string') value = `"${cut(oneLine(p.text), 80)}"`;
  else if (typeof p.script === 'string') value = `script "${cut(oneLine(p.script), 80)}"`;
  else if (typeof p.expression === 'string') value = `"${cut(oneLine(p.expression), 80)}"`;
  else {
    delete p.sessionId;
    const json = JSON.stringify(p);
    if (json && json !== '{}') value = cut(json, 100);
  }
  return { target: targets.join(' '), value };
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
const cut = (s: string, max = MAX_TEXT) => (s.length <= max ? s : `${s.slice(0, max)}…`);
