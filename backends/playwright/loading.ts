// Chromium only: the main frame's loading, from Playwright's CDP session, told to the prompt
// guard. Chromium answers a beforeunload that comes while the last one is still closing with
// "stay" and no prompt: the frame starts and stops loading without a new document, and only
// these events say the navigation was refused (Playwright's reload or goBack would wait for it
// forever). Native tells the guard the same from its own CDP events (backends/native/prompts.ts).
import type { BrowserContext, Page } from 'playwright-core';
import type { PromptGuard } from '../prompt-guard.ts';

export async function followMainFrameLoading(context: BrowserContext, page: Page, guard: PromptGuard<Page>): Promise<void> {
  const cdp = await context.newCDPSession(page);
  const { frameTree } = await cdp.send('Page.getFrameTree');
  const main = frameTree.frame.id;
  cdp.on('Page.frameStartedNavigating', (e) => e.frameId === main && guard.started(page));
  cdp.on('Page.frameStartedLoading', (e) => e.frameId === main && guard.started(page));
  cdp.on('Page.frameNavigated', (e) => !e.frame.parentId && guard.committed(page));
  cdp.on('Page.navigatedWithinDocument', (e) => e.frameId === main && guard.committed(page));
  cdp.on('Page.frameStoppedLoading', (e) => e.frameId === main && guard.stopped(page));
  await cdp.send('Page.enable');
}
