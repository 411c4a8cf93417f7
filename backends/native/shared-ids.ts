// One id per node for WebDriver BiDi and classic commands on Chromium: the BiDi mapper names a
// node `f.<frame>.d.<document (loader)>.e.<backend node id>`; the classic layer names it by its
// own reference (page/core.js). These turn one into the other through CDP (src/webdriver/shared-ids.ts
// decides when).
import type { Page } from 'puppeteer-core';
import { UserPromptOpenedError } from '../backend.ts';
import type { PromptGuard } from '../prompt-guard.ts';
import { frameClient, frameIdOf } from './cdp.ts';
import type { Libraries } from './library.ts';
import { parseSharedId } from './bidi.ts';

/** The session's open pages and how to call into them. */
export interface PageAccess {
  pages: Page[];
  libraries: Libraries;
  prompts: PromptGuard<Page>;
}

/** The mapper's id for the node a classic reference names (in `context`, or any window's top document). */
export async function sharedIdOf(access: PageAccess, reference: string, context: string | undefined, functionDeclaration: string, library: string): Promise<string | undefined> {
  const { pages, libraries, prompts } = access;
  const places = pages.flatMap((page) => (context === undefined ? [page.mainFrame()] : page.frames().filter((f) => frameIdOf(f) === context)).map((frame) => ({ page, frame })));
  for (const { page, frame } of places) {
    const client = frameClient(frame);
    try {
      const found = await prompts.unblocked(page, false, async () => {
        const objectId = await libraries.callForObject(frame, library, functionDeclaration, [reference]);
        if (!objectId) return undefined;
        const { node } = await client.send('DOM.describeNode', { objectId });
        void client.send('Runtime.releaseObject', { objectId }).catch(() => {});
        // As the mapper writes a node's shared id: frame, document (loader), backend node id.
        const loaderId = (frame as unknown as { _loaderId: string })._loaderId;
        return `f.${frameIdOf(frame)}.d.${loaderId}.e.${node.backendNodeId}`;
      });
      if (found) return found;
    } catch {
      // not in this frame (or it went away, or a prompt blocks it): the next one
    }
  }
  return undefined;
}

/** Record the node a mapper's shared id names under that id in its document (calls `functionDeclaration(node, id)`). */
export async function resolveSharedId(access: PageAccess, sharedId: string, functionDeclaration: string, library: string): Promise<boolean> {
  const parsed = parseSharedId(sharedId);
  if (!parsed) return false;
  const { libraries, prompts } = access;
  const page = access.pages.find((p) => p.frames().some((f) => frameIdOf(f) === parsed.frameId));
  const frame = page?.frames().find((f) => frameIdOf(f) === parsed.frameId);
  if (!page || !frame) return false;
  const client = frameClient(frame);
  try {
    return await prompts.unblocked(page, false, async () => {
      const { object } = await client.send('DOM.resolveNode', { backendNodeId: parsed.backendNodeId });
      if (!object.objectId) return false;
      try {
        await libraries.callWithObject(frame, library, functionDeclaration, object.objectId, [sharedId]);
      } finally {
        void client.send('Runtime.releaseObject', { objectId: object.objectId }).catch(() => {});
      }
      return true;
    });
  } catch (e) {
    if (e instanceof UserPromptOpenedError) throw e;
    return false; // no such node (any more), or its frame went away: the command says so
  }
}
