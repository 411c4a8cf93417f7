// The backend interface. `src/webdriver/` knows only this file; concrete backends are registered
// in `backends/index.ts` and know nothing of HTTP or of W3C semantics (element references,
// interactability, user prompt handling, implicit waits all live in src/webdriver/).

export type MatchResult<T> = { ok: true; value: T } | { ok: false; reason: string };

export type PageLoadStrategy = 'none' | 'eager' | 'normal';
export type WindowType = 'tab' | 'window';
export type WindowState = 'normal' | 'maximized' | 'minimized' | 'fullscreen';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Gateway-wide settings a backend needs to launch browsers (from the command line / config). */
export interface BackendEnvironment {
  headless: boolean;
  /** Whether an X display is available (DISPLAY set); headful launches need one. */
  hasDisplay: boolean;
  forceCpuPainting: boolean;
  exposeExperimentalInterfaces: boolean;
  debugProcess?: string;
  defaultTimeZone?: string;
  /** Directory for temporary browser profiles. */
  tempDir: string;
  /** The gateway's log, at debug level: a browser's own output when a session asked for it (moz:firefoxOptions.log). */
  log?: (entry: Record<string, unknown>) => void;
}

/** What an endpoint (a browser flavour a backend can start) offers, for the W3C layer to match. */
export interface EndpointCapabilities {
  browserNames: string[];
  browserVersion: string;
  platformName: string;
  acceptInsecureCerts: boolean;
  setWindowRect: boolean;
}

/** What a backend decided to launch for a set of capabilities; its `key` is the pool key. */
export interface LaunchSpec {
  backend: string;
  /**
   * The pool key: the normalized launch spec (backend, binary, args, headless and every option
   * that changes the browser process). Sessions with equal keys share browsers.
   */
  key: string;
  browserName: string;
  /** What this launch offers: the W3C layer matches the standard capabilities against it. */
  endpoint: EndpointCapabilities;
  /** Vendor options in effect, echoed in the New Session response. */
  vendorCapabilities: Record<string, unknown>;
  acceptInsecureCerts: boolean;
  /** Each session gets a browser of its own (a BiDi session sees the whole browser). */
  ownBrowser?: boolean;
  /**
   * The backend's BiDi end shows each session only its own contexts and events (a Firefox
   * process's multiplexed session): BiDi sessions share browsers like classic ones.
   */
  bidiScoped?: boolean;
  /**
   * Pages of different contexts may share a content process (Firefox without Fission, kept off
   * for input into cross-origin frames): the pool never gives such a browser to sessions of
   * different principals (one page could read another's memory: Spectre).
   */
  contentProcessesShared?: boolean;
  /**
   * What every page of the session shows (goog:chromeOptions.mobileEmulation), applied to the
   * session's own context after the lease (DrivenBrowser.emulate): not part of the pool key.
   */
  emulation?: Emulation;
  [extra: string]: unknown;
}

/**
 * A device's screen, user agent and client hints, as chromedriver's mobile emulation sets them
 * (CDP Emulation.setDeviceMetricsOverride, setTouchEmulationEnabled, setUserAgentOverride).
 */
export interface Emulation {
  /** navigator.userAgent and the User-Agent header; absent: the browser's own (or one made from the client hints). */
  userAgent?: string;
  /** User-Agent Client Hints (navigator.userAgentData, Sec-CH-UA-*); absent: the browser's. */
  clientHints?: ClientHints;
  /** The viewport (CSS pixels), its pixel ratio (0: the screen's own), a mobile viewport and touch; absent: the window's. */
  metrics?: { width: number; height: number; deviceScaleFactor: number; mobile: boolean; touch: boolean };
}

/** User-Agent Client Hints as CDP's UserAgentMetadata takes them. */
export interface ClientHints {
  platform: string;
  platformVersion: string;
  architecture: string;
  bitness: string;
  model: string;
  mobile: boolean;
  wow64: boolean;
  /** Absent: the browser's own brands. */
  brands?: { brand: string; version: string }[];
  fullVersionList?: { brand: string; version: string }[];
}

/** Raised by `match` when a capability's value is malformed (the W3C layer: invalid argument). */
export class InvalidCapabilityError extends Error {}
/** Raised by `launch` or `newContext` when the browser could not be started or driven. */
export class LaunchError extends Error {}

