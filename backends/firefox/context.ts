// One session's part of a Firefox process, over WebDriver BiDi: a user context of its own, and
// the backend primitives as BiDi commands on the session's channel of the process's one BiDi
// session (./hub.ts). Window handles and frame ids are BiDi browsing context ids, so a classic
// handle is the BiDi context of the same window, as the spec asks.
import {
  InvalidParametersError,
  NavigationTimeoutError,
  NoSuchWindowError,
  ScriptError,
  UnsupportedPrimitiveError,
  UserPromptOpenedError,
  type AccessibleNode,
  type BidiEndpoint,
  type BrowserLogEntry,
  type NetworkConditions,
  type PermissionDescriptor,
  type PermissionState,
  type BidiOptions,
  type BrowsingContext,
  type CallOptions,
  type ConsoleEntry,
  type CookieData,
  type DrivenBrowser,
  type KeyInputEvent,
  type NetworkEntry,
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
import { isPrintRefusal, WHEEL_SETTLED, withinBound } from '../shared.ts';
import { FirefoxCookies } from './cookies.ts';
import { FirefoxDownloads } from './downloads.ts';
import * as extensions from './extensions.ts';
import { BIDI_GAPS } from './gaps.ts';
import { FirefoxBidiEndpoint, type SessionSide } from './endpoint.ts';
import { CredentialsPrompts } from './credentials.ts';
import { BidiError, type BidiHub, type BidiMessage, type Channel, type CredentialsRequest, type TreeNode } from './hub.ts';
import { keyActions, MouseSource, pointerActions, touchActions, wheelActions } from './input.ts';
import { Loading } from './loading.ts';
import { FirefoxNetwork, NETWORK_EVENTS, type NetworkEvent } from './network.ts';
import { FIREFOX_WINDOW } from './options.ts';
import { exceptionText, FirefoxScripts, stackTraceText } from './script.ts';
import { jsonValue, localValue } from './values.ts';

const WAIT = { none: 'none', eager: 'interactive', normal: 'complete' } as const;
/** How long input waits for the page's next task (a navigation it started, a prompt's event). */
const NEXT_TASK_BOUND_MS = 2_000;
/** The events the classic primitives follow, for the session's user context. */
const EVENTS = ['browsingContext', 'script.realmDestroyed', 'log.entryAdded'];

/** A top-level window of the session: the prompt guard's page, and its loading. */
interface Window {
  readonly handle: string;
  readonly loading: Loading;
  readonly touching: Set<number>;
  readonly mouse: MouseSource;
  /** Prompts the gateway closed whose userPromptClosed event has not come yet. */
  closedByUs: number;
  /** When the last input was sent (Date.now()): a beforeunload since then is the input's navigation. */
  inputAt?: number;
  /** Navigations started before the last input (Loading.startedCount). */
  startedBeforeInput?: number;
  /** A navigation that failed: the URL it was for. */
  failed?: string;
}

export class FirefoxContext implements DrivenBrowser {
  readonly browserName = 'firefox';
  readonly browserVersion: string;
  readonly initialWindow: string;
  readonly #hub: BidiHub;
  readonly #channel: Channel;
  readonly #userContext: string;
  readonly #windows = new Map<string, Window>();
  readonly #prompts = new PromptGuard<Window>();
  readonly #credentials: CredentialsPrompts<Window>;
  readonly #scripts: FirefoxScripts;
  readonly #cookies: FirefoxCookies;
  readonly #downloads: FirefoxDownloads;
  readonly #consoleListeners: ((entry: ConsoleEntry) => void)[] = [];
  readonly #pageErrorListeners: ((error: PageError) => void)[] = [];
  readonly #browserLogListeners: ((entry: BrowserLogEntry) => void)[] = [];
  readonly #network: FirefoxNetwork;
  /** The window switched to last (Switch To Window): a new tab opens in its OS window. */
  #activated: string;
  /** The network events' subscription, made for the first listener. */
  #networkSubscribed: Promise<void> | undefined;
  #closed = false;

  private constructor(hub: BidiHub, channel: Channel, userContext: string, version: string, first: string) {
    this.#hub = hub;
    this.#channel = channel;
    this.#userContext = userContext;
    this.browserVersion = version;
    this.initialWindow = first;
    this.#activated = first;
    this.#credentials = new CredentialsPrompts(channel);
    this.#scripts = new FirefoxScripts(hub, channel, (e) => this.#classify(e));
    this.#cookies = new FirefoxCookies(channel, (handle) => this.currentUrl(handle), (handle) => hub.userContextOf(handle)!);
    this.#downloads = new FirefoxDownloads(channel, userContext);
    this.#network = new FirefoxNetwork((context) => hub.topLevel(context));
    this.#window(first);
    channel.onEvent((message) => this.#event(message));
    channel.promptForCredentials = (request) => void this.#credentialsRequested(request);
  }

  /** A user context of its own with one window in it. */
  static async open(hub: BidiHub, version: string): Promise<FirefoxContext> {
    const root = hub.channel([]);
    const { userContext } = await root.call<{ userContext: string }>('browser.createUserContext', {});
    await root.close();
    const channel = hub.channel([userContext]);
    try {
      await channel.subscribe(EVENTS);
      const { context } = await channel.call<{ context: string }>('browsingContext.create', { type: 'window', userContext });
      // A new window opens at the size the window resized last had (an earlier session's, 777×555
      // carried over): each session's first window gets the size and place of a fresh Firefox's.
      const clientWindow = hub.clientWindowOf(context) ?? (await channel.call<{ contexts: TreeNode[] }>('browsingContext.getTree', { root: context, maxDepth: 0 })).contexts[0]?.clientWindow;
      if (clientWindow) await channel.call('browser.setClientWindowState', { clientWindow, state: 'normal', ...FIREFOX_WINDOW });
      return new FirefoxContext(hub, channel, userContext, version, context);
    } catch (e) {
      await channel.close();
      await hub.channel([]).send('browser.removeUserContext', { userContext });
      throw e;
    }
  }

  #window(handle: string): Window {
    let window = this.#windows.get(handle);
    if (!window) {
      window = { handle, loading: new Loading(), touching: new Set(), mouse: new MouseSource(), closedByUs: 0 };
      this.#windows.set(handle, window);
      this.#prompts.watch(window);
    }
    return window;
  }

  /** A window of this session that is still open. */
  #open(handle: string): Window {
    const window = this.#windows.get(handle);
    if (!window || !this.#owns(handle)) throw new NoSuchWindowError(`no window with handle ${handle}`);
    return window;
  }

  /**
   * Whether a browsing context is the session's: of its user context, or of one its BiDi client
   * made (a Firefox of its own serves one session, whose classic commands reach every tab).
   */
  #owns(context: string): boolean {
    const userContext = this.#hub.userContextOf(context);
    return userContext !== undefined && this.#channel.userContexts.has(userContext);
  }

  #event({ method, params: raw }: BidiMessage): void {
    const params = raw as Record<string, unknown>;
    const context = params.context as string;
    if (method === 'script.realmDestroyed') return this.#scripts.forget(String(params.realm));
    if (method === 'log.entryAdded') return this.#logEntry(params);
    if (typeof method === 'string' && method.startsWith('network.')) return this.#network.event(method, params as unknown as NetworkEvent);
    if (method === 'browsingContext.contextCreated') {
      if (params.parent === null) this.#window(context);
      return;
    }
    if (method === 'browsingContext.contextDestroyed') {
      const window = this.#windows.get(context);
      if (window) {
        this.#windows.delete(context);
        window.loading.settled();
        window.loading.noDocument();
      }
      return;
    }
    if (method === 'browsingContext.downloadWillBegin') this.#downloads.willBegin(params);
    if (method === 'browsingContext.downloadEnd') return this.#downloads.ended(params);
    const window = this.#windows.get(context);
    if (!window) return; // a frame's
    switch (method) {
      case 'browsingContext.navigationStarted':
        // Another navigation ends the one that waited for credentials, and its prompt with it.
        if (this.#prompts.current(window)?.type === 'credentials') {
          this.#credentials.drop(window);
          this.#prompts.closed(window, false);
        }
        window.loading.started();
        this.#prompts.started(window);
        break;
      case 'browsingContext.navigationCommitted':
        this.#prompts.committed(window);
        break;
      case 'browsingContext.domContentLoaded':
        window.loading.domContentLoaded();
        this.#prompts.committed(window);
        break;
      case 'browsingContext.load':
      case 'browsingContext.fragmentNavigated':
      case 'browsingContext.historyUpdated':
      case 'browsingContext.downloadWillBegin':
        window.loading.settled();
        // Firefox answers a navigation that became a download only once it is done.
        if (method === 'browsingContext.downloadWillBegin') window.loading.noDocument();
        this.#prompts.committed(window);
        break;
      case 'browsingContext.navigationFailed':
      case 'browsingContext.navigationAborted':
        window.loading.settled();
        this.#prompts.stopped(window);
        break;
      case 'browsingContext.userPromptOpened':
        this.#promptOpened(window, params);
        break;
      case 'browsingContext.userPromptClosed':
        // Ours was reported when we closed it; its event may come after the next prompt opened.
        if (window.closedByUs > 0) window.closedByUs--;
        else this.#prompts.closed(window, params.accepted === true);
        break;
    }
  }

  /**
   * A log entry (BiDi log.entryAdded) to the listeners: of type console a console message, of
   * type javascript an uncaught exception or unhandled rejection of the page (BiDi §7.6.3.1).
   */
  #logEntry(params: Record<string, unknown>): void {
    const source = params.source as { context?: string } | undefined;
    const window = source?.context ? { window: this.#hub.topLevel(source.context) } : {};
    const timestamp = Number(params.timestamp) || Date.now();
    if (this.#browserLogListeners.length) {
      const entry = extensions.browserLogEntry(params);
      if (entry) for (const listener of this.#browserLogListeners) listener(entry);
    }
    if (params.type === 'console') {
      const entry: ConsoleEntry = { level: String(params.method ?? params.level), text: String(params.text ?? ''), ...window, timestamp };
      for (const listener of this.#consoleListeners) listener(entry);
    } else if (params.type === 'javascript') {
      const stack = stackTraceText(params.stackTrace);
      const error: PageError = { message: String(params.text ?? ''), ...(stack && { stack }), ...window, timestamp };
      for (const listener of this.#pageErrorListeners) listener(error);
    }
  }

  onConsoleMessage(listener: (entry: ConsoleEntry) => void): void {
    this.#consoleListeners.push(listener);
  }

  onPageError(listener: (error: PageError) => void): void {
    this.#pageErrorListeners.push(listener);
  }

  // ── Extension commands beside the W3C core (./extensions.ts) ───────────────────────────

  onBrowserLog(listener: (entry: BrowserLogEntry) => void): void {
    this.#browserLogListeners.push(listener);
  }

  async setPermission(handle: string, descriptor: PermissionDescriptor, state: PermissionState, origin: string): Promise<void> {
    this.#open(handle);
    await extensions.setPermission(this.#channel, this.#userContext, descriptor, state, origin);
  }

  async emulateNetworkConditions(conditions: NetworkConditions | null): Promise<void> {
    await extensions.emulateNetworkConditions(this.#channel, this.#userContext, conditions);
  }

  async fullPageScreenshot(handle: string): Promise<string> {
    const window = this.#open(handle);
    const { data } = await this.#unblocked(window, () => this.#call<{ data: string }>('browsingContext.captureScreenshot', { context: handle, origin: 'document' }));
    return data;
  }

  installAddon(addon: { base64: string } | { path: string }, temporary: boolean): Promise<string> {
    return extensions.installAddon(this.#channel, addon, temporary);
  }

  uninstallAddon(id: string): Promise<void> {
    return extensions.uninstallAddon(this.#channel, id);
  }

  /** The session's requests: Firefox's network events are subscribed to with the first listener. */
  async onNetworkRequest(listener: (entry: NetworkEntry) => void): Promise<void> {
    this.#network.listen(listener);
    // Scoped to the session's user context (the channel's): other sessions' requests never come.
    this.#networkSubscribed ??= this.#closed ? Promise.resolve() : this.#channel.subscribe(NETWORK_EVENTS).then(() => {}, () => {});
    await this.#networkSubscribed;
  }

  #promptOpened(window: Window, params: Record<string, unknown>): void {
    const type = params.type as UserPrompt['type'];
    const prompt: UserPrompt = { type, message: String(params.message ?? ''), defaultValue: String(params.defaultValue ?? '') };
    const unloaded = prompt.type === 'beforeunload' ? window.loading.unloading() : undefined;
    this.#prompts.opened(window, window.handle, prompt, async (accept, userText) => {
      const answer = await this.#channel.send('browsingContext.handleUserPrompt', { context: window.handle, accept, ...(userText !== undefined && prompt.type === 'prompt' && { userText }) });
      const closed = answer.type === 'success';
      unloaded?.(accept && closed);
      if (closed) {
        window.closedByUs++;
        // Unless the page has opened its next prompt meanwhile (the guard forgets this one itself).
        if (this.#prompts.current(window) === prompt) this.#prompts.closed(window, accept);
      }
      return closed;
    });
  }

  /** Firefox's prompt for a user name and password, as the window's user prompt (./credentials.ts). */
  async #credentialsRequested(request: CredentialsRequest): Promise<void> {
    const window = request.context === null ? undefined : this.#windows.get(this.#hub.topLevel(request.context));
    if (!window || this.#closed) return this.#credentials.cancel(request);
    // Whether a frame's or a script's request goes to another origin than the page's.
    const pageUrl = request.request.destination === 'document' ? undefined : (await this.#tree(window.handle, 0).catch(() => []))[0]?.url;
    this.#credentials.add(window, request, pageUrl, (prompt, answer) =>
      this.#prompts.opened(window, window.handle, prompt, async (accept) => {
        const closed = await answer(accept);
        // Gone either way: a request Firefox no longer holds took its prompt with it.
        if (this.#prompts.current(window) === prompt) this.#prompts.closed(window, accept);
        return closed;
      }),
    );
  }

  /**
   * A call into the page, unless a prompt blocks it or opens and stays open; in the document a
   * Navigate To answered at its start brings, once it came (Loading.awaitDocument).
   */
  async #unblocked<T>(window: Window, work: () => Promise<T>): Promise<T> {
    await window.loading.document();
    return this.#prompts.unblocked(window, false, work);
  }

  /** A BiDi error as the backend's: a window or frame gone is NoSuchWindowError. */
  #classify(e: unknown): Error {
    if (e instanceof BidiError) {
      if (e.error === 'no such frame') return new NoSuchWindowError(e.message);
      if (e.error === 'unsupported operation' || /Unimplemented/.test(e.message)) return new UnsupportedPrimitiveError(e.message);
      return new Error(`${e.error}: ${e.message}`);
    }
    return e as Error;
  }

  async #call<T>(method: string, params: Record<string, unknown>): Promise<T> {
    try {
      return await this.#channel.call<T>(method, params);
    } catch (e) {
      throw this.#classify(e);
    }
  }

  onDisconnected(listener: () => void): void {
    this.#hub.onGone(() => {
      if (!this.#closed) listener();
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#channel.close();
    // Every window of the user context goes with it.
    await this.#hub.channel([]).send('browser.removeUserContext', { userContext: this.#userContext });
  }

  async openBidi(options: BidiOptions): Promise<BidiEndpoint> {
    // User contexts its client makes are the session's: its classic commands reach their tabs too.
    const classic = this.#channel;
    const side: SessionSide = {
      gained: (userContext) => classic.gainUserContext(userContext),
      lost: (userContext) => void classic.userContexts.delete(userContext),
      asksForCredentials: (context) => this.#prompts.current(this.#windows.get(this.#hub.topLevel(context)))?.type === 'credentials',
    };
    return new FirefoxBidiEndpoint(this.#hub.channel([this.#userContext]), this.#userContext, options.ownBrowser === true, side);
  }

  async saveDownloadsTo(directory: string): Promise<void> {
    await this.#downloads.saveTo(directory);
  }

  // ── Windows ──────────────────────────────────────────────────────────────────────────────

  async #tree(root?: string, maxDepth?: number): Promise<TreeNode[]> {
    const { contexts } = await this.#call<{ contexts: TreeNode[] }>('browsingContext.getTree', { ...(root && { root }), ...(maxDepth !== undefined && { maxDepth }) });
    return contexts;
  }

  async windowHandles(): Promise<string[]> {
    const handles = (await this.#tree(undefined, 0)).filter((c) => this.#channel.userContexts.has(c.userContext!)).map((c) => c.context);
    for (const handle of handles) this.#window(handle);
    return handles;
  }

  /**
   * A new tab opens at the end of the current OS window (geckodriver's New Window), in the
   * session's user context; never in Firefox's most recent window, which may be another session's.
   */
  async newWindow(type: WindowType): Promise<string> {
    let referenceContext: string | undefined;
    if (type === 'tab') {
      const tops = (await this.#tree(undefined, 0)).filter((c) => this.#channel.userContexts.has(c.userContext!));
      const current = tops.find((c) => c.context === this.#activated) ?? tops.at(-1);
      referenceContext = tops.filter((c) => c.clientWindow === current?.clientWindow).at(-1)?.context;
    }
    const { context } = await this.#call<{ context: string }>('browsingContext.create', { type, userContext: this.#userContext, background: true, ...(referenceContext && { referenceContext }) });
    this.#window(context);
    return context;
  }

  async closeWindow(handle: string): Promise<void> {
    this.#open(handle);
    await this.#call('browsingContext.close', { context: handle, promptUnload: false });
    this.#windows.delete(handle);
  }

  async activateWindow(handle: string): Promise<void> {
    this.#open(handle);
    await this.#call('browsingContext.activate', { context: handle });
    this.#activated = handle;
  }

  async #clientWindow(handle: string): Promise<{ clientWindow: string; x: number; y: number; width: number; height: number; state: WindowState }> {
    this.#open(handle);
    const [node] = await this.#tree(handle, 0);
    const { clientWindows } = await this.#call<{ clientWindows: { clientWindow: string; x: number; y: number; width: number; height: number; state: WindowState }[] }>('browser.getClientWindows', {});
    const found = clientWindows.find((w) => w.clientWindow === node?.clientWindow);
    if (!found) throw new NoSuchWindowError(`no window with handle ${handle}`);
    return found;
  }

  async getWindowRect(handle: string): Promise<Rect> {
    const { x, y, width, height } = await this.#clientWindow(handle);
    return { x, y, width, height };
  }

  async setWindowRect(handle: string, rect: Partial<Rect>): Promise<void> {
    const { clientWindow } = await this.#clientWindow(handle);
    await this.#call('browser.setClientWindowState', { clientWindow, state: 'normal', ...rect });
  }

  async getWindowState(handle: string): Promise<WindowState> {
    return (await this.#clientWindow(handle)).state;
  }

  async setWindowState(handle: string, state: WindowState): Promise<void> {
    const { clientWindow } = await this.#clientWindow(handle);
    await this.#call('browser.setClientWindowState', { clientWindow, state });
  }

  // ── Navigation ───────────────────────────────────────────────────────────────────────────

  /** A navigation command with the page load timeout; a navigation the page refuses (or with no history entry) resolves false. */
  async #navigation(window: Window, timeoutMs: number, method: string, params: Record<string, unknown>, url?: string, started?: Promise<void>): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new NavigationTimeoutError(`navigation did not finish within ${timeoutMs} ms`)), Math.min(timeoutMs, 2 ** 31 - 1));
    });
    try {
      const call = this.#channel.call(method, params);
      if (started) {
        call.catch(() => {}); // answered at its start: a later failure is the page's
        window.loading.awaitDocument(call, timeoutMs);
      }
      await this.#prompts.unblocked(window, true, () => Promise.race([call, deadline, ...(started ? [started] : [])]));
      if (url !== undefined) window.failed = undefined;
      return true;
    } catch (e) {
      if (!(e instanceof BidiError)) throw e;
      // Back or Forward with no such entry: nothing to do (spec: no-op).
      if (e.error === 'no such history entry') return false;
      // Refused by the page (beforeunload dismissed), or replaced by another navigation: the document stays.
      if (/NS_BINDING_ABORTED|aborted|cancel+ed|beforeunload/i.test(e.message)) return false;
      if (url !== undefined && /NS_ERROR_|failed/i.test(e.message)) window.failed = url;
      throw this.#classify(e);
    } finally {
      clearTimeout(timer);
    }
  }

  async navigate(handle: string, url: string, strategy: PageLoadStrategy, timeoutMs: number): Promise<void> {
    const window = this.#open(handle);
    // Spec "none": answer once the navigation has begun; Firefox's own "none" waits for the response.
    const started = strategy === 'none' ? window.loading.nextStart() : undefined;
    await this.#navigation(window, timeoutMs, 'browsingContext.navigate', { context: handle, url, wait: WAIT[strategy] }, url, started);
  }

  async traverseHistory(handle: string, delta: -1 | 1, strategy: PageLoadStrategy, timeoutMs: number): Promise<void> {
    const window = this.#open(handle);
    // Firefox answers before the traversal's own events: the W3C command waits for them. One
    // within the document may bring none: the page's popstate says it is done. One refused or
    // with no such entry brings nothing.
    const popstate = await this.#unblocked(window, () => this.#scripts.popstate(handle)).catch(() => async () => false);
    const expected = window.loading.expect(NEXT_TASK_BOUND_MS);
    if (!(await this.#navigation(window, timeoutMs, 'browsingContext.traverseHistory', { context: handle, delta }))) expected();
    else void withinBound(popstate(), NEXT_TASK_BOUND_MS, false).then((fired) => fired && expected());
    if (!(await window.loading.until(strategy, timeoutMs))) throw new NavigationTimeoutError(`navigation did not finish within ${timeoutMs} ms`);
  }

  async reload(handle: string, strategy: PageLoadStrategy, timeoutMs: number): Promise<void> {
    await this.#navigation(this.#open(handle), timeoutMs, 'browsingContext.reload', { context: handle, wait: WAIT[strategy] });
  }

  async waitForPendingNavigation(handle: string, strategy: PageLoadStrategy, timeoutMs: number): Promise<void> {
    const window = this.#windows.get(handle);
    // The input closed its own window (a link to window.close()): nothing to wait for.
    if (strategy === 'none' || !window || !this.#windows.has(handle)) return;
    // A navigation the last input started reaches its events within the page's next task, or
    // (asking the page's beforeunload first) its prompt is about to open: on its way.
    const unloading = await this.#afterNextTask(window).catch((e) => {
      if (e instanceof UserPromptOpenedError) throw e;
      return false;
    });
    // Expected unless its events came already (a link that became a download starts and settles at once).
    if (unloading) window.loading.expect(NEXT_TASK_BOUND_MS, window.startedBeforeInput);
    const settled = await this.#prompts.unblocked(window, true, async () => (await window.loading.until(strategy, timeoutMs)) || 'timeout');
    if (settled === 'timeout' && this.#windows.has(handle)) throw new NavigationTimeoutError(`navigation did not finish within ${timeoutMs} ms`);
  }

  /** The page ran its next task since the window's last input (at most NEXT_TASK_BOUND_MS): whether its beforeunload fired. */
  #afterNextTask(window: Window): Promise<boolean> {
    return withinBound(this.#unblocked(window, () => this.#scripts.afterNextTask(window.handle, window.inputAt ?? Date.now())), NEXT_TASK_BOUND_MS, false);
  }

  async #evaluate(window: Window, expression: string): Promise<unknown> {
    return this.#unblocked(window, async () => {
      const reply = await this.#scripts.call(window.handle, `() => ${expression}`, []);
      return jsonValue(reply.result);
    });
  }

  async currentUrl(handle: string): Promise<string> {
    const window = this.#open(handle);
    const [node] = await this.#tree(handle, 0);
    const url = node?.url ?? 'about:blank';
    // After a failed navigation the document is the error page; its URL is the one asked for (as chromedriver).
    return window.failed !== undefined && /^about:neterror/.test(url) ? window.failed : url;
  }

  // ── Script ───────────────────────────────────────────────────────────────────────────────

  /** The browsing context a BrowsingContext names: its last frame, or the window. */
  #target(context: BrowsingContext): { window: Window; target: string } {
    const window = this.#open(context.window);
    const target = context.frames.at(-1) ?? context.window;
    if (target !== context.window && this.#hub.topLevel(target) !== context.window) throw new NoSuchWindowError('the browsing context (a frame) is no longer open');
    return { window, target };
  }

  async callFunction(context: BrowsingContext, functionDeclaration: string, args: unknown[], options: CallOptions = {}): Promise<unknown> {
    const { window, target } = this.#target(context);
    const reply = await this.#unblocked(window, () => this.#scripts.call(target, functionDeclaration, args.map(localValue), options));
    if (reply.type === 'exception') throw new ScriptError(exceptionText(reply));
    return jsonValue(reply.result);
  }

  /** The node a function (bound to nothing, in `context`) returns: its BiDi shared id. */
  async #node(context: BrowsingContext, functionDeclaration: string, args: unknown[]): Promise<{ target: string; sharedId: string; window: Window }> {
    const { window, target } = this.#target(context);
    const reply = await this.#unblocked(window, () => this.#scripts.call(target, functionDeclaration, args.map(localValue)));
    if (reply.type === 'exception') throw new ScriptError(exceptionText(reply));
    if (!reply.result?.sharedId) throw new ScriptError('not an element');
    return { target, sharedId: reply.result.sharedId, window };
  }

  async setFileInputFiles(context: BrowsingContext, functionDeclaration: string, args: unknown[], files: string[]): Promise<void> {
    const { target, sharedId, window } = await this.#node(context, functionDeclaration, args);
    await this.#unblocked(window, () => this.#call('input.setFiles', { context: target, element: { sharedId }, files }));
  }

  async frameOpen(handle: string, frameId: string): Promise<boolean> {
    this.#open(handle);
    const found = (nodes: TreeNode[] | null | undefined): boolean => (nodes ?? []).some((n) => n.context === frameId || found(n.children));
    // Below the window: a window's own handle names no frame.
    return found((await this.#tree(handle))[0]?.children);
  }

  async contentFrameId(context: BrowsingContext, functionDeclaration: string, args: unknown[], options: Pick<CallOptions, 'isolated'> = {}): Promise<string | null> {
    const { window, target } = this.#target(context);
    const declaration = `async function (...args) { const element = await (${functionDeclaration}).apply(this, args); return element.contentWindow; }`;
    const reply = await this.#unblocked(window, () => this.#scripts.call(target, declaration, args.map(localValue), { isolated: options.isolated === true }));
    if (reply.type === 'exception') throw new ScriptError(exceptionText(reply));
    const value = reply.result?.value as { context?: string } | undefined;
    return reply.result?.type === 'window' && value?.context ? value.context : null;
  }

  async resolveSharedId(sharedId: string, functionDeclaration: string, library: string): Promise<boolean> {
    for (const target of await this.#allContexts()) {
      const reply = await this.#scripts.call(target, functionDeclaration, [{ sharedId }, localValue(sharedId)], { library }).catch(() => undefined);
      if (reply?.type === 'success') return true;
    }
    return false;
  }

  async sharedIdOf(reference: string, context: string | undefined, functionDeclaration: string, library: string): Promise<string | undefined> {
    for (const target of context ? [context] : await this.#allContexts()) {
      const reply = await this.#scripts.call(target, functionDeclaration, [localValue(reference)], { library }).catch(() => undefined);
      if (reply?.type === 'success' && reply.result?.sharedId) return reply.result.sharedId;
    }
    return undefined;
  }

  /** Every browsing context of the session, windows and their frames. */
  async #allContexts(): Promise<string[]> {
    const ids: string[] = [];
    const walk = (nodes: TreeNode[] | null | undefined) => {
      for (const node of nodes ?? []) {
        ids.push(node.context);
        walk(node.children);
      }
    };
    walk((await this.#tree()).filter((c) => this.#channel.userContexts.has(c.userContext!)));
    return ids;
  }

  // ── Input (./input.ts) ───────────────────────────────────────────────────────────────────

  /** `sending`: told when the actions go to Firefox (a prompt open refuses them before). */
  async #perform(handle: string, actions: Record<string, unknown>[], sending?: () => void): Promise<void> {
    const window = this.#open(handle);
    window.inputAt = Date.now();
    window.startedBeforeInput = window.loading.startedCount;
    await this.#unblocked(window, () => {
      sending?.();
      return this.#call('input.performActions', { context: handle, actions });
    });
  }

  async dispatchKeyInput(handle: string, event: KeyInputEvent): Promise<void> {
    await this.#perform(handle, keyActions(event));
  }

  async dispatchPointerInput(handle: string, event: PointerInputEvent): Promise<void> {
    if (event.pointerType === 'pen') throw new UnsupportedPrimitiveError(BIDI_GAPS.penInput);
    const { mouse } = this.#open(handle);
    await this.#perform(handle, pointerActions(event, mouse.idFor(event)), () => mouse.sent(event));
  }

  async dispatchTouchInput(handle: string, event: TouchInputEvent): Promise<void> {
    await this.#perform(handle, touchActions(event, this.#open(handle).touching));
  }

  async dispatchWheelInput(handle: string, event: WheelInputEvent): Promise<void> {
    await this.#perform(handle, wheelActions(event));
    // The scroll reaches the page after the event: the call answers once it has.
    await this.#evaluate(this.#open(handle), WHEEL_SETTLED);
  }

  // ── Capture, print, accessibility ────────────────────────────────────────────────────────

  async screenshot(handle: string, clip?: Rect, format?: ScreenshotFormat): Promise<string> {
    const window = this.#open(handle);
    // BiDi's ImageFormat: a MIME type, and a JPEG's quality from 0 to 1.
    const imageFormat = format?.type === 'jpeg' ? { format: { type: 'image/jpeg', quality: format.quality / 100 } } : {};
    const { data } = await this.#unblocked(window, () =>
      this.#call<{ data: string }>('browsingContext.captureScreenshot', { context: handle, origin: 'viewport', ...imageFormat, ...(clip && { clip: { type: 'box', ...clip } }) }),
    );
    return data;
  }

  async printToPdf(handle: string, options: PrintOptions): Promise<string> {
    const window = this.#open(handle);
    try {
      const { data } = await this.#unblocked(window, () =>
        this.#channel.call<{ data: string }>('browsingContext.print', {
          context: handle,
          background: options.background,
          margin: options.margin,
          orientation: options.landscape ? 'landscape' : 'portrait',
          page: { width: options.width, height: options.height },
          pageRanges: options.pageRanges.map(({ first, last }) => (last === undefined ? `${first}-` : first === last ? first : `${first}-${last}`)),
          scale: options.scale,
          shrinkToFit: options.shrinkToFit,
        }),
      );
      return data;
    } catch (e) {
      if (e instanceof BidiError && (e.error === 'invalid argument' || isPrintRefusal(e.message))) throw new InvalidParametersError(e.message);
      throw this.#classify(e);
    }
  }

  async accessibleNode(context: BrowsingContext, functionDeclaration: string, args: unknown[]): Promise<AccessibleNode> {
    // The element is checked first (no such element, stale): only a good one meets the gap.
    await this.#node(context, functionDeclaration, args);
    throw new UnsupportedPrimitiveError(BIDI_GAPS.computedRole);
  }

  // ── Cookies (./cookies.ts) ───────────────────────────────────────────────────────────────

  async getCookies(handle: string): Promise<CookieData[]> {
    this.#open(handle);
    return this.#cookies.get(handle).catch((e) => Promise.reject(this.#classify(e)));
  }

  async setCookie(handle: string, cookie: Parameters<DrivenBrowser['setCookie']>[1]): Promise<boolean> {
    this.#open(handle);
    return this.#cookies.set(handle, cookie);
  }

  async deleteCookies(handle: string, name?: string): Promise<void> {
    this.#open(handle);
    await this.#cookies.delete(handle, name).catch((e) => Promise.reject(this.#classify(e)));
  }

  // ── User prompts ─────────────────────────────────────────────────────────────────────────

  async userPrompt(handle: string): Promise<UserPrompt | null> {
    return this.#prompts.current(this.#open(handle));
  }

  async handleUserPrompt(handle: string, accept: boolean, promptText?: string): Promise<boolean> {
    return this.#prompts.handle(this.#open(handle), accept, promptText);
  }

  onUserPromptOpened(listener: (handle: string, prompt: UserPrompt) => Promise<void> | void): void {
    this.#prompts.onOpened(listener);
  }
}
