// One session's browser context through playwright-core's public API (Chromium, and Firefox over
// Playwright's WebDriver BiDi channel). Playwright's own waits and retries never stand in for W3C
// semantics: no locator, no actionability check, no auto-wait; only raw evaluate, mouse and
// keyboard. What Playwright has no way to do is UnsupportedPrimitiveError naming it (the W3C
// layer answers `unsupported operation`), or on Chromium goes through its CDP session.
import type { BrowserContext, CDPSession, Dialog, Frame, JSHandle, Page } from 'playwright-core';
import {
  InvalidParametersError,
  NavigationTimeoutError,
  NoSuchWindowError,
  ScriptError,
  UnsupportedPrimitiveError,
  UserPromptOpenedError,
  type AccessibleNode,
  type BrowserLogEntry,
  type BrowsingContext,
  type FedCmDialogs,
  type NetworkConditions,
  type PermissionDescriptor,
  type PermissionState,
  type VirtualAuthenticators,
  type CallOptions,
  type ConsoleEntry,
  type CookieData,
  type DrivenBrowser,
  type KeyInputEvent,
  type NetworkEntry,
  type ResponseBodyLimits,
  type PageError,
  type PageLoadStrategy,
  type PointerInputEvent,
  type PrintOptions,
  type Rect,
  type ScreenshotFormat,
  type TouchInputEvent,
  type UserPrompt,
  type WheelInputEvent,
  type WindowState,
  type WindowType,
} from '../backend.ts';
import { PromptGuard } from '../prompt-guard.ts';
import { afterNextTask, cookieData, isPrintRefusal, pathMatches } from '../shared.ts';
import { saveDownload } from './downloads.ts';
import { FIREFOX_GAPS, GAPS } from './gaps.ts';
import { PlaywrightInput } from './input.ts';
import { consoleLogEntry, pageErrorLogEntry, PlaywrightExtensions } from './extensions.ts';
import { followMainFrameLoading } from './loading.ts';
import { PlaywrightNetwork } from './network.ts';
import { BEFOREUNLOAD_WATCH, PendingNavigations } from './pending.ts';
import { UtilityWorld } from './utility.ts';

export type Engine = 'chromium' | 'firefox';

const WAIT_UNTIL = { none: 'commit', eager: 'domcontentloaded', normal: 'load' } as const;
/** How long input waits for the page's next task (see waitForPendingNavigation). */
const PROMPT_EVENT_BOUND_MS = 2_000;

/** Per page: its window handle, and its last failed navigation. */
interface PageState {
  handle: string;
  /** A navigation that failed: the URL it was for, and what the page said its URL was then. */
  failed?: { url: string; shown: string };
  /** A Navigate To answered at its start (strategy "none"): settles once its document commits (or it fails). */
  document?: Promise<void>;
}

export class PlaywrightContext implements DrivenBrowser {
  readonly browserName: string;
  readonly browserVersion: string;
  readonly initialWindow: string;
  readonly #context: BrowserContext;
  readonly #engine: Engine;
  readonly #pages = new Map<string, Page>();
  readonly #states = new WeakMap<Page, PageState>();
  readonly #frameIds = new WeakMap<Frame, string>();
  readonly #frames = new Map<string, Frame>();
  readonly #libraries = new WeakMap<Frame, Map<string, Promise<JSHandle>>>();
  /** The gateway's own world beside each document's (CallOptions.isolated). */
  readonly #utility = new UtilityWorld();
  readonly #unlisten: (() => void)[] = [];
  readonly #prompts = new PromptGuard<Page>();
  readonly #input: PlaywrightInput;
  readonly #pendingNavigations = new PendingNavigations();
  /** Firefox: when the input a command sends began (Date.now()), until its wait for a navigation. */
  readonly #inputAt = new WeakMap<Page, number>();
  readonly #consoleListeners: ((entry: ConsoleEntry) => void)[] = [];
  readonly #pageErrorListeners: ((error: PageError) => void)[] = [];
  readonly #browserLogListeners: ((entry: BrowserLogEntry) => void)[] = [];
  readonly #network: PlaywrightNetwork;
  readonly #extensions: PlaywrightExtensions;
  readonly virtualAuthenticators?: (handle: string) => Promise<VirtualAuthenticators>;
  readonly fedCm?: (handle: string) => Promise<FedCmDialogs>;
  #nextId = 0;
  #closed = false;
  #downloads: string | undefined;

