// The recorder of one traced session: every step (classic command, BiDi message, forwarded
// request, the client's markers), and for a driven session what its browser showed after each
// step that can change the page, taken once the page had settled — when the session's next
// command begins (or when the session ends):
//
// - The DOM snapshot, always. The page's library (./page/snapshot.js, in the gateway's own world)
//   knows what changed since the last one: an unchanged page costs one short call and shares the
//   files; a changed one is written as what changed and references into earlier snapshots. A
//   next command that only reads (find, get text …) runs beside it; one that may change the page
//   waits for it (a fraction of a ms to a few), so a snapshot never shows the next step's page.
// - A picture (JPEG screenshot, the expensive part: 15–20 ms of the browser's CPU): always for a
//   failed command (at most one a second while the page keeps changing) and when the session
//   ends with a trace that is kept; for other steps only when the machine has room
//   (./pressure.ts) and the next command only reads, never waited for, and kept only if the page
//   did not change while it was taken. A later picture of the same unchanged page is also the
//   picture of the steps before it that went without one (the click before a failed find shows
//   the failure's picture). A step left without one says why (`noScreenshot`).
//
// Console messages, page errors and requests come from the backend's listeners. Everything stays
// in memory, within a byte budget, until the trace is written (./trace-file.ts).
//
// Before, action, after (docs/traces.md): a step's after capture is the next step's before (it is
// taken right before the next command runs). A command that acts on an element or with a pointer
// (./action.ts) is told by its own page calls where that element was right before it acted
// (src/webdriver/notes.ts): no call of the trace's own. A find that had to wait for its element
// (the page changed while it polled) is captured as a page-changing step, so the command after it
// has a before that shows the element; a page that changed by itself after the last capture and
// before a step acted is said so on the step (`changedBefore`), as the next capture finds it.
//
// Snapshots are incremental (./page/snapshot.js): each names, in its file's `documents`, the
// earlier snapshots its references point into (docs/traces.md, "Snapshots").
import { createHash } from 'node:crypto';
import { UserPromptOpenedError, type ConsoleEntry, type NetworkEntry, type PageError } from '../../backends/backend.ts';
import type { Session } from '../webdriver/session.ts';
import { commandFacts } from '../webdriver/routes.ts';
import type { Redactor } from '../webdriver/redact.ts';
import type { PendingCommand } from '../webdriver/seam.ts';
import type { PageNotes } from '../webdriver/notes.ts';
import { actionCapture, actionPlan, type ActionCapture, type ActionPlan, type Capture } from './action.ts';
import { changedSince, NoPicture, snapshotDocument, SnapshotBook, takePicture, type DomSnapshot, type PageVersion } from './capture.ts';
import type { HarPage } from './har.ts';
import { pictureGate, type PictureGate } from './pressure.ts';

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
  /** Why a step with a snapshot has no picture of its own (the snapshot shows the page). */
  noScreenshot?: string;
  /** The viewport of the step's capture and how far it was scrolled (CSS px). */
  viewport?: { width: number; height: number; scrollX: number; scrollY: number };
  /** The page right before it ran, when that is not the after capture of the step before it. */
  before?: Capture;
  /** What it acted on and where its pointer went down. */
  action?: ActionCapture;
  /** The page changed by itself after the capture before this step and before it acted: that capture (its before) may not show the page as it was. */
  changedBefore?: true;
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

/** Scripts may change what no event reports (a value set by script): their pages are snapshotted whole. */
const SCRIPTS = new Set(['executeScript', 'executeAsyncScript']);
/** A failed command's picture is taken at most this often while the page keeps changing (a client polling for an element). */
const FAILURE_PICTURE_MS = 1000;
/** A capture that takes longer is given up (the trace goes without it). */
const CAPTURE_BOUND_MS = 5000;
/**
 * The next command waits this long at most for the page to answer a snapshot: a page still loading (a navigation that timed out) may not answer until its document
 * comes, and the session must not wait for that. The capture is then dropped. (Once the snapshot
 * is in, a failure's picture is waited for as long as it takes, within CAPTURE_BOUND_MS.)
 */
