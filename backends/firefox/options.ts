// moz:firefoxOptions as every backend that starts Firefox reads them, and the prefs every
// Firefox the gateway starts gets.
import { InvalidCapabilityError } from '../backend.ts';

/** Firefox switches that hand over the browser or its profile: never from capabilities. */
const FIREFOX_RESERVED = /^--?(profile|P|remote-debugging-port|remote-allow-hosts|remote-allow-origins|marionette|start-debugger-server|new-instance|no-remote|setDefaultBrowser)(=|$)/i;

/** Why a Firefox switch from capabilities is refused, or null. */
export function refusedFirefoxArg(arg: string): string | null {
  return FIREFOX_RESERVED.test(arg) ? `browser argument ${arg} is reserved: wdgate owns the profile and the remote protocol` : null;
}

/**
 * Prefs every Firefox gets (a session's own prefs may override them). No back-forward cache: a
 * page restored from it fires no load event, and Back would wait for one forever (native
 * Chromium runs with --disable-back-forward-cache for the same reason). No out-of-process
 * iframes (Fission): input dispatched to the top-level document stops at the <iframe> element
 * of a cross-origin frame instead of reaching the document inside.
 */
export const FIREFOX_PREFS = { 'browser.sessionhistory.max_total_viewers': 0, 'fission.autostart': false };

/**
 * Whether a Firefox with these prefs (a session's own over FIREFOX_PREFS) puts pages of different
 * user contexts in one content process: without Fission its web content processes are shared.
 */
export function contentProcessesShared(prefs: Record<string, string | number | boolean>): boolean {
  return { ...FIREFOX_PREFS, ...prefs }['fission.autostart'] !== true;
}

/** The size of every window a session starts with (a headless Firefox's size, MOZ_HEADLESS_WIDTH/HEIGHT), at the screen's corner. */
export const FIREFOX_WINDOW = { x: 0, y: 0, width: 1280, height: 800 } as const;

/** moz:firefoxOptions.prefs: names to strings, numbers or booleans. */
export function firefoxPrefs(value: unknown): Record<string, string | number | boolean> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidCapabilityError('moz:firefoxOptions.prefs must be an object');
  for (const [name, pref] of Object.entries(value)) {
    if (!['string', 'number', 'boolean'].includes(typeof pref)) throw new InvalidCapabilityError(`moz:firefoxOptions.prefs.${name} must be a string, a number or a boolean`);
  }
  return value as Record<string, string | number | boolean>;
}
