// One WebDriver session (spec §8 "Sessions"): its browser, current browsing context, timeouts
// and negotiated behaviour. Commands of a session run one at a time, in arrival order.
import type { BidiEndpoint, BrowsingContext, DrivenBrowser, PageLoadStrategy } from '../../backends/backend.ts';
import type { Logger } from '../base/log.ts';
import type { SessionOptions } from './session-options.ts';
import type { PageNotes } from './notes.ts';
import type { TimeoutsConfiguration } from './capabilities.ts';
import { error } from './errors.ts';
import { watchUserPrompts } from './prompts.ts';
import { OwnFiles, type SessionReach } from './session-files.ts';

export { SESSION_DIR_PREFIX } from './session-files.ts';

export type PromptHandlerConfig = string | Record<string, string>;

export interface SessionInit {
  id: string;
  browser: DrivenBrowser;
  capabilities: Record<string, unknown>;
  timeouts: TimeoutsConfiguration;
  pageLoadStrategy: PageLoadStrategy;
  strictFileInteractability: boolean;
  unhandledPromptBehavior: PromptHandlerConfig;
  options: SessionOptions;
  log: Logger;
  /** The principal that created the session (src/server/auth.ts): only it may use the session. */
  owner: string;
  /** What of the machine it may reach: its principal's `files`, the operator's fileInputDirectories; where its own folder goes (tempDir). */
  reach: SessionReach;
  /** Give the browser back (its context is disposed of) and the session's slot. Never throws. */
  release(): Promise<void>;
}

/** How long what ends with a session may take before its context is given back anyway. */
const FINISH_BOUND_MS = 20_000;

/**
 * How long Delete Session waits for the commands before it to finish: past that it ends the
 * session all the same (a command that does not finish, a navigation to a page that never
 * loads say, keeps no session), and they end with it.
 */
export const ENDING_WAITS_AT_MOST_MS = 5_000;

export class Session {
  readonly kind = 'driven' as const;
  readonly id: string;
  readonly browser: DrivenBrowser;
  readonly capabilities: Record<string, unknown>;
  timeouts: TimeoutsConfiguration;
  readonly pageLoadStrategy: PageLoadStrategy;
  readonly strictFileInteractability: boolean;
  readonly unhandledPromptBehavior: PromptHandlerConfig;
  /** What it asked of the gateway's own features (its name, build, tags may change as the client reports). */
  options: SessionOptions;
  readonly log: Logger;
  readonly owner: string;
  /** What of the machine's files and URLs it may reach (backends/policy/): asked on every path. */
  readonly files: OwnFiles;
  /** The current top-level browsing context's window handle; null once it was closed. */
  currentWindow: string | null;
  /** Frame path of the current browsing context below the top level (empty: top level). */
  frames: string[] = [];
  /** Frames: frame id → web element reference of its frame element in the parent document (coordinate offsets). */
  readonly frameElements = new Map<string, string>();
  /**
   * Document ids this session has handed out element references for → the browsing context
   * (frame id or window handle) they belong to: stale (that context) vs unknown (any other).
   */
  readonly knownDocuments = new Map<string, string>();
  /** Where the browser saves this session's downloads (se:downloadsEnabled), inside its temporary directory. */
  downloads: string | undefined = undefined;
  /** The engine's end of the session's BiDi session (webSocketUrl), and the client's connection to it. */
  bidi: BidiEndpoint | undefined = undefined;
  bidiConnection: BidiClient | 'opening' | undefined = undefined;
  /** The session's browser serves no other session (CDP may be offered). */
  ownBrowser = false;
  /** BiDi shared ids already recorded in their documents for classic commands (shared-ids.ts). */
  readonly adoptedSharedIds = new Set<string>();
  /** The running classic command's page notes (./seam.ts, PageNotes), while an observer asks for them. */
  notes: PageNotes | undefined = undefined;
  ended = false;
  readonly createdAt = Date.now();
  /** When the last command ended (or the session started): idle sessions are reaped. */
  lastActivity = Date.now();
  /** Commands running or queued: a session is never idle while one is. */
  inFlight = 0;
  readonly release: () => Promise<void>;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(init: SessionInit) {
    this.id = init.id;
    this.browser = init.browser;
    this.capabilities = init.capabilities;
    this.timeouts = init.timeouts;
    this.pageLoadStrategy = init.pageLoadStrategy;
    this.strictFileInteractability = init.strictFileInteractability;
    this.unhandledPromptBehavior = init.unhandledPromptBehavior;
    this.options = init.options;
    this.log = init.log;
    this.owner = init.owner;
    this.files = new OwnFiles(init.reach);
    this.currentWindow = init.browser.initialWindow;
    this.release = init.release;
    // Spec §16: beforeunload prompts are handled as they open (src/webdriver/prompts.ts).
    watchUserPrompts(this);
  }

