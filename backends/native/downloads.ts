// Downloads of one browser context saved where the session asked (Grid's managed downloads).
// Chromium's own naming ("allow") overwrites a file of the same name, so Chromium names each
// download by its guid in the partial folder ("allowAndName"), and once it is complete it is
// given the name it suggested, as Chrome's download manager would.
import { mkdir } from 'node:fs/promises';
import { giveToBrowsers } from '../policy/index.ts';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'puppeteer-core';
import { keepDownload, PARTIAL_DOWNLOADS } from '../shared.ts';

/** Save the context's downloads into `directory` from now on; the returned function stops it. */
export async function saveDownloads(browser: Browser, context: BrowserContext, directory: string): Promise<() => void> {
  const partial = join(directory, PARTIAL_DOWNLOADS);
  await mkdir(partial, { recursive: true });
  // The browser writes here: the browsers' user's.
  await giveToBrowsers(partial);
  // Download events come to the session that asked for them, on the browser target.
  const session = await browser.target().createCDPSession();
  const suggested = new Map<string, string>();
  session.on('Browser.downloadWillBegin', (e) => suggested.set(e.guid, e.suggestedFilename));
  session.on('Browser.downloadProgress', (e) => {
    if (e.state === 'inProgress') return;
    const name = suggested.get(e.guid);
    suggested.delete(e.guid);
    // Another context's download (events may not be per context) has no file here: a no-op.
    if (e.state === 'completed' && name !== undefined) void keepDownload(join(partial, e.guid), directory, name);
  });
  await session.send('Browser.setDownloadBehavior', { behavior: 'allowAndName', browserContextId: context.id, downloadPath: partial, eventsEnabled: true });
  return () => void session.detach().catch(() => {});
}
