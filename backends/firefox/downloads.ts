// Downloads of a Firefox user context saved where the session asked (Grid's managed downloads):
// Firefox writes them into the session's partial folder (BiDi browser.setDownloadBehavior), and
// each finished one (browsingContext.downloadEnd) is moved out under the name it suggested.
import { mkdir } from 'node:fs/promises';
import { giveToBrowsers } from '../policy/index.ts';
import { join } from 'node:path';
import { keepDownload, PARTIAL_DOWNLOADS } from '../shared.ts';
import type { Channel } from './hub.ts';

export class FirefoxDownloads {
  #directory: string | undefined;
  /** Navigation id of a download → the file name it suggested. */
  readonly #suggested = new Map<string, string>();

  constructor(
    readonly channel: Channel,
    readonly userContext: string,
  ) {}

  async saveTo(directory: string): Promise<void> {
    const partial = join(directory, PARTIAL_DOWNLOADS);
    await mkdir(partial, { recursive: true });
    // The browser writes here: the browsers' user's.
    await giveToBrowsers(partial);
  // The browser writes here: the browsers' user's.
  await giveToBrowsers(partial);
    await this.channel.call('browser.setDownloadBehavior', { downloadBehavior: { type: 'allowed', destinationFolder: partial }, userContexts: [this.userContext] });
    this.#directory = directory;
  }

  willBegin(params: Record<string, unknown>): void {
    if (typeof params.navigation === 'string') this.#suggested.set(params.navigation, String(params.suggestedFilename ?? 'download'));
  }

  ended(params: Record<string, unknown>): void {
    const suggested = typeof params.navigation === 'string' ? this.#suggested.get(params.navigation) : undefined;
    if (typeof params.navigation === 'string') this.#suggested.delete(params.navigation);
    if (!this.#directory || params.status !== 'complete' || typeof params.filepath !== 'string') return;
    void keepDownload(params.filepath, this.#directory, suggested ?? String(params.filepath).split('/').pop()!);
  }
}
