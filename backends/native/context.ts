// One session's browser: an isolated browser context of a pooled Chromium, driven over the CDP
// pipe through puppeteer-core. Only this context's windows are seen; closing it disposes of the
// context and leaves the process to the pool. Only primitives live here; the W3C rules that use
// them live in src/webdriver/.
import type { Browser, BrowserContext, CDPSession, Frame, JSHandle, Page, Target } from 'puppeteer-core';
import { ProtocolError, TimeoutError } from 'puppeteer-core/internal/common/Errors.js';
import {
  NavigationTimeoutError,
  NoSuchWindowError,
  ScriptError,
  UserPromptOpenedError,
  type AccessibleNode,
  type PrintOptions,
  type BrowsingContext,
  type ConsoleEntry,
  type CallOptions,
  type CookieData,
  type NetworkEntry,
  type PageError,
  type ResponseBodyLimits,
  type ScreencastOptions,
  type ScreenshotFormat,
  type BidiEndpoint,
  type BrowserLogEntry,
  type CdpEndpoint,
  type FedCmDialogs,
  type NetworkConditions,
  type PermissionDescriptor,
  type PermissionState,
  type ProtocolEvent,
  type Tracing,
  type VirtualAuthenticators,
  type BidiOptions,
  type DrivenBrowser,
  type Emulation,
  type PageLoadStrategy,
  type Rect,
  type WindowState,
  type WindowType,
  type UserPrompt,
  // Perform Actions input (the actions chapter)
  type KeyInputEvent,
  type PointerInputEvent,
  type TouchInputEvent,
  type WheelInputEvent,
} from '../backend.ts';
import { browserContextIdOf, cdp, connectionOf, frameClient, frameIdOf, handleOf, isolatedRealm, isolatedWorldContextId } from './cdp.ts';
import { fedCmDialogs, setPermission, virtualAuthenticators } from '../chromium-automation.ts';
import { startTracing } from './tracing.ts';
import { saveDownloads } from './downloads.ts';
import { openMapper } from './bidi.ts';
import { resolveSharedId, sharedIdOf, type PageAccess } from './shared-ids.ts';
import { openCdpBridge } from './cdp-bridge.ts';
import * as capture from './capture.ts';
import * as cookies from './cookies.ts';
import * as input from './input.ts';
import { waitForLoad, watchLoading, type LoadState } from './load.ts';
import { Libraries } from './library.ts';
import { PromptGuard } from '../prompt-guard.ts';
import { followDialogs } from './prompts.ts';
import { ContextEvents } from './events.ts';
import { BrowserEmulation } from './emulation.ts';
import { emulationCommands } from '../emulation/index.ts';

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

/** What a call without page code of the gateway's is bound to. */
const NO_LIBRARY = 'function () {}';

/** User prompts: every primitive that calls into a window's page (its first argument names the window). */
const PROMPT_BLOCKED_PRIMITIVES = [
  'navigate',
  'traverseHistory',
  'reload',
  'waitForPendingNavigation',
  'callFunction',
  'setFileInputFiles',
  'contentFrameId',
  'dispatchKeyInput', // input
  'dispatchPointerInput',
  'dispatchTouchInput',
  'dispatchWheelInput',
  'screenshot',
  'fullPageScreenshot',
  'printToPdf', // print and accessibility
  'accessibleNode',
] as const satisfies readonly (keyof DrivenBrowser)[];
/** Those that wait for a navigation: cancelled (they resolve) when the page refuses to unload. */
const NAVIGATION_PRIMITIVES = ['navigate', 'traverseHistory', 'reload', 'waitForPendingNavigation'] as const;

