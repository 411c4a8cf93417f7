// One session's Chromium, driven over the CDP pipe through puppeteer-core. Only primitives live
// here; the W3C rules that use them live in src/webdriver/.
import type { Browser, CDPSession, Frame, JSHandle, KeyInput, Page, Target } from 'puppeteer-core';
import { ProtocolError, TimeoutError } from 'puppeteer-core';
import {
  NavigationTimeoutError,
  NoSuchWindowError,
  ScriptError,
  UserPromptOpenedError,
  InvalidParametersError,
  UnsupportedPrimitiveError,
  type AccessibleNode,
  type PrintOptions,
  type BrowsingContext,
  type CookieData,
  type DrivenBrowser,
  type MouseEventParams,
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
import { isKnownKey, isNamedKey, virtualKeyCode } from './keys.ts';

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

/** User prompts: every primitive that calls into a window's page (its first argument names the window). */
const PROMPT_BLOCKED_PRIMITIVES = [
  'navigate',
  'traverseHistory',
  'reload',
  'waitForPendingNavigation',
  'callFunction',
  'setFileInputFiles',
  'contentFrameId',
  'keyDown',
  'keyUp',
  'mouseEvent',
  'dispatchKeyInput', // Perform Actions input
  'dispatchPointerInput',
  'dispatchTouchInput',
  'dispatchWheelInput',
  'screenshot',
  'printToPdf', // print and accessibility
  'accessibleNode',
] as const satisfies readonly (keyof DrivenBrowser)[];
/** Those that wait for a navigation: cancelled (they resolve) when the page refuses to unload. */
const NAVIGATION_PRIMITIVES = ['navigate', 'traverseHistory', 'reload', 'waitForPendingNavigation'] as const;

export class NativeBrowser implements DrivenBrowser {
  readonly browserName = 'chrome';
  readonly browserVersion: string;
  readonly #browser: Browser;
  readonly #pages = new Map<string, Page>();
  readonly #tracking = new Map<string, Promise<Page | undefined>>();
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
        this.#watchLoading(page);
        this.#watchPrompts(page);
        await this.#emulate(page);
        return page;
      })().finally(() => this.#tracking.delete(handle));
      this.#tracking.set(handle, tracking);
    }
    return tracking;
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
    const frame = frameOf(page, context); // frames: the context's frame, out-of-process ones too
    try {
      return await frame.evaluate(asFunction(functionDeclaration) as never, ...(args as never[]));
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
    use: (objectId: string | undefined, client: CDPSession) => Promise<T>,
  ): Promise<T> {
    const page = await this.#page(context.window);
    const frame = frameOf(page, context);
    try {
      const handle = (await frame.evaluateHandle(asFunction(functionDeclaration) as never, ...(args as never[]))) as JSHandle;
      try {
        return await use(handle.remoteObject().objectId, frameClient(frame));
      } finally {
        void handle.dispose().catch(() => {});
      }
    } catch (e) {
      throw classify(e, page, frame);
    }
  }

  async setFileInputFiles(context: BrowsingContext, functionDeclaration: string, args: unknown[], files: string[]): Promise<void> {
    await this.#withObject(context, functionDeclaration, args, (objectId, client) => client.send('DOM.setFileInputFiles', { objectId, files }));
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

  async contentFrameId(context: BrowsingContext, functionDeclaration: string, args: unknown[]): Promise<string | null> {
    return this.#withObject(context, functionDeclaration, args, async (objectId, client) => {
      if (!objectId) return null;
      // The frame owner's node names its content frame (the id is the same in every process).
      const { node } = await client.send('DOM.describeNode', { objectId });
      return node.frameId ?? null;
    });
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
    if (event.type === 'down') await pressButton(page, options);
    else if (event.type === 'up') await page.mouse.up(options);
  }

  // ── Perform Actions input (the actions chapter; spec §15) ─────────────────────────────────
  // Raw CDP rather than puppeteer's keyboard and mouse, so that key, code, location, buttons,
  // click counts and modifiers are exactly the ones W3C computed.

  async dispatchKeyInput(handle: string, event: KeyInputEvent): Promise<void> {
    const page = await this.#page(handle);
    const keyCode = virtualKeyCode(event.key, event.code);
    const down = event.type === 'keyDown';
    await inputCall(page, () =>
      cdp(page).send('Input.dispatchKeyEvent', {
        // A keyDown with text also fires keypress and types it; a rawKeyDown fires keydown only.
        type: !down ? 'keyUp' : event.text ? 'keyDown' : 'rawKeyDown',
        key: event.key,
        code: event.code,
        location: event.location,
        modifiers: event.modifiers,
        ...(down && event.text && { text: event.text, unmodifiedText: event.text }),
        windowsVirtualKeyCode: keyCode,
        nativeVirtualKeyCode: keyCode,
        autoRepeat: down && event.repeat,
        isKeypad: event.location === 3,
      }),
    );
  }

  async dispatchPointerInput(handle: string, event: PointerInputEvent): Promise<void> {
    const page = await this.#page(handle);
    const type = event.type === 'pointerDown' ? 'mousePressed' : event.type === 'pointerUp' ? 'mouseReleased' : 'mouseMoved';
    // A move names the button held (a drag), as a real mouse's does.
    const button = event.button === undefined ? heldButton(event.buttons) : (MOUSE_BUTTONS[event.button] ?? 'none');
    await inputCall(page, () =>
      cdp(page).send('Input.dispatchMouseEvent', {
        type,
        x: event.x,
        y: event.y,
        modifiers: event.modifiers,
        button,
        buttons: event.buttons,
        clickCount: event.clickCount,
        pointerType: event.pointerType,
        ...(event.pressure !== undefined && { force: event.pressure }),
        ...(event.tangentialPressure !== undefined && { tangentialPressure: event.tangentialPressure }),
        ...(event.tiltX !== undefined && { tiltX: event.tiltX }),
        ...(event.tiltY !== undefined && { tiltY: event.tiltY }),
        ...(event.twist !== undefined && { twist: event.twist }),
      }),
    );
    // Element Click skips moves to where the mouse already is.
    if (event.pointerType === 'mouse') this.#pointer.set(page, { x: event.x, y: event.y });
  }

  async dispatchTouchInput(handle: string, event: TouchInputEvent): Promise<void> {
    const page = await this.#page(handle);
    // CDP compares the points with the previous event's: new ones touch, missing ones lift.
    // touchEnd and touchCancel carry no points (they end every touch).
    const type =
      event.type === 'cancel' ? 'touchCancel' : event.points.length === 0 ? 'touchEnd' : event.type === 'down' ? 'touchStart' : 'touchMove';
    const touchPoints =
      type === 'touchEnd' || type === 'touchCancel'
        ? []
        : event.points.map((p) => ({
            id: p.id,
            x: p.x,
            y: p.y,
            ...(p.width !== undefined && { radiusX: p.width / 2 }),
            ...(p.height !== undefined && { radiusY: p.height / 2 }),
            ...(p.pressure !== undefined && { force: p.pressure }),
            ...(p.tangentialPressure !== undefined && { tangentialPressure: p.tangentialPressure }),
            ...(p.tiltX !== undefined && { tiltX: p.tiltX }),
            ...(p.tiltY !== undefined && { tiltY: p.tiltY }),
            ...(p.twist !== undefined && { twist: p.twist }),
          }));
    await inputCall(page, () => cdp(page).send('Input.dispatchTouchEvent', { type, touchPoints, modifiers: event.modifiers }));
  }

  async dispatchWheelInput(handle: string, event: WheelInputEvent): Promise<void> {
    const page = await this.#page(handle);
    const client = cdp(page);
    const { x, y, deltaX, deltaY, modifiers } = event;
    await inputCall(page, () => client.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x, y, deltaX, deltaY, modifiers, button: 'none' }));
    // The wheel event reaches the page after the call answers (through the compositor): give
    // the page two frames to handle it (a hidden page has no frames: at most 100 ms).
    await inputCall(page, () => client.send('Runtime.evaluate', { expression: WHEEL_SETTLED, awaitPromise: true }));
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

  // ── Print and accessibility ──────────────────────────────────────────────────────────────

  async printToPdf(handle: string, options: PrintOptions): Promise<string> {
    const page = await this.#page(handle);
    const inches = (cm: number) => cm / 2.54;
    try {
      const { data } = await cdp(page).send('Page.printToPDF', {
        landscape: options.landscape,
        printBackground: options.background,
        scale: options.scale,
        paperWidth: inches(options.width),
        paperHeight: inches(options.height),
        marginTop: inches(options.margin.top),
        marginBottom: inches(options.margin.bottom),
        marginLeft: inches(options.margin.left),
        marginRight: inches(options.margin.right),
        // Chromium's syntax: "1-5,8,11-"; ranges past the last page are dropped.
        pageRanges: options.pageRanges.map(({ first, last }) => (last === undefined ? `${first}-` : `${first}-${last}`)).join(','),
        // As chromedriver: not shrinking to fit lets the page's CSS @page size win.
        preferCSSPageSize: !options.shrinkToFit,
        transferMode: 'ReturnAsBase64',
      });
      return data;
    } catch (e) {
      if (page.isClosed()) throw new NoSuchWindowError('the window was closed');
      const message = e instanceof Error ? e.message : String(e);
      if (/page range|print parameters|content area/i.test(message)) throw new InvalidParametersError(message);
      if (/not (implemented|supported|available)/i.test(message)) throw new UnsupportedPrimitiveError(message);
      throw e;
    }
  }

  async accessibleNode(context: BrowsingContext, functionDeclaration: string, args: unknown[]): Promise<AccessibleNode> {
    return this.#withObject(context, functionDeclaration, args, async (objectId, client) => {
      // As chromedriver: the element's own node (an ignored one too, whose role is "none").
      const { nodes } = await client.send('Accessibility.getPartialAXTree', { objectId, fetchRelatives: false });
      const node = nodes[0];
      return { role: String(node?.role?.value ?? ''), name: String(node?.name?.value ?? '') };
    });
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

  // ── User prompts ─────────────────────────────────────────────────────────────────────────
  // A JavaScript dialog blocks its page: CDP calls into it (evaluation, input, navigation) answer
  // only once it is closed. Such calls are cut short when a dialog opens and stays open.

  readonly #prompts = new WeakMap<Page, PromptState>();
  readonly #promptListeners: ((handle: string, prompt: UserPrompt) => Promise<void> | void)[] = [];

  /** The primitives that need the page (DrivenBrowser: "User prompts"), guarded by #unblocked. */
  static {
    const proto = NativeBrowser.prototype as unknown as Record<string, (target: string | BrowsingContext, ...rest: unknown[]) => Promise<unknown>>;
    for (const name of PROMPT_BLOCKED_PRIMITIVES) {
      const primitive = proto[name]!;
      const navigation = (NAVIGATION_PRIMITIVES as readonly string[]).includes(name);
      proto[name] = function (this: NativeBrowser, target, ...rest) {
        const handle = typeof target === 'string' ? target : target.window;
        return this.#unblocked(handle, navigation, () => primitive.call(this, target, ...rest));
      };
    }
  }

  #watchPrompts(page: Page): void {
    const state: PromptState = { current: null, last: null, settled: Promise.resolve(), blocked: new Set(), refusals: 0, navigations: new Set() };
    this.#prompts.set(page, state);
    const client = cdp(page);
    client.on('Page.javascriptDialogOpening', (e) => {
      const prompt: UserPrompt = { type: e.type, message: e.message, defaultValue: e.defaultPrompt ?? '' };
      state.current = prompt;
      state.last = prompt;
      const handle = handleOf(page.target());
      // Listeners may handle it (a beforeunload prompt, say): only a prompt left open cuts calls short.
      const listeners = this.#promptListeners.map((listener) => Promise.resolve().then(() => listener(handle, prompt)));
      state.settled = Promise.allSettled(listeners).then(() => {
        if (state.current !== prompt) return;
        for (const cut of state.blocked) cut(blockedBy(prompt));
      });
    });
    // Closed by us, or by the browser (the page went away).
    client.on('Page.javascriptDialogClosed', (e) => {
      state.current = null;
      if (state.last?.type !== 'beforeunload' || e.result) return;
      // The page refused to unload: the navigation that asked is cancelled, nothing will load.
      state.refusals++;
      for (const watch of state.navigations) watch.end();
      const load = this.#loadStates.get(page);
      if (load?.requested) {
        load.requested = false;
        for (const waiter of load.waiters) waiter();
      }
    });
    // A navigation can also be refused without a prompt (Chromium answers a beforeunload that
    // comes while the last one is still closing with "stay"): the main frame stops loading
    // without a new document. Navigation primitives in flight then end as well.
    const isMain = (frameId: string) => frameIdOf(page.mainFrame()) === frameId;
    const started = (e: { frameId: string }) => {
      if (isMain(e.frameId)) for (const watch of state.navigations) watch.started = true;
    };
    client.on('Page.frameStartedNavigating', started);
    client.on('Page.frameStartedLoading', started);
    client.on('Page.frameNavigated', (e) => {
      if (!e.frame.parentId) for (const watch of state.navigations) watch.committed = true;
    });
    client.on('Page.navigatedWithinDocument', (e) => {
      if (isMain(e.frameId)) for (const watch of state.navigations) watch.committed = true;
    });
    client.on('Page.frameStoppedLoading', (e) => {
      if (!isMain(e.frameId)) return;
      for (const watch of state.navigations) if (watch.started && !watch.committed) watch.end();
    });
  }

  /**
   * Run `work` (a call into the window's page) unless a prompt blocks the page, or until one
   * does. A `navigation` also ends, with nothing to wait for, when the page refuses to unload.
   */
  async #unblocked<T>(handle: string, navigation: boolean, work: () => Promise<T>): Promise<T> {
    const page = this.#pages.get(handle);
    const state = page && this.#prompts.get(page);
    if (!state) return work();
    if (state.current) {
      await state.settled;
      if (state.current) throw blockedBy(state.current);
    }
    let cut!: (e: Error) => void;
    const watch: NavigationWatch = { started: false, committed: false, end: () => {} };
    const ends: Promise<T>[] = [new Promise<never>((_, reject) => (cut = reject))];
    if (navigation) ends.push(new Promise<T>((resolve) => (watch.end = () => resolve(undefined as T))));
    state.blocked.add(cut);
    if (navigation) state.navigations.add(watch);
    const refusals = state.refusals;
    const running = work();
    try {
      return await Promise.race([running, ...ends]);
    } catch (e) {
      // Cancelled by the refusal (Chromium: net::ERR_ABORTED), not failed.
      if (navigation && state.refusals !== refusals && !(e instanceof UserPromptOpenedError)) return undefined as T;
      throw e;
    } finally {
      state.blocked.delete(cut);
      state.navigations.delete(watch);
      running.catch(() => {}); // abandoned: it resumes (and may fail) once the prompt is handled
    }
  }

  async userPrompt(handle: string): Promise<UserPrompt | null> {
    const page = this.#pages.get(handle);
    return (page && !page.isClosed() && this.#prompts.get(page)?.current) || null;
  }

  async handleUserPrompt(handle: string, accept: boolean, promptText?: string): Promise<boolean> {
    const page = await this.#page(handle);
    const state = this.#prompts.get(page);
    const prompt = state?.current;
    if (!state || !prompt) return false;
    promptText ??= prompt.type === 'prompt' ? prompt.defaultValue : undefined;
    try {
      await cdp(page).send('Page.handleJavaScriptDialog', { accept, ...(promptText !== undefined && { promptText }) });
    } catch (e) {
      // Closed meanwhile (its page went away).
      if (!(e instanceof ProtocolError && /No dialog is showing/i.test(e.message))) throw e;
      if (state.current === prompt) state.current = null;
      return false;
    }
    if (state.current === prompt) state.current = null;
    return true;
  }

  onUserPromptOpened(listener: (handle: string, prompt: UserPrompt) => Promise<void> | void): void {
    this.#promptListeners.push(listener);
  }
}