/** A driven backend: wdgate runs the W3C semantics on a browser context the pool leases. */
export interface Backend {
  readonly kind: 'driven';
  readonly name: string;
  /** Its browser contexts serve WebDriver BiDi (DrivenBrowser.openBidi). */
  readonly bidi?: boolean;
  /** Match capabilities (already validated and merged): a launch spec, or why not. */
  match(capabilities: Record<string, unknown>, env: BackendEnvironment, route?: Route): MatchResult<LaunchSpec>;
  /** Start a browser process for `spec` (the pool calls this; it owns what it gets). Throws LaunchError. */
  launch(spec: LaunchSpec, env: BackendEnvironment): Promise<BrowserProcess>;
  /** At gateway start: end what a gateway that died left behind (processes, profiles). */
  sweep(tempDir: string): Promise<void>;
  /** Last resort on an abrupt exit: end every process at once, synchronously. */
  killAllNow(): void;
}

// ── Pass-through backends ─────────────────────────────────────────────────────────────────
// An upstream W3C server runs the semantics; wdgate creates the session there and forwards every
// command of it unchanged (src/server/forward.ts). The W3C layer never runs such a session.

/** Which backend the routes chose for a set of capabilities, and for `remote`, which upstream. */
export interface Route {
  backend: string;
  upstream?: string;
}

/** What a pass-through backend decided for a set of capabilities. */
export interface UpstreamSpec {
  backend: string;
  /** The upstream's name (a configured URL, or a driver the gateway manages). */
  upstream: string;
  /** What the upstream offers, when known before asking it (managed drivers); else it decides. */
  endpoint?: EndpointCapabilities;
  /** The capabilities sent upstream: the request's, wdgate's own removed, managed defaults added. */
  capabilities: Record<string, unknown>;
}

/** A session on an upstream: where its commands go. */
export interface UpstreamSession {
  /** The upstream's base URL (no trailing slash), credentials included when configured. */
  readonly url: string;
  /** Headers every request upstream carries (Basic credentials of a configured URL). */
  readonly headers: Record<string, string>;
  /** The session id on the upstream. */
  readonly id: string;
  /** The upstream's New Session capabilities, as it answered them. */
  readonly capabilities: Record<string, unknown>;
  /**
   * A driver the gateway started on its own machine (chromedriver, WebKitWebDriver): the files its
   * commands name are the gateway machine's, and the policy checks them (backends/policy/).
   */
  readonly onThisMachine: boolean;
  /** Called once if the upstream went away on its own (a managed driver exited). */
  onGone(listener: () => void): void;
  /**
   * End the session: Delete Session upstream unless it was already forwarded there, then end
   * what was started for it (a per-session driver). Never throws.
   */
  end(alreadyDeleted: boolean): Promise<void>;
}

/** Raised by `createSession` with the upstream's own W3C error (its code is kept). */
export class UpstreamError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface PassThroughBackend {
  readonly kind: 'pass-through';
  readonly name: string;
  match(capabilities: Record<string, unknown>, env: BackendEnvironment, route?: Route): MatchResult<UpstreamSpec>;
  /** Create the session upstream. Throws LaunchError (upstream unreachable) or UpstreamError. */
  createSession(spec: UpstreamSpec, env: BackendEnvironment, signal?: AbortSignal): Promise<UpstreamSession>;
  /** At gateway start: end what a gateway that died left behind. */
  sweep(tempDir: string): Promise<void>;
  /** End every driver and display it started (after its sessions ended), waited for. */
  close(): Promise<void>;
  /** Last resort on an abrupt exit: end every process at once, synchronously. */
  killAllNow(): void;
}

export type AnyBackend = Backend | PassThroughBackend;

/**
 * A browser process a backend started. The pool owns it and leases isolated contexts of it to
 * sessions (several at once, or one when sessions must not share a process).
 */
export interface BrowserProcess {
  readonly browserName: string;
  readonly browserVersion: string;
  /** False once the process went away or was closed. */
  readonly connected: boolean;
  /**
   * A fresh isolated browser context (its own cookies, storage, cache, permissions, windows)
   * with its first window open: one session's browser. Throws LaunchError.
   */
  newContext(options?: NewContextOptions): Promise<DrivenBrowser>;
  /** Called once if the process goes away on its own (crash, killed). */
  onExit(listener: () => void): void;
  /** End the process and everything it started, waited for. Never throws. */
  close(): Promise<void>;
}

export interface NewContextOptions {
  /**
   * The browser will serve no other context (the pool gives it one session, then ends it): the
   * backend may hand out what it could not share between sessions (Chromium's default context).
   */
  sole?: boolean;
}

