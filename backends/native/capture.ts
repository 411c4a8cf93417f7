// Capture for the native backend: screenshots, the screencast and PDF printing of one page over CDP.
import type { Page } from 'puppeteer-core';
import { InvalidParametersError, NoSuchWindowError, UnsupportedPrimitiveError, type PrintOptions, type Rect, type ScreencastOptions, type ScreenshotFormat } from '../backend.ts';
import { cdp } from './cdp.ts';
import { isPrintRefusal } from '../shared.ts';

/** The viewport, or `clip` of it (viewport coordinates), as base64 PNG (or JPEG where asked). */
export async function screenshot(page: Page, clip?: Rect, format: ScreenshotFormat = { type: 'png' }): Promise<string> {
  const client = cdp(page);
  if (clip) {
    // CDP's clip is in document coordinates; ours is relative to the (scrolled) viewport.
    const { cssLayoutViewport } = await client.send('Page.getLayoutMetrics');
    clip = { ...clip, x: clip.x + cssLayoutViewport.pageX, y: clip.y + cssLayoutViewport.pageY };
  }
  const { data } = await client.send('Page.captureScreenshot', {
    ...(format.type === 'jpeg' ? { format: 'jpeg', quality: format.quality } : { format: 'png' }),
    ...(clip && { clip: { ...clip, scale: 1 } }),
    captureBeyondViewport: false,
    // The same pixels, compressed less: encoding is most of a screenshot's time.
    optimizeForSpeed: true,
  });
  return data;
}

/**
 * Chromium's screencast of the page (CDP Page.startScreencast): each frame as base64 JPEG to
 * `onFrame`, acknowledged at once (Chromium sends the next only then), the page as it is first.
 * Resolves with the stop.
 */
export async function screencast(
  page: Page,
  onFrame: (jpeg: string, timestamp?: number) => void,
  { maxWidth, maxHeight, quality, everyNthFrame }: ScreencastOptions = { maxWidth: 960, maxHeight: 720, quality: 60, everyNthFrame: 1 },
): Promise<() => Promise<void>> {
  // A CDP session of its own: a screencast belongs to the session that started it, so the live
  // view, a recording and a trace of one page each get their frames, and one stopping leaves
  // the others running.
  const client = await page.createCDPSession();
  // metadata.timestamp: when the frame was drawn (seconds since the epoch), which may be well
  // before it arrives here (traces pick the frame a page showed at a given moment).
  const frame = ({ data, sessionId, metadata }: { data: string; sessionId: number; metadata?: { timestamp?: number } }) => {
    onFrame(data, metadata?.timestamp === undefined ? undefined : metadata.timestamp * 1000);
    void client.send('Page.screencastFrameAck', { sessionId }).catch(() => {});
  };
  client.on('Page.screencastFrame', frame);
  try {
    await client.send('Page.startScreencast', { format: 'jpeg', quality, maxWidth, maxHeight, everyNthFrame });
    // Chromium sends a frame when the page draws one: a still page gets its picture now.
    const drawn = Date.now();
    const { data } = await client.send('Page.captureScreenshot', { format: 'jpeg', quality, optimizeForSpeed: true });
    onFrame(data, drawn);
  } catch (e) {
    await client.detach().catch(() => {});
    throw e;
  }
  return async () => {
    client.off('Page.screencastFrame', frame);
    await client.send('Page.stopScreencast').catch(() => {});
    await client.detach().catch(() => {});
  };
}

/** The page as a base64 PDF; parameters Chromium refuses are InvalidParametersError. */
export async function printToPdf(page: Page, options: PrintOptions): Promise<string> {
  const inches = (cm: number) => cm / 2.54;
  try {
    const { data } = await cdp(page).send('Page.printToPDF', {
      landscape: options.landscape,
      printBackground: options.background,
      scale: options.scale,
      paperWidth: inches(options.width),
      paperHeight: inches(options.height),
      marginTop: inches(options.margin.top),
      marginBottom: inches(options.margin.bottom),
      marginLeft: inches(options.margin.left),
      marginRight: inches(options.margin.right),
      // Chromium's syntax: "1-5,8,11-"; ranges past the last page are dropped.
      pageRanges: options.pageRanges.map(({ first, last }) => (last === undefined ? `${first}-` : `${first}-${last}`)).join(','),
      // As chromedriver: not shrinking to fit lets the page's CSS @page size win.
      preferCSSPageSize: !options.shrinkToFit,
      transferMode: 'ReturnAsBase64',
    });
    return data;
  } catch (e) {
    if (page.isClosed()) throw new NoSuchWindowError('the window was closed');
    const message = e instanceof Error ? e.message : String(e);
    if (isPrintRefusal(message)) throw new InvalidParametersError(message);
    if (/not (implemented|supported|available)/i.test(message)) throw new UnsupportedPrimitiveError(message);
    throw e;
  }
}

/** The whole document (its content size, beyond the viewport) as base64 PNG: the full-page screenshot. */
export async function fullPageScreenshot(page: Page): Promise<string> {
  const client = cdp(page);
  const { cssContentSize } = await client.send('Page.getLayoutMetrics');
  const clip = { x: 0, y: 0, width: Math.ceil(cssContentSize.width), height: Math.ceil(cssContentSize.height), scale: 1 };
  const { data } = await client.send('Page.captureScreenshot', { format: 'png', clip, captureBeyondViewport: true });
  return data;
}
