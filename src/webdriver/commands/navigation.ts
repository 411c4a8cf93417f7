// Spec §10 "Navigation": Navigate To, Get Current URL, Back, Forward, Refresh, Get Title.
import { navigationRefusal } from '../../../backends/policy/index.ts';
import type { SessionCommandContext } from './types.ts';
import { error } from '../errors.ts';
import { p } from '../params.ts';
import { sessionCommand } from './types.ts';
import { Session } from '../session.ts';

/** Navigation commands all reset the current browsing context to the top level. */
async function topLevelForNavigation(session: Session): Promise<string> {
  const handle = await session.currentTopLevel();
  session.frames = [];
  return handle;
}

export const navigateTo = sessionCommand({
  params: p.object({ url: p.string }),
  async handler({ session }, { url }) {
    // Spec order: a closed current top-level browsing context is no such window before the URL
    // is looked at; then "if url is not an absolute URL …, invalid argument".
    const handle = await session.currentTopLevel();
    if (!URL.canParse(url)) throw error('invalid argument', `url must be an absolute URL (got ${JSON.stringify(url)})`);
    // The web is the session's; the machine's files and the browser's own pages are not (backends/policy/urls.ts).
    const refused = navigationRefusal(url, session.files);
    if (refused) throw error('invalid argument', refused);
    session.frames = [];
    await session.browser.navigate(handle, url, session.pageLoadStrategy, session.timeouts.pageLoad);
    return null;
  },
});

export const getCurrentUrl = sessionCommand({
  async handler({ session }) {
    return session.browser.currentUrl(await session.currentTopLevel());
  },
});

function historyCommand(delta: -1 | 1) {
  return sessionCommand({
    async handler({ session }: SessionCommandContext) {
      const handle = await topLevelForNavigation(session);
      await session.browser.traverseHistory(handle, delta, session.pageLoadStrategy, session.timeouts.pageLoad);
      return null;
    },
  });
}

export const back = historyCommand(-1);
export const forward = historyCommand(1);

export const refresh = sessionCommand({
  async handler({ session }) {
    const handle = await topLevelForNavigation(session);
    await session.browser.reload(handle, session.pageLoadStrategy, session.timeouts.pageLoad);
    return null;
  },
});

/** The document was replaced under a call (a navigation committed): the call never ran. */
const CONTEXT_GONE = /Execution context was destroyed|Cannot find context/i;

export const getTitle = sessionCommand({
  async handler({ session }) {
    // Spec: the title of the current top-level browsing context's active document.
    const context = { window: await session.currentTopLevel(), frames: [] };
    const read = () => session.browser.callFunction(context, 'function () { return document.title; }', []);
    // Reading is idempotent: after a navigation that did not wait (strategy none), Chromium
    // holds the call until the new document commits, then drops it with the old one; through
    // Playwright a second call may still meet the old document. A few tries, then the error.
    for (let attempt = 1; ; attempt++) {
      try {
        return await read();
      } catch (e) {
        if (!(e instanceof Error && CONTEXT_GONE.test(e.message)) || attempt === 3) throw e;
      }
    }
  },
});
