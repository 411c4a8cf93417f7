// The W3C layer's entry point: find the command, the session, parse parameters, run the handler.
// The HTTP edge calls `execute`; it never sees a session or a backend.
import type { AnyBackend, BackendEnvironment } from '../../backends/backend.ts';
import type { Logger } from '../base/log.ts';
import type { Pool } from '../pool/pool.ts';
import { LOCAL, type Principal } from '../base/principal.ts';
import { RateLimit } from '../base/rate-limit.ts';
import { Admission, type AdmissionConfig } from './admission.ts';
import type { Command } from './commands/types.ts';
import { UserPromptOpenedError } from '../../backends/backend.ts';
import { error, toWebDriverError, type WebDriverError } from './errors.ts';
import { Seam } from './seam.ts';
import { logsObserver } from './logging.ts';
import type { PageNotes } from './notes.ts';
import { adoptSharedIds } from './shared-ids.ts';
import { handleAnyUserPrompts } from './prompts.ts';
import { ENDING_WAITS_AT_MOST_MS } from './session.ts';
import { Sessions, type AnySession } from './sessions.ts';
import type { ConfiguredRoute } from './routing.ts';

export interface GatewayOptions {
  /** Command name → implementation (src/app.ts assembles the table). */
  commands: Record<string, Command>;
  backends: AnyBackend[];
  /** Capabilities → backend, before the default routes (src/webdriver/routing.ts). */
  routes: ConfiguredRoute[];
  /** Real paths of the directories file inputs may take files from; null: anywhere. */
  fileInputDirectories: string[] | null;
  /** Browser extensions sessions may install (Firefox add-ons): allowed or not, and the real paths of the directories a path may name. */
  extensions?: ExtensionsPolicy;
  environment: BackendEnvironment;
  pool: Pool;
  /** Most sessions at once, how New Session requests past it wait, the drain notice. */
  admission: AdmissionConfig;
  /** GET /ready answers 503 while every slot is taken, too. */
  readyRequiresFreeSlot: boolean;
  /** A session no command used for this long is ended (ms). */
  sessionIdleTimeout: number;
  /** New Session requests one principal may make per second. */
  newSessionsPerSecond: number;
  /** Regular expressions whose matches are secrets in whatever observers keep (trace.secretPatterns). */
  secretPatterns: string[];
  /** Names whose values are credentials (trace.secretNames, src/webdriver/credentials.ts). */
  secretNames: string[];
  log: Logger;
}

export interface ExtensionsPolicy {
  allowInstall: boolean;
  directories: string[];
}

/** One principal's place in the gateway: its sessions and its line of New Session requests. */
export interface PrincipalQueue {
  principal: string;
  share: number;
  /** Sessions running or being created. */
  sessions: number;
  queued: number;
  oldestQueuedMs: number;
}

/** What the edge knows of a request beyond its command: who asks, and the client going away. */
export interface RequestContext {
  signal?: AbortSignal;
  /** Whose request it is (the security gate's answer); a loopback client without a token is LOCAL. */
  principal?: Principal;
  /** `ws://host:port` (or wss) as the client reached the gateway: where its BiDi sockets are. */
  webSocketBase?: string;
  /** The request's query string, without `?` (the history's list filters). */
  query?: string;
  /**
   * New Session through a Selenium Grid relay: the principal its client proved with the
   * `wdgate:principal` capability (src/server/relay.ts), or a WebDriverError.
   */
  vouch?: (claim: unknown) => Principal;
}

export class Gateway {
  readonly sessions: Sessions;
  readonly commands: Record<string, Command>;
  readonly log: Logger;
  /** Every session's opening and end and every command pass here (./seam.ts); src/app.ts adds the observers. */
  readonly seam: Seam;
  readonly backends: AnyBackend[];
  readonly routes: ConfiguredRoute[];
  readonly fileInputDirectories: string[] | null;
  readonly extensions: ExtensionsPolicy;
  readonly environment: BackendEnvironment;
  readonly pool: Pool;
  readonly admission: Admission;
  readonly newSessionRate: RateLimit;
  /** Sessions per principal, those being created included (a principal's own maximum). */
  readonly #owned = new Map<string, { sessions: number; share: number }>();
  /** close(): every session ends now. */
  #closing = false;
  /** SIGTERM: no new sessions (after the drain notice), running ones may finish. */
  #shuttingDown = false;
  /** Draining (the admin API): no new sessions, running ones go on; why, as the operator said. */
  #draining: string | undefined;
  readonly #readyRequiresFreeSlot: boolean;

