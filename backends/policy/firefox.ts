// Which Firefox arguments and prefs a session may pass (moz:firefoxOptions.args and .prefs,
// wdgate:options.args) to every backend that starts Firefox (native, Playwright).
// Arguments: an allow-list, judged after Firefox's own parsing rules (below). Prefs: Firefox has
// thousands and suites set many (languages, permissions, media fakes, downloads' MIME types), so
// they are judged by a deny-list of the families that reach the machine or weaken the browser —
// the sandbox, remote debugging and the devtools server, extensions and updates, external
// programs (protocol handlers), the file: origin, chrome-privileged code, profile and download
// paths — plus a rule on values: no pref may name a file or a local path.
import { InvalidCapabilityError } from '../backend.ts';

/** The arguments a session may pass: `true` without a value, a pattern its value (the next argument or after `=`) must match. */
const ALLOWED: Record<string, true | RegExp> = {
  headless: true,
  width: /^\d{1,5}$/,
  height: /^\d{1,5}$/,
  kiosk: true,
  private: true,
  foreground: true,
};

/** Arguments the gateway itself owns (the profile, the remote protocol): never from capabilities. */
const RESERVED = new Set(['profile', 'p', 'remote-debugging-port', 'remote-allow-hosts', 'remote-allow-origins', 'marionette', 'new-instance', 'no-remote']);

export interface FirefoxArgument {
  name: string;
  value: string | undefined;
}

/**
 * Firefox's parsing (toolkit/xre CheckArg and nsCommandLine::Init): an argument is a flag when it
 * starts with `-` or `--`; its name is matched without regard to case; `--name=value` and
 * `-name=value` are the flag and its value; otherwise a flag's value is the next argument. An
 * argument that is no flag is a URL to open. The result is each flag once, lower-cased, with the
 * value it takes here.
 */
export function checkFirefoxArgs(args: readonly string[], field: string, admitted: readonly string[]): FirefoxArgument[] {
  const admittedNames = new Set(admitted.map((a) => a.replace(/^--?/, '').toLowerCase()));
  const out: FirefoxArgument[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (/[\0\n\r]/.test(arg)) throw new InvalidCapabilityError(`${field}: browser argument ${JSON.stringify(arg)} holds a control character`);
    if (!arg.startsWith('-') || arg === '-' || arg === '--') {
      throw new InvalidCapabilityError(`${field}: ${JSON.stringify(arg)} is not a Firefox flag (Firefox would open it as a URL at start)`);
    }
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = (eq === -1 ? body : body.slice(0, eq)).toLowerCase();
    let value = eq === -1 ? undefined : body.slice(eq + 1);
    if (RESERVED.has(name)) throw new InvalidCapabilityError(`${field}: browser argument -${name} is reserved: wdgate owns the profile and the remote protocol`);
    const admittedHere = admittedNames.has(name);
    const shape = admittedHere ? undefined : Object.hasOwn(ALLOWED, name) ? ALLOWED[name]! : null;
    if (shape === null) {
      throw new InvalidCapabilityError(`${field}: browser argument -${name} is not allowed (sessions may pass the arguments listed in the README; an operator may admit it with "native.allowedFirefoxArgs": ["-${name}"] in the config)`);
    }
    if (shape instanceof RegExp && value === undefined) value = args[++i];
    if (shape instanceof RegExp && (value === undefined || !shape.test(value))) {
      throw new InvalidCapabilityError(`${field}: browser argument -${name} needs a value that matches ${shape.source}`);
    }
    if (shape === true && value !== undefined) throw new InvalidCapabilityError(`${field}: browser argument -${name} takes no value`);
    out.push({ name, value });
  }
  return out;
}

/** The arguments as the gateway passes them: `-name` and, for a value, the next argument. */
export const firefoxArgv = (args: readonly FirefoxArgument[]): string[] => args.flatMap(({ name, value }) => (value === undefined ? [`-${name}`] : [`-${name}`, value]));

/** One spelling per argument (for the pool key and the answer's capabilities). */
export const firefoxArgText = ({ name, value }: FirefoxArgument): string => (value === undefined ? `--${name}` : `--${name}=${value}`);

/** Checked arguments in their one spelling (`--name[=value]`) as Firefox's command line. */
export function firefoxArgvOf(texts: readonly string[]): string[] {
  return firefoxArgv(
    texts.map((t) => {
      const eq = t.indexOf('=');
      return eq === -1 ? { name: t.replace(/^--?/, ''), value: undefined } : { name: t.slice(0, eq).replace(/^--?/, ''), value: t.slice(eq + 1) };
    }),
  );
}

