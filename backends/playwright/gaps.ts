// What the Playwright backend cannot do as the W3C spec asks, by engine, each with why. Where a
// command meets one it answers `unsupported operation` with this text; the test suite, run on
// this backend, skips the tests that meet one and says which (test/helpers/gaps.ts); the README
// lists them. Everything not declared here must behave as on the native backend.
import { ENGINE_GAPS } from '../firefox/gaps.ts';

export const GAPS = {
  touchInput: 'touch input cannot be dispatched through Playwright (it only taps)',
  penInput: 'pen input cannot be dispatched through Playwright',
  computedRole: 'computed role and label are not available through Playwright (its ARIA snapshots are its own computation, not the browser\'s)',
  userActivation: "Playwright's evaluate gives the page user activation, reads included",
  performanceLog: "Playwright gives no raw DevTools events of a page's own targets: the performance log is the native backend's",
  networkLog: "Playwright reports the browser's own messages (a resource that failed to load) as console errors at 0:0, and console arguments in its own words; chromedriver's source \"network\" and its argument descriptions are the native backend's",
  keyboardLayout: "Playwright's keyboard is the US layout: numpad keys come as their NumLock-off keys, other layouts' characters as text input without key events",
} as const;

/** Further gaps of Firefox (WebDriver BiDi through Playwright). */
export const FIREFOX_GAPS = {
  windowBounds: 'window bounds and states are not available in Firefox through Playwright',
  namedKeys: 'keys outside the US layout cannot be pressed in Firefox through Playwright',
  clickCounting: 'Firefox counts clicks itself through Playwright, not as W3C counts them: a second press at one place is not a double click, and a move carries a detail of 1',
  dragAndDrop: ENGINE_GAPS.dragAndDrop,
  hover: ENGINE_GAPS.hover,
  moveInPlace: ENGINE_GAPS.moveInPlace,
  focus: ENGINE_GAPS.focus,
  cookies: ENGINE_GAPS.cookies,
  print: ENGINE_GAPS.print,
  devtools: "Firefox through Playwright has no DevTools protocol (virtual authenticators, FedCM, the performance log are Chromium's)",
  permissionStates: "Playwright's Firefox only grants permissions (grantPermissions): it has no way to deny one or to make it ask again",
  networkThrottling: "Playwright's Firefox only goes offline (setOffline): no latency and no throughput",
  releaseAfterPrompt:
    "after a prompt opened on a mouse press, Firefox holds the button pressed for Playwright's one mouse (the release the prompt refused never reached it), so the next press of it is no mousedown and its click is lost",
} as const;

/** goog:chromeOptions keys Playwright applies otherwise than chromedriver, or not at all. */
export const PLAYWRIGHT_OPTION_GAPS = {
  extensions: 'Playwright opens each session in a browser context of its own, where Chrome runs no extension (extensions run in a persistent context only); use the native backend',
  prefs: "Playwright opens each session in a browser context of its own (incognito), which reads few of the profile's prefs (navigator.languages, for one, is not intl.accept_languages there); use the native backend",
  firefoxLog: "Playwright passes on none of a browser's output once it has started, so Firefox's log would go nowhere; use the native backend",
  clientHints: 'Playwright sets a context\'s user agent client hints itself, from its user agent (navigator.userAgentData, Sec-CH-UA-*); use the native backend for hints of your own',
} as const;