export class NativeContext implements DrivenBrowser {
  readonly browserName = 'chrome';
  readonly browserVersion: string;
  readonly initialWindow: string;
  readonly #browser: Browser;
  readonly #context: BrowserContext;
  readonly #pages = new Map<string, Page>();
  readonly #tracking = new Map<string, Promise<Page | undefined>>();
  readonly #consoleListeners: ((entry: ConsoleEntry) => void)[] = [];
  /** Requests and page errors, for a trace (read only once somebody listens). */
  readonly #events: ContextEvents;
  /** A mapper started with the context (prepareBidi), until a session takes it. */
  #preparedBidi: { options: BidiOptions; mapper: Promise<BidiEndpoint> } | undefined;
  /** Windows minimized by Minimize Window (headless windows change state only through us). */
  readonly #minimized = new Set<string>();
  readonly #loadStates = new WeakMap<Page, LoadState>();
  readonly #prompts = new PromptGuard<Page>();
  readonly #libraries = new Libraries();
  readonly #timeZone: string | undefined;
  /** Listeners on the shared browser and context, removed when the context is closed. */
  readonly #unlisten: (() => void)[] = [];
  #closed = false;
  /** The browser's default context, adopted by its first session (it cannot be closed, only emptied). */
  #adopted = false;
  /** Network conditions every window gets (chromedriver's network_conditions), those opened later too. */
  #networkConditions: NetworkConditions | null = null;
  /** Each page's FedCM dialogs, once a FedCM command asked for them. */
  readonly #fedCm = new WeakMap<Page, Promise<FedCmDialogs>>();

  private constructor(context: BrowserContext, version: string, initialWindow: string, timeZone: string | undefined) {
    this.#context = context;
    this.#browser = context.browser();
    this.browserVersion = version;
    this.initialWindow = initialWindow;
    this.#timeZone = timeZone;
    this.#events = new ContextEvents(context, () => this.#pages.values());
  }

  /**
   * A fresh isolated context of `browser` with its first window open and tracked (a page takes
   * 0.1–0.3 s to create: the pool prepares contexts ahead of the sessions that lease them).
   */
  static async open(browser: Browser, version: string, timeZone?: string, adopt = false): Promise<NativeContext> {
    // A fresh browser's default context is as new as any (its profile is new), and its first
    // window is already open: the one session of a browser of its own takes it (ChromiumProcess
    // decides) and saves creating both. No other session ever gets the default context.
    const context = adopt ? browser.defaultBrowserContext() : await browser.createBrowserContext();
    try {
      const initial = adopt ? context.targets().find((t) => t.type() === 'page') : undefined;
      const first = (initial && (await whileConnected(browser, initial.page()))) ?? (await context.newPage());
      // Chromium places each new window a step below and right of the last one: the place would
      // tell how many windows other sessions have open. Every session's first window starts at
      // the screen's corner (its size is --window-size's).
      await browser.setWindowBounds(await first.windowId(), { left: 0, top: 0 });
      const self = new NativeContext(context, version, handleOf(first.target()), timeZone);
      self.#adopted = adopt;
      const created = (target: Target) => void self.#track(target);
      const destroyed = (target: Target) => self.#pages.delete(handleOf(target));
      context.on('targetcreated', created);
      context.on('targetdestroyed', destroyed);
      self.#unlisten.push(() => context.off('targetcreated', created), () => context.off('targetdestroyed', destroyed));
      await self.#track(first.target());
      return self;
    } catch (e) {
      if (!adopt) await context.close().catch(() => {});
      throw e;
    }
  }

