// Navigations of a page's main frame that have begun and not yet committed. Playwright tells
// whether the current document reached a load state, not whether another one is on its way: a
// click on a link or an Enter in a form starts a navigation request first, and the W3C command
// must wait for the document it brings. Followed from Playwright's request events (both engines).
// A navigation that asks the page's beforeunload first has no request until the prompt is
// accepted (Firefox sends it only then): from the prompt on, it counts as on its way.
import type { Page, Request } from 'playwright-core';

/** A navigation held by its beforeunload prompt: its request is not sent yet. */
const UNLOADING = Symbol('unloading');
/** Accepted, the held navigation's request comes next; past this, none will. */
const UNLOAD_ACCEPTED_MS = 5_000;
/** A navigation's response has ended: its document commits next; past this, none will. */
const FINISHED_COMMIT_MS = 2_000;
/** Answers that bring no document: the page stays (HTTP 204 No Content, 205 Reset Content). */
const NO_DOCUMENT = new Set([204, 205]);

type Pending = Request | typeof UNLOADING;

export class PendingNavigations {
  readonly #pending = new WeakMap<Page, { requests: Set<Pending>; waiters: Set<() => void>; settle: (request?: Pending) => void }>();
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
    const state = { requests: new Set<Pending>(), waiters: new Set<() => void>(), settle };
    this.#pending.set(page, state);
    page.on('request', (request) => {
      if (!request.isNavigationRequest() || mainFrameOf(request) !== page.mainFrame()) return;
      state.requests.add(request);
      state.requests.delete(UNLOADING);
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
      if (frame === page.mainFrame()) settle();
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

function mainFrameOf(request: Request) {
  try {
    return request.frame();
  } catch {
    return undefined; // a service worker's request has no frame
  }
}
