// What the recorder takes from a session's browser after a step: the DOM snapshot of the current
// window (./page/snapshot.js, installed once per document in the gateway's own world beside the
// page's, as a library that knows what changed since its last snapshot; frames of other origins
// snapshotted in their own browsing context) and a JPEG screenshot. Only primitives every driven
// backend has: callFunction (isolated, with a library), contentFrameId, screenshot.
import { readFileSync } from 'node:fs';
import { transformSync } from 'esbuild';
import type { BrowsingContext, DrivenBrowser } from '../../backends/backend.ts';

/** The trace's page library, minified once: an expression whose value is the library object. */
export const LIBRARY = (() => {
  const source = readFileSync(new URL('./page/snapshot.js', import.meta.url), 'utf8');
  const { code } = transformSync(`var wdgateTraceLibrary = ${source.slice(source.indexOf('function wdgateTraceLibrary'))}`, { minify: true, target: 'es2022', legalComments: 'none' });
  return `(${code.trim().replace(/^var \w+=/, '').replace(/;$/, '')})()`;
})();
const SNAPSHOT = 'function (options) { return this.snapshot(options); }';
const CHANGED_SINCE = 'function (since) { return this.changedSince(since); }';
/** Every call of the trace runs in the gateway's own world: the page's scripts never see it. */
const CALL = { library: LIBRARY, isolated: true } as const;

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

/** What the recorder knows of a window's documents: the last snapshot kept of the top one and of each frame of another origin. */
export interface WindowCaptures {
  top?: PageVersion;
  /** By the frame's browsing context id. */
  frames: Map<string, KeptDocument>;
}

/** A document's last snapshot kept, and its root element's place in it (a frame's document, unchanged, is that). */
export interface KeptDocument extends PageVersion {
  root: [number, number] | null;
  doctype?: string;
}

export interface DomSnapshot {
  /** The snapshot's tree: `{"doctype", "html"}` (docs/traces.md, "Snapshots"), its frames' documents in it. */
  tree: string;
  /** The earlier snapshots its references name (this document's and its frames'), for the file's `documents`. */
  references: PageVersion[];
  url: string;
  title: string;
  /** Values of password fields seen: scrubbed from the whole trace, never written. */
  secrets: string[];
  truncated: boolean;
  /** The viewport and how far it was scrolled (CSS px), when taken. */
  viewport: { width: number; height: number; scrollX: number; scrollY: number };
  at: PageVersion;
  /** The documents of frames of other origins in it, to remember for the next snapshot. */
  frames: Map<string, KeptDocument>;
  /** When the page first changed since the snapshot before (Date.now() in the page; 0: unknown or not). */
  changedAt: number;
}

export interface Unchanged {
  unchanged: true;
  /** When the page first changed since the last snapshot: 0 (it did not, as far as the page knows). */
  changedAt: number;
}

interface PageSnapshot extends PageVersion {
  tree: string;
  versions: number[];
  url: string;
  title: string;
  secrets: string[];
  truncated: boolean;
  viewport: DomSnapshot['viewport'];
  foreign: number[];
  root: [number, number] | null;
  changedAt: number;
}

type PageAnswer = PageSnapshot | { unchanged: true; id: string; version: number; root: [number, number] | null; changedAt: number };

/**
 * The window's document as a snapshot of what changed since `known.top` (the last one kept),
 * its frames' documents in it; or `unchanged` when nothing changed since (`full`: the style
 * sheets' texts are compared too, after a script).
 */
export async function snapshotDocument(browser: DrivenBrowser, window: string, maxBytes: number, known: WindowCaptures, full = false): Promise<DomSnapshot | Unchanged> {
  const context = { window, frames: [] };
  const page = (await browser.callFunction(context, SNAPSHOT, [{ maxBytes, since: known.top, full }], CALL)) as PageAnswer;
  if ('unchanged' in page) return { unchanged: true, changedAt: page.changedAt };
  return inlineFrames(browser, context, page, maxBytes, 0, known.frames);
}

/**
 * A snapshot's file (docs/traces.md, "Snapshots"): which document and version it is, where the
 * earlier snapshots its references name are (`documents`: by `id:version`, the files holding
 * them; those not there are left out, and a reader leaves out what they stood for), its tree.
 */
export function snapshotFile(at: PageVersion, documents: Record<string, string>, tree: string): string {
  return `{"wdgateSnapshot":1,"document":${JSON.stringify({ id: at.id, version: at.version })},"documents":${JSON.stringify(documents)},${tree.slice(1)}`;
}

/**
 * A session's snapshot files as they are kept: which file holds each document's versions, and
 * per window what the next snapshot is incremental to (only what was kept: a snapshot not kept
 * is one the page must not refer to, and the page takes the next one whole).
 */
export class SnapshotBook {
  /** By `document id:version`: the file holding it. */
  readonly #files = new Map<string, string>();
  readonly #windows = new Map<string, WindowCaptures>();

  /** What the window's next snapshot is incremental to. */
  known(window: string): WindowCaptures {
    return this.#windows.get(window) ?? { frames: new Map() };
  }

