// The registry of live sessions. Whoever creates a session adds it here; ending it (delete,
// last window closed, browser crash, gateway shutdown) always goes through `end`.
import type { Session } from './session.ts';

export class Sessions {
  readonly #byId = new Map<string, Session>();
  /** Browsers still shutting down after their session ended (the client already has its answer). */
  readonly #closing = new Set<Promise<void>>();

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

  /**
   * Forget the session at once and end its browser in the background; `settled()` waits for
   * every such ending. Idempotent.
   */
  end(session: Session): Promise<void> {
    if (session.ended) return Promise.resolve();
    session.ended = true;
    this.#byId.delete(session.id);
    // The session's temporary files (uploads) go with it; shutdown waits for both.
    const closing = Promise.all([session.browser.close(), session.removeTemporaryFiles()]).then(() => {});
    this.#closing.add(closing);
    void closing.finally(() => this.#closing.delete(closing));
    return closing;
  }

  /** Resolves when every browser of an ended session is gone. */
  async settled(): Promise<void> {
    while (this.#closing.size) await Promise.all(this.#closing);
  }
}
