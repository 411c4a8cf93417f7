// The command seam: every session's opening and end, and every command of every kind — a classic
// command, a BiDi message, a forwarded pass-through request — pass here once. What watches
// sessions (traces and history, metrics, the dashboard, recordings) is an Observer, wired in
// src/app.ts, and keeps its own per-session state; webdriver/ knows none of them.
//
// Two things are decided here, once, for every observer and every kind of command: the session's
// result (./outcome.ts), and what is secret (./redact.ts): a step's parameters and answer reach
// observers already redacted, and only for a session whose content some observer keeps.
import type { Session } from './session.ts';
import type { PassThroughSession } from './pass-through.ts';
import { Outcome, type EndCause, type SessionResult } from './outcome.ts';
import { CredentialNames } from './credentials.ts';
import { redactAnswer, redactParams, REDACTED, Redactor, typesText } from './redact.ts';
import type { ClientReport } from './reports.ts';
import type { PageNotes } from './notes.ts';
import { commandFacts } from './routes.ts';
import { typesIntoPassword } from './secrets.ts';

type AnySession = Session | PassThroughSession;

/** Who and what a session is, as its observers learn it when it opens. */
export interface SessionFacts {
  id: string;
  principal: string;
  backend: string;
  upstream?: string;
  browserName: string;
  browserVersion: string;
  /** The capabilities it asked for, as processed. */
  capabilities: Record<string, unknown>;
  /** The capabilities New Session answered with. */
  answered?: Record<string, unknown>;
}

export type StepKind = 'command' | 'bidi' | 'forwarded';

/** A command about to run: a classic one inside its session's queue, a BiDi message, a forwarded request. */
export interface PendingCommand {
  kind: StepKind;
  /** The route table's command name; a BiDi method; an unrouted forwarded request as `METHOD /path`. */
  name: string;
  urlParams: Record<string, string>;
  params: unknown;
}

export type { PageNotes } from './notes.ts';

/** A command answered (or failed). */
export interface Step {
  kind: StepKind;
  name: string;
  /** Its session; none for a command without one (Status, a New Session that failed). */
  session: AnySession | undefined;
  /** The URL's parameters of a classic or forwarded command (the element it addresses: `elementId`). */
  urlParams?: Record<string, string>;
  /** Wall clock (ms since the epoch) when it began, and how long it took. */
  startedAt: number;
  durationMs: number;
  error?: { code: string; message: string };
  /** The page may show something else now (route table: changesPage); a failure counts too, and a find that waited for its element. */
  changesPage: boolean;
  /** What its page calls saw (for a session whose content is kept). */
  notes?: PageNotes;
  /** Parameters and answer, secrets redacted: only for a session whose content is kept. */
  params?: unknown;
  value?: unknown;
}

/** How a session ended. */
export interface SessionEnd {
  reason: string;
  cause: EndCause;
  result: SessionResult;
  resultReason: string;
  /** Settles once what ends with the session (its closing hooks, a recording) is done. */
  finished: Promise<unknown>;
}

/** What the seam keeps of one session while it runs. */
export interface SessionRecord {
  readonly facts: SessionFacts;
  readonly startedAt: number;
  readonly outcome: Outcome;
  /** What is secret in it; present when an observer keeps the session's content. */
  readonly redactor: Redactor | undefined;
}

export interface Observer {
  /** Whether it keeps what this session's commands carry and what its pages show (a trace, a recording). */
  keepsContent?(session: AnySession): boolean;
  /** The session was made (its browser or upstream is there); New Session answers once this resolves. */
  opened?(session: AnySession, record: SessionRecord): void | Promise<void>;
  /** A command is about to run (a classic one inside its session's queue, after the one before it). */
  beforeCommand?(session: AnySession, command: PendingCommand): void | Promise<void>;
  answered?(step: Step): void;
  /** The client said something of its test (./reports.ts). */
  reported?(session: AnySession, reports: readonly ClientReport[], via: string): void;
  /** A driven session ends and its browser is still there: the last look (bounded by the session). */
  closing?(session: Session): Promise<void>;
  ended?(session: AnySession, end: SessionEnd, record: SessionRecord): void | Promise<void>;
}

export class Seam {
  readonly #observers: Observer[] = [];
  readonly #records = new WeakMap<AnySession, SessionRecord>();
  /**
   * Parameters of commands whose typed text goes into a password field (or may): by identity, since
   * a session's BiDi messages and forwarded requests may overlap its other commands.
   */
  readonly #typedSecret = new WeakSet<object>();
  readonly #secretPatterns: readonly string[];
  /** Credentials' names (trace.secretNames): their values are hidden from every observer, traced or not (the dashboard, the history's entries). */
  readonly credentials: CredentialNames;

  /** `secretPatterns`: regular expressions whose matches are secrets everywhere (trace.secretPatterns); `secretNames`: credentials' names (trace.secretNames). */
  constructor(secretPatterns: readonly string[] = [], secretNames: readonly string[] = []) {
    this.#secretPatterns = secretPatterns;
    this.credentials = new CredentialNames(secretNames);
  }

