// A session served by an upstream W3C server (the remote backend): the registry holds it beside
// driven sessions, for ownership, capacity, idle reaping and shutdown, but the W3C layer never runs
// its commands: the HTTP edge forwards them (src/server/forward.ts).
import type { UpstreamSession } from '../../backends/backend.ts';
import type { SessionHistory } from '../trace/index.ts';

export class PassThroughSession {
  readonly kind = 'pass-through' as const;
  readonly id: string;
  readonly owner: string;
  readonly upstreamName: string;
  readonly upstream: UpstreamSession;
  readonly browserName: string;
  ended = false;
  /** What the history keeps of the session (src/trace/): set at New Session. */
  history: SessionHistory | undefined = undefined;
  readonly createdAt = Date.now();
  lastActivity = Date.now();
  /** Requests being forwarded: a session is never idle while one is. */
  inFlight = 0;
  /** Delete Session was forwarded upstream already: ending does not send it again. */
  deletedUpstream = false;
  readonly #release: () => void;

  constructor(init: { id: string; owner: string; upstreamName: string; upstream: UpstreamSession; release: () => void }) {
    this.id = init.id;
    this.owner = init.owner;
    this.upstreamName = init.upstreamName;
    this.upstream = init.upstream;
    this.browserName = String(init.upstream.capabilities.browserName ?? 'unknown');
    this.#release = init.release;
  }

  /** The upstream path of a gateway path of this session: `/session/{ours}/x` → `/session/{theirs}/x`. */
  upstreamPath(rest: string): string {
    return `/session/${encodeURIComponent(this.upstream.id)}${rest}`;
  }

  /** Give back the session's slot, and end it upstream (and what was started for it). Never throws. */
  async release(): Promise<void> {
    this.#release();
    await this.upstream.end(this.deletedUpstream).catch(() => {});
  }

  async removeTemporaryFiles(): Promise<void> {}
}
