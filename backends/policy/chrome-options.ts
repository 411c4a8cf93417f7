// Every goog:chromeOptions key chromedriver knows (capabilities.cc ParseChromeOptions), and what a
// session may do with it: applied (by the backend: `args` and `binary` are ./chromium.ts and the
// backend's allow-list; `mobileEmulation` is the page's business, backends/emulation/), accepted
// with no effect where chromedriver gives it none or the gateway decides, or refused because it
// reaches the machine — a crash dump directory, a log file, a browser left running after its
// session, a debugger address, an Android device, a profile pref that opens downloads with a
// program or names a directory — or because the gateway does not offer it. A key chromedriver
// does not know is refused in its words ("unrecognized chrome option: X"). Nothing is ignored.
import { InvalidCapabilityError } from '../backend.ts';
import type { ZipEntry } from '../zip.ts';
import { browserSandbox } from './browser-user.ts';
import { decodeBase64, unpackExtension } from './extensions.ts';
import { namesLocalFile } from './firefox.ts';

const FIELD = 'goog:chromeOptions';

/** Keys refused whatever their value (an empty one asks for nothing), with why. */
const REFUSED_KEYS: Record<string, string> = {
  debuggerAddress: 'wdgate starts the browser itself',
  detach: 'a browser may not outlive its session',
  minidumpPath: 'it names a directory of the machine',
  logPath: "it names a file of the machine (chromedriver's own log)",
  androidPackage: 'there is no Android device here',
  androidActivity: 'there is no Android device here',
  androidDeviceSerial: 'there is no Android device here',
  androidUseRunningApp: 'there is no Android device here',
  androidProcess: 'there is no Android device here',
  androidExecName: 'there is no Android device here',
  androidDeviceSocket: 'there is no Android device here',
  androidKeepAppDataDir: 'there is no Android device here',
  androidDevToolsPort: 'there is no Android device here',
  enableExtensionTargets: "window handles are the session's pages: extension targets are not offered",
};

/** Keys accepted with no effect, with why (README: "What a session may pass"). */
const NO_EFFECT_KEYS: Record<string, string> = {
  loadAsync: 'chromedriver ignores it too (deprecated)',
  useAutomationExtension: 'chromedriver ignores it too (deprecated)',
  quitGracefully: 'the gateway always asks the browser to close before it ends it',
  browserStartupTimeout: "a session gets a browser the pool has already started (the pool's own launch timeout is 30 s)",
  extensionLoadTimeout: 'extensions load before the session is created',
};

/** Keys a backend applies (args and binary, mobileEmulation) or this file checks and hands over. */
const APPLIED_KEYS = ['args', 'binary', 'mobileEmulation', 'prefs', 'localState', 'excludeSwitches', 'extensions', 'windowTypes', 'perfLoggingPrefs', 'devToolsEventsToLog', 'w3c'];

/** Every key chromedriver knows on Linux: a key outside this list is chromedriver's "unrecognized chrome option". */
export const CHROME_OPTION_KEYS: readonly string[] = [...APPLIED_KEYS, ...Object.keys(REFUSED_KEYS), ...Object.keys(NO_EFFECT_KEYS)];

/**
 * Chrome profile prefs (and Local State) a session may not set: they hand files or URLs to
 * programs of the machine, load extensions, or point the devtools at directories. Names are
 * dotted paths (chromedriver takes nested objects and dotted names alike).
 */
const DENIED_PREFS: [string, string][] = [
  ['download.extensions_to_open', 'it opens downloaded files with programs of the machine'],
  ['download.open_pdf_in_system_reader', 'it opens downloaded files with programs of the machine'],
  ['plugins.always_open_pdf_externally', 'it opens PDF files with programs of the machine'],
  ['protocol_handler.', 'it hands URLs to programs of the machine'],
  ['custom_handlers.', 'it hands URLs to programs of the machine'],
  ['external_protocol_dialog.', 'it hands URLs to programs of the machine'],
  ['extensions.', 'it installs or changes extensions'],
  ['devtools.', 'it gives the devtools directories of the machine'],
  ['webkit.webprefs.allow_', 'it opens the machine\'s files to pages'],
  ['browser.enabled_labs_experiments', 'it turns on browser flags (pass switches instead)'],
];

/** Switches a session may not leave out of the gateway's own (excludeSwitches), with why. */
const KEPT_SWITCHES: Record<string, string> = {
  'user-data-dir': 'wdgate owns the profile',
  'remote-debugging-pipe': 'wdgate drives the browser through it',
  'remote-debugging-port': 'wdgate drives the browser through its pipe',
  'remote-debugging-io-pipes': 'wdgate drives the browser through it',
  headless: "whether the browser is headless is the gateway's --headless or the session's own args",
};

/** Window types chromedriver knows (WebViewInfo::ParseType); only pages are windows here. */
const WINDOW_TYPES = ['app', 'background_page', 'browser', 'external', 'iframe', 'other', 'page', 'service_worker', 'shared_worker', 'webview', 'worker', 'tab'];
const WINDOW_TYPES_OFFERED = ['page', 'tab'];