  constructor(options: GatewayOptions) {
    this.commands = options.commands;
    this.backends = options.backends;
    this.routes = options.routes;
    this.fileInputDirectories = options.fileInputDirectories;
    this.extensions = options.extensions ?? { allowInstall: false, directories: [] };
    this.environment = options.environment;
    this.pool = options.pool;
    this.admission = new Admission(options.admission);
    this.#readyRequiresFreeSlot = options.readyRequiresFreeSlot;
    this.newSessionRate = new RateLimit(options.newSessionsPerSecond);
    this.log = options.log;
    this.seam = new Seam(options.secretPatterns, options.secretNames);
    // chromedriver's driver log is the W3C layer's own observer (./logging.ts).
    this.seam.add(logsObserver);
    this.sessions = new Sessions(options.log, this.seam);
    this.sessions.reapIdle(options.sessionIdleTimeout);
  }

  /**
   * Whether a New Session would be served now, and why not: Status and BiDi's session.status
   * (every slot taken is "not ready"), and GET /ready (only if `readyRequiresFreeSlot`). Not ready
   * from the moment the gateway drains or shuts down, its notice period included.
   */
  readiness(requireFreeSlot = true): { ready: boolean; message: string } {
    const unready = this.#closing ? 'wdgate is shutting down' : this.admission.unready;
    if (unready) return { ready: false, message: unready };
    if (requireFreeSlot && this.admission.full) return { ready: false, message: `wdgate is at its limit of ${this.maxSessions} sessions (${this.admission.queued} waiting)` };
    return { ready: true, message: 'wdgate is ready to create a session' };
  }