/** How callFunction runs a function. */
export interface CallOptions {
  /**
   * A constant function declaration (the gateway's page code) the call uses as `this`: the
   * backend installs it once per document and keeps a handle on it, so that only the short
   * `functionDeclaration` travels with each call.
   */
  library?: string;
  /**
   * Run as if the user had just interacted with the page (transient user activation), as a
   * user's script may need; reads never do (they must not give the page activation).
   */
  userActivation?: boolean;
  /**
   * Run in the gateway's own world beside the page's (an isolated world, a sandbox), the
   * library installed there: the document is the same, but the page's scripts can neither see
   * what runs there nor change what it uses (a page that replaces addEventListener). What the
   * trace runs in a page runs so; the W3C commands run in the page's world, as the spec says.
   */
  isolated?: boolean;
}

/** A browsing context: a top-level window (its handle), or a frame inside it (its frame path). */
export interface BrowsingContext {
  window: string;
  /** Frame ids from the top-level document down; empty for the top-level browsing context. */
  frames: readonly string[];
}

export interface CookieData {
  name: string;
  value: string;
  path: string;
  domain: string;
  secure: boolean;
  httpOnly: boolean;
  expiry?: number;
  sameSite: 'Lax' | 'Strict' | 'None';
}

// ── Perform Actions input (spec §15 "Actions"; owned by the actions chapter) ────────────────
// Exact key and pointer events: W3C decides key, code, location, buttons, click counts and
// modifiers; a backend only delivers them as trusted input.

/** Modifier keys held, as a bit set (CDP's numbering): Alt 1, Control 2, Meta 4, Shift 8. */
export const ModifierBit = { Alt: 1, Control: 2, Meta: 4, Shift: 8 } as const;

export interface KeyInputEvent {
  type: 'keyDown' | 'keyUp';
  /** The action's WebDriver key value (a character, or a special key U+E000–U+E05D): what a BiDi engine takes. */
  value: string;
  /** DOM KeyboardEvent.key, code and location. */
  key: string;
  code: string;
  location: number;
  modifiers: number;
  /** What the key types into an editable element: '' for none. */
  text: string;
  repeat: boolean;
}

/** Optional pointer properties (Pointer Events); absent ones take the browser's defaults. */
export interface PointerInputProperties {
  width?: number;
  height?: number;
  pressure?: number;
  tangentialPressure?: number;
  tiltX?: number;
  tiltY?: number;
  twist?: number;
}

export interface PointerInputEvent extends PointerInputProperties {
  type: 'pointerMove' | 'pointerDown' | 'pointerUp';
  pointerType: 'mouse' | 'pen';
  /** CSS pixels relative to the top-level viewport. */
  x: number;
  y: number;
  /** The W3C button number pressed or released (0 main, 1 auxiliary, 2 secondary, 3 back, 4 forward); absent for moves. */
  button?: number;
  /** Buttons held after the event, as MouseEvent.buttons (1 main, 2 secondary, 4 auxiliary, 8 back, 16 forward). */
  buttons: number;
  clickCount: number;
  modifiers: number;
}

/** W3C button number → its MouseEvent.buttons bit (main 1, secondary 2, auxiliary 4, back 8, forward 16). */
export function buttonBit(button: number): number {
  if (button === 1) return 4;
  if (button === 2) return 2;
  return button < 31 ? 2 ** button : 0;
}

export interface TouchInputPoint extends PointerInputProperties {
  /** Stable for as long as the point is in contact. */
  id: number;
  x: number;
  y: number;
}

export interface TouchInputEvent {
  /** down: a point touched; move: points moved; up: a point lifted; cancel: all contact cancelled. */
  type: 'down' | 'move' | 'up' | 'cancel';
  /** Every point in contact after the event, unchanged ones included. */
  points: TouchInputPoint[];
  modifiers: number;
}

export interface WheelInputEvent {
  x: number;
  y: number;
  deltaX: number;
  deltaY: number;
  modifiers: number;
}

/** Raised by a backend when the target window or frame is gone. */
export class NoSuchWindowError extends Error {}
/** Raised by a backend when a script in the page threw (the page's own exception). */
export class ScriptError extends Error {}
/** Raised by a backend when a navigation did not reach its load state before the deadline. */
export class NavigationTimeoutError extends Error {}

// ── Print and accessibility (spec §18.1 Print Page, §12.4.9-10 computed role and label) ─────
/** Raised by a backend when the browser refused a primitive's parameters (a print layout, say). */
export class InvalidParametersError extends Error {}
/** Raised by a backend when the browser cannot do what a primitive asks (print when headful, say). */
export class UnsupportedPrimitiveError extends Error {}

