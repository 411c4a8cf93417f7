// The recorder of one traced session: every step (classic command, BiDi message, forwarded
// request, the client's markers), and for a driven session what its browser showed after each
// step that can change the page — the DOM snapshot and the screenshot, taken when the page had
// settled: right before the session's next command runs (or when the session ends), so the client
// never waits for a capture of its own command. On Chromium the screenshot is the screencast's
// first frame drawn after that moment, which costs no round trip; elsewhere a JPEG capture.
// Console messages, page errors and requests come from the backend's listeners. Everything stays
// in memory, within a byte budget, until the trace is written (./trace-file.ts).
import { createHash } from 'node:crypto';
import { UserPromptOpenedError, type ConsoleEntry, type NetworkEntry, type PageError } from '../../backends/backend.ts';
import type { Session } from '../webdriver/session.ts';
import { snapshotDocument } from './capture.ts';
import type { HarPage } from './har.ts';
import type { Redactor } from '../webdriver/redact.ts';

export interface TraceStep {
  n: number;
  kind: 'command' | 'bidi' | 'forwarded' | 'marker' | 'event';
  name: string;
  startedAt: number;
  durationMs: number;
  params?: unknown;
  /** The element a classic command addressed (its id in this session). */
  element?: string;
  result?: string;
  error?: { code: string; message: string };
  window?: string;
  url?: string;
  title?: string;
  screenshot?: string;
  snapshot?: string;
  /** Why no screenshot or snapshot was taken after a step that would have had one. */
  captureError?: string;
  text?: string;
}

export interface ConsoleRecord {
  type: 'console' | 'pageerror';
  level: string;
  text: string;
  stack?: string;
  window?: string;
  timestamp: number;
}

/** How long a step waits for the screencast's next frame (a page that does not change draws none). */
const FRAME_GRACE_MS = 400;
/**
 * A trace's screencast: smaller and coarser than a recording's, since every frame the page draws
 * is encoded and carried while it runs (at 960×720, quality 60, the bench's mix ran 1.55× slower
 * traced; at this size 1.28×). Every frame, not one in n (1.17×): a change drawn in one frame must
 * not be missed.
 */
const TRACE_SCREENCAST = { maxWidth: 640, maxHeight: 480, quality: 50, everyNthFrame: 1 };
/** A capture that takes longer is given up (the trace goes without it; the command goes on). */
const CAPTURE_BOUND_MS = 5000;
const MAX_CONSOLE = 10_000;
const MAX_REQUESTS = 10_000;

export interface RecorderOptions {
  redactor: Redactor;
  /** Most bytes of screenshots and snapshots kept in memory for the session. */
  maxBytes: number;
  /** Most bytes of one DOM snapshot. */
  maxSnapshotBytes: number;
  /** A capture failed or was left out (counted in /metrics). */
  dropped(reason: 'capture failed' | 'size limit'): void;
}

interface Frame {
  at: number;
  data: string;
}

export class Recorder {
  readonly steps: TraceStep[] = [];
  readonly console: ConsoleRecord[] = [];
  readonly network: NetworkEntry[] = [];
  readonly pages: HarPage[] = [];
  /** Screenshots (bytes) and snapshots (text, redacted when written) by file name. */
  readonly files = new Map<string, Buffer | string>();
  readonly redactor: Redactor;
  readonly #options: RecorderOptions;
  readonly #byHash = new Map<string, string>();
  #bytes = 0;
  #overBudget = false;
  /** The last page-changing step, waiting for its capture. */
  #pending: TraceStep | undefined;
  #screencast: { window: string; stop: () => Promise<void> } | undefined;
  /** Screencast frames, oldest first: the newest, and those a waiting step may still need. */
  #frames: Frame[] = [];
  #awaiting: { step: TraceStep; after: number; timer: NodeJS.Timeout } | undefined;
  /** When the last capture began: frames drawn since are kept for it. */
  #lastCapture = 0;
  #ended = false;

  constructor(options: RecorderOptions) {
    this.#options = options;
    this.redactor = options.redactor;
  }