/** A window's dialog, as JavaScriptDialogOpening/Closed events tell. */
interface PromptState {
  current: UserPrompt | null;
  /** The prompt opened last (the one a JavaScriptDialogClosed event is about). */
  last: UserPrompt | null;
  /** Settles once the listeners told of the current prompt have run (they may have closed it). */
  settled: Promise<void>;
  /** Calls into the page in flight: each is cut short if a prompt opens and stays open. */
  blocked: Set<(e: Error) => void>;
  /** beforeunload prompts dismissed so far (navigations refused by the page). */
  refusals: number;
  /** Navigation primitives in flight: each ends when the page refuses to unload. */
  navigations: Set<NavigationWatch>;
}

/** A navigation primitive in flight: whether the main frame started loading, then committed. */
interface NavigationWatch {
  started: boolean;
  committed: boolean;
  /** Resolve the primitive: its navigation was cancelled. */
  end(): void;
}

/**
 * Press a mouse button. One still held (a user prompt opened on its press, and the release
 * never came) is released first, as a user's finger would be.
 */
async function pressButton(page: Page, options: Parameters<Page['mouse']['down']>[0]): Promise<void> {
  try {
    await page.mouse.down(options);
  } catch (e) {
    if (!(e instanceof Error && /is already pressed/.test(e.message))) throw e;
    await page.mouse.up(options);
    await page.mouse.down(options);
  }
}

