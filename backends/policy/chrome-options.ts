// goog:chromeOptions keys other than `args` and `binary` (./chromium.ts; the binary is the
// backend's allow-list): what each may reach. Some are the page's business (mobile emulation,
// window types, logging prefs); some reach the machine — a crash dump directory, an extension
// file, a browser left running after its session, a debugger address, an Android device, a
// profile pref that opens downloads with a program or names a directory — and are refused.
import { InvalidCapabilityError } from '../backend.ts';
import { namesLocalFile } from './firefox.ts';

/** Keys refused whatever their value, with why. */
const REFUSED_KEYS: Record<string, string> = {
  debuggerAddress: 'wdgate starts the browser itself',
  detach: 'a browser may not outlive its session',
  minidumpPath: 'it names a directory of the machine',
  extensions: 'extensions are code installed from files, which sessions may not bring',
  androidPackage: 'there is no Android device here',
  androidActivity: 'there is no Android device here',
  androidDeviceSerial: 'there is no Android device here',
  androidUseRunningApp: 'there is no Android device here',
  androidProcess: 'there is no Android device here',
  androidExecName: 'there is no Android device here',
  androidDeviceSocket: 'there is no Android device here',
  androidKeepAppDataDir: 'there is no Android device here',
};

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

/** Prefs as dotted names → values, from chromedriver's nested or dotted form. */
export function flattenPrefs(value: unknown, field: string, prefix = ''): [string, unknown][] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidCapabilityError(`${field} must be an object`);
  return Object.entries(value).flatMap(([key, v]) =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? flattenPrefs(v, field, `${prefix}${key}.`) : [[`${prefix}${key}`, v] as [string, unknown]],
  );
}

/** Why a Chrome pref may not be set, or null (no denied family, and no value that names a file of the machine). */
export function chromePrefRefusal(name: string, value: unknown): string | null {
  const denied = DENIED_PREFS.find(([family]) => name === family || (family.endsWith('.') || family.endsWith('_') ? name.startsWith(family) : name.startsWith(`${family}.`)));
  if (denied) return `pref ${name} is not allowed: ${denied[1]}`;
  const strings = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap(strings) : []);
  const file = strings(value).find(namesLocalFile);
  return file === undefined ? null : `pref ${name} names a file or a local path (${JSON.stringify(file.slice(0, 80))}); sessions may not point the browser at the machine's files`;
}

/**
 * The goog:chromeOptions keys besides args and binary, checked: a refused key, or a pref or a
 * Local State entry that reaches the machine, throws naming it.
 */
export function checkChromeOptionKeys(goog: Record<string, unknown>): void {
  for (const key of Object.keys(goog)) {
    const value = goog[key];
    // Nothing asked (Python's Selenium sends `extensions: []`): nothing to refuse.
    const empty = value === undefined || value === null || value === false || (Array.isArray(value) && value.length === 0);
    if (Object.hasOwn(REFUSED_KEYS, key) && !empty) {
      throw new InvalidCapabilityError(`goog:chromeOptions.${key} is refused: ${REFUSED_KEYS[key]}`);
    }
  }
  for (const key of ['prefs', 'localState'] as const) {
    if (goog[key] === undefined) continue;
    for (const [name, value] of flattenPrefs(goog[key], `goog:chromeOptions.${key}`)) {
      const refused = chromePrefRefusal(name, value);
      if (refused) throw new InvalidCapabilityError(`goog:chromeOptions.${key}: ${refused}`);
    }
  }
}
