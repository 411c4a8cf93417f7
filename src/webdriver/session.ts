// One WebDriver session (spec §4 "Sessions"): its browser, current browsing context, timeouts
// and negotiated behaviour. Commands of a session run one at a time, in arrival order.
import type { BrowsingContext, DrivenBrowser, PageLoadStrategy } from '../../backends/backend.ts';
import type { TimeoutsConfiguration } from './capabilities.ts';
import { error } from './errors.ts';

export type PromptHandlerConfig = string | Record<string, string>;

export interface SessionInit {
  id: string;
  browser: DrivenBrowser;
  capabilities: Record<string, unknown>;
  timeouts: TimeoutsConfiguration;
  pageLoadStrategy: PageLoadStrategy;
  strictFileInteractability: boolean;
  unhandledPromptBehavior: PromptHandlerConfig;
  initialWindow: string;
}

export class Session {
  readonly id: string;
  readonly browser: DrivenBrowser;
  readonly capabilities: Record<string, unknown>;
  timeouts: TimeoutsConfiguration;
  readonly pageLoadStrategy: PageLoadStrategy;
  readonly strictFileInteractability: boolean;
  readonly unhandledPromptBehavior: PromptHandlerConfig;
  /** The current top-level browsing context's window handle; null once it was closed. */
  currentWindow: string | null;
  /** Frame path of the current browsing context below the top level (empty: top level). */
  frames: string[] = [];
  /** Document ids this session has handed out element references for (stale vs unknown). */
  readonly knownDocuments = new Set<string>();
  ended = false;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(init: SessionInit) {
    this.id = init.id;
    this.browser = init.browser;
    this.capabilities = init.capabilities;
    this.timeouts = init.timeouts;
    this.pageLoadStrategy = init.pageLoadStrategy;
    this.strictFileInteractability = init.strictFileInteractability;
    this.unhandledPromptBehavior = init.unhandledPromptBehavior;
    this.currentWindow = init.initialWindow;
  }

  /** Run `task` after every earlier command of this session has finished. */
  serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => {});
    return run;
  }

  /** The current top-level window, or `no such window` if it has been closed (spec). */
  async currentTopLevel(): Promise<string> {
    const handle = this.currentWindow;
    if (handle === null || !(await this.browser.windowHandles()).includes(handle)) {
      throw error('no such window', 'the current browsing context is no longer open');
    }
    return handle;
  }

  /** The current browsing context, checked to be open. */
  async currentContext(): Promise<BrowsingContext> {
    return { window: await this.currentTopLevel(), frames: this.frames };
  }
}
