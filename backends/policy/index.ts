// What a session may ask of the gateway's machine: one policy, decided here by allow-list, that
// every backend and every command path asks (ARCHITECTURE: "What a session may ask of the machine
// is one policy"). A session reaches its own browser and nothing else:
// - the switches, arguments and prefs its capabilities pass to a browser (./chromium.ts, ./firefox.ts,
//   ./webkit.ts);
// - the URLs it sends the browser to (./urls.ts) and the files it hands a page or lets it write (./files.ts),
//   on every path: classic commands, BiDi (./bidi.ts), raw CDP (./cdp.ts), pass-through;
// - the user the browsers run as, and their sandbox (./browser-user.ts).
export { checkChromiumSwitches, asksHeadless, parseChromiumSwitch, chromiumSwitchText, ALLOWED_CHROMIUM_SWITCHES, IGNORED_CHROMIUM_SWITCHES } from './chromium.ts';
export { checkFirefoxArgs, firefoxArgv, firefoxArgText, firefoxArgvOf, checkFirefoxPrefs, namesLocalFile, ALLOWED_FIREFOX_ARGS, DENIED_FIREFOX_PREF_FAMILIES, IGNORED_FIREFOX_PREFS, type FirefoxArgument } from './firefox.ts';
export { checkChromeOptionKeys, chromePrefRefusal, flattenPrefs } from './chrome-options.ts';
export { checkMiniBrowserArgs } from './webkit.ts';
export { navigationRefusal, fetchRefusal, type Reach } from './urls.ts';
export { checkReadableFiles, filesForBrowser, directoryRefusal, FileRefusal, type SessionFiles } from './files.ts';
export { cdpRefusal } from './cdp.ts';
export { bidiRefusal } from './bidi.ts';
export {
  setUpBrowserUser,
  browserIdentity,
  browserSandbox,
  dropArgs,
  giveToBrowsers,
  letBrowsersThrough,
  readableByBrowsers,
  BrowserUserError,
  type BrowserUserConfig,
  type BrowserIdentity,
} from './browser-user.ts';