/** chromedriver's perfLoggingPrefs keys and the type of each. */
const PERF_LOGGING_PREFS: Record<string, 'interval' | 'boolean' | 'string'> = {
  bufferUsageReportingInterval: 'interval',
  enableNetwork: 'boolean',
  enablePage: 'boolean',
  traceCategories: 'string',
};

/** What a session's goog:chromeOptions ask of its browser beyond switches, checked. */
export interface ChromeOptions {
  /** Profile prefs (Default/Preferences) as dotted names → values, sorted by name. */
  prefs: [string, unknown][];
  /** Local State entries, as the prefs. */
  localState: [string, unknown][];
  /** The gateway's default switches to leave out (names, sorted). */
  excludeSwitches: string[];
  /** Extensions, unpacked and checked (./extensions.ts), when the operator allows them. */
  extensions: ZipEntry[][];
}

export interface ChromeOptionsContext {
  /** The operator allows extensions (`extensions.allowInstall`): they load into a browser of the session's own. */
  allowExtensions?: boolean;
  /** The session's goog:loggingPrefs (perfLoggingPrefs and devToolsEventsToLog need their log enabled). */
  loggingPrefs?: unknown;
}

/** Prefs as dotted names → values, from chromedriver's nested or dotted form. */
export function flattenPrefs(value: unknown, field: string, prefix = ''): [string, unknown][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidCapabilityError(`${field} must be a dictionary`);
  return Object.entries(value).flatMap(([key, v]) =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? flattenPrefs(v, field, `${prefix}${key}.`) : [[`${prefix}${key}`, v] as [string, unknown]],
  );
}

/** Dotted names → values as the nested object Chromium's Preferences and Local State files hold. */
export function nestPrefs(entries: readonly [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const [name, value] of entries) {
    const path = name.split('.');
    let at = out;
    for (const part of path.slice(0, -1)) {
      const next = Object.hasOwn(at, part) ? at[part] : undefined;
      at = (at[part] = typeof next === 'object' && next !== null && !Array.isArray(next) ? next : Object.create(null)) as Record<string, unknown>;
    }
    at[path.at(-1)!] = value;
  }
  return out;
}

/** Why a Chrome pref may not be set, or null (no denied family, and no value that names a file of the machine). */
export function chromePrefRefusal(name: string, value: unknown): string | null {
  const denied = DENIED_PREFS.find(([family]) => name === family || (family.endsWith('.') || family.endsWith('_') ? name.startsWith(family) : name.startsWith(`${family}.`)));
  if (denied) return `pref ${name} is not allowed: ${denied[1]}`;
  const strings = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap(strings) : []);
  const file = strings(value).find(namesLocalFile);
  return file === undefined ? null : `pref ${name} names a file or a local path (${JSON.stringify(file.slice(0, 80))}); sessions may not point the browser at the machine's files`;
}

const empty = (v: unknown) => v === undefined || v === null || v === false || (Array.isArray(v) && v.length === 0);

/**
 * goog:chromeOptions checked key by key: an unknown key, a refused one, or a value that reaches
 * the machine throws naming it; what the browser is to be given comes back. `args`, `binary` and
 * `mobileEmulation` are the backend's to read.
 */
