// Frames (spec §11.6 and "WindowProxy reference object"): the gateway side of browsing contexts
// below the top level. A frame is named by the backend's frame id; the current browsing context
// is session.currentWindow + session.frames (the frame ids from the top down). Here: entering a
// child browsing context, where a frame's viewport sits in the top-level viewport (input and
// screenshots), and web frame / web window references in script results and arguments.
import type { BrowsingContext, Rect } from '../../backends/backend.ts';
import { error } from './errors.ts';
import { callAtomIn, RAW_ATOM } from './page/index.ts';
import type { Session } from './session.ts';
import { SHADOW_ROOT_IDENTIFIER, WEB_ELEMENT_IDENTIFIER } from './params.ts';

const WINDOW_KEY = 'window-fcc6-11e5-b4f8-330a88ab9d7f';
const FRAME_KEY = 'frame-075b-4da1-b6ba-e579c2d3230a';

/** A child browsing context: window.frames[index], or the one a frame element contains. */
export type ChildSelector = { index: number } | { id: string };

/**
 * The frame id of a child browsing context of `context` (page/frames.js checks it: no such
 * frame, or the element reference errors). Its frame element is remembered for offsets.
 */
export async function childFrame(session: Session, context: BrowsingContext, selector: ChildSelector): Promise<string> {
  const element = await callAtomIn<string>(session, context, 'frameElement', selector);
  const frameId = await session.browser.contentFrameId(context, RAW_ATOM, ['frameElementNode', { id: element }]);
  if (frameId === null) throw error('no such frame', 'the frame element contains no browsing context');
  session.frameElements.set(frameId, element);
  return frameId;
}

/** A frame element's content box in its parent's viewport, and the size of that viewport's visible part. */
export interface ContentBox extends Rect {
  viewportWidth: number;
  viewportHeight: number;
}

function intersect(a: Rect, b: Rect): Rect {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.width, b.x + b.width);
  const bottom = Math.min(a.y + a.height, b.y + b.height);
  return { x, y, width: Math.max(0, right - x), height: Math.max(0, bottom - y) };
}

/**
 * The content box of every frame element from the top level down to `context`'s frame (one
 * page call per level, all at once); none for the top level.
 */
export async function frameBoxes(session: Session, context: BrowsingContext): Promise<ContentBox[]> {
  const { window, frames } = context;
  return Promise.all(
    frames.map((frameId, level) => {
      const element = session.frameElements.get(frameId);
      if (element === undefined) throw error('unknown error', `the frame element of frame ${frameId} is not known`);
      return callAtomIn<ContentBox>(session, { window, frames: frames.slice(0, level) }, 'frameContentBox', { id: element });
    }),
  );
}

/** Every document from the top level down to `context`'s has drawn since now (before input into a frame). */
export async function framesDrawn(session: Session, context: BrowsingContext): Promise<void> {
  const { window, frames } = context;
  const levels = [...frames.keys(), frames.length];
  await Promise.all(levels.map((level) => callAtomIn(session, { window, frames: frames.slice(0, level) }, 'framesDrawn', {})));
}

/**
 * A rectangle in the innermost frame's viewport → the top-level viewport: offset by each frame
 * element's content box (`boxes` from frameBoxes) and, with `clip`, cut to what each ancestor
 * shows of it.
 */
export function mapToTopLevel(boxes: readonly ContentBox[], rect: Rect, clip: boolean): Rect {
  let out = rect;
  for (const box of [...boxes].reverse()) {
    out = { ...out, x: out.x + box.x, y: out.y + box.y };
    if (clip) {
      out = intersect(out, box);
      out = intersect(out, { x: 0, y: 0, width: box.viewportWidth, height: box.viewportHeight });
    }
  }
  return out;
}

/** A rectangle in the viewport of `context` → the top-level viewport (see mapToTopLevel). */
export async function toTopLevelViewport(session: Session, context: BrowsingContext, rect: Rect, clip: boolean): Promise<Rect> {
  if (context.frames.length === 0) return rect;
  return mapToTopLevel(await frameBoxes(session, context), rect, clip);
}

// ── Window and frame references ─────────────────────────────────────────────────────────────

/**
 * Where a WindowProxy is, as page/core.js tells: `up` parents from the current window then
 * `down` child indices, or a top-level window of another tab by `token` (null: cross-origin).
 */
export interface WindowLocation {
  up?: number;
  token?: string | null;
  down: number[];
}

/** A WindowProxy in an op's value: its JSON path there and where it is. */
export interface WindowRef extends WindowLocation {
  path: (string | number)[];
}

