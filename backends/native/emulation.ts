// Mobile emulation per session (goog:chromeOptions.mobileEmulation), as chromedriver applies it:
// CDP's Emulation overrides, which hold per page (and per CDP session), in every page of the
// session's browser context — the one it starts with, and each new window and popup before its
// first document runs: a popup's first request already carries the emulated user agent.
//
// A new page waits (auto-attach with waitForDebuggerOnStart) until a client lets it run, and the
// first Runtime.runIfWaitingForDebugger on the page's own session does (checked: a second client
// attached to it is not waited for). So the overrides go on puppeteer's session of the page,
// sent just before puppeteer's own resume (./cdp.ts beforeTargetRuns): the browser handles them
// first, in order. The pages open when a session starts get them at once.
import type { Browser, Page } from 'puppeteer-core';
import { beforeTargetRuns, browserContextIdOf, cdp } from './cdp.ts';

export interface EmulationCommand {
  method: string;
  params: Record<string, unknown>;
}

const emulations = new WeakMap<Browser, BrowserEmulation>();

/** One browser's emulating contexts, and the hook that gives their new pages the overrides. */
export class BrowserEmulation {
  readonly #browser: Browser;
  readonly #contexts = new Map<string, EmulationCommand[]>();
  #stop: (() => void) | undefined;

  private constructor(browser: Browser) {
    this.#browser = browser;
  }

  static of(browser: Browser): BrowserEmulation {
    let emulation = emulations.get(browser);
    if (!emulation) {
      emulation = new BrowserEmulation(browser);
      emulations.set(browser, emulation);
    }
    return emulation;
  }

  /** Emulate in every page of the context from now on, `pages` (those open) once this resolves. Resolves with how to stop. */
  async add(contextId: string, commands: EmulationCommand[], pages: Page[]): Promise<() => void> {
    this.#contexts.set(contextId, commands);
    this.#stop ??= beforeTargetRuns(this.#browser, (session, target) => {
      const own = target.type() === 'page' ? this.#contexts.get(browserContextIdOf(target) ?? '') : undefined;
      for (const { method, params } of own ?? []) session.send(method as never, params as never).catch(() => {});
    });
    await Promise.all(pages.map((page) => Promise.all(commands.map(({ method, params }) => cdp(page).send(method as never, params as never)))));
    return () => {
      this.#contexts.delete(contextId);
      if (this.#contexts.size === 0) {
        this.#stop?.();
        this.#stop = undefined;
      }
    };
  }
}
