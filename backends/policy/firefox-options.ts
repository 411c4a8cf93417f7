// Every moz:firefoxOptions key geckodriver knows (capabilities.rs validate_custom) and the moz:*
// capabilities it takes, and what a session may do with each: `binary` (./binaries.ts), `args`
// and `prefs` (./firefox.ts), `profile` (./firefox-profile.ts), `env` (an allow-list here: the
// environment reaches the browser process, and some variables load code or write files), `log`
// (Firefox's own log level), the Android keys (refused: there is no device). A key geckodriver
// does not know is refused in its words ("Invalid moz:firefoxOptions field X", "Unrecognised
// option moz:X").
import { InvalidCapabilityError } from '../backend.ts';

const FIELD = 'moz:firefoxOptions';

const KNOWN_KEYS = ['binary', 'args', 'prefs', 'profile', 'env', 'log', 'androidPackage', 'androidActivity', 'androidDeviceSerial', 'androidIntentArguments'];
const ANDROID_KEYS = ['androidPackage', 'androidActivity', 'androidDeviceSerial', 'androidIntentArguments'];

/** geckodriver's log levels (its Level::from_str), and Firefox's name for each (the remote.log.level pref). */
const LOG_LEVELS: Record<string, string> = { fatal: 'Fatal', error: 'Error', warn: 'Warn', info: 'Info', config: 'Config', debug: 'Debug', trace: 'Trace' };

const LOCALE = /^(C|POSIX|C\.UTF-8|[A-Za-z]{2,8}([_-][A-Za-z0-9]{1,8})*(\.[A-Za-z0-9-]{1,16})?(@[A-Za-z0-9]{1,16})?)$/;

/**
 * Environment variables a session may give its Firefox, each with the shape of its value: the
 * time zone (a zone's name: no path, no `..`), the locale and language, and the headless window's
 * size. Everything else is refused unless the operator admits it (`native.allowedFirefoxEnv`):
 * LD_PRELOAD, LD_LIBRARY_PATH, GTK_MODULES, GTK_PATH load code; MOZ_LOG_FILE, MOZ_CRASHREPORTER_*,
 * XRE_PROFILE_PATH, TMPDIR, HOME name files; MOZ_DISABLE_*_SANDBOX turns the sandbox off; DISPLAY
 * and XAUTHORITY reach other displays. MOZ_LOG writes Firefox's module logs to its standard
 * error, which the gateway does not keep (and to a file with MOZ_LOG_FILE): refused too, as
 * it would do nothing.
 */
const ALLOWED_ENV: Record<string, RegExp> = {
  TZ: /^(?!.*\.\.)[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,3}$/,
  LANG: LOCALE,
  LANGUAGE: /^[A-Za-z]{2,8}([_-][A-Za-z0-9]{1,8})*(:[A-Za-z]{2,8}([_-][A-Za-z0-9]{1,8})*)*$/,
  LC_ALL: LOCALE,
  MOZ_HEADLESS_WIDTH: /^\d{1,5}$/,
  MOZ_HEADLESS_HEIGHT: /^\d{1,5}$/,
};
for (const category of ['CTYPE', 'NUMERIC', 'TIME', 'COLLATE', 'MONETARY', 'MESSAGES', 'PAPER', 'NAME', 'ADDRESS', 'TELEPHONE', 'MEASUREMENT', 'IDENTIFICATION']) ALLOWED_ENV[`LC_${category}`] = LOCALE;

/** What a session's moz:firefoxOptions ask beyond binary, args, prefs and profile, checked. */
export interface FirefoxExtraOptions {
  /** Environment variables for the browser, sorted by name. */
  env: [string, string][];
  /** Firefox's remote agent log level (remote.log.level), when `log.level` asks for one. */
  logLevel: string | undefined;
}

/**
 * moz:firefoxOptions checked key by key (geckodriver's rules and words): an unknown key, an
 * Android key, a malformed value or an environment variable the policy refuses throws naming it.
 * `admittedEnv`: names the operator allows besides the table.
 */
