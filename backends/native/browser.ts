// One session's Chromium, driven over the CDP pipe through puppeteer-core. Only primitives live
// here; the W3C rules that use them live in src/webdriver/.
import type { Browser, CDPSession, ElementHandle, Frame, KeyInput, Page, Target } from 'puppeteer-core';
import { ProtocolError, TimeoutError } from 'puppeteer-core';
import {
  NavigationTimeoutError,
  NoSuchWindowError,
  ScriptError,
  type BrowsingContext,
  type CookieData,
  type DrivenBrowser,
  type MouseEventParams,
  type PageLoadStrategy,
  type Rect,
  type WindowState,
  type WindowType,
} from '../backend.ts';
import { isKnownKey, isNamedKey } from './keys.ts';

/** Main-frame load tracking, so a click that starts a navigation can wait for it. */
interface LoadState {
  loading: boolean;
  domContentLoaded: boolean;
  /** A renderer-initiated navigation (a form submission) was requested but has not started loading. */
  requested?: boolean;
  /** The URL an error page stands for (the main frame's failed navigation), if one is shown. */
  unreachableUrl?: string;
  waiters: Set<() => void>;
}

type PuppeteerWaitUntil = 'load' | 'domcontentloaded';

const waitUntilFor = (strategy: PageLoadStrategy): PuppeteerWaitUntil =>
  strategy === 'eager' ? 'domcontentloaded' : 'load';

/** A function object whose source is `declaration`: puppeteer sends fn.toString() as is. */
const functionCache = new Map<string, () => unknown>();
function asFunction(declaration: string): () => unknown {
  let fn = functionCache.get(declaration);
  if (!fn) {
    fn = function () {};
    fn.toString = () => declaration;
    // Execute Script bodies are one-offs; keep the cache for the gateway's constant atoms only.
    if (functionCache.size < 64) functionCache.set(declaration, fn);
  }
  return fn;
}

export class NativeBrowser implements DrivenBrowser {
  readonly browserName = 'chrome';
  readonly browserVersion: string;
  readonly #browser: Browser;
  readonly #pages = new Map<string, Page>();
  readonly #loadStates = new WeakMap<Page, LoadState>();
  /** Where puppeteer's mouse is, per page (it tracks it too, but privately). */
  readonly #pointer = new WeakMap<Page, { x: number; y: number }>();
  readonly #onClose: () => Promise<void>;
  #closed = false;

  readonly #timeZone: string | undefined;

  private constructor(browser: Browser, version: string, onClose: () => Promise<void>, timeZone: string | undefined) {
    this.#browser = browser;
    this.browserVersion = version;
    this.#onClose = onClose;
    this.#timeZone = timeZone;
  }