/**
 * Pref families a session may not set, each with why (a name starting with one of these, without
 * regard to case). An operator may admit a family or a pref by name (`native.allowedFirefoxPrefs`).
 */
const DENIED_PREFS: [string, string][] = [
  ['security.sandbox.', 'it changes the sandbox'],
  ['security.fileuri.', 'it changes what file: pages may reach'],
  ['security.turn_off_all_security_so_that_viruses_can_take_over_this_computer', 'it turns off security checks'],
  ['capability.', 'it grants pages privileges'],
  ['general.config.', 'it loads privileged configuration code'],
  ['devtools.', 'it opens the devtools and their debugging server'],
  ['remote.', 'it changes the remote protocol'],
  ['marionette.', 'it changes the remote protocol'],
  ['extensions.', 'it changes how extensions are installed and run'],
  ['xpinstall.', 'it changes how extensions are installed'],
  ['app.update.', 'it changes updates'],
  ['app.normandy.', 'it runs remote recipes'],
  ['network.protocol-handler.', 'it hands URLs to programs of the machine'],
  ['browser.tabs.remote.', 'it moves web content into the browser process'],
  ['fission.webcontentisolationstrategy', 'it changes which sites share a content process'],
  ['dom.ipc.processcount', 'it changes which sites share a content process'],
  ['toolkit.defaultchromeuri', 'it loads privileged code'],
  ['browser.chromeurl', 'it loads privileged code'],
  ['network.proxy.', 'it sets a proxy (use the proxy capability)'],
  ['media.gmp', 'it loads media plugins'],
  ['plugin.', 'it loads plugins'],
  ['print.print_to_filename', 'it writes a file'],
  ['profile.', 'it changes the profile'],
];

/**
 * Prefs the gateway decides, accepted and not applied: the remote protocol is the gateway's
 * (selenium-webdriver's Firefox options always set `remote.active-protocols` for its own driver).
 */
const GATEWAY_DECIDES = new Set(['remote.active-protocols']);

/**
 * moz:firefoxOptions.prefs: names to strings, numbers or booleans, none of a denied family, and no
 * string that names a file (a file: URL or an absolute path): a pref is data, never a way to
 * point the browser at the machine's files.
 */
export function checkFirefoxPrefs(value: unknown, field: string, admitted: readonly string[]): Record<string, string | number | boolean> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidCapabilityError(`${field} must be an object`);
  const admittedNames = admitted.map((a) => a.toLowerCase());
  const out: Record<string, string | number | boolean> = {};
  for (const [name, pref] of Object.entries(value)) {
    if (!['string', 'number', 'boolean'].includes(typeof pref)) throw new InvalidCapabilityError(`${field}.${name} must be a string, a number or a boolean`);
    const lower = name.toLowerCase();
    if (GATEWAY_DECIDES.has(lower)) continue;
    // An own property whatever the name ("__proto__" included).
    Object.defineProperty(out, name, { value: pref, enumerable: true, writable: true, configurable: true });
    if (admittedNames.some((a) => lower === a || (a.endsWith('.') && lower.startsWith(a)))) continue;
    const denied = DENIED_PREFS.find(([family]) => lower.startsWith(family));
    if (denied) {
      throw new InvalidCapabilityError(`${field}: pref ${name} is not allowed: ${denied[1]} (an operator may admit it with "native.allowedFirefoxPrefs": [${JSON.stringify(name)}] in the config)`);
    }
    if (typeof pref === 'string' && namesLocalFile(pref)) {
      throw new InvalidCapabilityError(`${field}: pref ${name} names a file or a local path (${JSON.stringify(pref.slice(0, 80))}); sessions may not point the browser at the machine's files`);
    }
  }
  return out;
}

/** A string that names a file of the machine: a file:, resource: or chrome: URL, or a path. */
export function namesLocalFile(s: string): boolean {
  const t = s.trim();
  return /^(file|resource|chrome|moz-extension|jar):/i.test(t) || t.startsWith('/') || t.startsWith('~') || /(^|[\\/])\.\.([\\/]|$)/.test(t);
}

/** The argument names a session may pass, for the README's table. */
export const ALLOWED_FIREFOX_ARGS: readonly string[] = Object.keys(ALLOWED);
export const DENIED_FIREFOX_PREF_FAMILIES: readonly string[] = DENIED_PREFS.map(([family]) => family);
export const IGNORED_FIREFOX_PREFS: readonly string[] = [...GATEWAY_DECIDES];
