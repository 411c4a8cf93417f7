// A session served by an upstream W3C server (the remote backend): the registry holds it beside
// driven sessions, for ownership, capacity, idle reaping and shutdown, but the W3C layer never runs
// its commands: the HTTP edge forwards them (src/server/forward.ts).
import type { UpstreamSession } from '../../backends/backend.ts';
import type { SessionOptions } from './session-options.ts';
import { OwnFiles, type SessionReach } from './session-files.ts';

export class PassThroughSession {
  readonly kind = 'pass-through' as const;
  readonly id: string;
  readonly owner: string;
  readonly upstreamName: string;
  readonly upstream: UpstreamSession;
  readonly browserName: string;
  /** What it asked of the gateway's own features (its name, build, tags may change as the client reports). */
  options: SessionOptions;
  ended = false;
  readonly createdAt = Date.now();
  lastActivity = Date.now();
  /** Requests being forwarded: a session is never idle while one is. */
  inFlight = 0;
  /** Delete Session was forwarded upstream already: ending does not send it again. */
  deletedUpstream = false;
  /** What of the machine's files and URLs it may reach (file: URLs, file inputs; pass-through-policy.ts), and its own folder. */
  readonly files: OwnFiles;
  /** Paths the upstream answered this session's uploads with: the files its file inputs may take (server/forwarding.ts). */
  readonly uploads = new Set<string>();
  readonly #release: () => void;

  constructor(init: { id: string; owner: string; reach: SessionReach; upstreamName: string; upstream: UpstreamSession; options: SessionOptions; release: () => void }) {
    this.id = init.id;
    this.files = new OwnFiles(init.reach);
    this.options = init.options;
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

  /**
   * Ask the upstream a command of this session itself (a GET that changes nothing: the seam asks an
   * element's type): its value, or undefined when it answered an error or not within `timeoutMs`.
   */
  async ask(method: 'GET', rest: string, timeoutMs: number): Promise<unknown> {
    // (The URL's credentials, if any, are in the headers already; fetch refuses them in a URL.)
    const url = new URL(`${this.upstream.url}${this.upstreamPath(rest)}`);
    url.username = url.password = '';
    const response = await fetch(url, { method, headers: this.upstream.headers, signal: AbortSignal.timeout(timeoutMs) });
    const body = (await response.json().catch(() => undefined)) as { value?: unknown } | undefined;
    return response.ok ? body?.value : undefined;
  }

  /** Give back the session's slot, and end it upstream (and what was started for it). Never throws. */
  async release(): Promise<void> {
    this.#release();
    await this.upstream.end(this.deletedUpstream).catch(() => {});
  }

  /** Remove the session's own folder (files copied for its browser). Never throws. */
  removeTemporaryFiles(): Promise<void> {
    return this.files.remove();
  }
}
