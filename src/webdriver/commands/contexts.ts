// Spec §11 "Contexts": window handles, switching, new and close window, frames, window rect
// and state.
import type { Rect, WindowState } from '../../../backends/backend.ts';
import { error } from '../errors.ts';
import { p, type Parser } from '../params.ts';
import type { Session } from '../session.ts';
import { sessionCommand } from './types.ts';

export const getWindowHandle = sessionCommand({
  async handler({ session }) {
    return session.currentTopLevel();
  },
});

export const getWindowHandles = sessionCommand({
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
    if (remaining.length === 0) void gateway.sessions.end(session);
    return remaining;
  },
});

export const switchToWindow = sessionCommand({
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

export const switchToFrame = sessionCommand({
  params: p.object({ id: p.any }),
  async handler({ session }, { id }) {
    if (id === null) {
      await session.currentTopLevel();
      session.frames = [];
      return null;
    }
    if (typeof id === 'number' && (!Number.isInteger(id) || id < 0 || id > 0xffff)) {
      throw error('invalid argument', 'id must be null, an integer from 0 to 65535, or an element reference');
    }
    if (typeof id !== 'number' && (typeof id !== 'object' || Array.isArray(id))) {
      throw error('invalid argument', 'id must be null, an integer from 0 to 65535, or an element reference');
    }
    throw error('unsupported operation', 'switching into frames is not implemented yet');
  },
});

export const switchToParentFrame = sessionCommand({
  async handler({ session }) {
    await session.currentTopLevel();
    session.frames = session.frames.slice(0, -1);
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
    if (x !== null) rect.x = x;
    if (y !== null) rect.y = y;
    if (width !== null) rect.width = width;
    if (height !== null) rect.height = height;
    // Spec: fully exit fullscreen and restore the window before setting its rect.
    await session.browser.setWindowState(handle, 'normal');
    await session.browser.setWindowRect(handle, rect);
    return windowRect(session, handle);
  },
});

function windowStateCommand(state: WindowState) {
  return sessionCommand({
    async handler({ session }) {
      const handle = await session.currentTopLevel();
      await session.browser.setWindowState(handle, state);
      return windowRect(session, handle);
    },
  });
}

export const maximizeWindow = windowStateCommand('maximized');
export const minimizeWindow = windowStateCommand('minimized');
export const fullscreenWindow = windowStateCommand('fullscreen');