/** How to print a document to PDF. Lengths in centimetres. */
export interface PrintOptions {
  landscape: boolean;
  scale: number;
  background: boolean;
  /** Paper size, portrait (landscape turns the paper). */
  width: number;
  height: number;
  margin: { top: number; bottom: number; left: number; right: number };
  /** Fit the content to the paper size given, rather than a size the page's CSS asks for. */
  shrinkToFit: boolean;
  /** 1-based, inclusive; `last` absent: to the end. Empty: every page. */
  pageRanges: { first: number; last?: number }[];
}

/** An element's node in the browser's accessibility tree. */
export interface AccessibleNode {
  role: string;
  name: string;
}
/**
 * User prompts: raised by a primitive that needs the window's page while a user prompt blocks it,
 * one that opened during the call (its pending work is abandoned; the page resumes once the
 * prompt is handled) or one already open when it was called.
 */
export class UserPromptOpenedError extends Error {}

// ── User prompts (spec §16): the dialogs a page opens ────────────────────────────────────────
/**
 * An open JavaScript dialog: a simple dialog (alert, confirm, prompt) or a beforeunload prompt;
 * or the browser's own request for a user name and password (HTTP authentication), which
 * geckodriver treats as a user prompt of the "default" type (accepting it sends none, dismissing
 * it shows the 401 page).
 */
export interface UserPrompt {
  type: 'alert' | 'confirm' | 'prompt' | 'beforeunload' | 'credentials';
  /** The text shown ('' when none). */
  message: string;
  /** A prompt()'s default value ('' when none): what accepting answers unless told otherwise. */
  defaultValue: string;
}

/**
 * One session's browser: an isolated context of a browser process, and the primitives every
 * driven backend offers on it. Window handles are the backend's stable identifiers for top-level
 * browsing contexts; only this context's windows are visible.
 */
export interface DrivenBrowser {
  readonly browserName: string;
  readonly browserVersion: string;
  /** The window the context was opened with (the session's first current window). */
  readonly initialWindow: string;

  /** Called once if the browser process goes away on its own (crash, killed). */
  onDisconnected(listener: () => void): void;
  /** Dispose of this context and every window of it; the process lives on. Never throws. */
  close(): Promise<void>;
  /**
   * From now on, save what any window of this context downloads into `directory` (which exists)
   * under the name the download suggests ("name (1).ext" when taken); a download appears there
   * only once finished (until then it is in the PARTIAL_DOWNLOADS folder inside, backends/shared.ts).
   * Absent where the backend cannot direct downloads.
   */
  saveDownloadsTo?(directory: string): Promise<void>;
  /**
   * The engine's end of a WebDriver BiDi session over this context's browser, which the session
   * has to itself (LaunchSpec.ownBrowser). Absent where the backend serves no BiDi.
   */
  openBidi?(options: BidiOptions): Promise<BidiEndpoint>;
  /**
   * A BiDi shared id (a node as the BiDi session names it) used by a classic command: find its
   * node in this context and call `functionDeclaration(node, sharedId)` bound to `library` in
   * its frame. False when no such node exists (any more).
   */
  resolveSharedId?(sharedId: string, functionDeclaration: string, library: string): Promise<boolean>;
  /**
   * The other way: the BiDi shared id of the node a classic reference names, in the browsing
   * context `context` (a window handle or frame id) or any window of this context when absent.
   * `functionDeclaration(reference)`, bound to `library`, resolves to the node. Undefined if none.
   */
  sharedIdOf?(reference: string, context: string | undefined, functionDeclaration: string, library: string): Promise<string | undefined>;
  /**
   * From now on every page of this context (those open, and new windows and popups before their
   * first document runs) shows `emulation`. Absent where the backend applies no emulation per
   * session.
   */
  emulate?(emulation: Emulation): Promise<void>;
  /** One Chrome DevTools Protocol command in the window's page: its result, or the CDP error as unknown error. */
  executeCdp?(handle: string, method: string, params: Record<string, unknown>): Promise<unknown>;
  /** A client's CDP connection to this context's browser, which the session has to itself (`se:cdp`). */
  openCdp?(): Promise<CdpEndpoint>;

  // Windows (top-level browsing contexts)
  windowHandles(): Promise<string[]>;
  newWindow(type: WindowType): Promise<string>;
  closeWindow(handle: string): Promise<void>;
  activateWindow(handle: string): Promise<void>;
  getWindowRect(handle: string): Promise<Rect>;
  setWindowRect(handle: string, rect: Partial<Rect>): Promise<void>;
  getWindowState(handle: string): Promise<WindowState>;
  setWindowState(handle: string, state: WindowState): Promise<void>;

