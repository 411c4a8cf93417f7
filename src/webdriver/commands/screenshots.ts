// Spec §17 "Screen capture": Take Screenshot and Take Element Screenshot, base64 PNGs of the
// top-level browsing context's initial viewport (or of an element's visible region in it); and
// geckodriver's and chromedriver's full-page screenshot (the whole document, beyond the viewport).
import { NoSuchWindowError, type Rect } from '../../../backends/backend.ts';
import { error, WebDriverError } from '../errors.ts';
import { toTopLevelViewport } from '../frames.ts';
import { base64Json, type JsonText } from '../json.ts';
import { callAtom } from '../page/index.ts';
import type { Session } from '../session.ts';
import { sessionCommand } from './types.ts';

/**
 * Spec "draw a bounding box from the framebuffer" + "encode a canvas as Base64": the browser
 * paints and encodes; a failure to capture is `unable to capture screen`.
 */
async function capture(session: Session, handle: string, clip?: Rect, take = () => session.browser.screenshot(handle, clip)): Promise<JsonText> {
  // A page that never draws (hidden, hung renderer) must not hold the session forever.
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the page drew nothing to capture for ${CAPTURE_TIMEOUT_MS / 1000} s`)), CAPTURE_TIMEOUT_MS);
  });
  try {
    return base64Json(await Promise.race([take(), timedOut]));
  } catch (e) {
    if (e instanceof WebDriverError || e instanceof NoSuchWindowError) throw e;
    throw error('unable to capture screen', e instanceof Error ? e.message : String(e));
  } finally {
    clearTimeout(timer);
  }
}

const CAPTURE_TIMEOUT_MS = 20_000;

export const takeScreenshot = sessionCommand({
  async handler({ session }) {
    return capture(session, await session.currentTopLevel());
  },
});

/** `GET /session/{id}/moz/screenshot/full` (geckodriver), `…/screenshot/full` (chromedriver). */
export const takeFullPageScreenshot = sessionCommand({
  async handler({ session }) {
    const { browser } = session;
    if (!browser.fullPageScreenshot) throw error('unsupported operation', `screenshot/full: the ${browser.browserName} browser of this backend cannot capture the whole document`);
    const handle = await session.currentTopLevel();
    return capture(session, handle, undefined, () => browser.fullPageScreenshot!(handle));
  },
});

interface ElementRegion extends Rect {
  viewportWidth: number;
  viewportHeight: number;
}

export const takeElementScreenshot = sessionCommand({
  async handler({ session, urlParams }) {
    // One page call: get a known element, scroll it into view, its visible rectangle.
    const region = await callAtom<ElementRegion>(session, 'elementScreenshotRect', { element: urlParams.elementId });
    if (region.viewportWidth === 0 || region.viewportHeight === 0) {
      throw error('unable to capture screen', 'the viewport has no area');
    }
    // Spec "encode a canvas as Base64": a bitmap without pixels cannot be encoded.
    if (region.width === 0 || region.height === 0) {
      throw error('unable to capture screen', 'the element has no visible area in the viewport');
    }
    const { x, y, width, height } = region;
    const context = await session.currentContext();
    // Frames: the region is in the frame's viewport; offset (and cut) to the top-level one.
    const area = await toTopLevelViewport(session, context, { x, y, width, height }, true);
    // Whole pixels again (a frame's content box may sit at a fraction): round the edges.
    const left = Math.round(area.x);
    const top = Math.round(area.y);
    const clip = { x: left, y: top, width: Math.round(area.x + area.width) - left, height: Math.round(area.y + area.height) - top };
    if (clip.width <= 0 || clip.height <= 0) throw error('unable to capture screen', 'the element has no visible area in the viewport');
    return capture(session, context.window, clip);
  },
});
