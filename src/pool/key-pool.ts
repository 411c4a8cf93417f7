// One launch key's share of the pool (./pool.ts): a generic-pool of seats (a context prepared in
// one of the key's browsers), the browsers they are made in, and the demand policy around it.
//
// generic-pool does what a pool does: its factory creates a seat (launching a browser when none of
// the key's has room) and destroys one; `min` keeps the default key's contexts prepared from
// start, `max` is maxBrowsers × sessionsPerBrowser, idle seats past `min` are evicted after the
// idle timeout, a seat whose browser went away fails validation on borrow (it is destroyed and
// another made), and an acquire waits at most the queue's timeout. Waiters are served in order.
//
// What it cannot do by itself is policy here, said where it is done:
// - how many seats to keep prepared follows the New Session rate (./demand.ts), not a fixed `min`:
//   the policy borrows seats for itself (generic-pool then creates them) and gives them straight
//   back, prepared; a session that asks while such a borrowing waits takes it over, so that
//   generic-pool is never asked for more than the policy decided (it would create for both);
// - a failed create must answer the session that waits, not loop: the factory never rejects (a
//   rejection makes generic-pool create again at once, for ever, while anyone waits); it answers
//   a failure as a seat, which the session that gets it throws, and backs off before preparing
//   ahead again;
// - a browser that dies while it starts, or while a context is prepared in it, is replaced once;
// - sessions waiting when the gateway shuts down are answered at once (generic-pool's drain would
//   let them wait for a context).
import genericPool from 'generic-pool';
import type { Backend, BackendEnvironment, BrowserProcess, DrivenBrowser, LaunchSpec } from '../../backends/backend.ts';
import { Demand } from './demand.ts';
import { LeaseWaits } from './waits.ts';
import type { KeyStats, Lease, PoolConfig } from './types.ts';

export type { KeyStats, Lease, PoolConfig } from './types.ts';

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
  idleTimer?: NodeJS.Timeout;
}

/** A context prepared in a host, or why one could not be (handed to the session that waits longest). */
type Seat = { host: Host; context: DrivenBrowser; failure?: undefined } | { failure: Error; at: number };

/** New Sessions per second past which contexts prepared for the rate may launch another browser of the key. */
const LAUNCH_FOR_RATE = 2;
/** After a failed preparation, contexts are prepared ahead again only after this long (doubling, up to 30 s). */
const RETRY_AHEAD_MS = 1000;
/** A failure is handed to a session that asks while it is this fresh; an older one is dropped (another try is made). */
const FAILURE_FRESH_MS = 1000;

/** The policy's borrowing of a seat, until it is served: a session may take it over. */
interface Borrowing {
  readonly seat: Promise<Seat>;
  claimed: boolean;
}

export class KeyPool {
  readonly hosts = new Set<Host>();
  readonly #seats: genericPool.Pool<Seat>;
  readonly #backend: Backend;
  readonly #spec: LaunchSpec;
  readonly #env: BackendEnvironment;
  readonly #config: PoolConfig;
  /** Contexts kept prepared whatever the rate (pool.minWarm for the default key): generic-pool's min. */
  readonly #warm: number;
  /** Contexts per browser process: sessionsPerBrowser, or 1 for a key whose sessions own their browser. */
  readonly #perBrowser: number;
  /** Seats being created now (generic-pool counts them too, privately). */
  #preparing = 0;
  /** The policy's own borrowings not yet served, the oldest first. */
  readonly #borrowings: Borrowing[] = [];
  /** Sessions between asking generic-pool and getting their seat. */
  #sessionsWaiting = 0;
  readonly #demand = new Demand();
  readonly #waits = new LeaseWaits();
  #failures = 0;
  #aheadAfter = 0;
  /** Factories backing off after a failure: a session that asks ends their pause. */
  readonly #sleepers = new Set<() => void>();
  /** The context of each seat being disposed of: a lease given back resolves once it is closed. */
  readonly #disposing = new WeakMap<Seat, Promise<void>>();
  readonly #ticker: NodeJS.Timeout;
  #closed = false;
  /** Seats sessions hold; at shutdown, what is waited for. */
  #leased = 0;
  #allReturned: (() => void) | undefined;
  /** Sessions still waiting at shutdown are answered by this. */
  #closing!: Promise<never>;
  #close!: (reason: Error) => void;

