// The user-prompt guard every driven backend uses. A JavaScript dialog blocks its page: calls
// into it (evaluation, input, navigation, capture) answer only once it is closed. The guard
// follows each page's dialogs, as the backend tells it of them, and cuts such calls short when
// a dialog opens and stays open, so nothing hangs on one. A navigation the page refuses (its
// beforeunload prompt dismissed) ends the navigation call that asked, the document staying.
// The backend reports what its browser says (opened, closed, loading); the rules live here.
import { UserPromptOpenedError, type UserPrompt } from './backend.ts';

/**
 * Close the open dialog: accept (with this prompt() answer) or dismiss. False when none was open.
 * The backend reports the closing (`closed`) as its browser tells it, or itself once closed.
 */
export type CloseDialog = (accept: boolean, promptText: string | undefined) => Promise<boolean>;

export type PromptListener = (handle: string, prompt: UserPrompt) => Promise<void> | void;

export class PromptGuard<P extends object> {
  readonly #states = new WeakMap<P, PromptState>();
  readonly #listeners: PromptListener[] = [];

  /** Follow the dialogs of a page from its first moment. */
  watch(page: P): void {
    if (!this.#states.has(page)) this.#states.set(page, { current: null, last: null, close: null, closing: null, settled: Promise.resolve(), blocked: new Set(), refusals: 0, navigations: new Set() });
  }

  /** The browser says a dialog opened in the page (window `handle`); `close` closes it. */
  opened(page: P, handle: string, prompt: UserPrompt, close: CloseDialog): void {
    const state = this.#state(page);
    state.current = prompt;
    state.last = prompt;
    state.close = close;
    // Listeners may handle it (a beforeunload prompt, say): only a prompt left open cuts calls short.
    const listeners = this.#listeners.map((listener) => Promise.resolve().then(() => listener(handle, prompt)));
    state.settled = Promise.allSettled(listeners).then(() => {
      if (state.current !== prompt) return;
      for (const cut of state.blocked) cut(blockedBy(prompt));
    });
  }

  /**
   * The browser says the page's dialog closed (by us, or by the browser as the page went away).
   * True when that was the page refusing to unload: the navigation that asked is cancelled.
   */
  closed(page: P, accepted: boolean): boolean {
    const state = this.#states.get(page);
    if (!state) return false;
    state.current = null;
    state.close = null;
    if (state.last?.type !== 'beforeunload' || accepted) return false;
    state.refusals++;
    for (const watch of state.navigations) watch.end();
    return true;
  }

  // A navigation can be refused without a prompt (Chromium answers a beforeunload that comes
  // while the last one is still closing with "stay"): the main frame stops loading without a
  // new document. Backends that can tell report the main frame's loading here.
  /** The page's main frame started a navigation. */
  started(page: P): void {
    for (const watch of this.#states.get(page)?.navigations ?? []) watch.started = true;
  }

  /** The page's main frame committed a navigation (a new document, or a same-document one). */
  committed(page: P): void {
    for (const watch of this.#states.get(page)?.navigations ?? []) watch.committed = true;
  }

  /** The page's main frame stopped loading: a navigation that started and did not commit was refused. */
  stopped(page: P): void {
    for (const watch of this.#states.get(page)?.navigations ?? []) if (watch.started && !watch.committed) watch.end();
  }

  /**
   * Run `work` (a call into the page) unless a prompt blocks the page, or until one does. A
   * `navigation` also ends, with nothing to wait for, when the page refuses to unload.
   */
  async unblocked<T>(page: P | undefined, navigation: boolean, work: () => Promise<T>): Promise<T> {
    const state = page && this.#states.get(page);
    if (!state) return work();
    if (state.current) {
      await state.settled;
      if (state.current) throw blockedBy(state.current);
    }
    let cut!: (e: Error) => void;
    const watch: NavigationWatch = { started: false, committed: false, end: () => {} };
    const ends: Promise<T>[] = [new Promise<never>((_, reject) => (cut = reject))];
    if (navigation) ends.push(new Promise<T>((resolve) => (watch.end = () => resolve(undefined as T))));
    state.blocked.add(cut);
    if (navigation) state.navigations.add(watch);
    const refusals = state.refusals;
    const running = work();
    try {
      return await Promise.race([running, ...ends]);
    } catch (e) {
      // A failure that comes while the prompt is being closed is judged once it is: Playwright's
      // Firefox fails a reload the page refused before the dismissal is answered.
      if (navigation && state.closing) await state.closing.catch(() => {});
      // Cancelled by the refusal (Chromium: net::ERR_ABORTED), not failed.
      if (navigation && state.refusals !== refusals && !(e instanceof UserPromptOpenedError)) return undefined as T;
      throw e;
    } finally {
      state.blocked.delete(cut);
      state.navigations.delete(watch);
      running.catch(() => {}); // abandoned: it resumes (and may fail) once the prompt is handled
    }
  }

  /** The prompt open in the page, or null. */
  current(page: P | undefined): UserPrompt | null {
    return (page && this.#states.get(page)?.current) || null;
  }

  /** Accept or dismiss the page's prompt (a prompt() answers `promptText`, else its default); false when none was open. */
  async handle(page: P, accept: boolean, promptText?: string): Promise<boolean> {
    const state = this.#states.get(page);
    const prompt = state?.current;
    const close = state?.close;
    if (!state || !prompt || !close) return false;
    promptText ??= prompt.type === 'prompt' ? prompt.defaultValue : undefined;
    const closing = close(accept, promptText);
    state.closing = closing;
    const closed = await closing.finally(() => {
      if (state.closing === closing) state.closing = null;
    });
    // Gone now, whenever the backend reports it closed (which counts a refused unload).
    if (state.current === prompt) {
      state.current = null;
      state.close = null;
    }
    return closed;
  }

  onOpened(listener: PromptListener): void {
    this.#listeners.push(listener);
  }

  #state(page: P): PromptState {
    this.watch(page);
    return this.#states.get(page)!;
  }
}

/** A page's dialog, as the browser reports it. */
interface PromptState {
  current: UserPrompt | null;
  /** The prompt opened last (the one a "closed" report is about). */
  last: UserPrompt | null;
  close: CloseDialog | null;
  /** The closing of the current prompt, while it is under way. */
  closing: Promise<boolean> | null;
  /** Settles once the listeners told of the current prompt have run (they may have closed it). */
  settled: Promise<void>;
  /** Calls into the page in flight: each is cut short if a prompt opens and stays open. */
  blocked: Set<(e: Error) => void>;
  /** beforeunload prompts dismissed so far (navigations refused by the page). */
  refusals: number;
  /** Navigation calls in flight: each ends when the page refuses to unload. */
  navigations: Set<NavigationWatch>;
}

/** A navigation call in flight: whether the main frame started loading, then committed. */
interface NavigationWatch {
  started: boolean;
  committed: boolean;
  /** Resolve the call: its navigation was cancelled. */
  end(): void;
}

function blockedBy(prompt: UserPrompt): UserPromptOpenedError {
  return new UserPromptOpenedError(`a ${prompt.type} user prompt is open in this window${prompt.message ? `: ${JSON.stringify(prompt.message)}` : ''}`);
}