  /** Serve BiDi (webSocketUrl): the engine's messages go to whichever client is connected. */
  attachBidi(endpoint: BidiEndpoint): void {
    this.bidi = endpoint;
    endpoint.onMessage((message) => {
      if (typeof this.bidiConnection === 'object') this.bidiConnection.deliver(message);
    });
  }

  /**
   * The session ended: the engine's BiDi end closes (what the client left in a shared engine
   * session goes) and `closing` runs (the observers' last look, a recording's end), before the
   * context is given back. Never throws.
   */
  async finish(closing: () => Promise<void>): Promise<void> {
    const ending = Promise.all([this.bidi?.close(), closing()].map((p) => Promise.resolve(p).catch(() => {})));
    // Bounded: the context is given back all the same (a recording's ffmpeg is stopped by its own bound).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([ending, new Promise<void>((resolve) => (timer = setTimeout(resolve, FINISH_BOUND_MS)))]);
    clearTimeout(timer);
  }

  /** Other sockets of the session (CDP): each closes when the session ends. */
  readonly sockets = new Set<() => void>();

  /** The session ended: its sockets close (their engine ends go with the browser context). */
  closeSockets(): void {
    if (typeof this.bidiConnection === 'object') this.bidiConnection.end();
    for (const close of this.sockets) close();
    this.sockets.clear();
  }

  get browserName(): string {
    return this.browser.browserName;
  }

  /**
   * Run `task` after every earlier command of this session has finished, or once `waitAtMostMs`
   * passed (Delete Session: ENDING_WAITS_AT_MOST_MS).
   */
  serialize<T>(task: () => Promise<T>, waitAtMostMs?: number): Promise<T> {
    this.inFlight++;
    const run = this.#earlier(waitAtMostMs).then(task, task).finally(() => {
      this.inFlight--;
      this.lastActivity = Date.now();
    });
    this.#queue = run.catch(() => {});
    return run;
  }

  /** The commands before: all of them finished, or `boundMs` passed. */
  #earlier(boundMs: number | undefined): Promise<unknown> {
    if (boundMs === undefined) return this.#queue;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, boundMs)));
    return Promise.race([this.#queue, bound]).finally(() => clearTimeout(timer));
  }

  /** The current top-level window, or `no such window` if it has been closed (spec). */
  async currentTopLevel(): Promise<string> {
    const handle = this.currentWindow;
    if (handle === null || !(await this.browser.windowHandles()).includes(handle)) {
      throw error('no such window', 'the current browsing context is no longer open');
    }
    return handle;
  }

  /** The current browsing context, checked to be open (a frame: still attached, spec §11.6). */
  async currentContext(): Promise<BrowsingContext> {
    const window = await this.currentTopLevel();
    const frame = this.frames.at(-1);
    if (frame !== undefined && !(await this.browser.frameOpen(window, frame))) {
      throw error('no such window', 'the current browsing context (a frame) is no longer open');
    }
    return { window, frames: this.frames };
  }

  /** Remove the session's own folder and all in it (when the session ends). Never throws. */
  removeTemporaryFiles(): Promise<void> {
    return this.files.remove();
  }
}

/** A client's BiDi connection, as the session sees it (src/bidi/connection.ts). */
export interface BidiClient {
  deliver(message: Record<string, unknown>): void;
  /** Close the connection (the session ended). */
  end(): void;
}