const CAPTURE_WAIT_MS = 2000;
const MAX_CONSOLE = 10_000;
const MAX_REQUESTS = 10_000;

export interface RecorderOptions {
  redactor: Redactor;
  /** Most bytes of screenshots and snapshots kept in memory for the session. */
  maxBytes: number;
  /** Most bytes of one DOM snapshot. */
  maxSnapshotBytes: number;
  /** A capture failed or was left out (counted in /metrics). */
  dropped(reason: 'capture failed' | 'size limit' | 'machine busy'): void;
  /** Whether the trace would be kept if the session ended now ("on", or failing): the last capture has a picture then. */
  kept?(): boolean;
  /** Whether the machine has room for a picture no failure needs (tests give their own). */
  gate?: PictureGate;
  /** A picture after every page-changing step, waited for (trace.pictures "every-step"). */
  everyStep?: boolean;
}

/** What the page showed at one capture, shared by the steps after which it did not change. */
interface PageState {
  window: string;
  at: PageVersion;
  url: string;
  title: string;
  viewport: DomSnapshot['viewport'];
  snapshot: string | undefined;
  picture: string | undefined;
  /** A picture of it being taken. */
  taking: Promise<void> | undefined;
  /** The steps that showed it. */
  steps: TraceStep[];
}

/** The capture of a step: how the session's next command goes on beside it. */
type Next = 'reads' | 'changes' | 'ends';

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
  /** What the next command that may change the page waits for: the running capture's snapshot (and a failure's picture). */
  #blocking: Promise<void> | undefined;
  /** Every capture still running, pictures included (the session's end waits for them). */
  readonly #running = new Set<Promise<void>>();
  /** The page as last captured, per window. */
  readonly #states = new Map<string, PageState>();
  #lastPictureAt = 0;
  #ended = false;
  /** The classic command about to run that acts on an element or with a pointer: its plan, for its step. */
  #acting: { name: string; plan: ActionPlan } | undefined;
  /** Which file holds each snapshot kept, and what each window's next one is incremental to. */
  readonly #book = new SnapshotBook();

  constructor(options: RecorderOptions) {
    this.#options = options;
    this.redactor = options.redactor;
  }

  /** A driven session's browser: its console, page errors and requests from now on. */
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

  /**
   * Add a step; page-changing commands of a driven session are captured before the next one
   * runs. `notes`: what the command's own page calls saw (where it acted).
   */
  add(step: Omit<TraceStep, 'n'>, capture = false, notes?: PageNotes): TraceStep {
    const full = { n: this.steps.length, ...step } as TraceStep;
    if (step.kind === 'command' && this.#acting?.name === step.name) {
      const action = actionCapture(this.#acting.plan, notes);
      if (action) full.action = action;
      this.#acting = undefined;
    }
    this.steps.push(full);
    if (capture) {
      this.#pending = full;
      this.#actedAt.set(full, notes?.at ?? step.startedAt);
    }
    return full;
  }

  /** When each step waiting for its capture began to act (its first page call, else its start). */
  readonly #actedAt = new WeakMap<TraceStep, number>();

  /**
   * Right before a classic command of the session runs (in its queue): the previous step's
   * capture begins, and a command that may change the page (the route table's changesPage) waits
   * for its snapshot; one that acts on an element or with a pointer has its plan made (its own
   * page calls will say where the element was). (What it types into a password field the seam
   * has hidden already: src/webdriver/seam.ts.)
   */
  async beforeCommand(session: Session, command: PendingCommand): Promise<void> {
    this.#acting = undefined;
    // Delete Session: the last capture is the session's end's (finish).
    if (command.name === 'deleteSession') return;
    const changes = commandFacts(command.name).changesPage === true;
    if (this.#pending) this.#begin(session, changes ? 'changes' : 'reads');
    if (changes) await this.#blocking;
    const plan = actionPlan(command.name, command.urlParams, command.params, session.frames.length > 0);
    if (plan) this.#acting = { name: command.name, plan };
  }

  /** Capture what the browser shows now for the step waiting for it, pictures included. Never throws. */
  async capture(session: Session): Promise<void> {
    if (this.#pending) this.#begin(session, 'ends');
    await this.#settled();
  }

  /** Whether the trace would be kept if the session ended now. */
  get keeps(): boolean {
    return this.#options.kept?.() !== false;
  }

  /** The session is ending (its browser still there): the last capture, and every capture still running. */
  async finish(session: Session | undefined): Promise<void> {
    // A trace that will not be kept needs no last look.
    if (session && this.#pending && this.keeps) await this.capture(session);
    await this.#settled();
    this.#ended = true;
  }

  async #settled(): Promise<void> {
    while (this.#running.size) await Promise.all(this.#running);
  }

  // ── Captures ───────────────────────────────────────────────────────────────────────────────

  /** The pending step's capture begins: its snapshot, then its picture as the rules above say. */
  #begin(session: Session, next: Next): void {
    const step = this.#pending!;
    this.#pending = undefined;
    const window = session.currentWindow;
    // (An ended session's browser is still there while its finishers run: the last capture.)
    if (window === null) return;
    if (this.#overBudget) {
      step.captureError = 'the trace reached its size limit (trace.maxBytes)';
      return;
    }
    let pictured: Promise<void> = Promise.resolve();
    let abandoned = false;
    const snapshotted = this.#snapshot(session, window, step, () => abandoned);
    const capturing = (async () => {
      const state = await snapshotted;
      if (!state) return;
      pictured = this.#picture(session, state, step, next);
      // A failure's picture (and the last one, and every step's when asked) is waited for: it must show this page.
      if (step.error !== undefined || next === 'ends' || this.#options.everyStep) await pictured;
    })();
    // The session's end waits for its last capture (bounded by CAPTURE_BOUND_MS); a next command
    // for the snapshot only so long, then for the rest.
    this.#blocking =
      next === 'ends'
        ? capturing
        : waitAtMost(snapshotted, CAPTURE_WAIT_MS, () => {
            abandoned = true;
            step.captureError = `the page did not answer within ${CAPTURE_WAIT_MS} ms (still loading?): the next command went on`;
            this.#options.dropped('capture failed');
          }).then(() => (abandoned ? undefined : capturing));
    const all = capturing.then(() => pictured);
    this.#running.add(all);
    void all.finally(() => this.#running.delete(all));
  }

  /** The step's DOM snapshot, or the last one when the page did not change: the page state it shows. */
  async #snapshot(session: Session, window: string, step: TraceStep, abandoned: () => boolean): Promise<PageState | undefined> {
    const { browser } = session;
    try {
      const last = this.#states.get(window);
      const taken = await bounded(snapshotDocument(browser, window, this.#options.maxSnapshotBytes, this.#book.known(window), SCRIPTS.has(step.name)));
      if (!('unchanged' in taken)) for (const secret of taken.secrets) this.redactor.addSecret(secret);
      // Too late: it may show what the next command did.
      if (abandoned()) return undefined;
      // The page changed by itself before the step acted: its before (the last capture) may not show it as it was.
      const actedAt = this.#actedAt.get(step);
      if (taken.changedAt > 0 && actedAt !== undefined && taken.changedAt < actedAt) step.changedBefore = true;
      let state: PageState;
      if ('unchanged' in taken) {
        // (Unchanged is answered only since a snapshot kept: its state is there.)
        if (!last) throw new Error('the page answered unchanged since a snapshot this trace does not have');
        state = last;
      } else {
        const snapshot = this.#keep('snapshots', step.n, 'json', this.#book.file(taken));
        if (snapshot) this.#book.kept(window, taken, snapshot);
        state = { window, at: taken.at, url: taken.url, title: taken.title, viewport: taken.viewport, snapshot, picture: undefined, taking: undefined, steps: [] };
        this.#states.set(window, state);
      }
      state.steps.push(step);
      step.url = state.url;
      step.title = state.title;
      step.window = window;
      step.snapshot = state.snapshot;
      step.viewport = state.viewport;
      if (state.picture) step.screenshot = state.picture;
      if (step.name === 'navigateTo' || step.name === 'back' || step.name === 'forward' || step.name === 'refresh' || this.pages.length === 0) {
        this.pages.push({ id: `page_${step.n}`, startedAt: step.startedAt, title: state.title || state.url });
      }
      return state;
    } catch (e) {
      if (abandoned()) return undefined;
      step.captureError = e instanceof UserPromptOpenedError ? 'a user prompt was open' : `the capture failed: ${(e as Error).message}`.slice(0, 300);
      this.#options.dropped('capture failed');
      return undefined;
    }
  }

  /** The state's picture, if it has none yet and the rules let it be taken now. Never throws. */
  async #picture(session: Session, state: PageState, step: TraceStep, next: Next): Promise<void> {
    if (state.taking) await state.taking;
    if (state.picture) return;
    if (this.#overBudget) {
      step.noScreenshot = 'the trace reached its size limit (trace.maxBytes)';
      return;
    }
    const needed = next === 'ends' || this.#options.everyStep === true || (step.error !== undefined && Date.now() - this.#lastPictureAt >= FAILURE_PICTURE_MS);
    if (!needed) {
      if (next === 'changes') {
        step.noScreenshot = 'the next command followed at once';
        return;
      }
      const release = (this.#options.gate ?? pictureGate).acquire();
      if (!release) {
        step.noScreenshot = 'the machine was busy';
        this.#options.dropped('machine busy');
        return;
      }
      state.taking = this.#take(session, state, step, true).finally(release);
    } else {
      state.taking = this.#take(session, state, step, false);
    }
    await state.taking;
    state.taking = undefined;
  }

  /** Take the picture; `check`: keep it only if the page did not change meanwhile (nothing waited for it). */
  async #take(session: Session, state: PageState, step: TraceStep, check: boolean): Promise<void> {
    try {
      this.#lastPictureAt = Date.now();
      const jpeg = await bounded(takePicture(session.browser, state.window));
      if (check && (await changedSince(session.browser, state.window, state.at))) {
        step.noScreenshot = 'the page changed while its picture was taken';
        return;
      }
      const name = this.#keep('screenshots', step.n, 'jpg', jpeg);
      if (!name) {
        step.noScreenshot = 'the trace reached its size limit (trace.maxBytes)';
        return;
      }
      state.picture = name;
      // Every step that showed this page shows this picture.
      for (const s of state.steps) {
        s.screenshot = name;
        delete s.noScreenshot;
      }
    } catch (e) {
      if (e instanceof NoPicture) {
        step.noScreenshot = e.message;
        return;
      }
      step.noScreenshot = e instanceof UserPromptOpenedError ? 'a user prompt was open' : `the picture failed: ${(e as Error).message}`.slice(0, 300);
      this.#options.dropped('capture failed');
    }
  }

  // ── Files ──────────────────────────────────────────────────────────────────────────────────

  /** Keep a file once (a repeated picture or DOM names the first), within the byte budget. */
  #keep(folder: string, n: number | string, ext: string, content: Buffer | string): string | undefined {
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

function bounded<T>(promise: Promise<T>, ms = CAPTURE_BOUND_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Settles when `promise` does, or after `ms` (then `late` runs first); never rejects. */
function waitAtMost(promise: Promise<unknown>, ms: number, late: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(() => (late(), resolve()), ms)));
  return Promise.race([promise.then(() => {}, () => {}), timeout]).finally(() => clearTimeout(timer));
}
