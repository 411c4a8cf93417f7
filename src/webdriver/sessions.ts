// The registry of live sessions. Whoever creates a session adds it here; ending it (delete,
// last window closed, browser crash, idle timeout, gateway shutdown) always goes through `end`.
import type { Logger } from '../base/log.ts';
import type { EndCause } from './outcome.ts';
import type { PassThroughSession } from './pass-through.ts';
import type { Seam } from './seam.ts';
import type { Session } from './session.ts';

/** A driven session (the W3C layer runs it) or a pass-through one (an upstream runs it). */
export type AnySession = Session | PassThroughSession;

/** Why ended sessions ended, for the `invalid session id` message of a late command. */
const REMEMBERED_ENDINGS = 1000;

export class Sessions {
  readonly #byId = new Map<string, AnySession>();
  readonly #endings = new Map<string, { reason: string; owner: string }>();
  /** Sessions a Grid relay opened for a principal its client proved: the relay's name. */
  readonly #relayedBy = new Map<string, string>();
  /** Browsers still being given back after their session ended (the client already has its answer). */
  readonly #closing = new Set<Promise<void>>();
  #reaper: NodeJS.Timeout | undefined;
  readonly #log: Logger;
  /** Told of every session's end, and given a driven one's last look while its browser is there. */
  readonly #seam: Seam;

  constructor(log: Logger, seam: Seam) {
    this.#log = log;
    this.#seam = seam;
  }

  get size(): number {
    return this.#byId.size;
  }

  add(session: AnySession): void {
    this.#byId.set(session.id, session);
  }

  /** The session with this id, if `owner` owns it (another principal learns nothing of it). */
  get(id: string, owner?: string): AnySession | undefined {
    const session = this.#byId.get(id);
    return owner === undefined || session?.owner === owner ? session : undefined;
  }

  /** The pass-through session with this id, if `owner` owns it. */
  passThrough(id: string, owner: string): PassThroughSession | undefined {
    const session = this.get(id, owner);
    return session?.kind === 'pass-through' ? session : undefined;
  }

  /** Why a session of `owner` that is no longer active ended, if it ended here lately. */
  ending(id: string, owner: string): string | undefined {
    const ending = this.#endings.get(id);
    return ending?.owner === owner ? ending.reason : undefined;
  }

  /** A session a relay opened for another principal (src/server/relay.ts): the relay drives it too. */
  relayed(id: string, relay: string): void {
    if (this.#byId.has(id)) this.#relayedBy.set(id, relay);
  }

  /** The relay that opened a live session for its principal, if one did. */
  relayOf(id: string): string | undefined {
    return this.#relayedBy.get(id);
  }

  /** Sessions with a BiDi client connected now. */
  bidiConnections(): number {
    let n = 0;
    for (const session of this.#byId.values()) if (session.kind === 'driven' && typeof session.bidiConnection === 'object') n++;
    return n;
  }

  all(): AnySession[] {
    return [...this.#byId.values()];
  }

  /** Sessions of one principal. */
  of(owner: string): AnySession[] {
    return this.all().filter((session) => session.owner === owner);
  }

  /**
   * Forget the session at once and give its browser back in the background; `settled()` waits
   * for every such ending. Idempotent. `cause`: its client ended it (deleted), its browser or
   * upstream went away (crashed), or anything else (an operator, a timeout, shutdown): the
   * result rule (./outcome.ts).
   */
  end(session: AnySession, reason = 'it was deleted', cause: EndCause = 'other'): Promise<void> {
    if (session.ended) return Promise.resolve();
    session.ended = true;
    this.#byId.delete(session.id);
    this.#relayedBy.delete(session.id);
    this.#endings.set(session.id, { reason, owner: session.owner });
    this.#log.info({ event: 'session ended', sessionId: session.id, principal: session.owner, reason, ageMs: Date.now() - session.createdAt });
    if (this.#endings.size > REMEMBERED_ENDINGS) this.#endings.delete(this.#endings.keys().next().value!);
    if (session.kind === 'driven') session.closeSockets();
    // The session's temporary files (uploads) go with it; shutdown waits for both.
    // What still uses the context first (the engine's BiDi end, the observers' last look, a
    // recording), then the context.
    const finished = session.kind === 'driven' ? session.finish(() => this.#seam.closing(session)) : Promise.resolve();
    const released = finished.then(() => session.release());
    const closing = Promise.all([released, session.removeTemporaryFiles(), this.#seam.ended(session, reason, cause, finished)]).then(() => {});
    this.#closing.add(closing);
    void closing.finally(() => this.#closing.delete(closing));
    return closing;
  }

  /** End sessions no command has used for `idleMs` (checked a few times per period). */
  reapIdle(idleMs: number): void {
    clearInterval(this.#reaper);
    this.#reaper = setInterval(
      () => {
        const now = Date.now();
        for (const session of this.#byId.values()) {
          if (session.inFlight === 0 && now - session.lastActivity >= idleMs) {
            void this.end(session, `no command came for ${Math.round(idleMs / 1000)} s (the session idle timeout)`);
          }
        }
      },
      Math.max(100, Math.min(idleMs / 4, 10_000)),
    );
    this.#reaper.unref();
  }

  /** Resolves when every browser of an ended session is given back. Stops reaping. */
  async settled(): Promise<void> {
    clearInterval(this.#reaper);
    while (this.#closing.size) await Promise.all(this.#closing);
  }
}
