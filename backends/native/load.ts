// Main-frame load tracking for one page, so that a command that starts a navigation (a click, a
// form submission) can wait for it with the session's page load strategy.
import type { Page } from 'puppeteer-core';
import { NavigationTimeoutError, type PageLoadStrategy } from '../backend.ts';
import { cdp, frameIdOf } from './cdp.ts';
import { afterNextTask } from '../shared.ts';

export interface LoadState {
  loading: boolean;
  domContentLoaded: boolean;
  /** A renderer-initiated navigation (a form submission) was requested but has not started loading. */
  requested?: boolean;
  /** The URL an error page stands for (the main frame's failed navigation), if one is shown. */
  unreachableUrl?: string;
  waiters: Set<() => void>;
}

/** Node timers overflow (and fire at once) past this many milliseconds. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Follow the page's main frame from its CDP events. */
export function watchLoading(page: Page): LoadState {
  const state: LoadState = { loading: false, domContentLoaded: true, waiters: new Set() };
  const client = cdp(page);
  const isMain = (frameId: string) => frameIdOf(page.mainFrame()) === frameId;
  const notify = () => {
    for (const w of state.waiters) w();
  };
  // A form submission is planned in the renderer: the browser hears of the request before
  // the load starts, and possibly after the round trip waitForLoad makes.
  client.on('Page.frameRequestedNavigation', (e) => {
    if (!isMain(e.frameId) || e.disposition !== 'currentTab') return;
    state.requested = true;
    // Safety net: a request that never starts loading (cancelled) must not block later waits.
    setTimeout(() => {
      if (state.requested && !state.loading) {
        state.requested = false;
        notify();
      }
    }, 2000).unref();
  });
  client.on('Page.navigatedWithinDocument', (e) => {
    if (!isMain(e.frameId) || !state.requested) return;
    state.requested = false;
    notify();
  });
  client.on('Page.frameStartedLoading', (e) => {
    if (!isMain(e.frameId)) return;
    state.requested = false;
    state.loading = true;
    state.domContentLoaded = false;
  });
  client.on('Page.frameStoppedLoading', (e) => {
    if (!isMain(e.frameId)) return;
    state.loading = false;
    state.domContentLoaded = true;
    notify();
  });
  client.on('Page.frameNavigated', (e) => {
    if (!e.frame.parentId) state.unreachableUrl = e.frame.unreachableUrl;
  });
  client.on('Page.lifecycleEvent', (e) => {
    if (e.name === 'DOMContentLoaded' && isMain(e.frameId)) {
      state.domContentLoaded = true;
      notify();
    }
  });
  return state;
}

/** A navigation the page was asked for (or one requested by input) ends: cancelled, so nobody waits. */
export function cancelRequested(state: LoadState): void {
  if (!state.requested) return;
  state.requested = false;
  for (const waiter of state.waiters) waiter();
}

/** Wait until a pending navigation of the page reaches the strategy's load state, or the deadline. */
export async function waitForLoad(page: Page, state: LoadState, strategy: PageLoadStrategy, timeoutMs: number): Promise<void> {
  // A navigation requested by the last input event must reach us as an event first.
  await afterNextTask((expression) => cdp(page).send('Runtime.evaluate', { expression, awaitPromise: true }));
  const done = () => !state.requested && (strategy === 'eager' ? state.domContentLoaded : !state.loading);
  if (done() || page.isClosed()) return;
  await new Promise<void>((resolve, reject) => {
    // Past the timer range (W3C allows up to 2^53-1 ms) there is no deadline to keep.
    const timer =
      timeoutMs > MAX_TIMER_MS
        ? undefined
        : setTimeout(() => {
            state.waiters.delete(check);
            reject(new NavigationTimeoutError(`navigation did not finish within ${timeoutMs} ms`));
          }, timeoutMs);
    const check = () => {
      if (!done() && !page.isClosed()) return;
      clearTimeout(timer);
      state.waiters.delete(check);
      resolve();
    };
    state.waiters.add(check);
    page.once('close', check);
  });
}
