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
}

/** What a backend decided to launch for a set of capabilities; its `key` is the pool key. */
export interface LaunchSpec {
  backend: string;
  key: string;
  browserName: string;
  /** Vendor options in effect, echoed in the New Session response. */
  vendorCapabilities: Record<string, unknown>;
  acceptInsecureCerts: boolean;
  [extra: string]: unknown;
}

export interface Backend {
  readonly name: string;
  /** Match capabilities (already validated and merged): a launch spec, or why not. */
  match(capabilities: Record<string, unknown>, env: BackendEnvironment): MatchResult<LaunchSpec>;
  /** Start (or lease) a browser for one session. Resolves once the browser is connected. */
  launch(spec: LaunchSpec, env: BackendEnvironment): Promise<DrivenBrowser>;
}

/** A browsing context: a top-level window (its handle) and, later, a frame inside it. */
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

export interface MouseEventParams {
  type: 'move' | 'down' | 'up';
  /** CSS pixels relative to the top-level viewport. */
  x: number;
  y: number;
  button?: 'left' | 'middle' | 'right' | 'back' | 'forward';
  clickCount?: number;
}

/** Raised by a backend when the target window or frame is gone. */
export class NoSuchWindowError extends Error {}
/** Raised by a backend when a script in the page threw (the page's own exception). */
export class ScriptError extends Error {}
/** Raised by a backend when a navigation did not reach its load state before the deadline. */
export class NavigationTimeoutError extends Error {}

/**
 * One session's browser: the primitives every driven backend offers. Window handles are the
 * backend's stable identifiers for top-level browsing contexts.
 */
export interface DrivenBrowser {
  readonly browserName: string;
  readonly browserVersion: string;

  /** Called once if the browser goes away on its own (crash, killed). */
  onDisconnected(listener: () => void): void;
  /** End this session's browser (or return it to the pool). Never throws. */
  close(): Promise<void>;

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
  callFunction(context: BrowsingContext, functionDeclaration: string, args: unknown[]): Promise<unknown>;
  /** Call a function that returns an <input type=file> and set its selected files. */
  setFileInputFiles(context: BrowsingContext, functionDeclaration: string, args: unknown[], files: string[]): Promise<void>;

  // Input, dispatched to the window's page as trusted events.
  /** `key` is a W3C/DOM key value ("a", "Enter", "Shift", "ArrowLeft", "é"). */
  keyDown(handle: string, key: string): Promise<void>;
  keyUp(handle: string, key: string): Promise<void>;
  mouseEvent(handle: string, event: MouseEventParams): Promise<void>;

  /** Base64 PNG of the viewport, or of `clip` (CSS pixels, relative to the viewport). */
  screenshot(handle: string, clip?: Rect): Promise<string>;

  // Cookies of the window's current document (its URL decides which apply).
  getCookies(handle: string): Promise<CookieData[]>;
  /** Returns false when the browser refused the cookie. No sameSite: the browser's default. */
  setCookie(handle: string, cookie: Omit<CookieData, 'domain' | 'sameSite'> & { domain?: string; sameSite?: CookieData['sameSite'] }): Promise<boolean>;
  deleteCookies(handle: string, name?: string): Promise<void>;
}