export function checkFirefoxOptions(moz: Record<string, unknown>, admittedEnv: readonly string[] = []): FirefoxExtraOptions {
  for (const key of Object.keys(moz)) {
    if (!KNOWN_KEYS.includes(key)) throw new InvalidCapabilityError(`Invalid moz:firefoxOptions field ${key}`);
    if (ANDROID_KEYS.includes(key)) throw new InvalidCapabilityError(`${FIELD}.${key} is refused: there is no Android device here`);
  }
  if (moz.profile !== undefined && typeof moz.profile !== 'string') throw new InvalidCapabilityError(`${FIELD}.profile is not a string`);
  if (moz.binary !== undefined && typeof moz.binary !== 'string') throw new InvalidCapabilityError(`${FIELD}.binary is not a string`);
  if (moz.prefs !== undefined && (typeof moz.prefs !== 'object' || moz.prefs === null || Array.isArray(moz.prefs))) throw new InvalidCapabilityError(`${FIELD}.prefs value is not an object`);
  return { env: checkEnv(moz.env, admittedEnv), logLevel: checkLog(moz.log) };
}

function checkEnv(value: unknown, admitted: readonly string[]): [string, string][] {
  if (value === undefined) return [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidCapabilityError(`${FIELD}.env value is not an object`);
  const out: [string, string][] = [];
  for (const [name, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw new InvalidCapabilityError(`${FIELD}.env: Environment values were not all strings (${name})`);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new InvalidCapabilityError(`${FIELD}.env: ${JSON.stringify(name)} is not a variable name`);
    if (v.includes('\0')) throw new InvalidCapabilityError(`${FIELD}.env.${name} holds a NUL character`);
    if (admitted.includes(name)) {
      out.push([name, v]);
      continue;
    }
    const shape = Object.hasOwn(ALLOWED_ENV, name) ? ALLOWED_ENV[name] : undefined;
    if (!shape) {
      throw new InvalidCapabilityError(`${FIELD}.env: ${name} is not allowed (sessions may set ${Object.keys(ALLOWED_ENV).filter((n) => !n.startsWith('LC_') || n === 'LC_ALL').join(', ')}, LC_*; an operator may admit it with "native.allowedFirefoxEnv": [${JSON.stringify(name)}] in the config)`);
    }
    if (!shape.test(v)) throw new InvalidCapabilityError(`${FIELD}.env.${name}: ${JSON.stringify(v.slice(0, 80))} does not match ${shape.source}`);
    out.push([name, v]);
  }
  return out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function checkLog(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidCapabilityError(`${FIELD}.log value is not an object`);
  let level: string | undefined;
  for (const [key, v] of Object.entries(value)) {
    if (key !== 'level') throw new InvalidCapabilityError(`${FIELD}.log: Invalid log field ${key}`);
    if (typeof v !== 'string') throw new InvalidCapabilityError(`${FIELD}.log: log level is not a string`);
    level = Object.hasOwn(LOG_LEVELS, v.toLowerCase()) ? LOG_LEVELS[v.toLowerCase()] : undefined;
    if (!level) throw new InvalidCapabilityError(`${FIELD}.log: Not a valid log level: ${v} (${Object.keys(LOG_LEVELS).join(', ')})`);
  }
  return level;
}

/** moz:* capabilities geckodriver takes, and why a value of one is refused here. */
const MOZ_CAPABILITIES: Record<string, (value: boolean) => string | null> = {
  'moz:firefoxOptions': () => null,
  'moz:webdriverClick': (v) => (v ? null : "Element Click here always runs the spec's interactability checks (false is Marionette's legacy click)"),
  // Python's Selenium (4.x) asks for it in every Firefox session. The address is not answered:
  // the browser's own debugging server is behind the gateway (a BiDi client asks for webSocketUrl).
  'moz:debuggerAddress': () => null,
};

/** The session's moz:* capabilities, checked as geckodriver checks them (its words), and refused where they reach the machine. */
export function checkMozCapabilities(caps: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(caps)) {
    if (!name.startsWith('moz:')) continue;
    if (!Object.hasOwn(MOZ_CAPABILITIES, name)) throw new InvalidCapabilityError(`Unrecognised option ${name}`);
    if (name === 'moz:firefoxOptions') {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidCapabilityError('moz:firefoxOptions is not an object');
      continue;
    }
    if (typeof value !== 'boolean') throw new InvalidCapabilityError(`${name} is not a boolean`);
    const refused = MOZ_CAPABILITIES[name]!(value);
    if (refused) throw new InvalidCapabilityError(`${name}: ${value} is refused: ${refused}`);
  }
}

/** For the README's table. */
export const ALLOWED_FIREFOX_ENV: readonly string[] = Object.keys(ALLOWED_ENV);