/** The other top-level window (tab) whose page carries `token`. */
async function windowWithToken(session: Session, current: string, token: string): Promise<string> {
  for (const handle of await session.browser.windowHandles()) {
    if (handle === current) continue;
    const marked = await callAtomIn<boolean>(session, { window: handle, frames: [] }, 'hasWindowToken', { token }).catch(() => false);
    if (marked) return handle;
  }
  throw error('no such window', 'the window is not one of the open top-level browsing contexts');
}

/** Spec "WindowProxy reference object": a web window for a top-level window, else a web frame. */
async function windowReference(session: Session, context: BrowsingContext, where: WindowLocation): Promise<Record<string, string>> {
  let window = context.window;
  let frames: string[];
  if (where.token !== undefined) {
    if (where.token === null) {
      throw error('unknown error', "cannot identify a window of another tab whose document is not same-origin with the current browsing context's");
    }
    window = await windowWithToken(session, context.window, where.token);
    frames = [];
  } else {
    const up = where.up ?? 0;
    if (up > context.frames.length) throw error('unknown error', 'the window is not an ancestor of the current browsing context');
    frames = context.frames.slice(0, context.frames.length - up);
  }
  for (const index of where.down) frames.push(await childFrame(session, { window, frames }, { index }));
  const frameId = frames.at(-1);
  return frameId === undefined ? { [WINDOW_KEY]: window } : { [FRAME_KEY]: frameId };
}

/** Put the references for the WindowProxy objects of an op's value in place (page/core.js left null there). */
export async function resolveWindowRefs(session: Session, context: BrowsingContext, value: unknown, refs: WindowRef[]): Promise<unknown> {
  for (const ref of refs) {
    const reference = await windowReference(session, context, ref);
    if (ref.path.length === 0) {
      value = reference;
      continue;
    }
    let parent = value as Record<string | number, unknown>;
    for (const key of ref.path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
    parent[ref.path.at(-1)!] = reference;
  }
  return value;
}

/** Where each frame id / window handle named among the arguments is, for page/core.js. */
export interface ArgumentReferences {
  frame: Record<string, WindowLocation>;
  window: Record<string, WindowLocation>;
}

/** Web frame and web window references among `args` (spec "JSON deserialize" order: element and shadow root first). */
function collectReferences(value: unknown, found: { frame: Set<string>; window: Set<string> }): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) collectReferences(item, found);
    return;
  }
  const has = (key: string) => Object.hasOwn(value, key);
  if (has(WEB_ELEMENT_IDENTIFIER) || has(SHADOW_ROOT_IDENTIFIER)) return;
  for (const [key, kind] of [
    [FRAME_KEY, 'frame'],
    [WINDOW_KEY, 'window'],
  ] as const) {
    if (!has(key)) continue;
    const id = (value as Record<string, unknown>)[key];
    // Spec "deserialize a web frame/window": the identifier must be a string.
    if (typeof id !== 'string') throw error('invalid argument', `a web ${kind} reference must be a string`);
    found[kind].add(id);
    return;
  }
  for (const member of Object.values(value)) collectReferences(member, found);
}

/**
 * Spec "deserialize a web frame": a browsing context with that id that is not top-level, else
 * no such frame; "deserialize a web window": a top-level one, else no such window. Only the
 * current tab's frames and, for windows, other tabs that are the page's opener are reachable
 * from the page (no such frame / no such window otherwise). Undefined when there are none.
 */
export async function argumentReferences(session: Session, context: BrowsingContext, args: unknown[]): Promise<ArgumentReferences | undefined> {
  const found = { frame: new Set<string>(), window: new Set<string>() };
  collectReferences(args, found);
  if (found.frame.size === 0 && found.window.size === 0) return undefined;
  const depth = context.frames.length;
  const out: ArgumentReferences = { frame: {}, window: {} };
  for (const id of found.frame) {
    const level = context.frames.indexOf(id);
    if (level >= 0) {
      out.frame[id] = { up: depth - 1 - level, down: [] };
    } else if (await session.browser.frameOpen(context.window, id)) {
      // Any other frame of this tab: its index path from the top, asked of the frame itself.
      const path = await callAtomIn<number[] | null>(session, { window: context.window, frames: [id] }, 'framePathFromTop');
      if (path === null) throw error('no such frame', `frame ${id} cannot be reached from the current browsing context`);
      out.frame[id] = { up: depth, down: path };
    } else {
      throw error('no such frame', `no frame with reference ${id} is open in the current top-level browsing context`);
    }
  }
  for (const handle of found.window) {
    if (handle === context.window) {
      out.window[handle] = { up: depth, down: [] };
    } else if ((await session.browser.windowHandles()).includes(handle)) {
      const token = await callAtomIn<string>(session, { window: handle, frames: [] }, 'markTopLevelWindow');
      out.window[handle] = { token, down: [] };
    } else {
      throw error('no such window', `no top-level browsing context with handle ${handle}`);
    }
  }
  return out;
}