  /** Wrap a connected browser; resolves once its first page is tracked. */
  static async create(browser: Browser, onClose: () => Promise<void>, timeZone?: string): Promise<NativeBrowser> {
    const version = (await browser.version()).replace(/^[^/]*\//, '');
    const self = new NativeBrowser(browser, version, onClose, timeZone);
    browser.on('targetcreated', (target: Target) => void self.#track(target));
    browser.on('targetdestroyed', (target: Target) => self.#pages.delete(handleOf(target)));
    for (const target of browser.targets()) await self.#track(target);
    return self;
  }

  async #track(target: Target): Promise<Page | undefined> {
    if (target.type() !== 'page') return undefined;
    const handle = handleOf(target);
    const known = this.#pages.get(handle);
    if (known) return known;
    const page = await target.page();
    if (!page) return undefined;
    this.#pages.set(handle, page);
    this.#watchLoading(page);
    await this.#emulate(page);
    return page;
  }

  /** Per-page settings every window of the session gets (the --default-time-zone). */
  async #emulate(page: Page): Promise<void> {
    if (this.#timeZone) await page.emulateTimezone(this.#timeZone).catch(() => {});
  }

  #watchLoading(page: Page): void {
    const state: LoadState = { loading: false, domContentLoaded: true, waiters: new Set() };
    this.#loadStates.set(page, state);
    const client = cdp(page);
    const isMain = (frameId: string) => frameIdOf(page.mainFrame()) === frameId;
    const notify = () => {
      for (const w of state.waiters) w();
    };
    // A form submission is planned in the renderer: the browser hears of the request before
    // the load starts, and possibly after the round trip waitForPendingNavigation makes.
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
  }

  onDisconnected(listener: () => void): void {
    this.#browser.once('disconnected', () => {
      if (!this.#closed) listener();
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#onClose().catch(() => {});
  }

  async #page(handle: string): Promise<Page> {
    const page = this.#pages.get(handle);
    if (page && !page.isClosed()) return page;
    // A window opened a moment ago may not have been tracked yet.
    const target = this.#browser.targets().find((t) => t.type() === 'page' && handleOf(t) === handle);
    const tracked = target && (await this.#track(target));
    if (tracked && !tracked.isClosed()) return tracked;
    throw new NoSuchWindowError(`no window with handle ${handle}`);
  }

  // ── Windows ──────────────────────────────────────────────────────────────────────────────

  async windowHandles(): Promise<string[]> {
    return this.#browser
      .targets()
      .filter((t) => t.type() === 'page')
      .map(handleOf);
  }

  async newWindow(type: WindowType): Promise<string> {
    const page = await this.#browser.newPage(type === 'window' ? { type: 'window', background: true } : { background: true });
    const handle = handleOf(page.target());
    this.#pages.set(handle, page);
    if (!this.#loadStates.has(page)) {
      this.#watchLoading(page);
      await this.#emulate(page);
    }
    return handle;
  }

  async closeWindow(handle: string): Promise<void> {
    const page = await this.#page(handle);
    await page.close({ runBeforeUnload: false });
    this.#pages.delete(handle);
  }

  async activateWindow(handle: string): Promise<void> {
    await (await this.#page(handle)).bringToFront();
  }

  async #windowId(handle: string): Promise<string> {
    return (await this.#page(handle)).windowId();
  }

  async getWindowRect(handle: string): Promise<Rect> {
    const b = await this.#browser.getWindowBounds(await this.#windowId(handle));
    return { x: b.left ?? 0, y: b.top ?? 0, width: b.width ?? 0, height: b.height ?? 0 };
  }

  async setWindowRect(handle: string, rect: Partial<Rect>): Promise<void> {
    const id = await this.#windowId(handle);
    // Bounds can only change in the normal state.
    await this.#browser.setWindowBounds(id, { windowState: 'normal' });
    const bounds: { left?: number; top?: number; width?: number; height?: number } = {};
    if (rect.x !== undefined) bounds.left = rect.x;
    if (rect.y !== undefined) bounds.top = rect.y;
    if (rect.width !== undefined) bounds.width = rect.width;
    if (rect.height !== undefined) bounds.height = rect.height;
    if (Object.keys(bounds).length) await this.#browser.setWindowBounds(id, bounds);
  }

  async getWindowState(handle: string): Promise<WindowState> {
    const b = await this.#browser.getWindowBounds(await this.#windowId(handle));
    return (b.windowState ?? 'normal') as WindowState;
  }

  async setWindowState(handle: string, state: WindowState): Promise<void> {
    const id = await this.#windowId(handle);
    const current = (await this.#browser.getWindowBounds(id)).windowState ?? 'normal';
    if (current === state) return;
    // Chromium refuses to go from one non-normal state to another directly.
    if (current !== 'normal' && state !== 'normal') await this.#browser.setWindowBounds(id, { windowState: 'normal' });
    if (state === 'fullscreen') {
      // As chromedriver does (crbug.com/982071): fullscreen the document element, so the page
      // sees document.fullscreenElement; Chromium makes the window fullscreen with it.
      const page = await this.#page(handle);
      const expression = 'document.documentElement.requestFullscreen()';
      const result = await cdp(page).send('Runtime.evaluate', { expression, userGesture: true, awaitPromise: true }).catch(() => undefined);
      if (result && !result.exceptionDetails && (await this.#browser.getWindowBounds(id)).windowState === 'fullscreen') return;
    }
    await this.#browser.setWindowBounds(id, { windowState: state });
  }

  // ── Navigation ───────────────────────────────────────────────────────────────────────────

  async navigate(handle: string, url: string, strategy: PageLoadStrategy, timeoutMs: number): Promise<void> {
    const page = await this.#page(handle);
    if (strategy === 'none') {
      // Page.navigate answers only once the response has arrived (commit): return as soon as
      // the navigation has started, or failed to.
      const client = cdp(page);
      const frameId = frameIdOf(page.mainFrame());
      let onStart!: (e: { frameId: string }) => void;
      const started = new Promise<null>((resolve) => {
        onStart = (e) => e.frameId === frameId && resolve(null);
        client.on('Page.frameStartedLoading', onStart);
      });
      const sent = client.send('Page.navigate', { url, frameId });
      sent.catch(() => {}); // abandoned once the navigation has started
      try {
        const result = await Promise.race([sent, started]);
        if (result?.errorText) throw new Error(`${result.errorText} at ${url}`);
      } finally {
        client.off('Page.frameStartedLoading', onStart);
      }
      return;
    }
    try {
      await navigation(() => page.goto(url, { waitUntil: waitUntilFor(strategy), timeout: puppeteerTimeout(timeoutMs) }));
    } catch (e) {
      // A failed load (net::ERR_…) still commits an error page: let it load, so the URL and
      // document the next command sees are the error page's, not the previous page's.
      if (!(e instanceof NavigationTimeoutError)) await this.waitForPendingNavigation(handle, strategy, 5000).catch(() => {});
      throw e;
    }
  }

  async traverseHistory(handle: string, delta: -1 | 1, strategy: PageLoadStrategy, timeoutMs: number): Promise<void> {
    const page = await this.#page(handle);
    const client = cdp(page);
    const { currentIndex, entries } = await client.send('Page.getNavigationHistory');
    const entry = entries[currentIndex + delta];
    if (!entry) return; // Nothing to traverse to: the spec makes this a no-op.
    const go = client.send('Page.navigateToHistoryEntry', { entryId: entry.id });
    if (strategy === 'none') {
      await go;
      return;
    }
    await navigation(async () => {
      await Promise.all([page.waitForNavigation({ waitUntil: waitUntilFor(strategy), timeout: puppeteerTimeout(timeoutMs) }), go]);
    });
  }

  async reload(handle: string, strategy: PageLoadStrategy, timeoutMs: number): Promise<void> {
    const page = await this.#page(handle);
    if (strategy === 'none') {
      await cdp(page).send('Page.reload');
      return;
    }
    await navigation(() => page.reload({ waitUntil: waitUntilFor(strategy), timeout: puppeteerTimeout(timeoutMs) }));
  }

  async waitForPendingNavigation(handle: string, strategy: PageLoadStrategy, timeoutMs: number): Promise<void> {
    if (strategy === 'none') return;
    const page = this.#pages.get(handle);
    if (!page || page.isClosed()) return;
    const state = this.#loadStates.get(page);
    if (!state) return;
    // One round trip lets a navigation requested by the last input event reach us as an event.
    await cdp(page).send('Runtime.evaluate', { expression: '0' }).catch(() => {});
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

  async currentUrl(handle: string): Promise<string> {
    const page = await this.#page(handle);
    // An error page's document URL is the URL that failed (HTML), not chrome-error://.
    return this.#loadStates.get(page)?.unreachableUrl ?? page.url();
  }

  // ── Script ───────────────────────────────────────────────────────────────────────────────

  async callFunction(context: BrowsingContext, functionDeclaration: string, args: unknown[]): Promise<unknown> {
    const page = await this.#page(context.window);
    const frame = page.mainFrame();
    try {
      return await frame.evaluate(asFunction(functionDeclaration) as never, ...(args as never[]));
    } catch (e) {
      throw classify(e, page);
    }
  }

  async setFileInputFiles(context: BrowsingContext, functionDeclaration: string, args: unknown[], files: string[]): Promise<void> {
    const page = await this.#page(context.window);
    try {
      const handle = (await page
        .mainFrame()
        .evaluateHandle(asFunction(functionDeclaration) as never, ...(args as never[]))) as ElementHandle;
      try {
        const objectId = handle.remoteObject().objectId;
        await cdp(page).send('DOM.setFileInputFiles', { objectId, files });
      } finally {
        await handle.dispose().catch(() => {});
      }
    } catch (e) {
      throw classify(e, page);
    }
  }

  // ── Input ────────────────────────────────────────────────────────────────────────────────

  async keyDown(handle: string, key: string): Promise<void> {
    const page = await this.#page(handle);
    if (isKnownKey(key)) await page.keyboard.down(key as KeyInput);
    else if (isNamedKey(key)) await cdp(page).send('Input.dispatchKeyEvent', { type: 'rawKeyDown', key });
    else await page.keyboard.sendCharacter(key); // outside the US layout: insert the text
  }

  async keyUp(handle: string, key: string): Promise<void> {
    const page = await this.#page(handle);
    if (isKnownKey(key)) await page.keyboard.up(key as KeyInput);
    else if (isNamedKey(key)) await cdp(page).send('Input.dispatchKeyEvent', { type: 'keyUp', key });
  }

  async mouseEvent(handle: string, event: MouseEventParams): Promise<void> {
    const page = await this.#page(handle);
    const options = { button: event.button ?? 'left', clickCount: event.clickCount ?? 1 } as const;
    // Each dispatched move waits for the renderer: press and release move only when needed.
    const at = this.#pointer.get(page);
    if (event.type === 'move' || !at || at.x !== event.x || at.y !== event.y) {
      await page.mouse.move(event.x, event.y);
      this.#pointer.set(page, { x: event.x, y: event.y });
    }
    if (event.type === 'down') await page.mouse.down(options);
    else if (event.type === 'up') await page.mouse.up(options);
  }

  // ── Capture ──────────────────────────────────────────────────────────────────────────────

  async screenshot(handle: string, clip?: Rect): Promise<string> {
    const client = cdp(await this.#page(handle));
    if (clip) {
      // CDP's clip is in document coordinates; ours is relative to the (scrolled) viewport.
      const { cssLayoutViewport } = await client.send('Page.getLayoutMetrics');
      clip = { ...clip, x: clip.x + cssLayoutViewport.pageX, y: clip.y + cssLayoutViewport.pageY };
    }
    const { data } = await client.send('Page.captureScreenshot', {
      format: 'png',
      ...(clip && { clip: { ...clip, scale: 1 } }),
      captureBeyondViewport: false,
    });
    return data;
  }

  // ── Cookies ──────────────────────────────────────────────────────────────────────────────

  async getCookies(handle: string): Promise<CookieData[]> {
    const page = await this.#page(handle);
    const { cookies } = await cdp(page).send('Network.getCookies', { urls: [page.url()] });
    return cookies.map((c) => ({
      name: c.name,
      value: c.value,
      path: c.path,
      domain: c.domain,
      secure: c.secure,
      httpOnly: c.httpOnly,
      ...(!c.session && c.expires > 0 && { expiry: Math.floor(c.expires) }),
      sameSite: (c.sameSite ?? 'Lax') as CookieData['sameSite'],
    }));
  }

  async setCookie(
    handle: string,
    cookie: Omit<CookieData, 'domain' | 'sameSite'> & { domain?: string; sameSite?: CookieData['sameSite'] },
  ): Promise<boolean> {
    const page = await this.#page(handle);
    const sent = cdp(page).send('Network.setCookie', {
      name: cookie.name,
      value: cookie.value,
      url: page.url(),
      ...(cookie.domain !== undefined && { domain: cookie.domain }),
      path: cookie.path,
      secure: cookie.secure,
      httpOnly: cookie.httpOnly,
      ...(cookie.sameSite !== undefined && { sameSite: cookie.sameSite }),
      ...(cookie.expiry !== undefined && { expires: cookie.expiry }),
    });
    try {
      return (await sent).success;
    } catch (e) {
      // Chromium refuses a malformed cookie (bad name or path) with an error, not success: false.
      if (e instanceof ProtocolError && /Sanitizing cookie failed|Invalid cookie fields/i.test(e.message)) return false;
      throw e;
    }
  }

  async deleteCookies(handle: string, name?: string): Promise<void> {
    const page = await this.#page(handle);
    const client = cdp(page);
    const url = page.url();
    const { cookies } = await client.send('Network.getCookies', { urls: [url] });
    await Promise.all(
      cookies
        .filter((c) => name === undefined || c.name === name)
        .map((c) => client.send('Network.deleteCookies', { name: c.name, domain: c.domain, path: c.path })),
    );
  }
}

/** The page's own CDP session (puppeteer's; internal API, stable across 2x releases). */
function cdp(page: Page): CDPSession {
  return (page as unknown as { _client(): CDPSession })._client();
}

function frameIdOf(frame: Frame): string {
  return (frame as unknown as { _id: string })._id;
}

/** The W3C window handle of a page target: its CDP target id, as chromedriver uses. */
export function handleOf(target: Target): string {
  return (target as unknown as { _targetId: string })._targetId;
}

/** Node timers overflow (and fire at once) past this many milliseconds. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A W3C page load timeout (0 to 2^53-1 ms) as puppeteer's: there 0 means "no timeout", and
 * values past the timer range would fire at once.
 */
function puppeteerTimeout(ms: number): number {
  if (ms === 0) return 1;
  return ms > MAX_TIMER_MS ? 0 : ms;
}

async function navigation(run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (e) {
    if (e instanceof TimeoutError) throw new NavigationTimeoutError(e.message);
    throw e;
  }
}

/** A failed evaluation: the page's own exception, or the window going away. */
function classify(e: unknown, page: Page): Error {
  if (page.isClosed()) return new NoSuchWindowError('the window was closed');
  const message = e instanceof Error ? e.message : String(e);
  if (/Target closed|Session closed|No target with given id/i.test(message)) return new NoSuchWindowError(message);
  // The document went away under the call (a navigation): not the page's exception.
  if (e instanceof ProtocolError || /Execution context was destroyed|Cannot find context/i.test(message)) {
    return e instanceof Error ? e : new Error(message);
  }
  return new ScriptError(message);
}