  private constructor(context: BrowserContext, engine: Engine, version: string, first: Page) {
    this.#context = context;
    this.#engine = engine;
    this.#input = new PlaywrightInput(context, engine, (page, work) => this.#unblocked(page, async () => (await this.#beforeInput(page), await work())));
    this.#network = new PlaywrightNetwork(context, (page) => this.#states.get(page)?.handle);
    this.#extensions = new PlaywrightExtensions(context, engine);
    // Chromium's own automation (its DevTools protocol): absent on Firefox, so that New Session
    // answers no capability of them there.
    if (engine === 'chromium') {
      this.virtualAuthenticators = async (handle) => this.#extensions.virtualAuthenticators(this.#page(handle));
      this.fedCm = async (handle) => this.#extensions.fedCm(this.#page(handle));
    }
    this.browserName = engine === 'firefox' ? 'firefox' : 'chrome';
    this.browserVersion = version;
    this.initialWindow = this.#track(first);
    context.on('page', (page) => void this.#track(page));
  }

  static async open(context: BrowserContext, engine: Engine, version: string): Promise<PlaywrightContext> {
    const first = await context.newPage();
    return new PlaywrightContext(context, engine, version, first);
  }

  /** A window handle for a page, once; its dialogs followed from now on. */
  #track(page: Page): string {
    const known = this.#states.get(page);
    if (known) return known.handle;
    const handle = `pw-${(this.#nextId++).toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    const state: PageState = { handle };
    this.#states.set(page, state);
    this.#pages.set(handle, page);
    page.on('close', () => this.#pages.delete(handle));
    this.#prompts.watch(page);
    if (this.#engine === 'chromium') void followMainFrameLoading(this.#context, page, this.#prompts).catch(() => {});
    this.#pendingNavigations.watch(page);
    page.on('dialog', (dialog) => this.#dialogOpened(page, handle, dialog));
    page.on('console', (message) => {
      for (const listener of this.#consoleListeners) listener({ level: message.type(), text: message.text(), window: handle, timestamp: Date.now() });
      const entry = this.#browserLogListeners.length ? consoleLogEntry(message) : undefined;
      if (entry) for (const listener of this.#browserLogListeners) listener(entry);
    });
    void this.#extensions.emulateOn(page).catch(() => {});
    page.on('pageerror', (error) => {
      if (this.#browserLogListeners.length) for (const listener of this.#browserLogListeners) listener(pageErrorLogEntry(error));
      if (!this.#pageErrorListeners.length) return;
      // As the engine's own log writes it: "Error: boom".
      const pageError: PageError = { message: error.name ? `${error.name}: ${error.message}` : error.message, ...(error.stack && { stack: error.stack }), window: handle, timestamp: Date.now() };
      for (const listener of this.#pageErrorListeners) listener(pageError);
    });
    page.on('download', (download) => {
      if (this.#downloads) void saveDownload(download, this.#downloads);
    });
    return handle;
  }

  /** Playwright has no "closed" event: the guard hears of the closing from the close itself. */
  #dialogOpened(page: Page, handle: string, dialog: Dialog): void {
    const prompt: UserPrompt = { type: dialog.type() as UserPrompt['type'], message: dialog.message(), defaultValue: dialog.defaultValue() };
    const unloaded = prompt.type === 'beforeunload' ? this.#pendingNavigations.unloading(page) : undefined;
    this.#prompts.opened(page, handle, prompt, async (accept, promptText) => {
      const closing = accept ? dialog.accept(promptText ?? dialog.defaultValue()) : dialog.dismiss();
      const closed = await closing.then(
        () => true,
        () => false,
      );
      unloaded?.(accept && closed);
      this.#prompts.closed(page, accept);
      return closed;
    });
  }

  onConsoleMessage(listener: (entry: ConsoleEntry) => void): void {
    this.#consoleListeners.push(listener);
  }

  async onNetworkRequest(listener: (entry: NetworkEntry) => void): Promise<void> {
    if (!this.#closed) this.#network.listen(listener);
  }

  keepResponseBodies(limits: ResponseBodyLimits): void {
    this.#network.keepBodies(limits);
  }

  onPageError(listener: (error: PageError) => void): void {
    this.#pageErrorListeners.push(listener);
  }

  // ── Extension commands beside the W3C core (./extensions.ts) ───────────────────────────

  onBrowserLog(listener: (entry: BrowserLogEntry) => void): void {
    this.#browserLogListeners.push(listener);
  }

  async setPermission(handle: string, descriptor: PermissionDescriptor, state: PermissionState, origin: string): Promise<void> {
    await this.#extensions.setPermission(this.#page(handle), descriptor, state, origin);
  }


  async emulateNetworkConditions(conditions: NetworkConditions | null): Promise<void> {
    await this.#extensions.emulateNetworkConditions([...this.#pages.values()].filter((page) => !page.isClosed()), conditions);
  }

  async fullPageScreenshot(handle: string): Promise<string> {
    const page = this.#page(handle);
    const image = await this.#unblocked(page, () => page.screenshot({ type: 'png', fullPage: true, animations: 'allow', caret: 'initial', scale: 'css' }));
    return image.toString('base64');
  }

  async saveDownloadsTo(directory: string): Promise<void> {
    this.#downloads = directory;
  }

  /**
   * Run a call into the page unless a prompt blocks it, or until one opens and stays open; in the
   * document a Navigate To answered at its start brings, once it committed (as on Chromium, whose
   * next command acts on the new document, not on the old one still shown).
   */
  async #unblocked<T>(page: Page, work: () => Promise<T>): Promise<T> {
    await this.#states.get(page)?.document;
    return this.#prompts.unblocked(page, false, work);
  }

  #page(handle: string): Page {
    const page = this.#pages.get(handle);
    if (!page || page.isClosed()) throw new NoSuchWindowError(`no window with handle ${handle}`);
    return page;
  }

  #frameId(frame: Frame): string {
    let id = this.#frameIds.get(frame);
    if (!id) {
      id = `frame-${(this.#nextId++).toString(36)}`;
      this.#frameIds.set(frame, id);
      this.#frames.set(id, frame);
    }
    return id;
  }

  #frame(context: BrowsingContext): { page: Page; frame: Frame } {
    const page = this.#page(context.window);
    const id = context.frames.at(-1);
    if (id === undefined) return { page, frame: page.mainFrame() };
    const frame = this.#frames.get(id);
    if (!frame || frame.isDetached() || frame.page() !== page) throw new NoSuchWindowError('the browsing context (a frame) is no longer open');
    return { page, frame };
  }

