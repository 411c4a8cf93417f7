// Spec §12.5 "Element Interaction": Element Click, Element Clear, Element Send Keys.
// The page atom (page/interact.js) checks and prepares the element in one round trip; input is
// then dispatched as trusted events through the backend, and a navigation it started is awaited.
import { filesForBrowser, FileRefusal, type SessionFiles } from '../../../backends/policy/index.ts';
import type { BrowsingContext, Rect } from '../../../backends/backend.ts';
import { error } from '../errors.ts';
import { clickAt, typeText } from '../element-input.ts';
import { frameBoxes, framesDrawn, mapToTopLevel } from '../frames.ts';
import { callAtom, RAW_ATOM } from '../page/index.ts';
import { p } from '../params.ts';
import type { Session } from '../session.ts';
import { sessionCommand } from './types.ts';

/** Spec: after input, "try to run the post-navigation checks": wait for a navigation it started. */
async function awaitNavigation(session: Session): Promise<void> {
  const handle = session.currentWindow;
  if (handle === null) return;
  await session.browser.waitForPendingNavigation(handle, session.pageLoadStrategy, session.timeouts.pageLoad);
}

// ── Element Click (spec §12.5.1) ─────────────────────────────────────────────────────────────

/** The page's answer to elementClick: where to click, and the part of the element in view, in its frame's viewport. */
interface ClickTarget {
  x: number;
  y: number;
  inView: Rect;
}

const contains = (r: Rect, x: number, y: number) => x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height;

/**
 * Where a click on the element lands in the top-level viewport. In a frame, the ancestors may
 * show less of the element than its frame does (the frame is partly under a parent's scroll
 * bar or out of its view): the click goes to the centre of what the top level shows, hit-tested
 * there; if nothing of it is shown, it is scrolled into view, which scrolls the ancestors too.
 */
async function clickPoint(session: Session, context: BrowsingContext, id: string, target: ClickTarget): Promise<{ x: number; y: number }> {
  if (context.frames.length === 0) return target;
  await framesDrawn(session, context);
  let boxes = await frameBoxes(session, context);
  let shown = mapToTopLevel(boxes, target.inView, true);
  if (shown.width <= 0 || shown.height <= 0) {
    target = (await callAtom<ClickTarget | null>(session, 'elementClick', { id, scroll: true }))!;
    await framesDrawn(session, context);
    boxes = await frameBoxes(session, context);
    shown = mapToTopLevel(boxes, target.inView, true);
    if (shown.width <= 0 || shown.height <= 0) {
      throw error('element not interactable', 'the element is in a frame that is out of view and could not be scrolled into view');
    }
  }
  const at = mapToTopLevel(boxes, { x: target.x, y: target.y, width: 0, height: 0 }, false);
  if (contains(shown, at.x, at.y)) return at;
  const x = Math.floor(shown.x + shown.width / 2);
  const y = Math.floor(shown.y + shown.height / 2);
  // The same point in the frame's viewport, hit-tested there (element click intercepted otherwise).
  await callAtom(session, 'elementClick', { id, at: { x: x - (at.x - target.x), y: y - (at.y - target.y) } });
  return { x, y };
}

export const elementClick = sessionCommand({
  async handler({ session, urlParams }) {
    // Checks, scrolls into view, hit-tests: the in-view center point, or null if the page did
    // the click itself (an <option>).
    const id = urlParams.elementId;
    const target = await callAtom<ClickTarget | null>(session, 'elementClick', { id });
    if (target) {
      const context = await session.currentContext();
      // Frames: the point is in the frame's viewport; mouse input goes to the top-level one.
      const { x, y } = await clickPoint(session, context, id, target);
      await clickAt(session.browser, context.window, { x, y });
    }
    await awaitNavigation(session);
    return null;
  },
});

// ── Element Clear (spec §12.5.2) ─────────────────────────────────────────────────────────────

export const elementClear = sessionCommand({
  async handler({ session, urlParams }) {
    await callAtom(session, 'elementClear', { id: urlParams.elementId, implicitMs: session.timeouts.implicit });
    return null;
  },
});

// ── Element Send Keys (spec §12.5.3) ─────────────────────────────────────────────────────────

/**
 * Spec: file paths, one a line; each must exist here; several only for a `multiple` input. Which
 * files a session may hand a page is the policy's (backends/policy/files.ts): its own uploads,
 * and the machine's other files only for a principal with `files` (within fileInputDirectories);
 * one the browsers' user cannot read reaches the page as a copy in the session's folder.
 */
async function selectedFiles(text: string, multiple: boolean, files: SessionFiles): Promise<string[]> {
  const paths = text.split('\n').map((line) => line.replace(/\r$/, ''));
  if (paths.length > 1 && !multiple) {
    throw error('invalid argument', `${paths.length} files given for an <input type=file> without the multiple attribute`);
  }
  try {
    return await filesForBrowser(paths, files);
  } catch (e) {
    if (e instanceof FileRefusal) throw error('invalid argument', e.message);
    throw e;
  }
}

export const elementSendKeys = sessionCommand({
  // Selenium sends `value` (the text split in characters) beside `text`; the spec reads `text`.
  params: p.object({ text: p.string }),
  async handler({ session, urlParams }, { text }) {
    const id = urlParams.elementId;
    const prepared = await callAtom<{ file: true; multiple: boolean; selected: number } | { file: false } | { done: true }>(session, 'elementSendKeys', {
      id,
      text,
      implicitMs: session.timeouts.implicit,
      strictFileInteractability: session.strictFileInteractability,
    });
    if ('done' in prepared) return null;
    if (prepared.file) {
      const files = await selectedFiles(text, prepared.multiple, session.files);
      // Spec: a `multiple` input appends to its selection; the backend replaces it (page/interact.js merges).
      const append = prepared.multiple && prepared.selected > 0;
      if (append) await callAtom(session, 'appendFilesBegin', { id });
      // Chromium fires input and change for DOM.setFileInputFiles, as for a user's choice.
      await session.browser.setFileInputFiles(await session.currentContext(), RAW_ATOM, ['resolveElement', { id }], files);
      if (append) await callAtom(session, 'appendFilesEnd', { id });
      return null;
    }
    await typeText(session.browser, await session.currentTopLevel(), text);
    // Enter may have submitted a form.
    await awaitNavigation(session);
    return null;
  },
});
