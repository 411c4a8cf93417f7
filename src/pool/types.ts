// What the pool's keys are configured with, what a session holds, and what a key reports
// (/status, /metrics, the dashboard).
import type { DrivenBrowser } from '../../backends/backend.ts';
import type { WaitSummary } from './waits.ts';

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