  async #cdp(page: Page, what: string): Promise<CDPSession> {
    if (this.#engine !== 'chromium') throw new UnsupportedPrimitiveError(`${what}: ${FIREFOX_GAPS.windowBounds}`);
    return this.#context.newCDPSession(page);
  }

  onDisconnected(listener: () => void): void {
    const browser = this.#context.browser();
    const gone = () => {
      if (!this.#closed) listener();
    };
    browser?.on('disconnected', gone);
    // The browser outlives this context: its listener goes with the context.
    this.#unlisten.push(() => browser?.off('disconnected', gone));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const unlisten of this.#unlisten.splice(0)) unlisten();
    this.#network.close();
    this.#extensions.close();
    await this.#context.close().catch(() => {});
  }

  // ── Windows ──────────────────────────────────────────────────────────────────────────────

  async windowHandles(): Promise<string[]> {
    for (const page of this.#context.pages()) this.#track(page);
    return [...this.#pages.entries()].filter(([, page]) => !page.isClosed()).map(([handle]) => handle);
  }

  async newWindow(type: WindowType): Promise<string> {
    if (type === 'window' && this.#engine === 'chromium') {
      // Playwright opens tabs of one window; a window of its own (its own bounds) comes from
      // Chromium's Target.createTarget in this context, which Playwright then reports as a page.
      const opener = this.#context.pages()[0];
      if (opener) {
        const cdp = await this.#context.newCDPSession(opener);
        try {
          const { targetInfo } = await cdp.send('Target.getTargetInfo');
          const opened = this.#context.waitForEvent('page', { timeout: 10_000 });
          await cdp.send('Target.createTarget', { url: 'about:blank', newWindow: true, background: true, browserContextId: targetInfo.browserContextId });
          return this.#track(await opened);
        } finally {
          void cdp.detach().catch(() => {});
        }
      }
    }
    return this.#track(await this.#context.newPage());
  }

  async closeWindow(handle: string): Promise<void> {
    await this.#page(handle).close();
    this.#pages.delete(handle);
  }

  async activateWindow(handle: string): Promise<void> {
    await this.#page(handle).bringToFront();
  }

  async getWindowRect(handle: string): Promise<Rect> {
    const page = this.#page(handle);
    if (this.#engine === 'chromium') {
      const cdp = await this.#cdp(page, 'window bounds');
      const { windowId } = await cdp.send('Browser.getWindowForTarget');
      const { bounds } = await cdp.send('Browser.getWindowBounds', { windowId });
      void cdp.detach().catch(() => {});
      return { x: bounds.left ?? 0, y: bounds.top ?? 0, width: bounds.width ?? 0, height: bounds.height ?? 0 };
    }
    const [x, y, width, height] = (await this.#unblocked(page, () => page.evaluate('[screenX, screenY, outerWidth, outerHeight]'))) as number[];
    return { x: x!, y: y!, width: width!, height: height! };
  }

  async setWindowRect(handle: string, rect: Partial<Rect>): Promise<void> {
    const cdp = await this.#cdp(this.#page(handle), 'setting the window rect');
    const { windowId } = await cdp.send('Browser.getWindowForTarget');
    await cdp.send('Browser.setWindowBounds', { windowId, bounds: { windowState: 'normal' } });
    await cdp.send('Browser.setWindowBounds', { windowId, bounds: { left: rect.x, top: rect.y, width: rect.width, height: rect.height } });
    void cdp.detach().catch(() => {});
  }

  async getWindowState(handle: string): Promise<WindowState> {
    const page = this.#page(handle);
    if (this.#engine !== 'chromium') return 'normal';
    const cdp = await this.#cdp(page, 'window state');
    const { windowId } = await cdp.send('Browser.getWindowForTarget');
    const { bounds } = await cdp.send('Browser.getWindowBounds', { windowId });
    void cdp.detach().catch(() => {});
    return (bounds.windowState ?? 'normal') as WindowState;
  }

  async setWindowState(handle: string, state: WindowState): Promise<void> {
    const cdp = await this.#cdp(this.#page(handle), 'setting the window state');
    const { windowId } = await cdp.send('Browser.getWindowForTarget');
    await cdp.send('Browser.setWindowBounds', { windowId, bounds: { windowState: state } });
    void cdp.detach().catch(() => {});
  }

  // ── Navigation ───────────────────────────────────────────────────────────────────────────

  async #navigation(page: Page, run: () => Promise<unknown>, url?: string): Promise<void> {
    const state = this.#states.get(page)!;
    try {
      // Undefined when the page refused to unload (beforeunload dismissed): the document stays.
      const done = await this.#prompts.unblocked(page, true, async () => (await run(), true));
      if (done && url !== undefined) state.failed = undefined;
    } catch (e) {
      if (e instanceof UserPromptOpenedError || e instanceof NoSuchWindowError || e instanceof NavigationTimeoutError) throw e;
      const message = e instanceof Error ? e.message : String(e);
      if (/Timeout \d+ms exceeded/.test(message)) throw new NavigationTimeoutError(message);
      // A navigation replaced by another, or refused by the page (Firefox says so): the document stays.
      if (/NS_BINDING_ABORTED|net::ERR_ABORTED|navigation.*(interrupted|aborted)|Beforeunload prompt was rejected/i.test(message)) return;
      if (url !== undefined && /net::ERR_|NS_ERROR_/.test(message)) state.failed = { url, shown: page.url() };
      throw new Error(playwrightMessage(message));
    }
  }

  async navigate(handle: string, url: string, strategy: PageLoadStrategy, timeoutMs: number): Promise<void> {
    const page = this.#page(handle);
    const timeout = playwrightTimeout(timeoutMs);
    if (strategy !== 'none') return this.#navigation(page, () => page.goto(url, { waitUntil: WAIT_UNTIL[strategy], timeout }), url);
    // Spec "none": answer once the navigation has begun, not when it commits (the response may be held).
    const going = page.goto(url, { waitUntil: 'commit', timeout });
    going.catch(() => {});
    const state = this.#states.get(page)!;
    const document = going.then(
      () => {},
      () => {},
    );
    state.document = document;
    void document.then(() => {
      if (state.document === document) state.document = undefined;
    });
    const requested = page.waitForRequest((r) => r.isNavigationRequest() && r.frame() === page.mainFrame(), { timeout: Math.min(timeout || 10_000, 10_000) });
    requested.catch(() => {});
    await this.#navigation(page, () => Promise.race([going, requested]), url);
  }

  async traverseHistory(handle: string, delta: -1 | 1, strategy: PageLoadStrategy, timeoutMs: number): Promise<void> {
    const page = this.#page(handle);
    const options = { waitUntil: WAIT_UNTIL[strategy], timeout: playwrightTimeout(timeoutMs) };
    await this.#navigation(page, async () => {
      // Playwright does not see Firefox traverse within a document (to or from a fragment): its
      // goBack waits for a load that never comes. The page's Navigation API does it and says when.
      if (this.#engine === 'firefox' && (await page.evaluate(asFunction(SAME_DOCUMENT_TRAVERSAL), delta))) return;
      await (delta < 0 ? page.goBack(options) : page.goForward(options));
    });
  }

  async reload(handle: string, strategy: PageLoadStrategy, timeoutMs: number): Promise<void> {
    const page = this.#page(handle);
    await this.#navigation(page, () => page.reload({ waitUntil: WAIT_UNTIL[strategy], timeout: playwrightTimeout(timeoutMs) }));
  }

  async waitForPendingNavigation(handle: string, strategy: PageLoadStrategy, timeoutMs: number): Promise<void> {
    const page = this.#pages.get(handle);
    const since = page && this.#inputAt.get(page);
    if (page) this.#inputAt.delete(page);
    // The input closed its own window (a link to window.close()): nothing to wait for.
    if (strategy === 'none' || !page || page.isClosed()) return;
    // A navigation the last input started must reach the request events first. A link's
    // navigation that asks beforeunload first holds the page's next task until its prompt is
    // answered, which needs the prompt's event (Firefox: it can come well after 100 ms under
    // load), so the bound is longer; a prompt that stays open ends the wait (the guard).
    await afterNextTask((expression) => this.#unblocked(page, () => page.evaluate(expression)), PROMPT_EVENT_BOUND_MS);
    // Firefox may report the request later still: the document says whether a navigation began.
    if (since !== undefined) {
      const at = await this.#unblocked(page, () => this.#utility.call(page.mainFrame(), BEFOREUNLOAD_WATCH, 'function () { return this.beforeUnloadAt(); }', [])).catch(() => 0);
      if (typeof at === 'number') this.#pendingNavigations.begun(page, since, at);
    }
    try {
      await this.#navigation(page, async () => {
        if (!(await this.#pendingNavigations.settled(page, timeoutMs))) throw new NavigationTimeoutError(`navigation did not finish within ${timeoutMs} ms`);
        await page.waitForLoadState(WAIT_UNTIL[strategy] as 'load' | 'domcontentloaded', { timeout: playwrightTimeout(timeoutMs) });
      });
    } catch (e) {
      // The input closed its own window (a link to window.close()): nothing to wait for.
      if (!page.isClosed()) throw e;
    }
  }

  /**
   * Firefox: before a command's first input, the watch on the document's beforeunload (once per
   * document, in the utility world) and the input's time, for waitForPendingNavigation.
   */
  async #beforeInput(page: Page): Promise<void> {
    if (this.#engine !== 'firefox' || this.#inputAt.has(page)) return;
    // A document going away under it has no navigation to tell of: the time is what matters.
    await this.#utility.install(page.mainFrame(), BEFOREUNLOAD_WATCH).catch(() => {});
    this.#inputAt.set(page, Date.now());
  }

  async currentUrl(handle: string): Promise<string> {
    const page = this.#page(handle);
    // Firefox: Playwright misses same-document traversals (above); the document knows its URL.
    const url = this.#engine === 'firefox' ? await this.#documentUrl(page) : page.url();
    // After a failed navigation the document is the browser's error page; its URL is the one asked
    // for (as chromedriver answers), until the page goes elsewhere.
    const failed = this.#states.get(page)?.failed;
    return failed && (failed.shown === url || /^(chrome-error:|about:neterror)/.test(url)) ? failed.url : url;
  }

  /** The document's URL; a read the document went away under (a navigation committing) is read again. */
  async #documentUrl(page: Page): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.#unblocked(page, () => page.evaluate('location.href'))) as string;
      } catch (e) {
        if (attempt === 3 || page.isClosed() || !/Execution context was destroyed|Cannot find context/i.test(String(e))) throw this.#classify(e, page);
      }
    }
  }

  // ── Script ───────────────────────────────────────────────────────────────────────────────

  /** The library compiled once per document of the frame (a new document: compiled again). */
  #library(frame: Frame, library: string): Promise<JSHandle> {
    let installed = this.#libraries.get(frame);
    if (!installed) {
      installed = new Map();
      this.#libraries.set(frame, installed);
      const forget = installed;
      frame.page().on('framenavigated', (navigated) => navigated === frame && forget.clear());
    }
    let handle = installed.get(library);
    if (!handle) {
      handle = frame.evaluateHandle(`(${library})`);
      const current = installed;
      handle.catch(() => current.delete(library));
      installed.set(library, handle);
    }
    return handle;
  }

