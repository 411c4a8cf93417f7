// User prompts in the native backend: a JavaScript dialog blocks its page, and CDP calls into it
// (evaluation, input, navigation) answer only once it is closed. The guard follows each page's
// dialogs and cuts such calls short when a dialog opens and stays open, so nothing hangs on one.
import type { Page } from 'puppeteer-core';
import { ProtocolError } from 'puppeteer-core';
import { UserPromptOpenedError, type UserPrompt } from '../backend.ts';
import { cdp, frameIdOf, handleOf } from './cdp.ts';
import { cancelRequested, type LoadState } from './load.ts';

export class PromptGuard {
  readonly #prompts = new WeakMap<Page, PromptState>();
  readonly #promptListeners: ((handle: string, prompt: UserPrompt) => Promise<void> | void)[] = [];
  /** The page's load state, whose requested navigation a refused unload cancels. */
  readonly #loadStateOf: (page: Page) => LoadState | undefined;

  constructor(loadStateOf: (page: Page) => LoadState | undefined) {
    this.#loadStateOf = loadStateOf;
  }

  /** Follow the dialogs of a page from its first moment. */
  watch(page: Page): void {
    const state: PromptState = { current: null, last: null, settled: Promise.resolve(), blocked: new Set(), refusals: 0, navigations: new Set() };
    this.#prompts.set(page, state);
    const client = cdp(page);
    client.on('Page.javascriptDialogOpening', (e) => {
      const prompt: UserPrompt = { type: e.type, message: e.message, defaultValue: e.defaultPrompt ?? '' };
      state.current = prompt;
      state.last = prompt;
      const handle = handleOf(page.target());
      // Listeners may handle it (a beforeunload prompt, say): only a prompt left open cuts calls short.
      const listeners = this.#promptListeners.map((listener) => Promise.resolve().then(() => listener(handle, prompt)));
      state.settled = Promise.allSettled(listeners).then(() => {
        if (state.current !== prompt) return;
        for (const cut of state.blocked) cut(blockedBy(prompt));
      });
    });
    // Closed by us, or by the browser (the page went away).
    client.on('Page.javascriptDialogClosed', (e) => {
      state.current = null;
      if (state.last?.type !== 'beforeunload' || e.result) return;
      // The page refused to unload: the navigation that asked is cancelled, nothing will load.
      state.refusals++;
      for (const watch of state.navigations) watch.end();
      const load = this.#loadStateOf(page);
      if (load) cancelRequested(load);
    });
    // A navigation can also be refused without a prompt (Chromium answers a beforeunload that
    // comes while the last one is still closing with "stay"): the main frame stops loading
    // without a new document. Navigation primitives in flight then end as well.
    const isMain = (frameId: string) => frameIdOf(page.mainFrame()) === frameId;
    const started = (e: { frameId: string }) => {
      if (isMain(e.frameId)) for (const watch of state.navigations) watch.started = true;
    };
    client.on('Page.frameStartedNavigating', started);
    client.on('Page.frameStartedLoading', started);
    client.on('Page.frameNavigated', (e) => {
      if (!e.frame.parentId) for (const watch of state.navigations) watch.committed = true;
    });
    client.on('Page.navigatedWithinDocument', (e) => {
      if (isMain(e.frameId)) for (const watch of state.navigations) watch.committed = true;
    });
    client.on('Page.frameStoppedLoading', (e) => {
      if (!isMain(e.frameId)) return;
      for (const watch of state.navigations) if (watch.started && !watch.committed) watch.end();
    });
  }

  /**
   * Run `work` (a call into the window's page) unless a prompt blocks the page, or until one
   * does. A `navigation` also ends, with nothing to wait for, when the page refuses to unload.
   */
  async unblocked<T>(page: Page | undefined, navigation: boolean, work: () => Promise<T>): Promise<T> {
    const state = page && this.#prompts.get(page);
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
  current(page: Page | undefined): UserPrompt | null {
    return (page && !page.isClosed() && this.#prompts.get(page)?.current) || null;
  }

  /** Accept or dismiss the page's prompt; false when none was open. */
  async handle(page: Page, accept: boolean, promptText?: string): Promise<boolean> {
    const state = this.#prompts.get(page);
    const prompt = state?.current;
    if (!state || !prompt) return false;
    promptText ??= prompt.type === 'prompt' ? prompt.defaultValue : undefined;
    try {
      await cdp(page).send('Page.handleJavaScriptDialog', { accept, ...(promptText !== undefined && { promptText }) });
    } catch (e) {
      // Closed meanwhile (its page went away).
      if (!(e instanceof ProtocolError && /No dialog is showing/i.test(e.message))) throw e;
      if (state.current === prompt) state.current = null;
      return false;
    }
    if (state.current === prompt) state.current = null;
    return true;
  }

  onOpened(listener: (handle: string, prompt: UserPrompt) => Promise<void> | void): void {
    this.#promptListeners.push(listener);
  }
}

/** A window's dialog, as JavaScriptDialogOpening/Closed events tell. */
interface PromptState {
  current: UserPrompt | null;
  /** The prompt opened last (the one a JavaScriptDialogClosed event is about). */
  last: UserPrompt | null;
  /** Settles once the listeners told of the current prompt have run (they may have closed it). */
  settled: Promise<void>;
  /** Calls into the page in flight: each is cut short if a prompt opens and stays open. */
  blocked: Set<(e: Error) => void>;
  /** beforeunload prompts dismissed so far (navigations refused by the page). */
  refusals: number;
  /** Navigation primitives in flight: each ends when the page refuses to unload. */
  navigations: Set<NavigationWatch>;
}

/** A navigation primitive in flight: whether the main frame started loading, then committed. */
interface NavigationWatch {
  started: boolean;
  committed: boolean;
  /** Resolve the primitive: its navigation was cancelled. */
  end(): void;
}

function blockedBy(prompt: UserPrompt): UserPromptOpenedError {
  return new UserPromptOpenedError(`a ${prompt.type} user prompt is open in this window${prompt.message ? `: ${JSON.stringify(prompt.message)}` : ''}`);
}
