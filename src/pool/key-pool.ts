// One launch key's share of the pool (./pool.ts): its browsers, the contexts prepared in them
// ahead of demand, the sessions waiting for one, and what ends them (crash, idle, shutdown).
import type { Backend, BackendEnvironment, BrowserProcess, DrivenBrowser, LaunchSpec } from '../../backends/backend.ts';
import { Demand } from './demand.ts';
import { LeaseWaits, type WaitSummary } from './waits.ts';

export interface PoolConfig {
  /** Contexts kept prepared for the default key at least, from start (0: nothing warm). */
  minWarm: number;
  /** Browser processes per key at most. */
  maxBrowsers: number;
  /** Sessions (contexts) one browser process serves at once; 1: a process of its own per session. */
  sessionsPerBrowser: number;
  /** A prepared context, or a browser with no context, unused this long is ended (ms). */
  idleTimeout: number;
}

/** One browser process of a key and how many contexts (prepared, in preparation or leased) it holds. */
interface Host {
  readonly ready: Promise<BrowserProcess>;
  process?: BrowserProcess;
  contexts: number;
  /** Of them, being prepared now. */
  preparing: number;
  /** Sessions it has served (sessionsPerBrowser 1: a used browser is not reused). */
  served: number;
  dead: boolean;
  /** It went away while contexts were prepared in it: counted as one failure, whichever preparation saw it first. */
  failed?: boolean;
  idleTimer?: NodeJS.Timeout;
}

/** A context prepared in a host. */
interface Seat {
  host: Host;
  context: DrivenBrowser;
  /** When it was ready (Date.now()): unused past the idle timeout, it may be ended. */
  preparedAt: number;
}

/** A New Session waiting for a context: the next one prepared is its, or the failure to prepare it. */
interface Waiter {
  resolve(seat: Seat): void;
  reject(error: Error): void;
}

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
  /** Contexts prepared and ready for a New Session. */
  free: number;
  /** New Sessions waiting for a context. */
  pending: number;
  /** Contexts being prepared now. */
  preparing: number;
  /** How many contexts the key keeps prepared or in preparation now (its baseline, or the rate's). */
  target: number;
  /** New Sessions per second the key prepares for (recent, exponentially weighted). */
  rate: number;
  /** How long a context took to prepare, recently (ms). */
  prepareMs: number;
  /** New Session's wait for a context. */
  leaseWait: WaitSummary;
}

/** New Sessions per second past which contexts prepared for the rate may launch another browser of the key. */
const LAUNCH_FOR_RATE = 2;
/** After a failed preparation, contexts are prepared ahead again only after this long (doubling, up to 30 s). */
const RETRY_AHEAD_MS = 1000;

