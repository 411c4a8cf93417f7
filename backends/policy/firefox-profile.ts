// moz:firefoxOptions.profile: a profile directory as a base64 ZIP (geckodriver unpacks it into the
// browser's profile before it starts). A profile holds data (cookies, certificates, site
// permissions, storage, history) and things that run or reach the machine; Firefox's profile has
// no fixed list of files, so the second kind is what is refused, each with why:
// - code: extensions (extensions/ and the files that register them), chrome/ (userChrome and
//   userContent, and the loaders of privileged scripts that live there), media plugins (gmp-*/),
//   native libraries anywhere, a PKCS#11 module (pkcs11.txt naming a library; secmod.db);
// - prefs: user.js and prefs.js are parsed (./firefox-prefs-file.ts) and each pref judged by the
//   rules of moz:firefoxOptions.prefs (./firefox.ts);
// - programs: handlers.json entries that hand files or URLs to an application of the machine,
//   mimeTypes.rdf (its older form);
// - tabs to restore at start (sessionstore), which may be the machine's files.
// Names are checked for every spelling that leads out of the profile (backends/zip.ts: no
// absolute path, no `..`, no backslash), sizes are bounded (./extensions.ts ARCHIVE_LIMITS), and
// entries are written as plain files and directories (a symbolic link is not made).
import { createHash } from 'node:crypto';
import { InvalidCapabilityError } from '../backend.ts';
import { readZip, ZipError, type ZipEntry } from '../zip.ts';
import { ARCHIVE_LIMITS, decodeBase64 } from './extensions.ts';
import { checkFirefoxPrefs } from './firefox.ts';
import { parsePrefsFile, PrefsFileError } from './firefox-prefs-file.ts';

const FIELD = 'moz:firefoxOptions.profile';

/** Paths refused (a directory, with its "/", or a file), compared without regard to case, with why. */
const REFUSED: [RegExp, string][] = [
  [/^extensions(\/|\.json$)|^extension-(preferences|settings)\.json$|^extension-store(-permissions)?\/|^browser-extension-data\/|^addonstartup\.json\.lz4$|^staged\//, 'extensions are code, which sessions may not bring'],
  [/^chrome\//, 'it holds code and style for the browser\'s own windows'],
  [/^gmp[^/]*\//, 'media plugins are code'],
  [/(^|\/)[^/]+\.(so|dll|dylib|xpi)$/, 'it is program code'],
  [/^secmod\.db$/, 'it loads security modules (program libraries) of the machine'],
  [/^mimetypes\.rdf$/, 'it hands downloads to programs of the machine'],
  [/^sessionstore(\.jsonlz4|\.js|-backups\/)/, 'it restores tabs at start, which may be the machine\'s files'],
  [/^distribution\//, "it customizes the browser with prefs and add-ons of its own"],
  [/^user\.js\//, 'user.js is the file the gateway writes the prefs into'],
];

/** Lock files Firefox makes while a profile is open: a copied one makes it refuse the profile. Left out. */
const LOCKS = /^(\.parentlock|parent\.lock|lock)$/;

/** A profile checked: the files to write into the browser's profile, and user.js's prefs (merged into the gateway's). */
export interface FirefoxProfile {
  /** Files and directories to write (user.js and lock files left out), in the archive's order. */
  entries: ZipEntry[];
  /** The prefs of its user.js, each allowed. */
  userPrefs: Record<string, string | number | boolean>;
  /** A digest of the profile (the pool key: sessions with the same profile share browsers). */
  digest: string;
}

/** The profile a session sends, checked; throws naming the first entry or pref that is refused. */
export function checkFirefoxProfile(base64: string, admittedPrefs: readonly string[]): FirefoxProfile {
  const archive = decodeBase64(base64, FIELD);
  let entries: ZipEntry[];
  try {
    entries = readZip(archive, ARCHIVE_LIMITS);
  } catch (e) {
    if (e instanceof ZipError) throw new InvalidCapabilityError(`${FIELD}: not a profile archive: ${e.message}`);
    throw e;
  }
  const kept: ZipEntry[] = [];
  let userPrefs: Record<string, string | number | boolean> = {};
  for (const entry of entries) {
    const name = entry.name.toLowerCase();
    const refused = REFUSED.find(([pattern]) => pattern.test(name));
    if (refused) throw new InvalidCapabilityError(`${FIELD}: ${entry.name} is refused: ${refused[1]}`);
    if (LOCKS.test(entry.name)) continue;
    // The files Firefox reads by these names (case matters on Linux).
    if (entry.name === 'user.js' || entry.name === 'prefs.js') {
      const prefs = prefsOf(entry, admittedPrefs);
      if (entry.name === 'user.js') {
        userPrefs = prefs;
        continue;
      }
    } else if (entry.name === 'handlers.json') checkHandlers(entry);
    else if (entry.name === 'pkcs11.txt') {
      checkPkcs11(entry);
      continue; // only the internal module: Firefox writes its own file
    }
    kept.push(entry);
  }
  return { entries: kept, userPrefs, digest: createHash('sha256').update(archive).digest('hex') };
}

function prefsOf(entry: ZipEntry, admitted: readonly string[]): Record<string, string | number | boolean> {
  let parsed;
  try {
    parsed = parsePrefsFile(entry.data.toString('utf8'));
  } catch (e) {
    if (e instanceof PrefsFileError) throw new InvalidCapabilityError(`${FIELD}: ${entry.name} cannot be read as a pref file (${e.message}); the gateway judges every pref it sets`);
    throw e;
  }
  const prefs: Record<string, string | number | boolean> = Object.create(null);
  for (const [name, value] of parsed) prefs[name] = value;
  return checkFirefoxPrefs(prefs, `${FIELD}: ${entry.name}`, admitted);
}

/** handlers.json: how downloads and URL schemes are handled. Actions 2 (a helper application) and 4 (the system's default) and a handler with a path hand them to the machine. */
function checkHandlers(entry: ZipEntry): void {
  const refuse = (why: string): never => {
    throw new InvalidCapabilityError(`${FIELD}: handlers.json is refused: ${why}`);
  };
  let handlers: unknown;
  try {
    handlers = JSON.parse(entry.data.toString('utf8'));
  } catch {
    return refuse('it is not JSON');
  }
  if (typeof handlers !== 'object' || handlers === null) return refuse('it is not an object');
  for (const group of ['mimeTypes', 'schemes']) {
    const table = (handlers as Record<string, unknown>)[group];
    if (table === undefined) continue;
    if (typeof table !== 'object' || table === null) refuse(`${group} is not an object`);
    for (const [type, rule] of Object.entries(table as Record<string, unknown>)) {
      if (typeof rule !== 'object' || rule === null) refuse(`${group}.${type} is not an object`);
      const { action, handlers: apps } = rule as { action?: unknown; handlers?: unknown };
      if (action === 2 || action === 4) refuse(`${group}.${type} hands ${group === 'schemes' ? 'URLs' : 'files'} to a program of the machine (action ${action})`);
      if (apps !== undefined && (!Array.isArray(apps) || apps.some((app) => app !== null && (typeof app !== 'object' || 'path' in app || 'executable' in app)))) {
        refuse(`${group}.${type} names an application of the machine`);
      }
    }
  }
}

/** pkcs11.txt: a module with a library is a program library the browser loads. */
function checkPkcs11(entry: ZipEntry): void {
  for (const line of entry.data.toString('utf8').split(/\r?\n/)) {
    if (/^\s*library\s*=\s*\S/.test(line)) throw new InvalidCapabilityError(`${FIELD}: pkcs11.txt is refused: it loads a security module (a program library) of the machine`);
  }
}
