// The pool: per launch key (the normalized launch spec a backend derives from capabilities),
// warm browser processes and contexts prepared ahead in them. A session leases one prepared
// context (a "seat") and gives it back when it ends; contexts are never reused, so giving one
// back disposes of it and another is prepared in the background. Only the pool starts and ends
// browser processes: crash handling, idle eviction and shutdown live here.
//
// Each key has a generic-pool of seats. A seat is made in a browser of that key with room (fewer
// contexts than `sessionsPerBrowser`), or in a newly launched one (at most `maxBrowsers`). A
// browser whose contexts may share content processes (LaunchSpec.contentProcessesShared) serves
// one principal only: its key is the launch key and the principal.
import genericPool from 'generic-pool';
import type { Backend, BackendEnvironment, BrowserProcess, DrivenBrowser, LaunchSpec } from '../../backends/backend.ts';

export interface PoolConfig {
  /** Contexts kept prepared for the default key, from start (0: nothing warm). */
  minWarm: number;
  /** Browser processes per key at most. */
  maxBrowsers: number;
  /** Sessions (contexts) one browser process serves at once; 1: a process of its own per session. */
  sessionsPerBrowser: number;
  /** A prepared context, or a browser with no context, unused this long is ended (ms). */
  idleTimeout: number;
}

/** One browser process of a key and how many contexts (prepared or leased) it holds. */
interface Host {
  readonly ready: Promise<BrowserProcess>;
  process?: BrowserProcess;
  contexts: number;
  /** Sessions it has served (sessionsPerBrowser 1: a used browser is not reused). */
  served: number;
  dead: boolean;
  idleTimer?: NodeJS.Timeout;
}

/** A context prepared in a host, or the reason it could not be (handed to one waiter). */
type Seat = { host: Host; context: DrivenBrowser; failure?: undefined } | { failure: Error; at: number };

/** What a session holds: its context, and how to give it back. */
export interface Lease {
  readonly browser: DrivenBrowser;
  /** The context's browser serves no other session (one context per browser for its key). */
  readonly ownBrowser: boolean;
  /** Give the context back: it is disposed of, and its browser returns to the pool (or ends). */
  release(): Promise<void>;
}

export interface KeyStats {
  /** The launch key, as the backend made it (backend, binary, args, headless ...). */
  key: unknown;
  /** The principal whose sessions alone its browsers serve (contentProcessesShared), if any. */
  principal?: string;
  backend: string;
  browsers: number;
  inUse: number;
  free: number;
  /** Leases waiting for a context to be prepared. */
  pending: number;
}

/** A failure is handed to the waiter it was made for; an old one is not (a new attempt is made). */
const FAILURE_FRESH_MS = 1000;

class KeyPool {
  readonly hosts = new Set<Host>();
  readonly seats: genericPool.Pool<Seat>;
  readonly #backend: Backend;
  readonly #spec: LaunchSpec;
  readonly #env: BackendEnvironment;
  readonly #config: PoolConfig;
  readonly #warm: number;
  /** Contexts per browser process: sessionsPerBrowser, or 1 for a key whose sessions own their browser. */
  readonly #perBrowser: number;
  #closed = false;

  constructor(
    backend: Backend,
    spec: LaunchSpec,
    env: BackendEnvironment,
    config: PoolConfig,
    warm: number,
    readonly principal?: string,
  ) {
    this.#backend = backend;
    this.#spec = spec;
    this.#env = env;
    this.#config = config;
    this.#warm = warm;
    this.#perBrowser = spec.ownBrowser ? 1 : config.sessionsPerBrowser;
    this.seats = genericPool.createPool<Seat>(
      {
        create: () => this.#prepare(),
        destroy: (seat) => this.#dispose(seat),
        // Health check on lease: a context whose browser went away is dropped, another made. A
        // failure is handed out while fresh (so a waiter is answered, and creation does not loop).
        validate: async (seat) => (seat.failure ? Date.now() - seat.at < FAILURE_FRESH_MS : !seat.host.dead && seat.host.process!.connected),
      },
      {
        min: warm,
        max: config.maxBrowsers * this.#perBrowser,
        testOnBorrow: true,
        idleTimeoutMillis: config.idleTimeout,
        evictionRunIntervalMillis: Math.max(1000, Math.min(config.idleTimeout, 30_000)),
        autostart: true,
      },
    );
  }