export class KeyPool {
  readonly hosts = new Set<Host>();
  readonly #backend: Backend;
  readonly #spec: LaunchSpec;
  readonly #env: BackendEnvironment;
  readonly #config: PoolConfig;
  /** Contexts kept prepared whatever the rate (pool.minWarm for the default key). */
  readonly #warm: number;
  /** Contexts per browser process: sessionsPerBrowser, or 1 for a key whose sessions own their browser. */
  readonly #perBrowser: number;
  /** Prepared contexts, the oldest first. */
  readonly #free: Seat[] = [];
  readonly #waiters: Waiter[] = [];
  #preparing = 0;
  #leased = 0;
  readonly #demand = new Demand();
  readonly #waits = new LeaseWaits();
  #failures = 0;
  #aheadAfter = 0;
  readonly #evictor: NodeJS.Timeout;
  #closed = false;
  #allReturned: (() => void) | undefined;

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
    this.#evictor = setInterval(() => this.#evict(), Math.max(1000, Math.min(config.idleTimeout, 30_000)));
    this.#evictor.unref();
    this.#fill();
  }

  get backendName(): string {
    return this.#backend.name;
  }

  /** A prepared context; resolves once one is free (callers are admitted below the maximum). */
  async lease(): Promise<Lease> {
    if (this.#closed) throw new Error('the pool is closing');
    const asked = performance.now();
    this.#demand.leased(Date.now());
    const seat = this.#takeFree() ?? (await this.#wait());
    this.#waits.add(performance.now() - asked);
    seat.host.served++;
    this.#leased++;
    this.#fill();
    let released: Promise<void> | undefined;
    return {
      browser: seat.context,
      ownBrowser: this.#perBrowser === 1,
      release: () => (released ??= this.#return(seat)),
    };
  }

  /** The oldest prepared context whose browser is still there (others are dropped). */
  #takeFree(): Seat | undefined {
    for (let seat = this.#free.shift(); seat; seat = this.#free.shift()) {
      if (this.#usable(seat.host)) return seat;
      void this.#dispose(seat);
    }
    return undefined;
  }

  #wait(): Promise<Seat> {
    const waiting = new Promise<Seat>((resolve, reject) => this.#waiters.push({ resolve, reject }));
    this.#fill();
    return waiting;
  }

  /** Contexts to keep prepared or in preparation now, beyond those sessions wait for; and how many of them may launch a browser. */
  #targets(now: number): { target: number; launching: number } {
    // A key other than the default one is warm while it is used: the browser of a key whose
    // sessions own theirs (BiDi clients such as WebdriverIO ask for one session after another)
    // is launched ahead; any other key's next context is prepared where a browser has room.
    const used = now - this.#demand.lastLease < this.#config.idleTimeout;
    const baseline = this.#warm || (used ? 1 : 0);
    // After a failed preparation, only waiting sessions make more for a while.
    if (now < this.#aheadAfter) return { target: 0, launching: 0 };
    const byRate = this.#demand.target(now);
    // Another browser (≈ 250 MB, a second of CPU to start) for the rate's extra only under
    // sustained churn, not for a burst of a few sessions.
    const launching = Math.max(this.#warm || (used && this.#spec.ownBrowser ? 1 : 0), this.#demand.rate(now) >= LAUNCH_FOR_RATE ? byRate : 0);
    return { target: Math.max(baseline, byRate), launching };
  }

  /** Start preparing what the waiting sessions and the targets ask for, as far as browsers have room. */
  #fill(): void {
    if (this.#closed) return;
    const { target, launching } = this.#targets(Date.now());
    let have = this.#free.length + this.#preparing;
    while (have < this.#waiters.length + target) {
      // A waiting session or the baseline may launch a browser; the rate's extra only fills room.
      const host = this.#hostWithRoom(have < this.#waiters.length + launching);
      if (!host) return;
      host.contexts++;
      host.preparing++;
      clearTimeout(host.idleTimer);
      this.#preparing++;
      have++;
      void this.#prepare(host);
    }
  }

  /**
   * The browser to prepare the next context in: of those with room, the one preparing fewest (a
   * new window takes its browser's main thread ≈ 50 ms, which the commands of the sessions in
   * that browser wait behind: spread, the preparations delay fewer of them); else, when `launch`,
   * a new one.
   */
  #hostWithRoom(launch: boolean): Host | undefined {
    let best: Host | undefined;
    for (const host of this.hosts) {
      const retired = this.#perBrowser === 1 && host.served > 0;
      if (!this.#usable(host) || retired || host.contexts >= this.#perBrowser) continue;
      if (!best || host.preparing < best.preparing) best = host;
    }
    if (best) return best;
    if (!launch || this.hosts.size >= this.#config.maxBrowsers) return undefined;
    const host: Host = { ready: this.#backend.launch(this.#spec, this.#env), contexts: 0, preparing: 0, served: 0, dead: false };
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

  /** Whether the host's browser may serve (launching, or running and connected). */
  #usable(host: Host): boolean {
    return !host.dead && host.process?.connected !== false;
  }

  async #prepare(host: Host): Promise<void> {
    let context: DrivenBrowser;
    try {
      const process = await host.ready;
      const started = performance.now();
      context = await process.newContext({ sole: this.#perBrowser === 1 });
      this.#demand.prepared(performance.now() - started);
      this.#failures = 0;
    } catch (e) {
      this.#preparing--;
      host.preparing--;
      host.contexts--;
      this.#idle(host);
      // Contexts are prepared ahead again only later (a browser that cannot start is not launched
      // over and over). A browser that went away meanwhile (it crashed, was killed, or died while
      // it started) fails every preparation in it at once: one failure, replaced once for the
      // sessions waiting; at a second failure in a row, the session that waits longest learns why.
      const gone = !this.#usable(host);
      if (gone && host.failed) return this.#fill();
      host.failed = gone;
      const first = this.#failures === 0;
      this.#aheadAfter = Date.now() + Math.min(30_000, RETRY_AHEAD_MS * 2 ** this.#failures++);
      if (first && gone && this.#waiters.length > 0) return this.#fill();
      this.#waiters.shift()?.reject(e as Error);
      return;
    }
    this.#preparing--;
    host.preparing--;
    const seat: Seat = { host, context, preparedAt: Date.now() };
    if (this.#closed || host.dead) return void this.#dispose(seat);
    const waiter = this.#waiters.shift();
    if (waiter) waiter.resolve(seat);
    else this.#free.push(seat);
  }

  /** A session's context comes back: disposed of, after Delete Session has answered. */
  async #return(seat: Seat): Promise<void> {
    this.#leased--;
    await this.#dispose(seat);
    if (this.#leased === 0) this.#allReturned?.();
  }

  async #dispose(seat: Seat): Promise<void> {
    const { host, context } = seat;
    // A context being closed serves no session: it does not count against the browser's room,
    // or churn (one session ending as the next begins) would launch browsers for nothing.
    host.contexts--;
    this.#fill();
    await context.close().catch(() => {});
    this.#idle(host);
  }

  /**
   * Now and then: prepared contexts past the target, unused for the idle timeout, are ended (the
   * oldest first), and what the target asks for is prepared (after a failure's pause).
   */
  #evict(): void {
    const now = Date.now();
    const { target } = this.#targets(now);
    while (this.#free.length > target && now - this.#free[0]!.preparedAt >= this.#config.idleTimeout) void this.#dispose(this.#free.shift()!);
    this.#fill();
  }

  /** A host with no context left: ended now if it may not be reused, else after the idle timeout. */
  #idle(host: Host): void {
    if (host.contexts > 0 || host.dead) return;
    if (this.#closed || (this.#perBrowser === 1 && host.served > 0)) {
      void this.#end(host);
      return;
    }
    clearTimeout(host.idleTimer);
    host.idleTimer = setTimeout(() => void this.#end(host), this.#config.idleTimeout);
    host.idleTimer.unref();
  }

  async #end(host: Host): Promise<void> {
    host.dead = true;
    clearTimeout(host.idleTimer);
    this.hosts.delete(host);
    // Room for a browser of the key again: a waiting session may launch it.
    this.#fill();
    const process = await host.ready.catch(() => undefined);
    await process?.close();
  }

  /**
   * A browser went away on its own: its sessions learn it from their contexts; it is reaped, and
   * the contexts prepared in it are replaced.
   */
  #lost(host: Host): void {
    for (const seat of this.#free.filter((seat) => seat.host === host)) {
      this.#free.splice(this.#free.indexOf(seat), 1);
      host.contexts--;
    }
    void this.#end(host);
  }

  get idle(): boolean {
    return this.#free.length === 0 && this.#preparing === 0 && this.#leased === 0 && this.#waiters.length === 0 && this.hosts.size === 0;
  }

  stats(): KeyStats {
    const now = Date.now();
    return {
      key: JSON.parse(this.#spec.key),
      ...(this.principal !== undefined && { principal: this.principal }),
      backend: this.#backend.name,
      browsers: [...this.hosts].filter((h) => !h.dead).length,
      inUse: this.#leased,
      free: this.#free.length,
      pending: this.#waiters.length,
      preparing: this.#preparing,
      target: this.#targets(now).target,
      rate: Math.round(this.#demand.rate(now) * 100) / 100,
      prepareMs: Math.round(this.#demand.prepareMs),
      leaseWait: this.#waits.summary(),
    };
  }

  /** End every context and browser of the key (gateway shutdown). Leases end first. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#evictor);
    for (const waiter of this.#waiters.splice(0)) waiter.reject(new Error('the pool is closing'));
    if (this.#leased > 0) await new Promise<void>((resolve) => (this.#allReturned = resolve));
    await Promise.all(this.#free.splice(0).map((seat) => this.#dispose(seat)));
    await Promise.all([...this.hosts].map((host) => this.#end(host)));
  }
}