  async callFunction(context: BrowsingContext, functionDeclaration: string, args: unknown[], options: CallOptions = {}): Promise<unknown> {
    const { page, frame } = this.#frame(context);
    const call = `(library, args) => (${functionDeclaration}).apply(library, args)`;
    try {
      return await this.#unblocked(page, async () => {
        if (options.isolated) return this.#utility.call(frame, options.library, functionDeclaration, args);
        if (!options.library) return frame.evaluate(asFunction(`(args) => (${functionDeclaration}).apply(window, args)`), args);
        for (let attempt = 0; ; attempt++) {
          const library = await this.#library(frame, options.library);
          try {
            return await library.evaluate(asFunction(call), args);
          } catch (e) {
            // The document the library lived in was gone before the call: compile it in the new
            // one, once. Not when the document went during the call ("Execution context was
            // destroyed"): the call may have run, and a user's script must never run twice.
            if (attempt === 0 && /disposed|Cannot find context|object.*(not found|stale)/i.test(String(e))) {
              this.#libraries.get(frame)?.delete(options.library);
              continue;
            }
            throw e;
          }
        }
      });
    } catch (e) {
      throw this.#classify(e, page, frame);
    }
  }

  /** A page exception is a ScriptError; a window or frame gone is NoSuchWindowError. */
  #classify(e: unknown, page: Page, frame?: Frame): Error {
    if (e instanceof UserPromptOpenedError || e instanceof NoSuchWindowError || e instanceof UnsupportedPrimitiveError) return e;
    if (page.isClosed()) return new NoSuchWindowError('the window was closed');
    if (frame?.isDetached()) return new NoSuchWindowError('the browsing context (a frame) is no longer open');
    const message = playwrightMessage(e instanceof Error ? e.message : String(e));
    if (/Target (page, context or browser )?(has been )?closed|Browser has been closed/i.test(message)) return new NoSuchWindowError(message);
    if (/Execution context was destroyed|Cannot find context|disposed/i.test(message)) return new Error(message);
    return new ScriptError(message.split('\n')[0]!);
  }

  async #element<T>(context: BrowsingContext, functionDeclaration: string, args: unknown[], use: (element: JSHandle, page: Page, frame: Frame) => Promise<T>): Promise<T> {
    const { page, frame } = this.#frame(context);
    try {
      return await this.#unblocked(page, async () => {
        const handle = await frame.evaluateHandle(asFunction(`(args) => (${functionDeclaration}).apply(window, args)`), args);
        try {
          return await use(handle, page, frame);
        } finally {
          void handle.dispose().catch(() => {});
        }
      });
    } catch (e) {
      throw this.#classify(e, page, frame);
    }
  }

  async setFileInputFiles(context: BrowsingContext, functionDeclaration: string, args: unknown[], files: string[]): Promise<void> {
    await this.#element(context, functionDeclaration, args, async (handle) => {
      const element = handle.asElement();
      if (!element) throw new Error('not an element');
      await element.setInputFiles(files);
    });
  }

  async frameOpen(handle: string, frameId: string): Promise<boolean> {
    const page = this.#page(handle);
    const frame = this.#frames.get(frameId);
    if (!frame || frame.page() !== page || frame.isDetached()) return false;
    // Asked of the page now (the detach event may come after the command that removed it).
    const parent = frame.parentFrame();
    if (!parent || parent.isDetached()) return false;
    try {
      const element = await this.#unblocked(page, () => frame.frameElement());
      const attached = await element.evaluate(asFunction('(e) => e.isConnected'));
      void element.dispose().catch(() => {});
      return attached === true && !frame.isDetached();
    } catch (e) {
      if (e instanceof UserPromptOpenedError) return !frame.isDetached();
      return false;
    }
  }

  async contentFrameId(context: BrowsingContext, functionDeclaration: string, args: unknown[], options: Pick<CallOptions, 'isolated'> = {}): Promise<string | null> {
    if (options.isolated) {
      const { page, frame } = this.#frame(context);
      try {
        const inner = await this.#unblocked(page, () => this.#utility.contentFrame(frame, frame.childFrames(), functionDeclaration, args));
        return inner ? this.#frameId(inner) : null;
      } catch (e) {
        throw this.#classify(e, page, frame);
      }
    }
    return this.#element(context, functionDeclaration, args, async (handle) => {
      const frame = await handle.asElement()?.contentFrame();
      return frame ? this.#frameId(frame) : null;
    });
  }

  // ── Input (./input.ts) ───────────────────────────────────────────────────────────────────

  async dispatchKeyInput(handle: string, event: KeyInputEvent): Promise<void> {
    await this.#input.key(this.#page(handle), event);
  }

  async dispatchPointerInput(handle: string, event: PointerInputEvent): Promise<void> {
    await this.#input.pointer(this.#page(handle), event);
  }

  async dispatchTouchInput(handle: string, _event: TouchInputEvent): Promise<void> {
    this.#page(handle);
    throw new UnsupportedPrimitiveError(GAPS.touchInput);
  }

  async dispatchWheelInput(handle: string, event: WheelInputEvent): Promise<void> {
    await this.#input.wheel(this.#page(handle), event);
  }

  // ── Capture, print, accessibility ────────────────────────────────────────────────────────

  async screenshot(handle: string, clip?: Rect, format?: ScreenshotFormat): Promise<string> {
    const page = this.#page(handle);
    const type = format?.type === 'jpeg' ? { type: 'jpeg' as const, quality: format.quality } : { type: 'png' as const };
    const image = await this.#unblocked(page, () => page.screenshot({ ...type, ...(clip && { clip }), animations: 'allow', caret: 'initial', scale: 'css' }));
    return image.toString('base64');
  }

  async printToPdf(handle: string, options: PrintOptions): Promise<string> {
    const page = this.#page(handle);
    const pdf = await this.#unblocked(page, () =>
      page
        .pdf({
          landscape: options.landscape,
          printBackground: options.background,
          scale: options.scale,
          width: `${options.width}cm`,
          height: `${options.height}cm`,
          margin: { top: `${options.margin.top}cm`, bottom: `${options.margin.bottom}cm`, left: `${options.margin.left}cm`, right: `${options.margin.right}cm` },
          pageRanges: options.pageRanges.map(({ first, last }) => (last === undefined ? `${first}-` : `${first}-${last}`)).join(','),
          preferCSSPageSize: !options.shrinkToFit,
        })
        .catch((e: unknown) => {
          const message = playwrightMessage(e instanceof Error ? e.message : String(e));
          throw isPrintRefusal(message) ? new InvalidParametersError(message) : e;
        }),
    );
    return pdf.toString('base64');
  }

  async accessibleNode(context: BrowsingContext, functionDeclaration: string, args: unknown[]): Promise<AccessibleNode> {
    // The element is checked first (no such element, stale): only a good one meets the gap.
    return this.#element(context, functionDeclaration, args, async () => {
      throw new UnsupportedPrimitiveError(GAPS.computedRole);
    });
  }

  // ── Cookies ──────────────────────────────────────────────────────────────────────────────

  /** The cookies the window's current document sees: Playwright matches domain and scheme, not path. */
  async #visibleCookies(page: Page) {
    const url = new URL(page.url());
    return (await this.#context.cookies(url.href)).filter((c) => pathMatches(url.pathname, c.path));
  }

  async getCookies(handle: string): Promise<CookieData[]> {
    return (await this.#visibleCookies(this.#page(handle))).map(cookieData);
  }

  async setCookie(handle: string, cookie: Parameters<DrivenBrowser['setCookie']>[1]): Promise<boolean> {
    const page = this.#page(handle);
    const url = new URL(page.url());
    const path = cookie.path || '/';
    try {
      await this.#context.addCookies([
        {
          name: cookie.name,
          value: cookie.value,
          // Domain and path as given (a `url` would make Playwright derive the path from it).
          domain: cookie.domain ?? url.hostname,
          path,
          secure: cookie.secure,
          httpOnly: cookie.httpOnly,
          ...(cookie.expiry !== undefined && { expires: cookie.expiry }),
          ...(cookie.sameSite && { sameSite: cookie.sameSite }),
        },
      ]);
    } catch {
      return false;
    }
    // A browser may drop a cookie without an error: it was set only if it is there now (one
    // already expired is set by removing its namesake, and is not there by design).
    if (cookie.expiry !== undefined && cookie.expiry * 1000 <= Date.now()) return true;
    const host = (cookie.domain ?? url.hostname).replace(/^\./, '');
    return (await this.#context.cookies()).some((c) => c.name === cookie.name && c.path === path && c.domain.replace(/^\./, '') === host);
  }

  async deleteCookies(handle: string, name?: string): Promise<void> {
    // Only the cookies the current document sees, as the spec asks.
    for (const cookie of await this.#visibleCookies(this.#page(handle))) {
      if (name === undefined || cookie.name === name) await this.#context.clearCookies({ name: cookie.name, domain: cookie.domain, path: cookie.path });
    }
  }

  // ── User prompts ─────────────────────────────────────────────────────────────────────────

  async userPrompt(handle: string): Promise<UserPrompt | null> {
    return this.#prompts.current(this.#page(handle));
  }

  async handleUserPrompt(handle: string, accept: boolean, promptText?: string): Promise<boolean> {
    return this.#prompts.handle(this.#page(handle), accept, promptText);
  }

  onUserPromptOpened(listener: (handle: string, prompt: UserPrompt) => Promise<void> | void): void {
    this.#prompts.onOpened(listener);
  }
}