  /** Start tracking a page target once, however many callers ask at the same time. */
  #track(target: Target): Promise<Page | undefined> {
    if (target.type() !== 'page') return Promise.resolve(undefined);
    const handle = handleOf(target);
    const known = this.#pages.get(handle);
    if (known) return Promise.resolve(known);
    let tracking = this.#tracking.get(handle);
    if (!tracking) {
      tracking = (async () => {
        const page = await target.page();
        if (!page) return undefined;
        this.#pages.set(handle, page);
        page.on('console', (message) => {
          for (const listener of this.#consoleListeners) listener({ level: message.type(), text: message.text(), window: handle, timestamp: Date.now() });
        });
        const load = watchLoading(page);
        this.#loadStates.set(page, load);
        followDialogs(this.#prompts, page, load);
        await this.#emulate(page);
        return page;
      })().finally(() => this.#tracking.delete(handle));
      this.#tracking.set(handle, tracking);
    }
    return tracking;
  }

  /** Per-page settings every window of the session gets (the --default-time-zone, network conditions). */
  async #emulate(page: Page): Promise<void> {
    if (this.#timeZone) await page.emulateTimezone(this.#timeZone).catch(() => {});
    if (this.#networkConditions) await this.#emulateNetwork(page).catch(() => {});
  }

  #emulateNetwork(page: Page): Promise<void> {
    const c = this.#networkConditions;
    // puppeteer's: the page's target and its out-of-process frames' and workers', now and later.
    return page.emulateNetworkConditions(c && { offline: c.offline, latency: c.latency, download: c.download_throughput, upload: c.upload_throughput });
  }

  onDisconnected(listener: () => void): void {
    const disconnected = () => {
      if (!this.#closed) listener();
    };
    this.#browser.once('disconnected', disconnected);
    this.#unlisten.push(() => this.#browser.off('disconnected', disconnected));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const unlisten of this.#unlisten.splice(0)) unlisten();
    this.#events.close();
    // Every window of the context goes with it (beforeunload is not run, as chromedriver does).
    if (this.#browser.connected) {
      if (this.#adopted) await Promise.all([...this.#pages.values()].map((page) => whileConnected(this.#browser, page.close()).catch(() => {})));
      else await this.#context.close().catch(() => {});
    }
    this.#pages.clear();
  }

  async emulate(emulation: Emulation): Promise<void> {
    const commands = emulationCommands(emulation, this.browserVersion);
    const pages = await Promise.all(this.#context.targets().filter((t) => t.type() === 'page').map((t) => this.#track(t)));
    const first = this.#context.targets().find((t) => t.type() === 'page');
    const contextId = first && browserContextIdOf(first);
    if (commands.length === 0 || contextId === undefined) return;
    this.#unlisten.push(await BrowserEmulation.of(this.#browser).add(contextId, commands, pages.filter((p): p is Page => p !== undefined)));
  }

  async saveDownloadsTo(directory: string): Promise<void> {
    this.#unlisten.push(await saveDownloads(this.#browser, this.#context, directory));
  }

  async openCdp(): Promise<CdpEndpoint> {
    const endpoint = await openCdpBridge(this.#browser);
    this.#unlisten.push(() => void endpoint.close());
    return endpoint;
  }

  /** Start the BiDi mapper now, for the session this context will serve (a pool key of BiDi sessions). */
  prepareBidi(options: BidiOptions): void {
    const mapper = openMapper(this.#browser, options);
    mapper.catch(() => {});
    this.#preparedBidi = { options, mapper };
    this.#unlisten.push(() => void mapper.then((endpoint) => endpoint.close(), () => {}));
  }

  async openBidi(options: BidiOptions): Promise<BidiEndpoint> {
    const prepared = this.#preparedBidi;
    this.#preparedBidi = undefined;
    if (prepared && prepared.options.acceptInsecureCerts === options.acceptInsecureCerts) {
      const endpoint = await prepared.mapper.catch(() => undefined);
      if (endpoint) return endpoint;
    }
    const endpoint = await openMapper(this.#browser, options);
    this.#unlisten.push(() => void endpoint.close());
    return endpoint;
  }

  async #page(handle: string): Promise<Page> {
    const page = this.#pages.get(handle);
    if (page && !page.isClosed()) return page;
    // A window opened a moment ago may not have been tracked yet.
    const target = this.#context.targets().find((t) => t.type() === 'page' && handleOf(t) === handle);
    const tracked = target && (await this.#track(target));
    if (tracked && !tracked.isClosed()) return tracked;
    throw new NoSuchWindowError(`no window with handle ${handle}`);
  }

  // ── Windows ──────────────────────────────────────────────────────────────────────────────

  async windowHandles(): Promise<string[]> {
    return this.#context
      .targets()
      .filter((t) => t.type() === 'page')
      .map(handleOf);
  }

  async newWindow(type: WindowType): Promise<string> {
    const page = await this.#context.newPage(type === 'window' ? { type: 'window', background: true } : { background: true });
    await this.#track(page.target());
    return handleOf(page.target());
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
    this.#minimized.delete(handle);
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
    if (state === 'minimized') this.#minimized.add(handle);
    else this.#minimized.delete(handle);
    const current = (await this.#browser.getWindowBounds(id)).windowState ?? 'normal';
    // From one non-normal state to another the W3C layer goes through normal (Chromium refuses otherwise).
    if (current === state) return;
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
    const state = page && !page.isClosed() && this.#loadStates.get(page);
    if (state) await waitForLoad(page, state, strategy, timeoutMs);
  }

  async currentUrl(handle: string): Promise<string> {
    const page = await this.#page(handle);
    // An error page's document URL is the URL that failed (HTML), not chrome-error://.
    return this.#loadStates.get(page)?.unreachableUrl ?? page.url();
  }

  async executeCdp(handle: string, method: string, params: Record<string, unknown>): Promise<unknown> {
    const page = await this.#page(handle);
    try {
      return await this.#unblocked(handle, false, () => cdp(page).send(method as never, params as never));
    } catch (e) {
      if (e instanceof UserPromptOpenedError || page.isClosed()) throw classify(e, page);
      throw new Error(`${method}: ${(e as Error).message.replace(/^Protocol error \([^)]*\): /, '')}`);
    }
  }

  // One id per node for BiDi and classic commands (./shared-ids.ts).
  sharedIdOf(reference: string, context: string | undefined, functionDeclaration: string, library: string): Promise<string | undefined> {
    return sharedIdOf(this.#pageAccess(), reference, context, functionDeclaration, library);
  }

  resolveSharedId(sharedId: string, functionDeclaration: string, library: string): Promise<boolean> {
    return resolveSharedId(this.#pageAccess(), sharedId, functionDeclaration, library);
  }

  #pageAccess(): PageAccess {
    return { pages: [...this.#pages.values()].filter((p) => !p.isClosed()), libraries: this.#libraries, prompts: this.#prompts };
  }

  // ── Script ───────────────────────────────────────────────────────────────────────────────

  async callFunction(context: BrowsingContext, functionDeclaration: string, args: unknown[], options: CallOptions = {}): Promise<unknown> {
    const page = await this.#page(context.window);
    const frame = frameOf(page, context); // frames: the context's frame, out-of-process ones too
    try {
      // Raw Runtime.callFunctionOn, one round trip: puppeteer's evaluate would resend the whole
      // declaration and always give the page user activation.
      return await this.#libraries.call(frame, options.library ?? NO_LIBRARY, functionDeclaration, args, options.userActivation === true, options.isolated ? 'isolated' : 'main');
    } catch (e) {
      throw classify(e, page, frame);
    }
  }

  /**
   * Call a function that returns a page object (a node) and use it by its CDP object id, on the
   * session of the frame's own target (an out-of-process iframe has its own). The handle is
   * released afterwards.
   */
  async #withObject<T>(
    context: BrowsingContext,
    functionDeclaration: string,
    args: unknown[],
    isolated: boolean,
    use: (objectId: string | undefined, client: CDPSession) => Promise<T>,
  ): Promise<T> {
    const page = await this.#page(context.window);
    const frame = frameOf(page, context);
    try {
      const client = frameClient(frame);
      const executionContextId = isolated ? isolatedWorldContextId(frame) : undefined;
      if (executionContextId !== undefined) {
        // The gateway's world: raw, so that the page is given no user activation.
        const reply = await client.send('Runtime.callFunctionOn', { executionContextId, functionDeclaration, arguments: args.map((value) => ({ value })), awaitPromise: true });
        const objectId = reply.exceptionDetails ? undefined : reply.result.objectId;
        try {
          return await use(objectId, client);
        } finally {
          if (objectId) void client.send('Runtime.releaseObject', { objectId }).catch(() => {});
        }
      }
      const realm = isolated ? isolatedRealm(frame) : frame;
      const handle = (await realm.evaluateHandle(asFunction(functionDeclaration) as never, ...(args as never[]))) as JSHandle;
      try {
        return await use(handle.remoteObject().objectId, client);
      } finally {
        void handle.dispose().catch(() => {});
      }
    } catch (e) {
      throw classify(e, page, frame);
    }
  }

  async setFileInputFiles(context: BrowsingContext, functionDeclaration: string, args: unknown[], files: string[]): Promise<void> {
    await this.#withObject(context, functionDeclaration, args, false, (objectId, client) => client.send('DOM.setFileInputFiles', { objectId, files }));
  }

  // ── Frames ───────────────────────────────────────────────────────────────────────────────

  async frameOpen(handle: string, frameId: string): Promise<boolean> {
    const page = await this.#page(handle);
    const main = page.mainFrame();
    const frame = page.frames().find((f) => f !== main && frameIdOf(f) === frameId);
    const parent = frame?.parentFrame();
    if (!frame || frame.detached || !parent || parent.detached) return false;
    // Puppeteer learns of a removed frame from Page.frameDetached, which can arrive after the
    // command that removed it (a click) has answered. The renderer holding the frame element
    // knows at once: ask it. A user prompt blocks that renderer (the call would hang until the
    // prompt closes), and nothing in the page runs meanwhile: then the events are the answer.
    try {
      await this.#unblocked(handle, false, () => frameClient(parent).send('DOM.getFrameOwner', { frameId }));
      return true;
    } catch (e) {
      if (e instanceof UserPromptOpenedError) return !frame.detached;
      return false;
    }
  }

  async contentFrameId(context: BrowsingContext, functionDeclaration: string, args: unknown[], options: Pick<CallOptions, 'isolated'> = {}): Promise<string | null> {
    return this.#withObject(context, functionDeclaration, args, options.isolated === true, async (objectId, client) => {
      if (!objectId) return null;
      // The frame owner's node names its content frame (the id is the same in every process).
      const { node } = await client.send('DOM.describeNode', { objectId });
      return node.frameId ?? null;
    });
  }

  // ── Input ────────────────────────────────────────────────────────────────────────────────

  async dispatchKeyInput(handle: string, event: KeyInputEvent): Promise<void> {
    await input.dispatchKeyInput(await this.#page(handle), event);
  }

  async dispatchPointerInput(handle: string, event: PointerInputEvent): Promise<void> {
    await input.dispatchPointerInput(await this.#page(handle), event);
  }

  async dispatchTouchInput(handle: string, event: TouchInputEvent): Promise<void> {
    await input.dispatchTouchInput(await this.#page(handle), event);
  }

  async dispatchWheelInput(handle: string, event: WheelInputEvent): Promise<void> {
    await input.dispatchWheelInput(await this.#page(handle), event);
  }

  // ── Capture, print and accessibility (capture.ts) ────────────────────────────────────────

  async screenshot(handle: string, clip?: Rect, format?: ScreenshotFormat): Promise<string> {
    const page = await this.#page(handle);
    // A minimized window draws nothing, and a capture waits for a drawing (forever, after a
    // navigation): it is shown again first, as a user would before taking its picture.
    if (this.#minimized.delete(handle)) await this.#browser.setWindowBounds(await this.#windowId(handle), { windowState: 'normal' });
    return capture.screenshot(page, clip, format);
  }

  onConsoleMessage(listener: (entry: ConsoleEntry) => void): void {
    this.#consoleListeners.push(listener);
  }

  // ── chromedriver's and geckodriver's extension commands (../chromium-automation.ts) ──────

  onBrowserLog(listener: (entry: BrowserLogEntry) => void): void {
    this.#events.onBrowserLog(listener);
  }

  onProtocolEvent(domains: readonly string[], listener: (event: ProtocolEvent) => void): void {
    // Lifecycle events are puppeteer's to ask for (chromedriver never does): not the page's own.
    this.#events.onProtocolEvent(domains, (event) => event.method !== 'Page.lifecycleEvent' && listener(event));
  }

  startTracing(categories: string[], bufferUsageReportingInterval: number, onEvent: (event: ProtocolEvent) => void): Promise<Tracing> {
    return startTracing(this.#browser, categories, bufferUsageReportingInterval, onEvent);
  }

  async setPermission(_handle: string, descriptor: PermissionDescriptor, state: PermissionState, origin: string): Promise<void> {
    // This context's only (the default context, adopted by a browser's only session, has no id).
    await setPermission(connectionOf(this.#browser), { descriptor, state, origin, ...(!this.#adopted && this.#context.id && { browserContextId: this.#context.id }) });
  }

  async virtualAuthenticators(handle: string): Promise<VirtualAuthenticators> {
    return virtualAuthenticators(cdp(await this.#page(handle)));
  }

  async emulateNetworkConditions(conditions: NetworkConditions | null): Promise<void> {
    this.#networkConditions = conditions;
    await Promise.all([...this.#pages.values()].filter((page) => !page.isClosed()).map((page) => this.#emulateNetwork(page)));
  }

  async fedCm(handle: string): Promise<FedCmDialogs> {
    const page = await this.#page(handle);
    let dialogs = this.#fedCm.get(page);
    if (!dialogs) {
      dialogs = fedCmDialogs(cdp(page));
      this.#fedCm.set(page, dialogs);
      dialogs.catch(() => this.#fedCm.delete(page));
    }
    return dialogs;
  }

  async fullPageScreenshot(handle: string): Promise<string> {
    const page = await this.#page(handle);
    if (this.#minimized.delete(handle)) await this.#browser.setWindowBounds(await this.#windowId(handle), { windowState: 'normal' });
    return capture.fullPageScreenshot(page);
  }

  async onNetworkRequest(listener: (entry: NetworkEntry) => void): Promise<void> {
    this.#events.onNetworkRequest(listener);
  }

  keepResponseBodies(limits: ResponseBodyLimits): void {
    this.#events.keepResponseBodies(limits);
  }

  onPageError(listener: (error: PageError) => void): void {
    this.#events.onPageError(listener);
  }

  async screencast(handle: string, onFrame: (jpeg: string, timestamp?: number) => void, options?: ScreencastOptions): Promise<() => Promise<void>> {
    return capture.screencast(await this.#page(handle), onFrame, options);
  }

  async printToPdf(handle: string, options: PrintOptions): Promise<string> {
    return capture.printToPdf(await this.#page(handle), options);
  }

  async accessibleNode(context: BrowsingContext, functionDeclaration: string, args: unknown[]): Promise<AccessibleNode> {
    return this.#withObject(context, functionDeclaration, args, false, async (objectId, client) => {
      // As chromedriver: the element's own node (an ignored one too, whose role is "none").
      const { nodes } = await client.send('Accessibility.getPartialAXTree', { objectId, fetchRelatives: false });
      const node = nodes[0];
      return { role: String(node?.role?.value ?? ''), name: String(node?.name?.value ?? '') };
    });
  }

  // ── Cookies (cookies.ts) ─────────────────────────────────────────────────────────────────

  async getCookies(handle: string): Promise<CookieData[]> {
    return cookies.getCookies(await this.#page(handle));
  }

  async setCookie(handle: string, cookie: cookies.NewCookie): Promise<boolean> {
    return cookies.setCookie(await this.#page(handle), cookie);
  }

  async deleteCookies(handle: string, name?: string): Promise<void> {
    return cookies.deleteCookies(await this.#page(handle), name);
  }

  // ── User prompts ─────────────────────────────────────────────────────────────────────────

  /** The primitives that need the page (DrivenBrowser: "User prompts"), guarded by #unblocked. */
  static {
    const proto = NativeContext.prototype as unknown as Record<string, (target: string | BrowsingContext, ...rest: unknown[]) => Promise<unknown>>;
    for (const name of PROMPT_BLOCKED_PRIMITIVES) {
      const primitive = proto[name]!;
      const navigation = (NAVIGATION_PRIMITIVES as readonly string[]).includes(name);
      proto[name] = function (this: NativeContext, target, ...rest) {
        const handle = typeof target === 'string' ? target : target.window;
        return this.#unblocked(handle, navigation, () => primitive.call(this, target, ...rest));
      };
    }
  }

  /** Run a call into the window's page unless a user prompt blocks it, or until one does. */
  #unblocked<T>(handle: string, navigation: boolean, work: () => Promise<T>): Promise<T> {
    return this.#prompts.unblocked(this.#pages.get(handle), navigation, work);
  }

  async userPrompt(handle: string): Promise<UserPrompt | null> {
    const page = this.#pages.get(handle);
    return page && !page.isClosed() ? this.#prompts.current(page) : null;
  }

  async handleUserPrompt(handle: string, accept: boolean, promptText?: string): Promise<boolean> {
    return this.#prompts.handle(await this.#page(handle), accept, promptText);
  }

  onUserPromptOpened(listener: (handle: string, prompt: UserPrompt) => Promise<void> | void): void {
    this.#prompts.onOpened(listener);
  }
}

/** `work`, or a rejection as soon as the browser goes away (a call into a dead browser may never settle). */
function whileConnected<T>(browser: Browser, work: Promise<T>): Promise<T> {
  if (!browser.connected) return Promise.reject(new Error('the browser went away'));
  let off = () => {};
  const gone = new Promise<never>((_, reject) => {
    const listener = () => reject(new Error('the browser went away'));
    browser.once('disconnected', listener);
    off = () => browser.off('disconnected', listener);
  });
  return Promise.race([work, gone]).finally(off);
}

/** The frame a browsing context names: the main frame, or the attached frame with the path's last id. */
function frameOf(page: Page, context: BrowsingContext): Frame {
  const id = context.frames.at(-1);
  if (id === undefined) return page.mainFrame();
  const frame = page.frames().find((f) => frameIdOf(f) === id && !f.detached);
  if (!frame) throw new NoSuchWindowError('the browsing context (a frame) is no longer open');
  return frame;
}

/**
 * A W3C page load timeout (0 to 2^53-1 ms) as puppeteer's: there 0 means "no timeout", and
 * values past the timer range would fire at once.
 */
function puppeteerTimeout(ms: number): number {
  if (ms === 0) return 1;
  return ms > MAX_TIMER_MS ? 0 : ms;
}

/** Node timers overflow (and fire at once) past this many milliseconds. */
const MAX_TIMER_MS = 2 ** 31 - 1;

async function navigation(run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (e) {
    if (e instanceof TimeoutError) throw new NavigationTimeoutError(e.message);
    throw e;
  }
}

/** A failed evaluation: the page's own exception, or the window (or frame) going away. */
function classify(e: unknown, page: Page, frame?: Frame): Error {
  if (page.isClosed()) return new NoSuchWindowError('the window was closed');
  if (frame?.detached) return new NoSuchWindowError('the browsing context (a frame) is no longer open');
  const message = e instanceof Error ? e.message : String(e);
  if (/Target closed|Session closed|No target with given id/i.test(message)) return new NoSuchWindowError(message);
  // The document went away under the call (a navigation): not the page's exception.
  if (e instanceof ProtocolError || /Execution context was destroyed|Cannot find context/i.test(message)) {
    return e instanceof Error ? e : new Error(message);
  }
  return new ScriptError(message);
}