  constructor(
    backend: Backend,
    spec: LaunchSpec,
    env: BackendEnvironment,
    config: PoolConfig,
    warm: number,
    acquireTimeout: number,
    readonly principal?: string,
  ) {
    this.#backend = backend;
    this.#spec = spec;
    this.#env = env;
    this.#config = config;
    this.#warm = warm;
    this.#perBrowser = spec.ownBrowser ? 1 : config.sessionsPerBrowser;
    this.#closing = new Promise<never>((_, reject) => (this.#close = reject));
    this.#closing.catch(() => {});
    const every = Math.max(1000, Math.min(config.idleTimeout, 30_000));
    this.#seats = genericPool.createPool<Seat>(
      {
        create: () => this.#create(),
        destroy: (seat) => this.#dispose(seat),
        // On borrow: a context whose browser went away is dropped and another made; a failure is
        // handed out while fresh (so the session that waits learns it, and creation does not loop).
        validate: async (seat) => (seat.failure ? Date.now() - seat.at < FAILURE_FRESH_MS : this.#usable(seat.host)),
      },
      {
        min: warm,
        max: config.maxBrowsers * this.#perBrowser,
        fifo: true,
        testOnBorrow: true,
        // Idle seats beyond min go after the idle timeout (generic-pool's hard idle timeout, which
        // would end min's too, is off).
        softIdleTimeoutMillis: config.idleTimeout,
        idleTimeoutMillis: Number.MAX_SAFE_INTEGER,
        evictionRunIntervalMillis: every,
        numTestsPerEvictionRun: Number.MAX_SAFE_INTEGER,
        // A New Session waits at most the queue's timeout for its context, but never less than a
        // browser may take to start (30 s): a cold start is not cut short.
        ...(acquireTimeout > 0 && { acquireTimeoutMillis: Math.max(acquireTimeout, 30_000) }),
        autostart: true,
      },
    );
    // The rate falls, a failure's pause ends: the target is looked at now and then too.
    this.#ticker = setInterval(() => this.#prepareAhead(), every);
    this.#ticker.unref();
    this.#prepareAhead();
  }

  get backendName(): string {
    return this.#backend.name;
  }

