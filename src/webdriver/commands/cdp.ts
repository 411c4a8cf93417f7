// chromedriver's `POST /session/{id}/goog/cdp/execute` {cmd, params}: one Chrome DevTools
// Protocol command in the current window's page (what Python Selenium's execute_cdp_cmd and
// selenium-webdriver's sendAndGetDevToolsCommand call). CDP reaches every target of its browser
// (Target.*, Browser.*), so it is served only to a session that has its browser to itself.
import { error } from '../errors.ts';
import { p } from '../params.ts';
import { sessionCommand } from './types.ts';

/** The command's own parameters: any JSON object, passed on as it is (absent: none). */
const cdpParams = (v: unknown, path: string): Record<string, unknown> => {
  if (v === undefined) return {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw error('invalid argument', `${path} must be an object`);
  return v as Record<string, unknown>;
};

export const executeCdpCommand = sessionCommand({
  params: p.object({ cmd: p.string, params: cdpParams }),
  handlesUserPrompts: false, // as chromedriver: a CDP command is not a W3C command
  async handler({ session }, { cmd, params }) {
    if (!session.browser.executeCdp) throw error('unsupported operation', `goog/cdp/execute: the ${session.browserName} browser of this backend has no Chrome DevTools Protocol`);
    if (!session.ownBrowser) {
      throw error('unsupported operation', 'goog/cdp/execute: CDP reaches every session of a shared browser; it is served to sessions with a browser of their own (webSocketUrl: true, or pool.sessionsPerBrowser 1)');
    }
    return session.browser.executeCdp(await session.currentTopLevel(), cmd, params);
  },
});
