// A session's page as pictures, for the dashboard's live view and for recordings: the engine's
// screencast where the backend has one (JPEG frames as the page changes), else a screenshot
// (PNG) every second. At most `maxFps` frames a second; a frame that comes too soon waits for
// its turn, and a newer one replaces it.
import type { Session } from '../webdriver/session.ts';

export type Frame = { mime: 'image/jpeg' | 'image/png'; data: string };

/** Without the engine's screencast, a screenshot this often. */
const SCREENSHOT_INTERVAL_MS = 1000;

/** Whether `watchPage` gives JPEG frames (the engine's screencast) or PNG (screenshots) for the session. */
export function frameType(session: Session): Frame['mime'] {
  return session.browser.screencast ? 'image/jpeg' : 'image/png';
}

/** Stream the session's current window as frames. Resolves with the stop. */
export async function watchPage(session: Session, maxFps: number, onFrame: (frame: Frame) => void): Promise<() => void> {
  const { browser } = session;
  const window = session.currentWindow;
  if (window === null) return () => {};
  let last = 0;
  let stopped = false;
  let held: Frame | undefined;
  let holding: NodeJS.Timeout | undefined;
  const frame = (next: Frame) => {
    if (stopped) return;
    const wait = last + 1000 / maxFps - Date.now();
    if (wait > 0) {
      held = next;
      holding ??= setTimeout(() => {
        holding = undefined;
        if (held) frame(held);
      }, wait);
      return;
    }
    held = undefined;
    last = Date.now();
    onFrame(next);
  };
  if (browser.screencast) {
    const stop = await browser.screencast(window, (data) => frame({ mime: 'image/jpeg', data })).catch(() => undefined);
    return () => {
      stopped = true;
      clearTimeout(holding);
      void stop?.();
    };
  }
  let timer: NodeJS.Timeout | undefined;
  const shoot = async () => {
    if (stopped) return;
    const data = await browser.screenshot(window).catch(() => undefined);
    if (data) frame({ mime: 'image/png', data });
    if (!stopped) timer = setTimeout(() => void shoot(), SCREENSHOT_INTERVAL_MS);
  };
  void shoot();
  return () => {
    stopped = true;
    clearTimeout(timer);
    clearTimeout(holding);
  };
}
