// What the recorder takes from a session's browser after a step: the DOM snapshot of the current
// window (./page/snapshot.js, frames of other origins snapshotted in their own browsing context)
// and, where the engine has no screencast, a screenshot. Only primitives every driven backend
// has: callFunction, contentFrameId, screenshot.
import { readFileSync } from 'node:fs';
import { transformSync } from 'esbuild';
import type { BrowsingContext, DrivenBrowser } from '../../backends/backend.ts';

/** The snapshot function, minified once. */
const SNAPSHOT = (() => {
  const source = readFileSync(new URL('./page/snapshot.js', import.meta.url), 'utf8');
  const { code } = transformSync(`var wdgateSnapshot = ${source.slice(source.indexOf('function wdgateSnapshot'))}`, { minify: true, target: 'es2022', legalComments: 'none' });
  return code.trim().replace(/^var \w+=/, '').replace(/;$/, '');
})();

/** The frame element with this index among the document's frames (for contentFrameId). */
const FRAME_AT = 'function (i) { return document.querySelectorAll("iframe, frame")[i] || null; }';

/** Frames of other origins snapshotted per document, and how deep. */
const MAX_FOREIGN_FRAMES = 8;
const MAX_DEPTH = 3;

export interface DomSnapshot {
  html: string;
  url: string;
  title: string;
  /** Values of password fields seen: scrubbed from the whole trace, never written. */
  secrets: string[];
  truncated: boolean;
}

interface PageSnapshot extends DomSnapshot {
  foreign: number[];
}

/** The window's document as a snapshot, its frames' documents inlined. */
export async function snapshotDocument(browser: DrivenBrowser, window: string, maxBytes: number): Promise<DomSnapshot> {
  return snapshotContext(browser, { window, frames: [] }, maxBytes, 0);
}

async function snapshotContext(browser: DrivenBrowser, context: BrowsingContext, maxBytes: number, depth: number): Promise<DomSnapshot> {
  const page = (await browser.callFunction(context, SNAPSHOT, [{ maxBytes }])) as PageSnapshot;
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
  return { html, url: page.url, title: page.title, secrets, truncated: page.truncated };
}

const escapeAttribute = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
