// Spec §11 "Contexts": window handles, switching, new and close window, frames, window rect
// and state.
import type { Rect, WindowState } from '../../../backends/backend.ts';
import { error } from '../errors.ts';
import { childFrame, type ChildSelector } from '../frames.ts';
import { isPlainObject, p, WEB_ELEMENT_IDENTIFIER as ELEMENT_KEY, type Parser } from '../params.ts';
import type { Session } from '../session.ts';
import { sessionCommand } from './types.ts';

export const getWindowHandle = sessionCommand({
  handlesUserPrompts: false, // spec §16: its steps leave user prompts alone
  async handler({ session }) {
    return session.currentTopLevel();
  },
});

export const getWindowHandles = sessionCommand({
  handlesUserPrompts: false, // spec §16: its steps leave user prompts alone
  async handler({ session }) {
    return session.browser.windowHandles();
  },
});

export const closeWindow = sessionCommand({
  async handler({ gateway, session }) {
    const handle = await session.currentTopLevel();
    await session.browser.closeWindow(handle);
    session.currentWindow = null;
    session.frames = [];
    const remaining = await session.browser.windowHandles();
    // Spec: closing the last top-level browsing context ends the session.
    if (remaining.length === 0) void gateway.sessions.end(session, 'its last window was closed', 'deleted');
    return remaining;
  },
});

export const switchToWindow = sessionCommand({
  handlesUserPrompts: false, // spec §16: its steps leave user prompts alone
  params: p.object({ handle: p.string }),
  async handler({ session }, { handle }) {
    if (!(await session.browser.windowHandles()).includes(handle)) {
      throw error('no such window', `no window with handle ${handle}`);
    }
    await session.browser.activateWindow(handle);
    session.currentWindow = handle;
    session.frames = [];
    return null;
  },
});

export const newWindow = sessionCommand({
  // The type is only a hint (spec): any string or null is accepted, "window" gets a window.
  // Selenium (Python) sends {"type": null} for new_window() without a hint.
  params: p.object({ type: p.nullable(p.string) }),
  async handler({ session }, { type }) {
    await session.currentTopLevel();
    const kind = type === 'window' ? 'window' : 'tab';
    const handle = await session.browser.newWindow(kind);
    return { handle, type: kind };
  },
});

// ── Frames (spec §11.6) ──────────────────────────────────────────────────────────────────────
// The current browsing context is session.currentWindow + session.frames (backend frame ids
// from the top down); src/webdriver/frames.ts enters child browsing contexts.

const FRAME_ID_MESSAGE = 'id must be null, an integer from 0 to 65535, or a web element reference';

/** Spec Switch To Frame steps 1-2: null (the top level), a child index, or a web element. */
function frameSelector(id: unknown): ChildSelector | null {
  if (id === null) return null;
  if (typeof id === 'number') {
    if (!Number.isInteger(id) || id < 0 || id > 0xffff) throw error('invalid argument', FRAME_ID_MESSAGE);
    return { index: id };
  }
  if (isPlainObject(id) && Object.hasOwn(id, ELEMENT_KEY)) {
    const reference = id[ELEMENT_KEY];
    if (typeof reference !== 'string') throw error('invalid argument', 'a web element reference must be a string');
    return { id: reference };
  }
  throw error('invalid argument', FRAME_ID_MESSAGE);
}

export const switchToFrame = sessionCommand({
  params: p.object({ id: p.any }),
  async handler({ session }, { id }) {
    const selector = frameSelector(id);
    if (selector === null) {
      // Spec: only the top-level browsing context needs to be open (the current frame may be gone).
      await session.currentTopLevel();
      session.frames = [];
      return null;
    }
    // Spec: the current browsing context must be open; its child window.frames[index], or the
    // browsing context the frame element contains (no such frame otherwise).
    const context = await session.currentContext();
    const frameId = await childFrame(session, context, selector);
    session.frames = [...context.frames, frameId];
    return null;
  },
});

export const switchToParentFrame = sessionCommand({
  async handler({ session }) {
    const window = await session.currentTopLevel();
    // Spec: at the top level already, a no-op.
    if (session.frames.length === 0) return null;
    // Spec: "If session's current parent browsing context is no longer open, no such window"
    // (the current frame itself may be gone: removed, or its parent navigated).
    const parent = session.frames.slice(0, -1);
    const parentFrame = parent.at(-1);
    if (parentFrame !== undefined && !(await session.browser.frameOpen(window, parentFrame))) {
      throw error('no such window', 'the parent browsing context is no longer open');
    }
    session.frames = parent;
    return null;
  },
});

async function windowRect(session: Session, handle: string): Promise<Rect> {
  return session.browser.getWindowRect(handle);
}

export const getWindowRect = sessionCommand({
  async handler({ session }) {
    return windowRect(session, await session.currentTopLevel());
  },
});

const I32_MIN = -(2 ** 31);
const I32_MAX = 2 ** 31 - 1;

/**
 * Spec Set Window Rect: null, or "a Number from min to 2^31 − 1". Any Number, not only
 * integers (WPT sends 150.5): the fraction is dropped, as a C int conversion would.
 */
const rectMember = (min: number): Parser<number | null> =>
  p.nullable((v, path) => {
    if (typeof v !== 'number' || !(v >= min && v <= I32_MAX)) {
      throw error('invalid argument', `${path} must be null or a number from ${min} to ${I32_MAX}`);
    }
    return Math.trunc(v) + 0; // + 0: never -0
  });

export const setWindowRect = sessionCommand({
  params: p.object({
    x: rectMember(I32_MIN),
    y: rectMember(I32_MIN),
    width: rectMember(0),
    height: rectMember(0),
  }),
  async handler({ session }, { x, y, width, height }) {
    const handle = await session.currentTopLevel();
    const rect: Partial<Rect> = {};
    // Spec steps "if width and height are not null" / "if x and y are not null": each pair
    // applies only whole; a lone width or x is ignored.
    if (width !== null && height !== null) Object.assign(rect, { width, height });
    if (x !== null && y !== null) Object.assign(rect, { x, y });
    // Spec: fully exit fullscreen and restore the window before setting its rect.
    await session.browser.setWindowState(handle, 'normal');
    await session.browser.setWindowRect(handle, rect);
    return windowRect(session, handle);
  },
});

/**
 * Spec Maximize, Minimize and Fullscreen Window: "fully exit fullscreen" and "restore the window"
 * before the new state. A window goes from one state to another through the normal state (a
 * minimized Chromium window refuses to become fullscreen: "restore it to normal state first").
 */
function windowStateCommand(state: WindowState) {
  return sessionCommand({
    async handler({ session }) {
      const handle = await session.currentTopLevel();
      const current = await session.browser.getWindowState(handle);
      if (current !== state) {
        if (current !== 'normal') await session.browser.setWindowState(handle, 'normal');
        await session.browser.setWindowState(handle, state);
      }
      return windowRect(session, handle);
    },
  });
}

export const maximizeWindow = windowStateCommand('maximized');
export const minimizeWindow = windowStateCommand('minimized');
export const fullscreenWindow = windowStateCommand('fullscreen');