  get backendName(): string {
    return this.#backend.name;
  }

  /** A prepared context; resolves once one is free (callers are admitted below the maximum). */
  async lease(): Promise<Lease> {
    const seat = await this.seats.acquire();
    if (seat.failure) {
      await this.seats.destroy(seat);
      throw seat.failure;
    }
    seat.host.served++;
    this.#prepareNext();
    let released: Promise<void> | undefined;
    return {
      browser: seat.context,
      ownBrowser: this.#perBrowser === 1,
      release: () => (released ??= this.seats.destroy(seat).catch(() => {})),
    };
  }

  /**
   * Keep a context prepared for the next lease, in the background: always for a warm key, for a
   * key whose sessions own their browser once it is used (a launch: BiDi clients such as
   * WebdriverIO ask for one session after another; unused, it goes after the idle timeout), and
   * for any key when a running browser has room.
   */
  #prepareNext(): void {
    if (this.#closed || this.seats.available > 0 || this.seats.pending > 0 || this.seats.size >= this.seats.max) return;
    if (this.#warm === 0 && !this.#spec.ownBrowser && !this.#hostWithRoom(false)) return;
    this.seats.acquire().then(
      (seat) => this.seats.release(seat),
      () => {},
    );
  }

  #hostWithRoom(launch: boolean): Host | undefined {
    for (const host of this.hosts) {
      const retired = this.#perBrowser === 1 && host.served > 0;
      if (!host.dead && !retired && host.contexts < this.#perBrowser) return host;
    }
    if (!launch || this.hosts.size >= this.#config.maxBrowsers) return undefined;
    const host: Host = { ready: this.#backend.launch(this.#spec, this.#env), contexts: 0, served: 0, dead: false };
    this.hosts.add(host);
    host.ready.then(
      (process) => {
        host.process = process;
        process.onExit(() => this.#lost(host));
        if (this.#closed) void this.#end(host);
      },
      () => {
        host.dead = true;
        this.hosts.delete(host);
      },
    );
    return host;
  }

  async #prepare(): Promise<Seat> {
    // Closing: a waiter left from before (a replacement being prepared) gets a failure, or the
    // health check would drop each new seat and drain would launch browsers forever.
    if (this.#closed) return { failure: new Error('the pool is closing'), at: Date.now() };
    const host = this.#hostWithRoom(true);
    if (!host) return { failure: new Error(`the pool has no room for another browser of this kind (${this.#config.maxBrowsers})`), at: Date.now() };
    host.contexts++;
    clearTimeout(host.idleTimer);
    try {
      const process = await host.ready;
      return { host, context: await process.newContext() };
    } catch (e) {
      host.contexts--;
      this.#idle(host);
      return { failure: e as Error, at: Date.now() };
    }
  }

  async #dispose(seat: Seat): Promise<void> {
    if (seat.failure) return;
    const { host, context } = seat;
    // A context being closed serves no session: it does not count against the browser's room,
    // or churn (one session ending as the next begins) would launch browsers for nothing.
    host.contexts--;
    await context.close();
    this.#idle(host);
  }

  /** A host with no context left: ended now if it may not be reused, else after the idle timeout. */
  #idle(host: Host): void {
    if (host.contexts > 0 || host.dead) return;
    if (this.#closed || (this.#perBrowser === 1 && host.served > 0)) {
      void this.#end(host);
      return;
    }
    host.idleTimer = setTimeout(() => void this.#end(host), this.#config.idleTimeout);
    host.idleTimer.unref();
  }

  async #end(host: Host): Promise<void> {
    host.dead = true;
    clearTimeout(host.idleTimer);
    this.hosts.delete(host);
    const process = await host.ready.catch(() => undefined);
    await process?.close();
  }

  /**
   * A browser went away on its own: its sessions learn it from their contexts; it is reaped, and
   * the contexts prepared in it are replaced.
   */
  #lost(host: Host): void {
    void this.#end(host);
    if (this.#closed) return;
    const stale = this.seats.available;
    for (let i = 0; i < stale; i++) {
      // Leasing runs the health check: dead contexts are dropped and new ones prepared.
      this.seats.acquire().then(
        (seat) => this.seats.release(seat),
        () => {},
      );
    }
  }

  get idle(): boolean {
    return this.seats.size === 0 && this.seats.pending === 0 && this.hosts.size === 0;
  }

  stats(): KeyStats {
    return {
      key: JSON.parse(this.#spec.key),
      ...(this.principal !== undefined && { principal: this.principal }),
      backend: this.#backend.name,
      browsers: [...this.hosts].filter((h) => !h.dead).length,
      inUse: this.seats.borrowed,
      free: this.seats.available,
      pending: this.seats.pending,
    };
  }

  /** End every context and browser of the key (gateway shutdown). Leases end first. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.seats.drain().catch(() => {});
    await this.seats.clear().catch(() => {});
    await Promise.all([...this.hosts].map((host) => this.#end(host)));
  }
}

export class Pool {
  readonly #keys = new Map<string, KeyPool>();
  readonly #env: BackendEnvironment;
  readonly #config: PoolConfig;
  #sweeper: NodeJS.Timeout;

  constructor(env: BackendEnvironment, config: PoolConfig) {
    this.#env = env;
    this.#config = config;
    // Keys nobody uses any more (no browser, no context) are forgotten.
    this.#sweeper = setInterval(() => {
      for (const [key, pool] of this.#keys) {
        if (key !== this.#defaultKey && pool.idle) {
          this.#keys.delete(key);
          void pool.close();
        }
      }
    }, 30_000);
    this.#sweeper.unref();
  }

  #defaultKey: string | undefined;

  /**
   * Keep `minWarm` contexts of this launch spec prepared from now on (the gateway's default),
   * for `principal` where the spec's browsers serve one principal only.
   */
  warm(backend: Backend, spec: LaunchSpec, principal = LOOPBACK_PRINCIPAL): void {
    this.#defaultKey = poolKey(spec, principal);
    this.#keyPool(backend, spec, principal);
  }

  #keyPool(backend: Backend, spec: LaunchSpec, principal: string): KeyPool {
    const key = poolKey(spec, principal);
    let pool = this.#keys.get(key);
    if (!pool) {
      const warm = key === this.#defaultKey ? this.#config.minWarm : 0;
      pool = new KeyPool(backend, spec, this.#env, this.#config, warm, spec.contentProcessesShared ? principal : undefined);
      this.#keys.set(key, pool);
    }
    return pool;
  }

  /**
   * Lease a prepared context for `spec` (prepared now if none is ready) for a session of
   * `principal`. Throws LaunchError.
   */
  lease(backend: Backend, spec: LaunchSpec, principal: string): Promise<Lease> {
    return this.#keyPool(backend, spec, principal).lease();
  }

  stats(): KeyStats[] {
    return [...this.#keys.values()].map((pool) => pool.stats());
  }

  /** The keys a principal may see: those of no principal and its own, or every one for an admin. */
  statsFor(viewer: { name: string; admin: boolean }): KeyStats[] {
    return this.stats().filter((key) => key.principal === undefined || viewer.admin || key.principal === viewer.name);
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    await Promise.all([...this.#keys.values()].map((pool) => pool.close()));
    this.#keys.clear();
  }
}

/** The principal a loopback client without a token is (server/auth.ts LOCAL): the default key's, warm from start. */
const LOOPBACK_PRINCIPAL = 'local';

/**
 * Where a spec's sessions are pooled: its launch key, and the principal too when the browser's
 * contexts may share content processes (sessions of different principals never share one).
 */
function poolKey(spec: LaunchSpec, principal: string): string {
  return spec.contentProcessesShared ? JSON.stringify([spec.key, principal]) : spec.key;
}
