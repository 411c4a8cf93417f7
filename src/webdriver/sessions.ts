// The registry of live sessions. Whoever creates a session adds it here; ending it (delete,
// last window closed, browser crash, gateway shutdown) always goes through `end`.
import type { Session } from './session.ts';

export class Sessions {
  readonly #byId = new Map<string, Session>();

  get size(): number {
    return this.#byId.size;
  }

  add(session: Session): void {
    this.#byId.set(session.id, session);
  }

  get(id: string): Session | undefined {
    return this.#byId.get(id);
  }

  all(): Session[] {
    return [...this.#byId.values()];
  }

  /** Forget the session and end its browser. Idempotent. */
  async end(session: Session): Promise<void> {
    if (session.ended) return;
    session.ended = true;
    this.#byId.delete(session.id);
    await session.browser.close();
  }
}
