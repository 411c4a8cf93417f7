// Navigations of a page's main frame that have begun and not yet committed. Playwright tells
// whether the current document reached a load state, not whether another one is on its way: a
// click on a link or an Enter in a form starts a navigation request first, and the W3C command
// must wait for the document it brings. Followed from Playwright's request events (both engines).
// A navigation that asks the page's beforeunload first has no request until the prompt is
// accepted (Firefox sends it only then): from the prompt on, it counts as on its way. Firefox can
// report a link's request after the page's next task: the document's beforeunload, watched from the
// gateway's utility world, tells that one began (begun).
import type { Page, Request } from 'playwright-core';

/** A navigation held by its beforeunload prompt: its request is not sent yet. */
const UNLOADING = Symbol('unloading');
/** A navigation the document began (its beforeunload fired) whose request is not reported yet. */
const BEGUN = Symbol('begun');
/** Begun, its request comes next; past this, none will. */
const BEGUN_REQUEST_MS = 5_000;
/** Accepted, the held navigation's request comes next; past this, none will. */
const UNLOAD_ACCEPTED_MS = 5_000;
/** A navigation's response has ended: its document commits next; past this, none will. */
const FINISHED_COMMIT_MS = 2_000;
/** Answers that bring no document: the page stays (HTTP 204 No Content, 205 Reset Content). */
const NO_DOCUMENT = new Set([204, 205]);

type Pending = Request | typeof UNLOADING | typeof BEGUN;

export class PendingNavigations {
  readonly #pending = new WeakMap<Page, PageNavigations>();
  /** A finished navigation's wait for its commit, by request (ended with the wait). */
  readonly #commits = new Map<Request, NodeJS.Timeout>();

  /** Follow the page's main-frame navigation requests from now on. */
  watch(page: Page): void {
    const settle = (request?: Pending) => {
      for (const pending of request ? [request] : state.requests) {
        if (typeof pending === 'symbol') continue;
        clearTimeout(this.#commits.get(pending));
        this.#commits.delete(pending);
      }
      if (request) state.requests.delete(request);
      else state.requests.clear();
      if (state.requests.size > 0) return;
      for (const waiter of state.waiters) waiter();
    };
    const state: PageNavigations = { requests: new Set<Pending>(), waiters: new Set<() => void>(), settle, reportedAt: 0 };
    this.#pending.set(page, state);
    page.on('request', (request) => {
      if (!request.isNavigationRequest() || mainFrameOf(request) !== page.mainFrame()) return;
      state.reportedAt = Date.now();
      state.requests.add(request);
      state.requests.delete(UNLOADING);
      state.requests.delete(BEGUN);
    });
    // Failed, or answered without a document (a 204, a download): the page stays.
    page.on('requestfailed', settle);
    // A response that ended: its document commits next. Chromium commits before the response
    // ends; Firefox (over BiDi) reports the response's end first, always: the wait goes on until
    // the commit, or until it is clear that none comes.
    page.on('requestfinished', (request) => {
      if (!state.requests.has(request)) return;
      void request.response().then(
        (response) => {
          if (!response || NO_DOCUMENT.has(response.status())) return settle(request);
          if (state.requests.has(request)) this.#commits.set(request, setTimeout(() => settle(request), FINISHED_COMMIT_MS).unref());
        },
        () => settle(request),
      );
    });
    page.on('download', () => settle());
    page.on('framenavigated', (frame) => {
      if (frame !== page.mainFrame()) return;
      state.reportedAt = Date.now();
      settle();
    });
    page.on('close', () => settle());
  }

  /**
   * A beforeunload prompt opened in the page: a navigation waits on it. Call the answer with
   * whether the prompt was accepted (the navigation goes on) or not (it is cancelled).
   */
  unloading(page: Page): (accepted: boolean) => void {
    const state = this.#pending.get(page);
    if (!state) return () => {};
    state.requests.add(UNLOADING);
    return (accepted) => {
      if (!accepted) return state.settle(UNLOADING);
      // Its request comes next; a navigation that never sends one (about:blank) ends the wait by time.
      setTimeout(() => state.requests.has(UNLOADING) && state.settle(UNLOADING), UNLOAD_ACCEPTED_MS).unref();
    };
  }

  /**
   * The document began a navigation at `begunAt` (its beforeunload fired; see BEFOREUNLOAD_WATCH)
   * after input sent at `since`. Firefox reports a link's navigation request from its parent
   * process, which under load comes after the page's next task: unless its request or its commit
   * was reported since the input, the navigation counts as on its way until its request comes.
   */
  begun(page: Page, since: number, begunAt: number): void {
    const state = this.#pending.get(page);
    // Date.now() in a Firefox page is coarsened (privacy.reduceTimerPrecision): a few ms of slack.
    if (!state || begunAt < since - 5 || state.requests.size > 0 || state.reportedAt >= since) return;
    state.requests.add(BEGUN);
    setTimeout(() => state.requests.has(BEGUN) && state.settle(BEGUN), BEGUN_REQUEST_MS).unref();
  }

  /** Resolves once no navigation of the main frame is on its way (at once when none is); false past the deadline. */
  settled(page: Page, timeoutMs: number): Promise<boolean> {
    const state = this.#pending.get(page);
    if (!state || state.requests.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        state.waiters.delete(waiter);
        resolve(value);
      };
      const waiter = () => done(true);
      const timer = setTimeout(() => done(false), Math.min(timeoutMs, 2 ** 31 - 1));
      state.waiters.add(waiter);
    });
  }
}

interface PageNavigations {
  requests: Set<Pending>;
  waiters: Set<() => void>;
  settle: (request?: Pending) => void;
  /** When a main-frame navigation request or commit was last reported (Date.now()). */
  reportedAt: number;
}

/**
 * A library for the gateway's utility world of a document (the page cannot see it): when the
 * document's beforeunload last fired, which it does as a navigation begins, in the task of the
 * click or key that began it.
 */
export const BEFOREUNLOAD_WATCH = `(() => {
  let at = 0;
  window.addEventListener('beforeunload', () => { at = Date.now(); }, true);
  return { beforeUnloadAt: () => at };
})()`;

function mainFrameOf(request: Request) {
  try {
    return request.frame();
  } catch {
    return undefined; // a service worker's request has no frame
  }
}