  // Navigation of a top-level browsing context. Throws NavigationTimeoutError past the deadline.
  navigate(handle: string, url: string, strategy: PageLoadStrategy, timeoutMs: number): Promise<void>;
  traverseHistory(handle: string, delta: -1 | 1, strategy: PageLoadStrategy, timeoutMs: number): Promise<void>;
  reload(handle: string, strategy: PageLoadStrategy, timeoutMs: number): Promise<void>;
  /** If a navigation of the top-level document has started (after a click, say), wait for it. */
  waitForPendingNavigation(handle: string, strategy: PageLoadStrategy, timeoutMs: number): Promise<void>;
  currentUrl(handle: string): Promise<string>;

  /**
   * Call `functionDeclaration` in the context's page world with JSON `args`; await a returned
   * promise and return the JSON value. One round trip. A page exception is a ScriptError.
   */
  callFunction(context: BrowsingContext, functionDeclaration: string, args: unknown[], options?: CallOptions): Promise<unknown>;
  /** Call a function that returns an <input type=file> and set its selected files. */
  setFileInputFiles(context: BrowsingContext, functionDeclaration: string, args: unknown[], files: string[]): Promise<void>;

  // Frames (spec §11.6). A frame is named by the backend's frame id; callFunction and
  // setFileInputFiles run in the context's last frame and throw NoSuchWindowError once it is gone.
  /**
   * Whether the frame is still attached in the window's page, exactly as it is when asked (not
   * as the last event said: a command that removed it may have answered before the event).
   */
  frameOpen(handle: string, frameId: string): Promise<boolean>;
  /**
   * Call a function (in `context`) that returns a frame element (iframe, frame); the frame id
   * of the browsing context it contains, or null if it contains none. Check the element first.
   */
  contentFrameId(context: BrowsingContext, functionDeclaration: string, args: unknown[], options?: Pick<CallOptions, 'isolated'>): Promise<string | null>;

  // Input, dispatched to the window's page as trusted events: Perform Actions, and Element Click
  // and Send Keys as actions too (src/webdriver/element-input.ts). Each resolves once the page
  // has received the event.
  dispatchKeyInput(handle: string, event: KeyInputEvent): Promise<void>;
  dispatchPointerInput(handle: string, event: PointerInputEvent): Promise<void>;
  dispatchTouchInput(handle: string, event: TouchInputEvent): Promise<void>;
  dispatchWheelInput(handle: string, event: WheelInputEvent): Promise<void>;

  /**
   * Base64 PNG of the viewport, or of `clip` (CSS pixels, relative to the viewport); JPEG
   * (quality 0-100) where `format` asks for it (traces: smaller pictures). PNG stays the default.
   */
  screenshot(handle: string, clip?: Rect, format?: ScreenshotFormat): Promise<string>;
  /** Every console message of any window of this context from now on (session recordings). */
  onConsoleMessage?(listener: (entry: ConsoleEntry) => void): void;
  /**
   * Every request of any window of this context from now on, each once it ended (completed or
   * failed). The engine's network events are enabled only once a listener is registered:
   * a session nobody traces pays nothing. Resolves once the engine reports them (a BiDi
   * subscription takes a round trip): requests started after that are all seen. Never rejects.
   * An entry's response headers may be completed in place after it is reported (Chromium's
   * headers as received, Set-Cookie among them, can come after the request's end): keep the
   * entry, read it when the trace is written.
   */
  onNetworkRequest?(listener: (entry: NetworkEntry) => void): Promise<void>;
  /**
   * From now on, the requests reported carry their response's body (NetworkEntry.responseBody)
   * when it is text (isTextMimeType) within `limits`. Read once the response ended, before the
   * entry is reported; never on the command path. Native Chromium (Network.getResponseBody) and
   * Playwright (Response.body) have it; native Firefox not yet.
   */
  keepResponseBodies?(limits: ResponseBodyLimits): void;
  /** Every uncaught page exception of any window of this context from now on. */
  onPageError?(listener: (error: PageError) => void): void;