  /** A snapshot's file content, for the file `name` (call `kept` once it is kept under that name). */
  file(taken: DomSnapshot): string {
    const documents: Record<string, string> = {};
    for (const { id, version } of taken.references) {
      const file = this.#files.get(`${id}:${version}`);
      if (file) documents[`${id}:${version}`] = file;
    }
    return snapshotFile(taken.at, documents, taken.tree);
  }

  /** The snapshot is kept as `name`: later ones may refer to it (and to the frames' documents written in it). */
  kept(window: string, taken: DomSnapshot, name: string): void {
    this.#files.set(`${taken.at.id}:${taken.at.version}`, name);
    for (const kept of taken.frames.values()) if (!this.#files.has(`${kept.id}:${kept.version}`)) this.#files.set(`${kept.id}:${kept.version}`, name);
    this.#windows.set(window, { top: taken.at, frames: taken.frames });
  }
}

/** Whether the window's document may have changed since its snapshot `since`. Never throws (then: changed). */
export async function changedSince(browser: DrivenBrowser, window: string, since: PageVersion): Promise<boolean> {
  return (await browser.callFunction({ window, frames: [] }, CHANGED_SINCE, [since], CALL).catch(() => true)) !== false;
}

/** A frame's document of another origin: its snapshot since the last one kept, or that one when it did not change. */
async function snapshotFrame(browser: DrivenBrowser, context: BrowsingContext, maxBytes: number, depth: number, frames: Map<string, KeptDocument>): Promise<{ node: string; snapshot?: DomSnapshot; kept: KeptDocument }> {
  const frame = context.frames.at(-1)!;
  const last = frames.get(frame);
  const page = (await browser.callFunction(context, SNAPSHOT, [{ maxBytes, since: last }], CALL)) as PageAnswer;
  if ('unchanged' in page) {
    if (!last?.root) throw new Error('a frame unchanged since a snapshot that was not kept');
    // The same document as last time: its root, as that snapshot wrote it.
    return { node: frameDocument(last, JSON.stringify([last.root])), kept: last };
  }
  const inner = await inlineFrames(browser, context, page, maxBytes, depth, frames);
  const { doctype, html } = JSON.parse(inner.tree) as { doctype?: string; html: unknown };
  const kept: KeptDocument = { id: page.id, version: page.version, root: page.root, ...(doctype && { doctype }) };
  return { node: frameDocument(kept, JSON.stringify(html)), snapshot: inner, kept };
}

/** A frame's document of its own in the tree: `["#document", {id, version, doctype}, html]`. */
function frameDocument(document: KeptDocument, html: string): string {
  return `["#document",${JSON.stringify({ id: document.id, version: String(document.version), ...(document.doctype && { doctype: document.doctype }) })},${html}]`;
}

/** Other origins' frames of the document, each snapshotted in its own browsing context, in place of their placeholders. */
async function inlineFrames(browser: DrivenBrowser, context: BrowsingContext, page: PageSnapshot, maxBytes: number, depth: number, known: Map<string, KeptDocument>): Promise<DomSnapshot> {
  let { tree } = page;
  const secrets = [...page.secrets];
  const references: PageVersion[] = page.versions.map((version) => ({ id: page.id, version }));
  const frames = new Map<string, KeptDocument>();
  for (const [k, index] of page.foreign.entries()) {
    const placeholder = `["#frame",{"index":"${index}"}]`;
    let replacement = '["#frame",{}]';
    if (depth < MAX_DEPTH && k < MAX_FOREIGN_FRAMES) {
      const frame = await browser.contentFrameId(context, FRAME_AT, [index], { isolated: true }).catch(() => null);
      const inner = frame === null ? undefined : await snapshotFrame(browser, { window: context.window, frames: [...context.frames, frame] }, maxBytes, depth + 1, known).catch(() => undefined);
      if (frame !== null && inner) {
        replacement = inner.node;
        frames.set(frame, inner.kept);
        if (inner.snapshot) {
          secrets.push(...inner.snapshot.secrets);
          references.push(...inner.snapshot.references);
          for (const [id, kept] of inner.snapshot.frames) frames.set(id, kept);
        } else if (inner.kept.root) references.push({ id: inner.kept.id, version: inner.kept.root[0] });
      }
    }
    tree = tree.replace(placeholder, replacement);
  }
  return { tree, references, url: page.url, title: page.title, secrets, truncated: page.truncated, viewport: page.viewport, at: { id: page.id, version: page.version }, frames, changedAt: page.changedAt };
}

/** A picture not taken because it would change what the page shows (a minimized window). */
export class NoPicture extends Error {}

/**
 * The window's viewport as a JPEG (what the trace shows of the page). Not of a minimized window:
 * a browser draws nothing there, so its screenshot restores the window first (native Chromium),
 * which the page would see (document.hidden) and the session did not ask for.
 */
export async function takePicture(browser: DrivenBrowser, window: string): Promise<Buffer> {
  if ((await browser.getWindowState(window)) === 'minimized') throw new NoPicture('the window was minimized (a picture would restore it)');
  return Buffer.from(await browser.screenshot(window, undefined, { type: 'jpeg', quality: 50 }), 'base64');
}