export function checkChromeOptions(goog: Record<string, unknown>, context: ChromeOptionsContext = {}): ChromeOptions {
  for (const key of Object.keys(goog)) {
    if (!CHROME_OPTION_KEYS.includes(key)) throw new InvalidCapabilityError(`${FIELD}: unrecognized chrome option: ${key}`);
    // Nothing asked (Python's Selenium sends `extensions: []`, some clients `detach: false`): nothing to refuse.
    if (Object.hasOwn(REFUSED_KEYS, key) && !empty(goog[key])) throw new InvalidCapabilityError(`${FIELD}.${key} is refused: ${REFUSED_KEYS[key]}`);
  }
  checkTypes(goog);
  const prefs = checkedPrefs(goog.prefs, 'prefs');
  const localState = checkedPrefs(goog.localState, 'localState');
  const excludeSwitches = [...new Set(((goog.excludeSwitches as string[] | undefined) ?? []).map((s) => s.replace(/^--?/, '')))].sort();
  for (const name of excludeSwitches) {
    if (!/^[A-Za-z0-9][\w.-]{0,127}$/.test(name)) throw new InvalidCapabilityError(`${FIELD}.excludeSwitches: ${JSON.stringify(name)} is not a switch name`);
    if (Object.hasOwn(KEPT_SWITCHES, name)) throw new InvalidCapabilityError(`${FIELD}.excludeSwitches: --${name} cannot be left out: ${KEPT_SWITCHES[name]}`);
    if (name === 'no-sandbox' && !browserSandbox()) throw new InvalidCapabilityError(`${FIELD}.excludeSwitches: --no-sandbox cannot be left out: the operator runs browsers without their sandbox (browsers.sandbox)`);
  }
  for (const type of (goog.windowTypes as string[] | undefined) ?? []) {
    if (!WINDOW_TYPES.includes(type)) throw new InvalidCapabilityError(`${FIELD}.windowTypes: unknown window type: ${type}`);
    if (!WINDOW_TYPES_OFFERED.includes(type)) throw new InvalidCapabilityError(`${FIELD}.windowTypes: ${type} is refused: window handles are the session's pages (${WINDOW_TYPES_OFFERED.join(', ')})`);
  }
  const logging = typeof context.loggingPrefs === 'object' && context.loggingPrefs !== null ? (context.loggingPrefs as Record<string, unknown>) : {};
  if (goog.perfLoggingPrefs !== undefined && (logging.performance === undefined || logging.performance === 'OFF')) {
    throw new InvalidCapabilityError(`${FIELD}: perfLoggingPrefs specified, but performance logging was not enabled (goog:loggingPrefs.performance)`);
  }
  if (goog.devToolsEventsToLog !== undefined && (logging.devtools === undefined || logging.devtools === 'OFF')) {
    throw new InvalidCapabilityError(`${FIELD}: devToolsEventsToLog specified, but devtools events logging was not enabled (goog:loggingPrefs.devtools)`);
  }
  if (goog.w3c === false) throw new InvalidCapabilityError(`${FIELD}.w3c is refused: wdgate speaks the W3C protocol only`);
  const extensions = ((goog.extensions as string[] | undefined) ?? []).map((text, i) => {
    if (!context.allowExtensions) {
      throw new InvalidCapabilityError(`${FIELD}.extensions is refused: extensions are code installed from files, which sessions may not bring (an operator may allow them with "extensions": {"allowInstall": true} in the config; each then runs in a browser of the session's own)`);
    }
    return unpackExtension(decodeBase64(text, `${FIELD}.extensions[${i}]`), `${FIELD}.extensions[${i}]`);
  });
  return { prefs, localState, excludeSwitches, extensions };
}

/** chromedriver's type rules, in its words ("must be a list"). */
function checkTypes(goog: Record<string, unknown>): void {
  const must = (key: string, ok: boolean, what: string) => {
    if (goog[key] !== undefined && !ok) throw new InvalidCapabilityError(`${FIELD}.${key} must be ${what}`);
  };
  const stringList = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string');
  must('excludeSwitches', stringList(goog.excludeSwitches), 'a list of strings');
  must('extensions', stringList(goog.extensions), 'a list of base64 encoded strings');
  must('windowTypes', stringList(goog.windowTypes), 'a list of strings');
  must('devToolsEventsToLog', stringList(goog.devToolsEventsToLog) && (goog.devToolsEventsToLog as unknown[]).length > 0, 'a list of event names (not empty)');
  for (const key of ['quitGracefully', 'w3c']) must(key, typeof goog[key] === 'boolean', 'a boolean');
  for (const key of ['browserStartupTimeout', 'extensionLoadTimeout']) must(key, Number.isInteger(goog[key]) && (goog[key] as number) >= 0, 'an integer, positive or zero');
  const perf = goog.perfLoggingPrefs;
  if (perf === undefined) return;
  if (typeof perf !== 'object' || perf === null || Array.isArray(perf)) throw new InvalidCapabilityError(`${FIELD}.perfLoggingPrefs must be a dictionary`);
  for (const [key, value] of Object.entries(perf)) {
    const type = Object.hasOwn(PERF_LOGGING_PREFS, key) ? PERF_LOGGING_PREFS[key] : undefined;
    if (type === undefined) throw new InvalidCapabilityError(`${FIELD}.perfLoggingPrefs: unrecognized performance logging option: ${key}`);
    const ok = type === 'interval' ? Number.isInteger(value) && (value as number) > 0 : type === 'boolean' ? typeof value === 'boolean' : typeof value === 'string' && value !== '';
    if (!ok) throw new InvalidCapabilityError(`${FIELD}.perfLoggingPrefs.${key} must be ${type === 'interval' ? 'a positive integer' : type === 'boolean' ? 'a boolean' : 'a string, not empty'}`);
  }
}

/** prefs or localState: dotted names → values, each allowed, sorted by name. */
function checkedPrefs(value: unknown, key: 'prefs' | 'localState'): [string, unknown][] {
  if (value === undefined) return [];
  const entries = flattenPrefs(value, `${FIELD}.${key}`);
  for (const [name, pref] of entries) {
    const refused = chromePrefRefusal(name, pref);
    if (refused) throw new InvalidCapabilityError(`${FIELD}.${key}: ${refused}`);
  }
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** For the README's table. */
export const REFUSED_CHROME_OPTION_KEYS: readonly string[] = Object.keys(REFUSED_KEYS);
export const NO_EFFECT_CHROME_OPTION_KEYS: readonly string[] = Object.keys(NO_EFFECT_KEYS);
