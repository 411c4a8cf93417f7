// Downloads of a Playwright context saved where the session asked (Grid's managed downloads):
// Playwright keeps each download under a generated name; once complete it is copied into the
// session's folder (its partial folder first) and given the name it suggested.
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Download } from 'playwright-core';
import { keepDownload, PARTIAL_DOWNLOADS } from '../shared.ts';

export async function saveDownload(download: Download, directory: string): Promise<void> {
  const partial = join(directory, PARTIAL_DOWNLOADS, randomUUID());
  try {
    await mkdir(join(directory, PARTIAL_DOWNLOADS), { recursive: true });
    await download.saveAs(partial);
  } catch {
    return; // cancelled, or the context went away
  }
  await keepDownload(partial, directory, download.suggestedFilename());
}
