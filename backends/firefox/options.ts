// moz:firefoxOptions as every backend that starts Firefox reads them, and the prefs every
// Firefox the gateway starts gets.
// What a session may pass is the policy's (../policy/firefox.ts).

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