  // Beside the W3C core: the extension commands chromedriver and geckodriver answer
  // (src/webdriver/commands/logs.ts, permissions.ts, webauthn.ts, network-conditions.ts,
  // fedcm.ts, gecko.ts). Absent where the engine has no way to do it (the command then answers
  // `unsupported operation` naming the gap).
  /**
   * Every entry of the engine's own log for any window of this context from now on: console
   * messages, uncaught exceptions and (Chromium) the browser's own messages such as a resource
   * that failed to load (chromedriver's "browser" log).
   */
  onBrowserLog?(listener: (entry: BrowserLogEntry) => void): void;
  /**
   * Chromium: every DevTools protocol event of this context's windows (their frames and workers
   * included) whose method starts with one of `domains` ("Network.", "Page."), from now on
   * (chromedriver's "performance" log).
   */
  onProtocolEvent?(domains: readonly string[], listener: (event: ProtocolEvent) => void): void;
  /**
   * Chromium: record a trace of `categories` from now on (a browser of the session's own: a trace
   * records every process). `collect` ends the trace so far, hands its events to `onEvent`, and
   * starts the next; `stop` ends it.
   */
  startTracing?(categories: string[], bufferUsageReportingInterval: number, onEvent: (event: ProtocolEvent) => void): Promise<Tracing>;
  /**
   * W3C Permissions "Set Permission": `state` for `descriptor` (its name and the members of its
   * kind), for `origin`, in this context only. A descriptor the engine refuses is InvalidParametersError.
   */
  setPermission?(handle: string, descriptor: PermissionDescriptor, state: PermissionState, origin: string): Promise<void>;
  /** WebAuthn Level 2 §11: the virtual authenticators of the window's page (Chromium keeps them per page). */
  virtualAuthenticators?(handle: string): Promise<VirtualAuthenticators>;
  /** Throttle (or cut) the network of every window of this context, those opened later too; null: as it is. */
  emulateNetworkConditions?(conditions: NetworkConditions | null): Promise<void>;
  /** Chromium's FedCM dialogs of the window: from the first call on, they are shown to the session, not to a user. */
  fedCm?(handle: string): Promise<FedCmDialogs>;
  /** Base64 PNG of the window's whole document, beyond the viewport (geckodriver's and chromedriver's full-page screenshot). */
  fullPageScreenshot?(handle: string): Promise<string>;
  /**
   * Install a browser extension (a Firefox add-on: an XPI, as base64 or by its path), temporary
   * (gone with the browser) or not; answers its id. It reaches the whole browser: the W3C layer
   * asks it only for a session with a browser of its own.
   */
  installAddon?(addon: { base64: string } | { path: string }, temporary: boolean): Promise<string>;
  uninstallAddon?(id: string): Promise<void>;
  /**
   * The engine's own screencast of the window (the dashboard's live view, recordings, traces):
   * frames as base64 JPEG, the page as it is first, then as it changes, within `options` (default
   * 960×720, quality 60, every frame). Resolves with how to stop it. Absent where the engine has
   * none (the dashboard then takes screenshots).
   */
  screencast?(handle: string, onFrame: (jpeg: string, timestamp?: number) => void, options?: ScreencastOptions): Promise<() => Promise<void>>;

  // Print and accessibility.
  /** Base64 PDF of the window's document. Bad options: InvalidParametersError. */
  printToPdf(handle: string, options: PrintOptions): Promise<string>;
  /** Call a function (in `context`) that returns an element: its accessibility node. Check the element first. */
  accessibleNode(context: BrowsingContext, functionDeclaration: string, args: unknown[]): Promise<AccessibleNode>;

  // Cookies of the window's current document (its URL decides which apply).
  getCookies(handle: string): Promise<CookieData[]>;
  /** Returns false when the browser refused the cookie. No sameSite: the browser's default. */
  setCookie(handle: string, cookie: Omit<CookieData, 'domain' | 'sameSite'> & { domain?: string; sameSite?: CookieData['sameSite'] }): Promise<boolean>;
  deleteCookies(handle: string, name?: string): Promise<void>;

  // User prompts. A prompt blocks its window's page: primitives that need the page (navigation,
  // callFunction, setFileInputFiles, key and mouse input, screenshots, waitForPendingNavigation)
  // reject with UserPromptOpenedError instead of waiting for it, so nothing hangs on a dialog.
  // A navigation the page refuses (its beforeunload prompt dismissed) is cancelled: navigate,
  // traverseHistory, reload and waitForPendingNavigation then resolve, the document staying.
  /** The prompt open in the window (the same object while it stays open), or null. No round trip. */
  userPrompt(handle: string): Promise<UserPrompt | null>;
  /**
   * Close the window's prompt: accept (a prompt() answers `promptText`, else its default value)
   * or dismiss. Resolves false when no prompt was open.
   */
  handleUserPrompt(handle: string, accept: boolean, promptText?: string): Promise<boolean>;
  /**
   * Called when a prompt opens, before the primitives it blocks are cut short: a listener that
   * handles the prompt (the promise it returns) lets them go on.
   */
  onUserPromptOpened(listener: (handle: string, prompt: UserPrompt) => Promise<void> | void): void;
}

// ── Extension commands' values (see DrivenBrowser, "Beside the W3C core") ───────────────────

