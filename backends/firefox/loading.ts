// Where each window's document is in its loading, from Firefox's BiDi navigation events: a
// navigation that started (a click on a link, a form's submit) and how far it got. The W3C
// command waits for the document a navigation brings, to the page load strategy's state. A
// navigation that asks the page's beforeunload first starts only once its prompt is accepted:
// from the prompt on, it counts as on its way. And the document a Navigate To answered at its
// start (page load strategy "none") will bring: calls into the page wait for it.
import type { PageLoadStrategy } from '../backend.ts';

type Reached = 'started' | 'interactive' | 'complete';
const ORDER: Record<Reached, number> = { started: 0, interactive: 1, complete: 2 };
/** Accepted, a held navigation starts next; past this, none will. */
const UNLOAD_ACCEPTED_MS = 5_000;

export class Loading {
  /** The main frame's latest navigation and how far it got; undefined: none on its way. */
  #current: Reached | 'unloading' | undefined;
  readonly #waiters = new Set<() => void>();
  /** State changes so far: a timer acts only if none came after it was set. */
  #changes = 0;
  readonly #starts = new Set<() => void>();
  /** Navigations started so far (a mark to tell whether one started since). */
  #started = 0;
  /** The document a navigation answered at its start will bring, until it came; and its end. */
  #document: Promise<void> | undefined;
  #documentCame: (() => void) | undefined;

  get startedCount(): number {
    return this.#started;
  }

  started(): void {
    this.#started++;
    this.#set('started');
    for (const start of this.#starts) start();
    this.#starts.clear();
  }

  /** Resolves when the next navigation starts (the page load strategy "none" answers then). */
  nextStart(): Promise<void> {
    return new Promise((resolve) => this.#starts.add(resolve));
  }

  /**
   * A navigation was sent whose W3C command answers once it started (strategy "none"). Until its
   * document commits the page is the old one (Firefox runs calls there, or fails them as its realm
   * goes); Chromium's next command acts on the new document, and so do ours: they wait for
   * `answered` (Firefox answers the navigation once its response came: a new document, an error
   * page, or none at all), for noDocument(), or at most `boundMs` (the page load timeout).
   */
  awaitDocument(answered: Promise<unknown>, boundMs: number): void {
    let came!: () => void;
    const document = new Promise<void>((resolve) => (came = resolve));
    const timer = setTimeout(came, Math.min(boundMs, 2 ** 31 - 1)).unref();
    void answered.then(came, came);
    this.#document = document;
    this.#documentCame = came;
    void document.then(() => {
      clearTimeout(timer);
      if (this.#document !== document) return;
      this.#document = undefined;
      this.#documentCame = undefined;
    });
  }

  /** Resolves once the document of a navigation answered at its start has come (at once if none is awaited). */
  document(): Promise<void> {
    return this.#document ?? Promise.resolve();
  }

  /** No document comes: the navigation became a download, or the window is gone. */
  noDocument(): void {
    this.#documentCame?.();
  }

  domContentLoaded(): void {
    if (this.#current !== undefined && this.#current !== 'unloading') this.#set('interactive');
  }

  /** Loaded, failed, aborted, turned into a download, or a same-document navigation: settled. */
  settled(): void {
    this.#set(undefined);
  }

  /**
   * A traversal was asked for: a navigation is on its way until its events say where it went
   * (a document loads, or the traversal stays within the document). One that brings no event at
   * all (no such entry, the page refused) is over after `boundMs`, or when the returned
   * function says so (nothing came since). One that started since `mark` (startedCount) is known
   * already: on its way, or settled (a link that turned into a download).
   */
  expect(boundMs: number, mark?: number): () => void {
    if (this.#current !== undefined || (mark !== undefined && this.#started !== mark)) return () => {}; // its events say where it goes
    this.#set('started');
    this.#unless(boundMs);
    const since = this.#changes;
    return () => this.#changes === since && this.#set(undefined);
  }

  /** A beforeunload prompt opened: call the answer with whether it was accepted. */
  unloading(): (accepted: boolean) => void {
    this.#set('unloading');
    const since = this.#changes;
    return (accepted) => {
      if (this.#changes !== since) return; // the navigation is on its way (or settled) already
      if (!accepted) return this.#set(undefined);
      this.#unless(UNLOAD_ACCEPTED_MS);
    };
  }

  /** Resolves once no navigation is on its way short of the strategy's state; false past the deadline. */
  until(strategy: PageLoadStrategy, timeoutMs: number): Promise<boolean> {
    const done = () => {
      const current = this.#current;
      if (current === undefined || strategy === 'none') return true;
      if (current === 'unloading') return false;
      return ORDER[current] >= (strategy === 'eager' ? ORDER.interactive : ORDER.complete);
    };
    if (done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (value: boolean) => {
        clearTimeout(timer);
        this.#waiters.delete(waiter);
        resolve(value);
      };
      const waiter = () => done() && finish(true);
      const timer = setTimeout(() => finish(false), Math.min(timeoutMs, 2 ** 31 - 1));
      this.#waiters.add(waiter);
    });
  }

  /**
   * Settled after `ms` unless an event moved the state on before: a timer of an earlier
   * expectation must not end a later navigation that is still on its way.
   */
  #unless(ms: number): void {
    const since = this.#changes;
    setTimeout(() => this.#changes === since && this.#set(undefined), ms).unref();
  }

  #set(reached: Reached | 'unloading' | undefined): void {
    this.#changes++;
    this.#current = reached === 'complete' ? undefined : reached;
    for (const waiter of [...this.#waiters]) waiter();
  }
}
