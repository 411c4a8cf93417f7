// Navigations of a page's main frame that have begun and not yet committed. Playwright tells
// whether the current document reached a load state, not whether another one is on its way: a
// click on a link or an Enter in a form starts a navigation request first, and the W3C command
// must wait for the document it brings. Followed from Playwright's request events (both engines).
import type { Page, Request } from 'playwright-core';

export class PendingNavigations {
  readonly #pending = new WeakMap<Page, { requests: Set<Request>; waiters: Set<() => void> }>();

  /** Follow the page's main-frame navigation requests from now on. */
  watch(page: Page): void {
    const state = { requests: new Set<Request>(), waiters: new Set<() => void>() };
    this.#pending.set(page, state);
    const settle = (request?: Request) => {
      if (request) state.requests.delete(request);
      else state.requests.clear();
      if (state.requests.size > 0) return;
      for (const waiter of state.waiters) waiter();
    };
    page.on('request', (request) => {
      if (request.isNavigationRequest() && mainFrameOf(request) === page.mainFrame()) state.requests.add(request);
    });
    // Failed, or answered without a document (a 204, a download): the page stays.
    page.on('requestfailed', settle);
    // A document commits before its response ends: finished without a commit, there was none.
    page.on('requestfinished', settle);
    page.on('download', () => settle());
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) settle();
    });
    page.on('close', () => settle());
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