  /** GET /ready's answer (readiness for routers: a Grid relay's status-endpoint, Kubernetes). */
  routerReadiness(): { ready: boolean; message: string } {
    return this.readiness(this.#readyRequiresFreeSlot);
  }

  /** Why New Session is refused whatever the load (shutting down, draining past its notice), or undefined. */
  newSessionsRefused(): string | undefined {
    if (this.#closing) return 'wdgate is shutting down';
    return this.admission.refusal();
  }

  /**
   * Take no new sessions until undrain(); running sessions go on. Readiness says so at once; New
   * Session is still served for the drain notice period (routers polling /ready stop meanwhile).
   */
  drain(message: string): void {
    this.#draining = message;
    if (!this.#shuttingDown) this.admission.stopTaking(`wdgate is draining (no new sessions; running ones go on): ${message}`, { notice: true });
    this.log.info({ event: 'draining', message, noticeMs: this.admission.config.drainNotice });
  }

  undrain(): void {
    if (this.#draining === undefined) return;
    this.#draining = undefined;
    if (!this.#shuttingDown) this.admission.resumeTaking();
    this.log.info({ event: 'undrained' });
  }

  get draining(): string | undefined {
    return this.#draining;
  }

  get maxSessions(): number {
    return this.admission.config.maxSessions;
  }

  /** Shutting down: SIGTERM's grace period, or close(). */
  get closing(): boolean {
    return this.#closing || this.#shuttingDown;
  }

  /** close() has begun: every session ends now, none is made, not even one admitted before. */
  get endingEverything(): boolean {
    return this.#closing;
  }

  /**
   * Count a session (being created) against its principal's own maximum; session not created
   * past it. Returns how to give the count back (once).
   */
  claimSession(principal: Principal): () => void {
    const owned = this.#owned.get(principal.name)?.sessions ?? 0;
    if (principal.maxSessions !== null && owned >= principal.maxSessions) {
      throw error('session not created', `${principal.name} has ${owned} sessions, its maximum (max-sessions in the token file)`);
    }
    this.#owned.set(principal.name, { sessions: owned + 1, share: principal.share });
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.#owned.get(principal.name)?.sessions ?? 1) - 1;
      if (left === 0) this.#owned.delete(principal.name);
      else this.#owned.set(principal.name, { sessions: left, share: principal.share });
    };
  }

  /**
   * The queue per principal (/status, the admin API, the dashboard): every principal with
   * sessions (those being created and waiting included) or waiters, its share, its line.
   */
  principalQueues(): PrincipalQueue[] {
    const lines = new Map(this.admission.lines().map((line) => [line.principal, line]));
    return [...this.#owned].map(([principal, { sessions, share }]) => {
      const line = lines.get(principal);
      // Waiters hold a claim too: sessions running or being created are the rest.
      const queued = line?.queued ?? 0;
      return { principal, share, sessions: sessions - queued, queued, oldestQueuedMs: line?.oldestQueuedMs ?? 0 };
    });
  }

  /** Run one command. Throws WebDriverError (or anything, which the edge maps to unknown error). */
  async execute(name: string, urlParams: Record<string, string>, body: unknown, request: RequestContext = {}): Promise<unknown> {
    const started = performance.now();
    const startedAt = Date.now();
    // The session the command reached, and its parsed parameters (for the seam).
    const ran: Ran = {};
    let failed: WebDriverError | undefined;
    let value: unknown;
    try {
      value = await this.#execute(name, urlParams, body, request, ran);
      return value;
    } catch (e) {
      failed = toWebDriverError(e);
      const ms = Math.round((performance.now() - started) * 10) / 10;
      // One line per failed command: never its body (it may hold a user's data).
      this.log.info({ event: 'command failed', sessionId: urlParams.sessionId, principal: (request.principal ?? LOCAL).name, command: name, error: failed.code, ms });
      throw e;
    } finally {
      // New Session: the session it made.
      const session = ran.session ?? (name === 'newSession' && !failed ? this.#created(value) : undefined);
      const error = failed && { code: failed.code, message: failed.message };
      this.seam.answered({ kind: 'command', name, session, urlParams, startedAt, durationMs: performance.now() - started, ...(error && { error }), ...(ran.notes && { notes: ran.notes }) }, ran.params ?? body, value);
    }
  }

  #created(value: unknown): AnySession | undefined {
    const id = (value as { sessionId?: unknown } | undefined)?.sessionId;
    return typeof id === 'string' ? this.sessions.get(id) : undefined;
  }

  async #execute(name: string, urlParams: Record<string, string>, body: unknown, request: RequestContext, ran: Ran): Promise<unknown> {
    const command = this.commands[name];
    if (!command) throw error('unsupported operation', `${name} is not implemented yet`);
    if (!command.session) {
      const params = command.params ? command.params(body, '') : body;
      return command.handler({ gateway: this, urlParams, request }, params);
    }
    const id = urlParams.sessionId!;
    // A session of another principal is as unknown as one that never was.
    const owner = (request.principal ?? LOCAL).name;
    const session = this.sessions.get(id, owner);
    // A pass-through session's commands are forwarded by the edge; they never run here.
    if (session?.kind === 'pass-through') throw error('unknown error', `session ${id} is served upstream and its commands are forwarded there`);
    if (!session) {
      const ending = this.sessions.ending(id, owner);
      throw error('invalid session id', ending ? `session ${id} has ended: ${ending}` : `no active session with id ${id}`);
    }
    ran.session = session;
    const params = command.params ? command.params(body, '') : body;
    ran.params = params;
    return session.serialize(async () => {
      if (session.ended) throw error('invalid session id', `session ${session.id} has ended`);
      // The seam's turn (a traced session: what the previous command left on the page is captured first).
      const before = this.seam.before(session, { kind: 'command', name, urlParams, params });
      if (before) await before;
      if (command.handlesUserPrompts) await handleAnyUserPrompts(session);
      if (session.bidi) await adoptSharedIds(session, urlParams, body);
      // What its page calls see, for the seam's observers (./notes.ts).
      if (this.seam.wantsNotes(session)) session.notes = ran.notes = {};
      try {
        return await command.handler({ gateway: this, urlParams, request, session }, params);
      } catch (e) {
        // A user prompt opened during the command and blocks the page: the command ends there
        // with success and null (spec Execute Script; chromedriver for every command). The
        // prompt is the next command's to handle.
        if (e instanceof UserPromptOpenedError) return null;
        throw e;
      } finally {
        session.notes = undefined;
      }
    }, command.endsSession && ENDING_WAITS_AT_MOST_MS);
  }

  /** Take no new session (SIGTERM), after the drain notice period; running sessions go on until close(). */
  stopTakingSessions(): void {
    this.#shuttingDown = true;
    this.admission.stopTaking('wdgate is shutting down', { notice: true });
  }

  /** End every session, then every browser (gateway shutdown). */
  async close(): Promise<void> {
    this.#closing = true;
    this.admission.stopTaking('wdgate is shutting down', { notice: false });
    for (const session of this.sessions.all()) void this.sessions.end(session, 'the gateway shut down');
    await this.sessions.settled();
    await this.pool.close();
    // Drivers and displays the pass-through backends started, once their sessions have ended.
    await Promise.all(this.backends.map((b) => (b.kind === 'pass-through' ? b.close() : undefined)));
  }
}

interface Ran {
  session?: AnySession;
  params?: unknown;
  notes?: PageNotes;
}
