// What a session may ask of the gateway's machine: one policy, decided here by allow-list, that
// every backend and every command path asks (ARCHITECTURE: "What a session may ask of the machine
// is one policy"). A session reaches its own browser and nothing else:
// - the executables it may name (./binaries.ts), the switches, arguments, prefs and environment its
//   capabilities pass to a browser (./chromium.ts, ./firefox.ts, ./webkit.ts), every other key of
//   goog:chromeOptions and moz:firefoxOptions and the moz:* capabilities (./chrome-options.ts,
//   ./firefox-options.ts), the profile and extensions it brings (./firefox-profile.ts, ./extensions.ts);
// - the URLs it sends the browser to (./urls.ts) and the files it hands a page or lets it write (./files.ts),
//   on every path: classic commands, BiDi (./bidi.ts), raw CDP (./cdp.ts), pass-through;
// - the user the browsers run as, and their sandbox (./browser-user.ts).
export { checkChromiumSwitches, asksHeadless, parseChromiumSwitch, chromiumSwitchText, ALLOWED_CHROMIUM_SWITCHES, IGNORED_CHROMIUM_SWITCHES } from './chromium.ts';
export { checkFirefoxArgs, firefoxArgv, firefoxArgText, firefoxArgvOf, checkFirefoxPrefs, namesLocalFile, ALLOWED_FIREFOX_ARGS, DENIED_FIREFOX_PREF_FAMILIES, IGNORED_FIREFOX_PREFS, type FirefoxArgument } from './firefox.ts';
export {
  checkChromeOptions,
  chromePrefRefusal,
  flattenPrefs,
  nestPrefs,
  CHROME_OPTION_KEYS,
  REFUSED_CHROME_OPTION_KEYS,
  NO_EFFECT_CHROME_OPTION_KEYS,
  type ChromeOptions,
  type ChromeOptionsContext,
} from './chrome-options.ts';
export { checkFirefoxOptions, checkMozCapabilities, ALLOWED_FIREFOX_ENV, type FirefoxExtraOptions } from './firefox-options.ts';
export { checkFirefoxProfile, type FirefoxProfile } from './firefox-profile.ts';
export { parsePrefsFile, PrefsFileError, type PrefValue } from './firefox-prefs-file.ts';
export { unpackExtension, decodeBase64, extensionDigest, ARCHIVE_LIMITS } from './extensions.ts';
export { allowedBinary } from './binaries.ts';
export { checkMiniBrowserArgs } from './webkit.ts';
export { navigationRefusal, fetchRefusal, type Reach } from './urls.ts';
export { checkReadableFiles, filesForBrowser, directoryRefusal, keepFromSessions, FileRefusal, type SessionFiles } from './files.ts';
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
