// User prompts in the native backend: what Chromium says over CDP about a page's dialogs and its
// main frame's loading, told to the shared prompt guard (backends/prompt-guard.ts), which keeps
// calls from hanging on a dialog and ends navigations the page refuses.
import type { Page } from 'puppeteer-core';
import { ProtocolError } from 'puppeteer-core/internal/common/Errors.js';
import type { UserPrompt } from '../backend.ts';
import type { PromptGuard } from '../prompt-guard.ts';
import { cdp, frameIdOf, handleOf } from './cdp.ts';
import { cancelRequested, type LoadState } from './load.ts';

/** Follow the dialogs of a page from its first moment; a refused unload cancels its requested navigation. */
export function followDialogs(guard: PromptGuard<Page>, page: Page, load: LoadState): void {
  guard.watch(page);
  const client = cdp(page);
  const close = async (accept: boolean, promptText: string | undefined) => {
    try {
      await client.send('Page.handleJavaScriptDialog', { accept, ...(promptText !== undefined && { promptText }) });
      return true;
    } catch (e) {
      // Closed meanwhile (its page went away).
      if (e instanceof ProtocolError && /No dialog is showing/i.test(e.message)) return false;
      throw e;
    }
  };
  client.on('Page.javascriptDialogOpening', (e) => {
    const prompt: UserPrompt = { type: e.type, message: e.message, defaultValue: e.defaultPrompt ?? '' };
    guard.opened(page, handleOf(page.target()), prompt, close);
  });
  // Closed by us, or by the browser (the page went away).
  client.on('Page.javascriptDialogClosed', (e) => {
    if (guard.closed(page, e.result)) cancelRequested(load);
  });
  const isMain = (frameId: string) => frameIdOf(page.mainFrame()) === frameId;
  const started = (e: { frameId: string }) => {
    if (isMain(e.frameId)) guard.started(page);
  };
  client.on('Page.frameStartedNavigating', started);
  client.on('Page.frameStartedLoading', started);
  client.on('Page.frameNavigated', (e) => {
    if (!e.frame.parentId) guard.committed(page);
  });
  client.on('Page.navigatedWithinDocument', (e) => {
    if (isMain(e.frameId)) guard.committed(page);
  });
  client.on('Page.frameStoppedLoading', (e) => {
    if (isMain(e.frameId)) guard.stopped(page);
  });
}