  /** A driven session's browser: its console, page errors, requests (and, where there is one, its screencast) from now on. */
  async watch(session: Session): Promise<void> {
    const { browser } = session;
    browser.onConsoleMessage?.((entry: ConsoleEntry) => {
      if (this.#ended || this.console.length >= MAX_CONSOLE) return;
      this.console.push({ type: 'console', level: entry.level, text: entry.text, window: entry.window, timestamp: entry.timestamp });
    });
    browser.onPageError?.((error: PageError) => {
      if (this.#ended || this.console.length >= MAX_CONSOLE) return;
      this.console.push({ type: 'pageerror', level: 'error', text: error.message, stack: error.stack, window: error.window, timestamp: error.timestamp });
    });
    // Resolves once the engine reports requests (Firefox: a subscription's round trip).
    await browser.onNetworkRequest?.((entry: NetworkEntry) => {
      if (!this.#ended && this.network.length < MAX_REQUESTS) this.network.push(entry);
    });
  }

  /** Add a step; page-changing commands of a driven session are captured before the next one runs. */
  add(step: Omit<TraceStep, 'n'>, capture = false): TraceStep {
    const full = { n: this.steps.length, ...step } as TraceStep;
    this.steps.push(full);
    if (capture) this.#pending = full;
    return full;
  }

  /**
   * Right before a command of the session runs (in its queue): the previous step's capture. (What
   * it types into a password field the seam has hidden already: src/webdriver/seam.ts.)
   */
  async beforeCommand(session: Session): Promise<void> {
    if (this.#pending) await this.capture(session);
  }

  /** Capture what the browser shows now for the step waiting for it. Never throws. */
  async capture(session: Session): Promise<void> {
    const step = this.#pending;
    this.#pending = undefined;
    const window = session.currentWindow;
    // (An ended session's browser is still there while its finishers run: the last capture.)
    if (!step || window === null) return;
    if (this.#overBudget) {
      step.captureError = 'the trace reached its size limit (trace.maxBytes)';
      return;
    }
    const { browser } = session;
    const at = Date.now();
    this.#lastCapture = at;
    try {
      const snapshot = await bounded(snapshotDocument(browser, window, this.#options.maxSnapshotBytes));
      for (const secret of snapshot.secrets) this.redactor.addSecret(secret);
      step.url = snapshot.url;
      step.title = snapshot.title;
      step.window = window;
      step.snapshot = this.#keep('snapshots', step.n, 'html', snapshot.html);
      if (step.name === 'navigateTo' || step.name === 'back' || step.name === 'forward' || step.name === 'refresh' || this.pages.length === 0) {
        this.pages.push({ id: `page_${step.n}`, startedAt: step.startedAt, title: snapshot.title || snapshot.url });
      }
      if (browser.screencast) await this.#frameFor(session, window, step, at);
      else step.screenshot = this.#keep('screenshots', step.n, 'jpg', Buffer.from(await bounded(browser.screenshot(window, undefined, { type: 'jpeg', quality: 60 })), 'base64'));
    } catch (e) {
      step.captureError = e instanceof UserPromptOpenedError ? 'a user prompt was open' : `the capture failed: ${(e as Error).message}`.slice(0, 300);
      this.#options.dropped('capture failed');
    }
  }

  /** The session is ending (its browser still there): the last capture, then the screencast stops. */
  async finish(session: Session | undefined): Promise<void> {
    if (session && this.#pending) await this.capture(session).catch(() => {});
    this.#ended = true;
    if (this.#awaiting) this.#bindAwaiting();
    await this.#screencast?.stop().catch(() => {});
    this.#screencast = undefined;
  }

  // ── Screencast frames ──────────────────────────────────────────────────────────────────────
  // The page as it was when the capture began is drawn in the first frame after that moment:
  // a step takes that frame once it comes. A page that does not change draws none: after a
  // grace period the step takes the newest frame there is. (Commands come faster than frames, so
  // waiting for one in the command path would cost every page-changing command a frame.)

  async #frameFor(session: Session, window: string, step: TraceStep, at: number): Promise<void> {
    if (this.#screencast?.window !== window) await this.#startScreencast(session, window);
    if (this.#awaiting) this.#bindAwaiting();
    // A frame drawn since may have come while the snapshot was taken.
    const drawn = this.#frames.find((frame) => frame.at >= at);
    if (drawn) {
      step.screenshot = this.#frameFile(step, drawn);
      this.#frames = this.#frames.slice(-1);
      return;
    }
    const timer = setTimeout(() => this.#bindAwaiting(), FRAME_GRACE_MS);
    timer.unref();
    this.#awaiting = { step, after: at, timer };
  }

  async #startScreencast(session: Session, window: string): Promise<void> {
    await this.#screencast?.stop().catch(() => {});
    this.#frames = [];
    const stop = await session.browser.screencast!(window, (data, timestamp) => this.#frame(data, timestamp ?? Date.now()), TRACE_SCREENCAST);
    this.#screencast = { window, stop };
  }

  #frame(data: string, at: number): void {
    if (this.#ended) return;
    const newest = this.#frames.at(-1);
    if (newest && at < newest.at) return; // an older picture arriving late
    // Kept: the newest, and any drawn since the last capture began (a step may want the first of them).
    this.#frames = [...this.#frames.filter((frame, i, all) => frame.at >= this.#lastCapture || i === all.length - 1), { at, data }].slice(-8);
    if (this.#awaiting && at >= this.#awaiting.after) this.#bindAwaiting();
  }

  /** The waiting step takes the first frame drawn after its capture began, or else the newest. */
  #bindAwaiting(): void {
    const awaiting = this.#awaiting;
    if (!awaiting) return;
    this.#awaiting = undefined;
    clearTimeout(awaiting.timer);
    const frame = this.#frames.find((f) => f.at >= awaiting.after) ?? this.#frames.at(-1);
    if (frame) awaiting.step.screenshot = this.#frameFile(awaiting.step, frame);
    this.#frames = this.#frames.slice(-1);
  }

  #frameFile(step: TraceStep, frame: Frame): string | undefined {
    return this.#keep('screenshots', step.n, 'jpg', Buffer.from(frame.data, 'base64'));
  }

  // ── Files ──────────────────────────────────────────────────────────────────────────────────

  /** Keep a file once (a repeated picture or DOM names the first), within the byte budget. */
  #keep(folder: string, n: number, ext: string, content: Buffer | string): string | undefined {
    const hash = createHash('sha1').update(content).digest('base64url');
    const known = this.#byHash.get(hash);
    if (known) return known;
    const size = typeof content === 'string' ? Buffer.byteLength(content) : content.length;
    if (this.#bytes + size > this.#options.maxBytes) {
      if (!this.#overBudget) this.#options.dropped('size limit');
      this.#overBudget = true;
      return undefined;
    }
    this.#bytes += size;
    const name = `${folder}/${n}.${ext}`;
    this.files.set(name, content);
    this.#byHash.set(hash, name);
    return name;
  }
}

function bounded<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${CAPTURE_BOUND_MS} ms`)), CAPTURE_BOUND_MS)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
