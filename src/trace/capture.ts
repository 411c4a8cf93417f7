// What the recorder takes from a session's browser after a step: the DOM snapshot of the current
// window (./page/snapshot.js, installed once per document as a library that also knows whether
// the page changed since its last snapshot; frames of other origins snapshotted in their own
// browsing context) and a JPEG screenshot. Only primitives every driven backend has:
// callFunction (with a library), contentFrameId, screenshot.
import { readFileSync } from 'node:fs';
import { transformSync } from 'esbuild';
import type { BrowsingContext, DrivenBrowser } from '../../backends/backend.ts';
import { ELEMENT_REFERENCES } from '../webdriver/page/index.ts';

/** The trace's page library, minified once: an expression whose value is the library object. */
const LIBRARY = (() => {
  const source = readFileSync(new URL('./page/snapshot.js', import.meta.url), 'utf8');
  const { code } = transformSync(`var wdgateTraceLibrary = ${source.slice(source.indexOf('function wdgateTraceLibrary'))}`, { minify: true, target: 'es2022', legalComments: 'none' });
  return `(${code.trim().replace(/^var \w+=/, '').replace(/;$/, '')})()`;
})();
const SNAPSHOT = 'function (options) { return this.snapshot(options); }';
const CHANGED_SINCE = 'function (since) { return this.changedSince(since); }';

/** The frame element with this index among the document's frames (for contentFrameId). */
const FRAME_AT = 'function (i) { return document.querySelectorAll("iframe, frame")[i] || null; }';

/** Frames of other origins snapshotted per document, and how deep. */
const MAX_FOREIGN_FRAMES = 8;
const MAX_DEPTH = 3;

/** A document's snapshot as the page's library counts them: which document, which of its snapshots. */
export interface PageVersion {
  id: string;
  version: number;
}

export interface DomSnapshot {
  html: string;
  url: string;
  title: string;
  /** Values of password fields seen: scrubbed from the whole trace, never written. */
  secrets: string[];
  truncated: boolean;
  /** The viewport and how far it was scrolled (CSS px), when taken. */
  viewport: { width: number; height: number; scrollX: number; scrollY: number };
  at: PageVersion;
}

interface PageSnapshot extends Omit<DomSnapshot, 'at'>, PageVersion {
  foreign: number[];
}

/**
 * The window's document as a snapshot, its frames' documents inlined; or `unchanged` when
 * `since` is this document's last snapshot and nothing changed since (`full`: take it anyway).
 */
export async function snapshotDocument(browser: DrivenBrowser, window: string, maxBytes: number, since?: PageVersion, full = false): Promise<DomSnapshot | { unchanged: true }> {
  const context = { window, frames: [] };
  const page = (await browser.callFunction(context, SNAPSHOT, [{ maxBytes, since, full }], { library: LIBRARY })) as PageSnapshot | { unchanged: true };
  if ('unchanged' in page) return { unchanged: true };
  return inlineFrames(browser, context, page, maxBytes, 0);
}

/** Where a command is about to act (the top-level viewport's CSS px): ./page/snapshot.js, look(). */
export interface ActionTarget {
  box: { x: number; y: number; width: number; height: number };
  /** The in-view center point of its first box (out of view: its box's center). */
  center: { x: number; y: number };
  inView: boolean;
  /** Its path in the snapshot's document (an element of the top-level document's light DOM). */
  selector?: string;
}

const LOOK = 'function (options) { return this.look(options); }';

/**
 * Right before a command acts on `element` (a web element reference of the session): where it is
 * (null: not found, or in a frame of another origin), the viewport, and the window's document as
 * snapshotDocument answers it, the element carrying data-wdgate-target="<marker>" when taken.
 */
export async function lookAtTarget(
  browser: DrivenBrowser,
  window: string,
  look: { element: string | undefined; marker: string; maxBytes: number; since?: PageVersion },
): Promise<{ target: ActionTarget | null; viewport: DomSnapshot['viewport']; snapshot: DomSnapshot | { unchanged: true } }> {
  const context = { window, frames: [] };
  const options = { element: look.element, references: ELEMENT_REFERENCES, marker: look.marker, maxBytes: look.maxBytes, since: look.since };
  const answer = (await browser.callFunction(context, LOOK, [options], { library: LIBRARY })) as { target: ActionTarget | null; viewport: DomSnapshot['viewport']; snapshot: PageSnapshot | { unchanged: true } };
  const snapshot = 'unchanged' in answer.snapshot ? { unchanged: true as const } : await inlineFrames(browser, context, answer.snapshot, look.maxBytes, 0);
  return { target: answer.target, viewport: answer.viewport, snapshot };
}

/** Whether the window's document may have changed since its snapshot `since`. Never throws (then: changed). */
export async function changedSince(browser: DrivenBrowser, window: string, since: PageVersion): Promise<boolean> {
  return (await browser.callFunction({ window, frames: [] }, CHANGED_SINCE, [since], { library: LIBRARY }).catch(() => true)) !== false;
}

async function snapshotContext(browser: DrivenBrowser, context: BrowsingContext, maxBytes: number, depth: number): Promise<DomSnapshot> {
  const page = (await browser.callFunction(context, SNAPSHOT, [{ maxBytes }], { library: LIBRARY })) as PageSnapshot;
  return inlineFrames(browser, context, page, maxBytes, depth);
}

/** Other origins' frames of the document, each snapshotted in its own browsing context, inlined as srcdoc. */
async function inlineFrames(browser: DrivenBrowser, context: BrowsingContext, page: PageSnapshot, maxBytes: number, depth: number): Promise<DomSnapshot> {
  let { html } = page;
  const secrets = [...page.secrets];
  if (depth < MAX_DEPTH) {
    for (const index of page.foreign.slice(0, MAX_FOREIGN_FRAMES)) {
      const inner = await browser
        .contentFrameId(context, FRAME_AT, [index])
        .then((frame) => (frame === null ? undefined : snapshotContext(browser, { window: context.window, frames: [...context.frames, frame] }, maxBytes, depth + 1)))
        .catch(() => undefined);
      if (inner) secrets.push(...inner.secrets);
      html = html.replace(`srcdoc="wdgate-frame-${index}"`, inner ? `srcdoc="${escapeAttribute(inner.html)}"` : '');
    }
  }
  return { html, url: page.url, title: page.title, secrets, truncated: page.truncated, viewport: page.viewport, at: { id: page.id, version: page.version } };
}

const escapeAttribute = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** The window's viewport as a JPEG (what the trace shows of the page). */
export async function takePicture(browser: DrivenBrowser, window: string): Promise<Buffer> {
  return Buffer.from(await browser.screenshot(window, undefined, { type: 'jpeg', quality: 50 }), 'base64');
}
