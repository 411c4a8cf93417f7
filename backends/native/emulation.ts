// Mobile emulation per session (goog:chromeOptions.mobileEmulation), as chromedriver applies it:
// CDP's Emulation overrides, which hold per page and per CDP session, in every page of the
// session's browser context — the one it starts with, and each new window and popup before its
// first document runs (a popup's first request already carries the emulated user agent).
//
// For that, the browser has one CDP session of the gateway's own, made when its first emulating
// context appears: it attaches to every new page (Target.setAutoAttach at the browser, with
// waitForDebuggerOnStart: a new page waits until every client that attached to it lets it run),
// sets the overrides in the pages of emulating contexts and keeps those pages' sessions (an
// override ends with its session), and lets every other page go at once (one round trip more
// for a new page of another context of that browser). With no emulating context left, the
// session ends.
import type { Browser, CDPSession, Connection } from 'puppeteer-core';
import { attachToBrowser } from './cdp.ts';

export interface EmulationCommand {
  method: string;
  params: Record<string, unknown>;
}

interface AttachedEvent {
  sessionId: string;
  targetInfo: { targetId: string; type: string; browserContextId?: string };
  waitingForDebugger: boolean;
}

const emulations = new WeakMap<Browser, BrowserEmulation>();

export class BrowserEmulation {
  readonly #browser: Browser;
  /** Emulating contexts → their overrides. */
  readonly #contexts = new Map<string, EmulationCommand[]>();
  /** Pages whose overrides are being set (or were), by target id. */
  readonly #applied = new Map<string, Promise<void>>();
  #root: Promise<{ session: CDPSession; connection: Connection }> | undefined;

  private constructor(browser: Browser) {
    this.#browser = browser;
  }

  /** The browser's emulation (one per browser). */
  static of(browser: Browser): BrowserEmulation {
    let emulation = emulations.get(browser);
    if (!emulation) {
      emulation = new BrowserEmulation(browser);
      emulations.set(browser, emulation);
    }
    return emulation;
  }

  /**
   * Emulate in every page of the context from now on: the pages open (`pages`, target ids) once
   * this resolves, new ones before they run. Resolves with how to stop (the context's end).
   */
  async add(contextId: string, commands: EmulationCommand[], pages: string[]): Promise<() => void> {
    this.#contexts.set(contextId, commands);
    const starting = this.#root === undefined;
    const { session } = await (this.#root ??= this.#start());
    // A browser-level auto-attach attaches to the pages open when it starts; after that, a
    // context's open pages are attached to by name.
    if (!starting) await Promise.all(pages.map((targetId) => session.send('Target.attachToTarget', { targetId, flatten: true }).catch(() => {})));
    await Promise.all(pages.map((targetId) => this.#applied.get(targetId)));
    return () => this.#remove(contextId);
  }

  async #start(): Promise<{ session: CDPSession; connection: Connection }> {
    const { session, connection } = await attachToBrowser(this.#browser);
    session.on('Target.attachedToTarget', (event) => this.#attached(connection, event as AttachedEvent));
    session.on('Target.detachedFromTarget', (event) => {
      const { targetId } = event as { targetId?: string };
      if (targetId) this.#applied.delete(targetId);
    });
    await session.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true, filter: [{ type: 'page' }] });
    return { session, connection };
  }

  #attached(connection: Connection, { sessionId, targetInfo, waitingForDebugger }: AttachedEvent): void {
    const page = connection.session(sessionId);
    if (!page) return;
    const commands = targetInfo.browserContextId === undefined ? undefined : this.#contexts.get(targetInfo.browserContextId);
    const run = () => (waitingForDebugger ? page.send('Runtime.runIfWaitingForDebugger').catch(() => {}) : Promise.resolve());
    if (!commands) {
      // Another context's page: let it go, and leave it.
      void run().then(() => page.detach().catch(() => {}));
      return;
    }
    // The overrides first, sent in order on the page's session; then the page may run.
    const applied = Promise.all(commands.map(({ method, params }) => page.send(method as never, params as never).catch(() => {}))).then(run);
    this.#applied.set(targetInfo.targetId, applied.then(() => {}));
  }

  #remove(contextId: string): void {
    this.#contexts.delete(contextId);
    if (this.#contexts.size > 0 || !this.#root) return;
    const root = this.#root;
    this.#root = undefined;
    void root.then(
      ({ session }) => session.detach().catch(() => {}),
      () => {},
    );
  }
}