/** An entry of the engine's log, as chromedriver's "browser" log takes it. */
export interface BrowserLogEntry {
  level: 'DEBUG' | 'INFO' | 'WARNING' | 'SEVERE';
  /** console-api, javascript (an uncaught exception), network, or another of the engine's sources. */
  source: string;
  /** The script or resource it is about, and where in it (0-based, as the engine counts). */
  url?: string;
  line?: number;
  column?: number;
  text: string;
  /** ms since the epoch */
  timestamp: number;
}

/** A DevTools protocol event of a target (a window, a frame's or worker's own target, or the browser). */
export interface ProtocolEvent {
  /** The target's id ("browser" for the browser's own events). */
  webview: string;
  method: string;
  params: unknown;
  /** ms since the epoch, when it came */
  timestamp: number;
}

export interface Tracing {
  collect(): Promise<void>;
  stop(): Promise<void>;
}

/** W3C Permissions: a PermissionDescriptor (its `name`, and members some kinds take: sysex, userVisibleOnly …). */
export interface PermissionDescriptor {
  name: string;
  [member: string]: unknown;
}
export type PermissionState = 'granted' | 'denied' | 'prompt';

/** chromedriver's network conditions: latency in ms, throughputs in bytes per second (-1: not throttled). */
export interface NetworkConditions {
  offline: boolean;
  latency: number;
  download_throughput: number;
  upload_throughput: number;
}

/** WebAuthn Level 2 §11.1 "Authenticator Extension Capabilities" and configuration, as Add Virtual Authenticator takes them. */
export interface AuthenticatorConfiguration {
  protocol: 'ctap1/u2f' | 'ctap2' | 'ctap2_1';
  transport: string;
  hasResidentKey?: boolean;
  hasUserVerification?: boolean;
  isUserConsenting?: boolean;
  isUserVerified?: boolean;
  defaultBackupEligibility?: boolean;
  defaultBackupState?: boolean;
  /** Extension identifiers the authenticator supports (largeBlob, credBlob, minPinLength, prf). */
  extensions: string[];
}

/** WebAuthn Level 2 §11.6 "Credential Parameters": binary members as base64url. */
export interface CredentialParameters {
  credentialId: string;
  isResidentCredential: boolean;
  rpId: string;
  /** PKCS#8, base64url. A secret: the seam hides it (src/webdriver/redact.ts). */
  privateKey: string;
  userHandle?: string;
  signCount: number;
  largeBlob?: string;
  backupEligibility?: boolean;
  backupState?: boolean;
  userName?: string;
  userDisplayName?: string;
}

/**
 * The virtual authenticators of a window's page. An unknown authenticator or credential, or a
 * value the engine refuses, is InvalidParametersError (the spec's invalid argument).
 */
export interface VirtualAuthenticators {
  add(configuration: AuthenticatorConfiguration): Promise<string>;
  remove(authenticatorId: string): Promise<void>;
  addCredential(authenticatorId: string, credential: CredentialParameters): Promise<void>;
  getCredentials(authenticatorId: string): Promise<CredentialParameters[]>;
  removeCredential(authenticatorId: string, credentialId: string): Promise<void>;
  removeAllCredentials(authenticatorId: string): Promise<void>;
  setUserVerified(authenticatorId: string, isUserVerified: boolean): Promise<void>;
  /** WebAuthn Level 3 "Set Credential Properties" (chromedriver has it). */
  setCredentialProperties(authenticatorId: string, credentialId: string, properties: { backupEligibility?: boolean; backupState?: boolean }): Promise<void>;
}

/** A FedCM dialog the page opened (Chromium's FedCm.dialogShown). */
export interface FedCmDialog {
  dialogType: string;
  title: string;
  subtitle?: string;
  accounts: unknown[];
}

/** The FedCM dialogs of a window: the one shown, and what a user could do with it. */
export interface FedCmDialogs {
  /** The dialog shown now, if any. */
  dialog(): FedCmDialog | undefined;
  selectAccount(accountIndex: number): Promise<void>;
  /** ConfirmIdpLoginContinue, ErrorGotIt, ErrorMoreDetails; TermsOfService and PrivacyPolicy of account `index`. */
  clickDialogButton(button: string, index?: number): Promise<void>;
  dismiss(): Promise<void>;
  /** Whether a dialog the user closed delays the page's next request (FedCM's rejection delay). */
  setDelayEnabled(enabled: boolean): Promise<void>;
  resetCooldown(): Promise<void>;
}

