// The extension commands beside the W3C core through playwright-core: on Chromium over a CDP
// session of each page's own, kept while the page lives (its virtual authenticators and FedCM
// dialogs go with the DevTools session that made them) and a browser-wide one (permissions,
// which Chromium also resets when their session detaches);
// on Firefox what Playwright's API has (grantPermissions, setOffline). The rest is a declared
// gap (./gaps.ts).
import type { BrowserContext, CDPSession, ConsoleMessage, Page } from 'playwright-core';
import { UnsupportedPrimitiveError, type BrowserLogEntry, type FedCmDialogs, type NetworkConditions, type PermissionDescriptor, type PermissionState, type VirtualAuthenticators } from '../backend.ts';
import { fedCmDialogs, networkConditionsParams, refusal, setPermission, virtualAuthenticators } from '../chromium-automation.ts';
import type { Engine } from './context.ts';
import { FIREFOX_GAPS } from './gaps.ts';

/** Playwright's console message types as chromedriver's log levels (CDP's names, which Playwright keeps). */
const LEVELS: Record<string, BrowserLogEntry['level']> = { debug: 'DEBUG', timeEnd: 'DEBUG', log: 'INFO', info: 'INFO', warning: 'WARNING', error: 'SEVERE', assert: 'SEVERE' };

/** A console message as a browser log entry: Playwright's text of its arguments, where it was logged. */
export function consoleLogEntry(message: ConsoleMessage): BrowserLogEntry | undefined {
  const level = LEVELS[message.type()];
  if (!level) return undefined;
  const { url, lineNumber, columnNumber } = message.location();
  return { level, source: 'console-api', ...(url && { url, line: lineNumber, column: columnNumber }), text: message.text(), timestamp: Date.now() };
}

/** An uncaught exception as a browser log entry, in chromedriver's words ("Uncaught Error: boom"); Playwright gives no position. */
export function pageErrorLogEntry(error: Error): BrowserLogEntry {
  return { level: 'SEVERE', source: 'javascript', text: `Uncaught ${error.name ? `${error.name}: ` : ''}${error.message}`, timestamp: Date.now() };
}

export class PlaywrightExtensions {
  readonly #context: BrowserContext;
  readonly #engine: Engine;
  /** Each page's own CDP session (Chromium), made on first use. */
  readonly #sessions = new WeakMap<Page, Promise<CDPSession>>();
  readonly #fedCm = new WeakMap<Page, Promise<FedCmDialogs>>();
  #networkConditions: NetworkConditions | null = null;
  /** A browser-wide CDP session (Chromium's permissions), while the context lives. */
  #browserSession: Promise<CDPSession> | undefined;

  constructor(context: BrowserContext, engine: Engine) {
    this.#context = context;
    this.#engine = engine;
  }

  #session(page: Page, what: string): Promise<CDPSession> {
    if (this.#engine !== 'chromium') throw new UnsupportedPrimitiveError(`${what}: ${FIREFOX_GAPS.devtools}`);
    let session = this.#sessions.get(page);
    if (!session) {
      session = this.#context.newCDPSession(page);
      this.#sessions.set(page, session);
      session.catch(() => this.#sessions.delete(page));
    }
    return session;
  }

  async setPermission(page: Page, descriptor: PermissionDescriptor, state: PermissionState, origin: string): Promise<void> {
    if (this.#engine === 'chromium') {
      const { targetInfo } = await (await this.#session(page, 'permissions')).send('Target.getTargetInfo');
      // Chromium resets what a DevTools session overrode when it detaches: one for the context's life.
      this.#browserSession ??= this.#context.browser()!.newBrowserCDPSession();
      await setPermission(await this.#browserSession, { descriptor, state, origin, browserContextId: targetInfo.browserContextId });
      return;
    }
    // Playwright grants; it has no way to deny or to ask again for one permission.
    if (state !== 'granted') throw new UnsupportedPrimitiveError(`permissions (${state}): ${FIREFOX_GAPS.permissionStates}`);
    await this.#context.grantPermissions([descriptor.name], { origin }).catch((e: Error) => {
      throw refusal('grantPermissions', e);
    });
  }

  /** The context closes: the browser-wide session goes (and with it the permissions it set, which were the context's). */
  close(): void {
    void this.#browserSession?.then((session) => session.detach()).catch(() => {});
    this.#browserSession = undefined;
  }

  async virtualAuthenticators(page: Page): Promise<VirtualAuthenticators> {
    return virtualAuthenticators(await this.#session(page, 'webauthn'));
  }

  async fedCm(page: Page): Promise<FedCmDialogs> {
    let dialogs = this.#fedCm.get(page);
    if (!dialogs) {
      dialogs = this.#session(page, 'fedcm').then((session) => fedCmDialogs(session));
      this.#fedCm.set(page, dialogs);
      dialogs.catch(() => this.#fedCm.delete(page));
    }
    return dialogs;
  }

  /** Every page now; a page opened later gets them from `emulateOn`. */
  async emulateNetworkConditions(pages: Page[], conditions: NetworkConditions | null): Promise<void> {
    if (this.#engine !== 'chromium') {
      const throttled = conditions !== null && (conditions.latency !== 0 || conditions.download_throughput >= 0 || conditions.upload_throughput >= 0);
      if (throttled) throw new UnsupportedPrimitiveError(FIREFOX_GAPS.networkThrottling);
      await this.#context.setOffline(conditions?.offline === true);
      return;
    }
    this.#networkConditions = conditions;
    await Promise.all(pages.map((page) => this.emulateOn(page)));
  }

  async emulateOn(page: Page): Promise<void> {
    if (this.#engine !== 'chromium' || (this.#networkConditions === null && !this.#sessions.has(page))) return;
    const session = await this.#session(page, 'network conditions');
    await session.send('Network.emulateNetworkConditions', networkConditionsParams(this.#networkConditions) as never);
  }
}