  /** A text as any observer may keep it: credentials by name hidden, and for a session whose content is kept, its secrets too. */
  hide(text: string, record?: SessionRecord): string {
    return record?.redactor ? record.redactor.text(text) : this.credentials.text(text, REDACTED);
  }

  add(observer: Observer): void {
    this.#observers.push(observer);
  }

  /** What the seam keeps of a running session (undefined once it ended). */
  record(session: AnySession): SessionRecord | undefined {
    return this.#records.get(session);
  }

  /** Whether a command's page calls should note what they see (PageNotes): some observer keeps the session's content. */
  wantsNotes(session: AnySession): boolean {
    return this.#records.get(session)?.redactor !== undefined;
  }

  /** A session was made: every observer learns of it, and prepares (a trace watches its browser). */
  async opened(session: AnySession, facts: SessionFacts): Promise<void> {
    const keeps = this.#observers.some((o) => o.keepsContent?.(session));
    const record = { facts, startedAt: Date.now(), outcome: new Outcome(), redactor: keeps ? new Redactor(this.#secretPatterns, this.credentials) : undefined };
    this.#records.set(session, record);
    for (const observer of this.#observers) await observer.opened?.(session, record);
  }

  /**
   * Before a command runs. What it types is checked for a password field when the session's
   * content is kept (so the typed text never reaches an observer); then the observers. Returns
   * undefined when there is nothing to wait for (the hot path stays synchronous). `answered` must
   * be given the same params object.
   */
  before(session: AnySession, command: PendingCommand): Promise<void> | undefined {
    const record = this.#records.get(session);
    if (!record) return undefined;
    const waits: Promise<unknown>[] = [];
    if (record.redactor && typesText(command.name)) waits.push(this.#checkTyped(session, record, command));
    for (const observer of this.#observers) {
      const waiting = observer.beforeCommand?.(session, command);
      if (waiting) waits.push(waiting);
    }
    return waits.length ? Promise.all(waits).then(() => {}) : undefined;
  }

  async #checkTyped(session: AnySession, record: SessionRecord, command: PendingCommand): Promise<void> {
    const password = await typesIntoPassword(session, command).catch(() => 'unknown' as const);
    // Not known either way (a cross-origin frame has the focus, the upstream did not say): hidden.
    if (password !== false && typeof command.params === 'object' && command.params !== null) this.#typedSecret.add(command.params);
    const text = (command.params as { text?: unknown } | null)?.text;
    if (password === true && typeof text === 'string') record.redactor!.addSecret(text);
  }

  /** A command answered: the session's outcome, then every observer. */
  answered(step: Omit<Step, 'changesPage' | 'params' | 'value'>, params?: unknown, value?: unknown): void {
    const record = step.session && this.#records.get(step.session);
    // The history keeps the last failure's message, traced or not (a URL in it may carry a token).
    record?.outcome.answered(step.name, step.error && { code: step.error.code, message: this.hide(step.error.message, record) });
    const full: Step = { ...step, changesPage: commandFacts(step.name).changesPage === true || step.error !== undefined || step.notes?.pageChanged === true };
    const redactor = record?.redactor;
    if (redactor) {
      if (params !== undefined) full.params = redactParams(redactor, step.name, params, typeof params === 'object' && params !== null && this.#typedSecret.has(params));
      if (value !== undefined && value !== null && !step.error) full.value = redactAnswer(redactor, step.name, value);
    }
    for (const observer of this.#observers) observer.answered?.(full);
  }

  /** The client reported on its test: the result rule takes it; names and builds go on the session. */
  reported(session: AnySession, reports: readonly ClientReport[], via: string): void {
    const record = this.#records.get(session);
    if (!record) return;
    record.outcome.report(reports.map((report) => (report.kind === 'result' && report.reason !== undefined ? { ...report, reason: this.hide(report.reason, record) } : report)));
    for (const report of reports) {
      if (report.kind === 'name') session.options.labels = { ...session.options.labels, name: report.name };
      if (report.kind === 'build') session.options.labels = { ...session.options.labels, build: report.build };
      if (report.kind === 'tags') session.options.labels = { ...session.options.labels, tags: report.tags };
    }
    for (const observer of this.#observers) observer.reported?.(session, reports, via);
  }

  /** A driven session ends, its browser still there: each observer's last look, at once. */
  async closing(session: Session): Promise<void> {
    await Promise.all(this.#observers.map((o) => o.closing?.(session).catch(() => {})));
  }

  /** The session ended: its result, told to every observer. Never throws. */
  async ended(session: AnySession, reason: string, cause: EndCause, finished: Promise<unknown>): Promise<void> {
    const record = this.#records.get(session);
    if (!record) return;
    const { result, reason: resultReason } = record.outcome.result(cause, reason);
    const end: SessionEnd = { reason, cause, result, resultReason, finished };
    await Promise.all(this.#observers.map((o) => Promise.resolve(o.ended?.(session, end, record)).catch(() => {})));
  }
}
