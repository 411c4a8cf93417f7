// The pool: per launch key (the normalized launch spec a backend derives from capabilities),
// warm browser processes and contexts prepared ahead in them. A session leases one prepared
// context (a "seat") and gives it back when it ends; contexts are never reused, so giving one
// back disposes of it (after Delete Session has answered) and another is prepared in the
// background. Only the pool starts and ends browser processes: crash handling, idle eviction and
// shutdown live here.
//
// Each key's seats are a generic-pool (./key-pool.ts). How many contexts a key keeps prepared
// follows the recent rate of New Session (./demand.ts): a CI suite's workers, each opening a
// session per test, find one ready. A seat is made in a browser of that key with room (fewer
// contexts than `sessionsPerBrowser`), or in a newly launched one (at most `maxBrowsers`) when a
// session waits for it or the key's baseline needs it; contexts prepared for the rate alone only
// fill room in running browsers. A browser whose
// contexts may share content processes (LaunchSpec.contentProcessesShared) serves one principal
// only: its key is the launch key and the principal.
import type { Backend, BackendEnvironment, LaunchSpec } from '../../backends/backend.ts';
import { KeyPool, type KeyStats, type Lease, type PoolConfig } from './key-pool.ts';

export type { KeyStats, Lease, PoolConfig } from './key-pool.ts';

export class Pool {
  readonly #keys = new Map<string, KeyPool>();
  readonly #env: BackendEnvironment;
  readonly #config: PoolConfig;
  readonly #acquireTimeout: number;
  #sweeper: NodeJS.Timeout;

  /** `acquireTimeout`: how long a New Session waits for its context at most (the queue's timeout; 0: no limit). */
  constructor(env: BackendEnvironment, config: PoolConfig, acquireTimeout = 0) {
    this.#env = env;
    this.#config = config;
    this.#acquireTimeout = acquireTimeout;
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
   * Keep at least `minWarm` contexts of this launch spec prepared from now on (the gateway's
   * default), for `principal` where the spec's browsers serve one principal only.
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
      pool = new KeyPool(backend, spec, this.#env, this.#config, warm, this.#acquireTimeout, spec.contentProcessesShared ? principal : undefined);
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

/** The principal a loopback client without a token is (base/principal.ts LOCAL): the default key's, warm from start. */
const LOOPBACK_PRINCIPAL = 'local';

/**
 * Where a spec's sessions are pooled: its launch key, and the principal too when the browser's
 * contexts may share content processes (sessions of different principals never share one).
 */
function poolKey(spec: LaunchSpec, principal: string): string {
  return spec.contentProcessesShared ? JSON.stringify([spec.key, principal]) : spec.key;
}