/** A console message of a page (console.log and friends), as the engine reports it. */
export interface ConsoleEntry {
  /** The console method: log, info, warn, error, debug ... */
  level: string;
  text: string;
  /** The window (handle) it came from. */
  window?: string;
  /** When it came (ms since the epoch). */
  timestamp: number;
}

/** A screenshot's image format: PNG, or JPEG with its quality (0-100). */
export type ScreenshotFormat = { type: 'png' } | { type: 'jpeg'; quality: number };

/** A screencast's frames: at most this big (CSS pixels), this JPEG quality, one of every `everyNthFrame` drawn. */
export interface ScreencastOptions {
  maxWidth: number;
  maxHeight: number;
  quality: number;
  everyNthFrame: number;
}

/** One request of a window of this context, reported once it ended (traces: the HAR). */
export interface NetworkEntry {
  /** The top-level window's handle, when known. */
  window?: string;
  method: string;
  url: string;
  /** Lower case: document, stylesheet, image, media, font, script, xhr, fetch, websocket, other … */
  resourceType: string;
  /** When it started: ms since the epoch (wall clock). */
  startedAt: number;
  /** From its start to the end of the response body (or the failure). */
  durationMs: number;
  /** 0 when no response came. */
  status: number;
  statusText: string;
  /** 'HTTP/1.1', 'h2' …, or '' when unknown. */
  httpVersion: string;
  /** The response's, '' when unknown. */
  mimeType: string;
  requestHeaders: { name: string; value: string }[];
  responseHeaders: { name: string; value: string }[];
  /** Bytes received (headers and body), or -1. */
  transferSize: number;
  /** Decoded body bytes, or -1. */
  bodySize: number;
  /** HAR 1.2 timings (ms), -1 where unknown. */
  timings: { blocked: number; dns: number; connect: number; ssl: number; send: number; wait: number; receive: number };
  fromCache: boolean;
  /** Why it failed (net::ERR_ABORTED, NS_BINDING_ABORTED …); absent when it completed. */
  error?: string;
  serverIPAddress?: string;
  /** The response's body as text, once keepResponseBodies asked for it and it is text within the limits. */
  responseBody?: string;
}

/** Which response bodies a traced session keeps (DrivenBrowser.keepResponseBodies). */
export interface ResponseBodyLimits {
  /** Most bytes of one body: a larger one is left out. */
  each: number;
  /** Most bytes of all the session's bodies together: past it, no more are kept. */
  total: number;
}

/** Whether a response's MIME type is text a person can read (a trace keeps such bodies). */
export function isTextMimeType(mimeType: string): boolean {
  const type = mimeType.split(';')[0]!.trim().toLowerCase();
  return /^text\//.test(type) || /^application\/(json|javascript|ecmascript|xml|x-www-form-urlencoded|graphql|ld\+json)$/.test(type) || /\+(json|xml)$/.test(type);
}

/** An uncaught exception or unhandled rejection of a page of this context. */
export interface PageError {
  message: string;
  stack?: string;
  window?: string;
  /** ms since the epoch */
  timestamp: number;
}

/** What the engine's BiDi session starts with. */
export interface BidiOptions {
  acceptInsecureCerts: boolean;
  /**
   * The session has its browser to itself (the pool serves no other session from it, and ends
   * it with the session): what reaches the whole browser (an extension) may be done.
   */
  ownBrowser?: boolean;
}

/**
 * A message may carry its JSON text, as the client gets it, under this key (an engine's large
 * answer passed through without being parsed and written again): the front end writes that text.
 */
export const SERIALIZED: unique symbol = Symbol('wdgate.serialized');

/**
 * The engine's end of one WebDriver BiDi session, already begun (its session.new is done): BiDi
 * command messages in, answers and events out, as JSON objects (with `id` and `type` always, and
 * the rest possibly only as SERIALIZED text).
 */
export interface BidiEndpoint {
  /** A command `{id, method, params}`; its answer comes to the listener with the same id. */
  send(command: { id: number; method: string; params: Record<string, unknown> }): void;
  /** Answers and events, in the order the engine sends them. */
  onMessage(listener: (message: Record<string, unknown>) => void): void;
  /** End the engine's session; the browser stays (the pool ends it). Never throws. */
  close(): Promise<void>;
}

/** A CDP message (flat protocol): a command with an id, its answer, or an event. */
export interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  sessionId?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** A client's connection to the browser's CDP: commands in, answers and events out. */
export interface CdpEndpoint {
  send(command: { id: number; method: string; params?: Record<string, unknown>; sessionId?: string }): void;
  onMessage(listener: (message: CdpMessage) => void): void;
  /** Detach from the browser; the browser stays. Never throws. */
  close(): Promise<void>;
}
