// What the dashboard (/ui) shows, for one principal: the pool per key, the queue (per principal), and each
// session it may see (its own; an admin's: all) with its name, who, what browser, age, idleness,
// current URL and title (credentials in them hidden, as in a trace) and its last commands (an
// observer of the command seam keeps them); and a
// live view of one session's page. (Its History view reads ended sessions from GET
// /wdgate/sessions, src/trace/.) Everything is pushed over the dashboard's WebSocket
// (src/server/ui.ts); nothing else here runs unless someone watches.
import type { Principal } from '../base/principal.ts';
import type { Gateway } from '../webdriver/gateway.ts';
import type { Observer, Step } from '../webdriver/seam.ts';
import type { AnySession } from '../webdriver/sessions.ts';
import { watchPage } from './live.ts';

/** A state snapshot is pushed this often to every open dashboard. */
export const STATE_INTERVAL_MS = 1000;
/** The live view sends at most this many frames per second. */
const MAX_FRAMES_PER_SECOND = 3;

/** What an operator sees of a session: who, what, how long, how busy. */
export function describeSession(session: AnySession, now = Date.now()) {
  const driven = session.kind === 'driven';
  return {
    id: session.id,
    // se:name or wdgate:options.name, and what a client reported since.
    ...(session.options.labels.name !== undefined && { name: session.options.labels.name }),
    principal: session.owner,
    backend: driven ? String((session.capabilities['wdgate:options'] as { backend?: string } | undefined)?.backend ?? 'native') : 'remote',
    ...(session.kind === 'pass-through' && { upstream: session.upstreamName }),
    browserName: session.browserName,
    browserVersion: driven ? session.browser.browserVersion : undefined,
    createdAt: new Date(session.createdAt).toISOString(),
    ageMs: now - session.createdAt,
    idleMs: session.inFlight > 0 ? 0 : now - session.lastActivity,
    commandsInFlight: session.inFlight,
    bidi: driven && session.bidi !== undefined,
  };
}

/** The page each driven session shows, read in the background while a dashboard is open. */
interface PageInfo {
  url: string;
  title: string;
}

/** One of a session's last commands, as the dashboard lists it. */
interface RecentCommand {
  command: string;
  ms: number;
  error?: string;
  at: number;
}

/** The last commands kept per session. */
const RECENT = 10;

export class Dashboard implements Observer {
  readonly #gateway: Gateway;
  readonly #pages = new WeakMap<AnySession, PageInfo>();
  readonly #recent = new WeakMap<AnySession, RecentCommand[]>();
  /** How a session is traced (src/trace/, wired by src/app.ts). */
  readonly #traceMode: (session: AnySession) => string;
  #reading = false;

  constructor(gateway: Gateway, traceMode: (session: AnySession) => string = () => 'off') {
    this.#gateway = gateway;
    this.#traceMode = traceMode;
  }

  /** The seam: a session's last commands, of every kind, newest last. */
  answered(step: Step): void {
    if (!step.session) return;
    let recent = this.#recent.get(step.session);
    if (!recent) this.#recent.set(step.session, (recent = []));
    recent.push({ command: step.name, ms: Math.round(step.durationMs * 10) / 10, ...(step.error && { error: step.error.code }), at: Date.now() });
    if (recent.length > RECENT) recent.shift();
  }

  /** The sessions a principal may see: its own, or every one for an admin. */
  visible(principal: Principal): AnySession[] {
    const { sessions } = this.#gateway;
    return principal.admin ? sessions.all() : sessions.of(principal.name);
  }

  snapshot(principal: Principal): Record<string, unknown> {
    const gateway = this.#gateway;
    const now = Date.now();
    return {
      type: 'state',
      principal: principal.name,
      admin: principal.admin,
      ready: gateway.readiness(),
      queue: {
        queued: gateway.admission.queued,
        oldestQueuedMs: gateway.admission.oldestWait,
        active: gateway.sessions.size,
        max: gateway.maxSessions,
        // Per principal: its own for a principal, every one for an admin (as the sessions).
        principals: gateway.principalQueues().filter((queue) => principal.admin || queue.principal === principal.name),
      },
      pool: gateway.pool.statsFor(principal),
      sessions: this.visible(principal).map((session) => {
        const page = this.#pages.get(session);
        return {
          ...describeSession(session, now),
          url: page?.url ?? '',
          title: page?.title ?? '',
          commands: (this.#recent.get(session) ?? []).slice(-5).reverse(),
          liveView: session.kind === 'driven',
          trace: this.#traceMode(session),
        };
      }),
    };
  }

  /** Read the current URL and title of every driven session (the state's), once at a time. */
  async readPages(): Promise<void> {
    if (this.#reading) return;
    this.#reading = true;
    try {
      await Promise.all(
        this.#gateway.sessions.all().map(async (session) => {
          if (session.kind !== 'driven' || session.currentWindow === null) return;
          const window = session.currentWindow;
          // Both from the same document, in one call (read apart, a navigation between the two
          // paired the new title with the old URL). A page a prompt blocks, or one going away,
          // keeps what was read last.
          const read = (await session.browser.callFunction({ window, frames: [] }, '() => [document.URL, document.title]', []).catch(() => undefined)) as [unknown, unknown] | undefined;
          const last = this.#pages.get(session);
          const [url, title] = Array.isArray(read) ? read : [];
          // Shown to its principal and to admins: a token in the URL (?access_token=) is hidden.
          const hide = (text: string) => this.#gateway.seam.hide(text, this.#gateway.seam.record(session));
          this.#pages.set(session, { url: typeof url === 'string' ? hide(url) : (last?.url ?? ''), title: typeof title === 'string' ? hide(title) : (last?.title ?? '') });
        }),
      );
    } finally {
      this.#reading = false;
    }
  }

  /** Stream a session's page to `send`, a few frames a second (./live.ts). Resolves with the stop. */
  async watch(session: AnySession, send: (frame: { type: 'frame'; session: string; mime: string; data: string }) => void): Promise<() => void> {
    if (session.kind !== 'driven') return () => {};
    return watchPage(session, MAX_FRAMES_PER_SECOND, ({ mime, data }) => send({ type: 'frame', session: session.id, mime, data }));
  }
}