/**
 * A function Playwright sends as the source we give: its evaluate takes a string as an expression
 * (never called with the argument), a function by its source text.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function asFunction(source: string): (...args: any[]) => any {
  const fn = () => undefined;
  fn.toString = () => source;
  return fn;
}

/** A Playwright error's message without its API prefix ("page.goto: ") and its call log. */
function playwrightMessage(message: string): string {
  return message
    .replace(/^\w+\.\w+: /, '')
    .split(/\n\s*Call log:/)[0]!
    .replace(/\x1B\[[0-9;]*m/g, '')
    .trim();
}

/** A W3C page load timeout as Playwright's: there 0 means "no timeout". */
function playwrightTimeout(ms: number): number {
  return ms === 0 ? 1 : ms > 2 ** 31 - 1 ? 0 : ms;
}

/**
 * Traverse history by `delta` within the document, when the entry there is of this document:
 * true once done; false when it is not (another document, or no entry), leaving it to goBack.
 */
const SAME_DOCUMENT_TRAVERSAL = `async (delta) => {
  if (typeof navigation === 'undefined' || !navigation.currentEntry) return false;
  const entry = navigation.entries()[navigation.currentEntry.index + delta];
  if (!entry || !entry.sameDocument) return false;
  await navigation.traverseTo(entry.key).finished;
  return true;
}`;
