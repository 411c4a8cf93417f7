// chromedriver's logs: which a session keeps and from what level (`goog:loggingPrefs`), the
// performance log's options (`goog:chromeOptions.perfLoggingPrefs`), and the logs themselves,
// whose entries wait until a client reads them (Get Log takes what is there, as chromedriver
// does). "browser": the engine's console messages, uncaught exceptions and its own messages;
// "performance": DevTools protocol events (Chromium); "driver": what the gateway did for the
// session (its commands, at INFO). Parsing is pure; keepLogs() starts a session's logs.
import type { BrowserLogEntry, ProtocolEvent, Tracing } from '../../backends/backend.ts';
import { error } from './errors.ts';
import { isPlainObject } from './params.ts';
import type { Observer } from './seam.ts';
import type { Session } from './session.ts';

/** chromedriver's levels, lowest first (logging.cc). */
export const LOG_LEVELS = ['ALL', 'DEBUG', 'INFO', 'WARNING', 'SEVERE', 'OFF'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
type EntryLevel = Exclude<LogLevel, 'ALL' | 'OFF'>;

/** The performance log's options, chromedriver's defaults filled in. */
export interface PerfLoggingPrefs {
  enableNetwork: boolean;
  enablePage: boolean;
  /** Trace categories (a trace records the whole browser: served to a browser of the session's own). */
  traceCategories: string[];
  /** How often Chromium reports its trace buffer's use (ms). */
  bufferUsageReportingInterval: number;
}

export interface LoggingPrefs {
  browser: LogLevel;
  driver: LogLevel;
  /** Present when the performance log was asked for (and not OFF). */
  performance?: PerfLoggingPrefs;
  /** Log types asked for that no log is: chromedriver warns of each in the driver log and goes on. */
  ignored: string[];
}

const PREFS = 'goog:loggingPrefs';
const PERF = 'goog:chromeOptions.perfLoggingPrefs';

/** `goog:loggingPrefs` and `perfLoggingPrefs`, checked as chromedriver checks them (invalid argument). */
export function loggingPrefs(caps: Record<string, unknown>): LoggingPrefs {
  const asked = caps[PREFS];
  if (asked !== undefined && !isPlainObject(asked)) throw error('invalid argument', `${PREFS} must be an object of log types and levels`);
  const prefs: LoggingPrefs = { browser: 'WARNING', driver: 'WARNING', ignored: [] };
  let performance: LogLevel | undefined;
  for (const [type, level] of Object.entries(asked ?? {})) {
    if (!(LOG_LEVELS as readonly unknown[]).includes(level)) throw error('invalid argument', `${PREFS}: invalid log level for '${type}' log (one of ${LOG_LEVELS.join(', ')})`);
    if (type === 'browser' || type === 'driver') prefs[type] = level as LogLevel;
    else if (type === 'performance') performance = level as LogLevel;
    else prefs.ignored.push(type);
  }
  const chromeOptions = caps['goog:chromeOptions'];
  const perf = isPlainObject(chromeOptions) ? chromeOptions.perfLoggingPrefs : undefined;
  if (perf !== undefined && performance === undefined) throw error('invalid argument', `${PERF} was given, but performance logging was not enabled (${PREFS}.performance)`);
  if (performance !== undefined && performance !== 'OFF') prefs.performance = perfLoggingPrefs(perf);
  return prefs;
}

function perfLoggingPrefs(value: unknown): PerfLoggingPrefs {
  const prefs: PerfLoggingPrefs = { enableNetwork: true, enablePage: true, traceCategories: [], bufferUsageReportingInterval: 1000 };
  if (value === undefined) return prefs;
  if (!isPlainObject(value)) throw error('invalid argument', `${PERF} must be an object`);
  for (const [key, v] of Object.entries(value)) {
    if (key === 'enableNetwork' || key === 'enablePage') {
      if (typeof v !== 'boolean') throw error('invalid argument', `${PERF}.${key} must be a boolean`);
      prefs[key] = v;
    } else if (key === 'traceCategories') {
      if (typeof v !== 'string') throw error('invalid argument', `${PERF}.traceCategories must be a string of comma-separated categories`);
      prefs.traceCategories = v.split(',').map((c) => c.trim()).filter(Boolean);
    } else if (key === 'bufferUsageReportingInterval') {
      if (!Number.isInteger(v) || (v as number) <= 0) throw error('invalid argument', `${PERF}.bufferUsageReportingInterval must be a positive integer (ms)`);
      prefs.bufferUsageReportingInterval = v as number;
    } else {
      // chromedriver: "unrecognized performance logging option" (enableTimeline is long gone).
      throw error('invalid argument', `${PERF}: unrecognized performance logging option: ${key}`);
    }
  }
  return prefs;
}

/** One entry as Get Log answers it (chromedriver's members, in its order). */
export interface LogEntry {
  level: EntryLevel;
  message: string;
  source?: string;
  timestamp: number;
}

/** Most entries one Get Log answers (chromedriver's kMaxReturnedEntries); the rest wait for the next. */
const MAX_RETURNED = 100_000;
/** Most bytes of messages a log keeps unread: past this the oldest go (a client that never reads must not fill the gateway). */
const MAX_UNREAD_BYTES = 16 * 1024 * 1024;

class WebDriverLog {
  readonly #min: number;
  /** Entries kept, from #first on (those before it were let go: compacted now and then, not shifted one by one). */
  #entries: LogEntry[] = [];
  #first = 0;
  #bytes = 0;
  /** Entries let go unread since the last warning of it. */
  dropped = 0;

  constructor(
    readonly type: string,
    level: LogLevel,
  ) {
    this.#min = LOG_LEVELS.indexOf(level);
  }

  wants(level: EntryLevel): boolean {
    return LOG_LEVELS.indexOf(level) >= this.#min;
  }

  add(entry: LogEntry): void {
    if (!this.wants(entry.level)) return;
    this.#entries.push(entry);
    this.#bytes += entry.message.length;
    while (this.#bytes > MAX_UNREAD_BYTES && this.#entries.length - this.#first > 1) {
      this.#bytes -= this.#entries[this.#first++]!.message.length;
      this.dropped++;
    }
    if (this.#first > 1024 && this.#first > this.#entries.length / 2) {
      this.#entries = this.#entries.slice(this.#first);
      this.#first = 0;
    }
  }

  take(): LogEntry[] {
    const end = Math.min(this.#entries.length, this.#first + MAX_RETURNED);
    const taken = this.#entries.slice(this.#first, end);
    this.#entries = this.#entries.slice(end);
    this.#first = 0;
    for (const entry of taken) this.#bytes -= entry.message.length;
    return taken;
  }
}

/** A session's logs. */
export class SessionLogs {
  readonly #logs = new Map<string, WebDriverLog>();
  #tracing: Tracing | undefined;

  constructor(prefs: LoggingPrefs) {
    // In chromedriver's order: performance, browser, driver.
    if (prefs.performance) this.#logs.set('performance', new WebDriverLog('performance', 'ALL'));
    this.#logs.set('browser', new WebDriverLog('browser', prefs.browser));
    this.#logs.set('driver', new WebDriverLog('driver', prefs.driver));
    for (const type of prefs.ignored) this.driver('WARNING', `Ignoring unrecognized log type: ${type}`);
  }

  get types(): string[] {
    return [...this.#logs.keys()];
  }

  browser(entry: BrowserLogEntry): void {
    const log = this.#logs.get('browser')!;
    if (!log.wants(entry.level)) return;
    // chromedriver's message: where (the URL, else the source), the position (line:column, a
    // line, or "-"), then the text.
    const position = entry.line === undefined ? '-' : entry.column === undefined ? String(entry.line) : `${entry.line}:${entry.column}`;
    log.add({ level: entry.level, message: `${entry.url || entry.source} ${position} ${entry.text}`, source: entry.source, timestamp: entry.timestamp });
  }

  performance(event: ProtocolEvent, level: EntryLevel = 'INFO'): void {
    const message = JSON.stringify({ message: { method: event.method, params: event.params }, webview: event.webview });
    this.#logs.get('performance')?.add({ level, message, timestamp: event.timestamp });
  }

  driver(level: EntryLevel, message: string): void {
    const log = this.#logs.get('driver')!;
    if (log.wants(level)) log.add({ level, message, timestamp: Date.now() });
  }

  /** The trace the performance log collects (traceCategories), ended with the session. */
  traceWith(tracing: Tracing): void {
    this.#tracing = tracing;
  }

  /** Get Log: the entries kept so far, taken. Unknown type: invalid argument, as chromedriver. */
  async take(type: string): Promise<LogEntry[]> {
    const log = this.#logs.get(type);
    if (!log) throw error('invalid argument', `log type '${type}' not found (this session keeps: ${this.types.join(', ')})`);
    if (type === 'performance' && this.#tracing) await this.#tracing.collect();
    const entries = log.take();
    for (const other of this.#logs.values()) {
      if (other.dropped === 0) continue;
      this.driver('WARNING', `${other.dropped} entries of the ${other.type} log were dropped unread (the oldest: it keeps at most ${MAX_UNREAD_BYTES / 1024 / 1024} MiB)`);
      other.dropped = 0;
    }
    return entries;
  }

  async close(): Promise<void> {
    await this.#tracing?.stop().catch(() => {});
  }
}

/** Every driven session's logs (a session's own, gone with it). */
const sessionLogs = new WeakMap<Session, SessionLogs>();

export function logsOf(session: Session): SessionLogs | undefined {
  return sessionLogs.get(session);
}

/** CDP domains of the performance log (chromedriver's PerformanceLogger), as its options enable them. */
function perfDomains(prefs: PerfLoggingPrefs): string[] {
  return [...(prefs.enableNetwork ? ['Network.'] : []), ...(prefs.enablePage ? ['Page.'] : [])];
}

/**
 * Start the session's logs (New Session, after the browser is leased): the browser log always
 * (chromedriver keeps it for every session, from WARNING), the performance log when asked for.
 * What the session's engine cannot give is `session not created`, naming why.
 */
export async function keepLogs(session: Session, prefs: LoggingPrefs): Promise<void> {
  const logs = new SessionLogs(prefs);
  const { browser } = session;
  if (prefs.browser !== 'OFF') browser.onBrowserLog?.((entry) => logs.browser(entry));
  if (prefs.performance) {
    const perf = prefs.performance;
    if (!browser.onProtocolEvent) throw error('session not created', `${PREFS}.performance: the performance log is Chromium's DevTools protocol events, which this backend does not give for ${browser.browserName} (the native backend's Chromium does)`);
    browser.onProtocolEvent(perfDomains(perf), (event) => logs.performance(event));
    if (perf.traceCategories.length) {
      if (!browser.startTracing) throw error('session not created', `${PERF}.traceCategories: this backend's ${browser.browserName} cannot trace`);
      if (!session.ownBrowser) {
        throw error('invalid argument', `${PERF}.traceCategories: a trace records every process of the browser, other sessions' pages included; it is served to a session with a browser of its own (wdgate:options.ownBrowser: true)`);
      }
      logs.traceWith(await browser.startTracing(perf.traceCategories, perf.bufferUsageReportingInterval, (event) => logs.performance(event, event.method === 'Tracing.bufferUsage' ? 'WARNING' : 'INFO')));
    }
  }
  sessionLogs.set(session, logs);
}

/**
 * The logs' observer of the seam: the driver log gets each command of the session, as
 * chromedriver's at INFO writes it ("COMMAND name", "RESPONSE name" with its error), never its
 * parameters or answer (they may hold a user's data); a trace is stopped as the session ends.
 */
export const logsObserver: Observer = {
  async closing(session) {
    await sessionLogs.get(session)?.close();
    sessionLogs.delete(session);
  },
  beforeCommand(session, command) {
    if (session.kind !== 'driven' || command.kind !== 'command') return;
    sessionLogs.get(session)?.driver('INFO', `[${session.id}] COMMAND ${command.name}`);
  },
  answered(step) {
    if (step.session?.kind !== 'driven' || step.kind !== 'command') return;
    const logs = sessionLogs.get(step.session);
    if (!logs) return;
    logs.driver('INFO', `[${step.session.id}] RESPONSE ${step.name}${step.error ? ` ERROR ${step.error.code}: ${step.error.message}` : ''}`);
  },
};