function blockedBy(prompt: UserPrompt): UserPromptOpenedError {
  return new UserPromptOpenedError(`a ${prompt.type} user prompt is open in this window${prompt.message ? `: ${JSON.stringify(prompt.message)}` : ''}`);
}

/** The page's own CDP session (puppeteer's; internal API, stable across 2x releases). */
function cdp(page: Page): CDPSession {
  return (page as unknown as { _client(): CDPSession })._client();
}

function frameIdOf(frame: Frame): string {
  return (frame as unknown as { _id: string })._id;
}

/** The frame a browsing context names: the main frame, or the attached frame with the path's last id. */
function frameOf(page: Page, context: BrowsingContext): Frame {
  const id = context.frames.at(-1);
  if (id === undefined) return page.mainFrame();
  const frame = page.frames().find((f) => frameIdOf(f) === id && !f.detached);
  if (!frame) throw new NoSuchWindowError('the browsing context (a frame) is no longer open');
  return frame;
}

/** The CDP session of a frame's target: the page's, or an out-of-process iframe's own. */
function frameClient(frame: Frame): CDPSession {
  return (frame as unknown as { client: CDPSession }).client;
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

// ── Perform Actions input helpers (the actions chapter) ──────────────────────────────────────

/** W3C button numbers → CDP's button names. */
const MOUSE_BUTTONS = ['left', 'middle', 'right', 'back', 'forward'] as const;

/** The button a move reports from the buttons held (MouseEvent.buttons bits): the main one first. */
function heldButton(buttons: number): (typeof MOUSE_BUTTONS)[number] | 'none' {
  if (buttons & 1) return 'left';
  if (buttons & 2) return 'right';
  if (buttons & 4) return 'middle';
  if (buttons & 8) return 'back';
  if (buttons & 16) return 'forward';
  return 'none';
}

const WHEEL_SETTLED = 'new Promise((resolve) => { requestAnimationFrame(() => requestAnimationFrame(() => resolve())); setTimeout(resolve, 100); })';

/** An Input call: the window closing under it (a handler closed it) is no such window. */
async function inputCall<T>(page: Page, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (page.isClosed() || /Target closed|Session closed|No target with given id/i.test(message)) throw new NoSuchWindowError('the window was closed');
    throw e;
  }
}