  /** A prepared context; resolves once one is free (callers are admitted below the maximum). */
  async lease(): Promise<Lease> {
    if (this.#closed) throw new Error('the pool is closing');
    const asked = performance.now();
    this.#demand.leased(Date.now());
    this.#sessionsWaiting++;
    this.#wakeSleepers();
    // The oldest borrowing of the policy's, if one waits, is this session's: generic-pool is not asked twice.
    const borrowing = this.#borrowings.shift();
    if (borrowing) borrowing.claimed = true;
    const acquired = borrowing?.seat ?? this.#seats.acquire();
    this.#prepareAhead();
    let seat: Seat;
    try {
      seat = await Promise.race([acquired, this.#closing]);
    } catch (e) {
      // Shut down while it waited: the seat it would have had is given back when it comes.
      void acquired.then((late) => this.#seats.destroy(late), () => {});
      if ((e as Error).name === 'TimeoutError') throw new Error(`no browser context became ready in time (${Math.round(performance.now() - asked)} ms)`);
      throw e;
    } finally {
      this.#sessionsWaiting--;
    }
    if (seat.failure) {
      void this.#seats.destroy(seat);
      throw seat.failure;
    }
    this.#waits.add(performance.now() - asked);
    seat.host.served++;
    this.#leased++;
    this.#prepareAhead();
    let released: Promise<void> | undefined;
    return {
      browser: seat.context,
      ownBrowser: this.#perBrowser === 1,
      // Contexts are never reused: one given back is destroyed (after Delete Session has answered).
      release: () =>
        (released ??= this.#seats
          .destroy(seat)
          .then(() => this.#disposing.get(seat))
          .finally(() => {
            if (--this.#leased === 0) this.#allReturned?.();
          })),
    };
  }

  /** Contexts to keep prepared or in preparation now, beyond those sessions wait for; and how many of them may launch a browser. */
  #targets(now: number): { target: number; launching: number } {
    // A key other than the default one is warm while it is used: the browser of a key whose
    // sessions own theirs (BiDi clients such as WebdriverIO ask for one session after another)
    // is launched ahead; any other key's next context is prepared where a browser has room.
    const used = now - this.#demand.lastLease < this.#config.idleTimeout;
    const baseline = this.#warm || (used ? 1 : 0);
    // After a failed preparation, only waiting sessions (and generic-pool's min) make more for a while.
    if (now < this.#aheadAfter) return { target: 0, launching: 0 };
    const byRate = this.#demand.target(now);
    // Another browser (≈ 250 MB, a second of CPU to start) for the rate's extra only under
    // sustained churn, not for a burst of a few sessions.
    const launching = Math.max(this.#warm || (used && this.#spec.ownBrowser ? 1 : 0), this.#demand.rate(now) >= LAUNCH_FOR_RATE ? byRate : 0);
    return { target: Math.max(baseline, byRate), launching };
  }

  /**
   * The demand policy: when fewer seats than the target are prepared or in preparation (beyond
   * those the waiting sessions get), borrow that many (each is a prepared seat
   * or makes generic-pool create one) and give them back at once, prepared. The rate's extra only
   * fills room in running browsers; the baseline, or a sustained rate, may launch one.
   */
  #prepareAhead(): void {
    if (this.#closed || this.#borrowings.length > 0) return;
    const { target, launching } = this.#targets(Date.now());
    // Prepared, or in preparation beyond what the waiting sessions will take.
    const have = this.#seats.available + Math.max(0, this.#preparing - this.#sessionsWaiting);
    if (have >= target) return;
    const create = Math.min(target - have, Math.max(launching - have, this.#roomInRunningBrowsers()), this.#seats.max - this.#seats.size);
    // Borrowing k takes the prepared ones first (given straight back), then makes generic-pool
    // create k − have: borrow have + create.
    for (let i = 0; i < have + create && create > 0; i++) this.#borrowAhead();
  }

  #borrowAhead(): void {
    const borrowing: Borrowing = { seat: this.#seats.acquire(), claimed: false };
    this.#borrowings.push(borrowing);
    const done = () => {
      const at = this.#borrowings.indexOf(borrowing);
      if (at >= 0) this.#borrowings.splice(at, 1);
    };
    borrowing.seat.then(
      (seat) => {
        done();
        if (borrowing.claimed) return;
        // A failure (no session took it): the pause after it is set; it is dropped.
        void (seat.failure || !this.#usable(seat.host) ? this.#seats.destroy(seat) : this.#seats.release(seat));
      },
      done,
    );
  }

  /** Contexts the key's running (or starting) browsers still have room for. */
  #roomInRunningBrowsers(): number {
    let room = 0;
    for (const host of this.hosts) if (this.#usable(host) && !this.#retired(host)) room += Math.max(0, this.#perBrowser - host.contexts);
    return room;
  }

  /** A browser of its own per session (sessionsPerBrowser 1): a used browser is not reused. */
  #retired(host: Host): boolean {
    return this.#perBrowser === 1 && host.served > 0;
  }

  /**
   * generic-pool's factory: a seat prepared in the browser with room that prepares fewest (a new
   * window takes its browser's main thread ≈ 50 ms, which the commands of the sessions in that
   * browser wait behind: spread, the preparations delay fewer of them), or in a browser launched
   * for it. generic-pool asks only below its max, so there is always room or a browser to launch.
   */
  async #create(): Promise<Seat> {
    this.#preparing++;
    let replaced = false;
    try {
      for (;;) {
        if (this.#closed) return { failure: new Error('the pool is closing'), at: Date.now() };
        // After a failure, preparing ahead (no session waits) waits its turn.
        if (this.#sessionsWaiting === 0) await this.#backOff();
        if (this.#closed) return { failure: new Error('the pool is closing'), at: Date.now() };
        const host = this.#hostWithRoom();
        host.contexts++;
        host.preparing++;
        clearTimeout(host.idleTimer);
        try {
          const process = await host.ready;
          const started = performance.now();
          const context = await process.newContext({ sole: this.#perBrowser === 1 });
          this.#demand.prepared(performance.now() - started);
          this.#failures = 0;
          host.preparing--;
          if (this.#closed || !this.#usable(host)) {
            host.contexts--;
            await context.close().catch(() => {});
            this.#idle(host);
            continue;
          }
          return { host, context };
        } catch (e) {
          host.preparing--;
          host.contexts--;
          this.#idle(host);
          this.#aheadAfter = Date.now() + Math.min(30_000, RETRY_AHEAD_MS * 2 ** this.#failures++);
          if (this.#sessionsWaiting > 0) {
            // A browser that went away meanwhile (it crashed, was killed, or died while it
            // started) is replaced once; at a second failure the session that waits longest learns why.
            if (!this.#usable(host) && !replaced) {
              replaced = true;
              continue;
            }
            return { failure: e as Error, at: Date.now() };
          }
          // Prepared ahead: tried again after the pause while the key is wanted (a session that
          // asks meanwhile ends the pause), else given up (the failure goes stale).
          if (!this.#wanted()) return { failure: e as Error, at: Date.now() };
        }
      }
    } finally {
      this.#preparing--;
    }
  }

  /** Until the pause after a failure is over, or a session asks. */
  async #backOff(): Promise<void> {
    const wait = this.#aheadAfter - Date.now();
    if (wait <= 0) return;
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, wait);
      timer.unref();
      this.#sleepers.add(wake);
    });
  }

  #wakeSleepers(): void {
    for (const wake of this.#sleepers) wake();
  }

  /** Whether the key wants contexts prepared without a session waiting: its min, or it is in use. */
  #wanted(): boolean {
    return this.#warm > 0 || Date.now() - this.#demand.lastLease < this.#config.idleTimeout;
  }

  #hostWithRoom(): Host {
    let best: Host | undefined;
    for (const host of this.hosts) {
      if (!this.#usable(host) || this.#retired(host) || host.contexts >= this.#perBrowser) continue;
      if (!best || host.preparing < best.preparing) best = host;
    }
    if (best) return best;
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

  /** generic-pool's destroy: a context that comes back (or is evicted, or failed validation). */
  #dispose(seat: Seat): Promise<void> {
    if (seat.failure) return Promise.resolve();
    const { host, context } = seat;
    // A context being closed serves no session: it does not count against the browser's room,
    // or churn (one session ending as the next begins) would launch browsers for nothing.
    host.contexts--;
    this.#prepareAhead();
    const disposed = context.close().catch(() => {}).then(() => this.#idle(host));
    this.#disposing.set(seat, disposed);
    return disposed;
  }

  /** A host with no context left: ended now if it may not be reused, else after the idle timeout. */
  #idle(host: Host): void {
    if (host.contexts > 0 || host.dead) return;
    if (this.#closed || this.#retired(host)) {
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
    const process = await host.ready.catch(() => undefined);
    await process?.close();
  }

  /**
   * A browser went away on its own: its sessions learn it from their contexts; it is reaped, and
   * the seats prepared in it are replaced (borrowed, they fail validation and others are made).
   */
  #lost(host: Host): void {
    void this.#end(host);
    if (this.#closed) return;
    for (let i = this.#seats.available; i > 0; i--) this.#borrowAhead();
  }

  get idle(): boolean {
    return this.#seats.size === 0 && this.#seats.pending === 0 && this.hosts.size === 0;
  }

  stats(): KeyStats {
    const now = Date.now();
    return {
      key: JSON.parse(this.#spec.key),
      ...(this.principal !== undefined && { principal: this.principal }),
      backend: this.#backend.name,
      browsers: [...this.hosts].filter((h) => !h.dead).length,
      // The policy's own borrowings are given back at once: what is borrowed is the sessions'.
      inUse: this.#seats.borrowed,
      free: this.#seats.available,
      pending: this.#sessionsWaiting,
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
    clearInterval(this.#ticker);
    this.#wakeSleepers();
    this.#close(new Error('the pool is closing'));
    // No acquire and no min from now on. Not waited for: a borrowing of the policy's may wait for
    // a seat that will never be made (the leases are what must end first).
    void this.#seats.drain().catch(() => {});
    if (this.#leased > 0) await new Promise<void>((resolve) => (this.#allReturned = resolve));
    await this.#seats.clear().catch(() => {});
    await Promise.all([...this.hosts].map((host) => this.#end(host)));
  }
}
