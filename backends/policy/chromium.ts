// Which Chromium switches a session may pass (goog:chromeOptions.args, wdgate:options.args) to
// every backend that starts Chromium (native, Playwright, chromedriver behind the remote backend).
// Capabilities come from whoever holds a token, and a switch can hand over the machine
// (`--renderer-cmd-prefix` runs a program of the client's choosing): so this is an allow-list, and
// a switch is judged only after every spelling Chromium's parser takes is brought to one form.
import { InvalidCapabilityError } from '../backend.ts';

/**
 * The switches a session may pass, by name (without dashes): `true` for a switch without a value,
 * a pattern its value must match otherwise (an optional value: the pattern matches '').
 * What is not here is refused unless the operator admits it (`native.allowedArgs`).
 */
const ALLOWED: Record<string, true | RegExp> = {
  // What the gateway decides anyway: accepted, so that a suite that passes them runs unchanged.
  headless: /^(new|old|)$/,
  'disable-gpu': true,
  'disable-dev-shm-usage': true,
  'no-first-run': true,
  'no-default-browser-check': true,
  // The window and the screen.
  'window-size': /^\d{1,5},\d{1,5}$/,
  'window-position': /^-?\d{1,5},-?\d{1,5}$/,
  'start-maximized': true,
  'start-fullscreen': true,
  kiosk: true,
  'force-device-scale-factor': /^\d{1,2}(\.\d{1,4})?$/,
  'hide-scrollbars': true,
  'force-color-profile': /^[a-z0-9-]{1,32}$/,
  'force-dark-mode': true,
  'force-prefers-reduced-motion': true,
  'font-render-hinting': /^(none|slight|medium|full)$/,
  'disable-font-subpixel-positioning': true,
  // Language and identity.
  lang: /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$/,
  'accept-lang': /^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*(,[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*)*$/,
  'user-agent': /^[\x20-\x7e]{1,1024}$/,
  // Feature toggles: names and field-trial parameters only.
  'enable-features': /^[\w.:,<>/*-]{0,2048}$/,
  'disable-features': /^[\w.:,<>/*-]{0,2048}$/,
  'enable-blink-features': /^[\w,]{0,2048}$/,
  'disable-blink-features': /^[\w,]{0,2048}$/,
  'blink-settings': /^[\w=,.-]{0,2048}$/,
  'enable-experimental-web-platform-features': true,
  // Quiet browsers: what automation boilerplate passes.
  'disable-extensions': true,
  'disable-notifications': true,
  'disable-infobars': true,
  'disable-popup-blocking': true,
  'disable-translate': true,
  'disable-default-apps': true,
  'disable-background-networking': true,
  'disable-background-timer-throttling': true,
  'disable-backgrounding-occluded-windows': true,
  'disable-renderer-backgrounding': true,
  'disable-ipc-flooding-protection': true,
  'disable-hang-monitor': true,
  'disable-prompt-on-repost': true,
  'disable-client-side-phishing-detection': true,
  'disable-component-update': true,
  'disable-sync': true,
  'disable-domain-reliability': true,
  'disable-search-engine-choice-screen': true,
  'disable-session-crashed-bubble': true,
  'disable-software-rasterizer': true,
  'disable-breakpad': true,
  'metrics-recording-only': true,
  'password-store': /^(basic|gnome-libsecret|kwallet[56]?)$/,
  'use-mock-keychain': true,
  'enable-automation': true,
  'test-type': /^(|webdriver|browser)$/,
  'mute-audio': true,
  'autoplay-policy': /^(no-user-gesture-required|user-gesture-required|document-user-activation-required)$/,
  'use-fake-ui-for-media-stream': true,
  'use-fake-device-for-media-stream': true,
  // Rendering back ends (software only on these machines).
  'use-gl': /^(swiftshader|angle|egl|disabled)$/,
  'use-angle': /^(swiftshader|swiftshader-webgl|default|gl|gles|vulkan)$/,
  'enable-unsafe-swiftshader': true,
  'ignore-gpu-blocklist': true,
  // Certificates and insecure origins: the session's own browser's trust, no file.
  'ignore-certificate-errors': true,
  'allow-insecure-localhost': true,
  'allow-running-insecure-content': true,
  'unsafely-treat-insecure-origin-as-secure': /^https?:\/\/[\w.:[\]-]+(,https?:\/\/[\w.:[\]-]+)*$/,
  // Logging to the browser's stderr (never to a file: --log-file is not here).
  'enable-logging': /^(|stderr)$/,
  'log-level': /^[0-3]$/,
  v: /^-?\d$/,
  'disable-logging': true,
  // Caches: sizes only (their directories are the profile's).
  'disk-cache-size': /^\d{1,12}$/,
  'media-cache-size': /^\d{1,12}$/,
  // V8: flags that change no file and run no program.
  'js-flags': /^(--?(expose[-_]gc|max[-_]old[-_]space[-_]size=\d{1,6}|optimize[-_]for[-_]size|max[-_]semi[-_]space[-_]size=\d{1,4}|jitless|no[-_]opt|lite[-_]mode)( |$))+$/,
};

/**
 * Accepted and given no effect: the gateway decides these, and suites pass them for the sake of
 * a browser they start themselves (as root in a container). The sandbox stays on unless the
 * operator turns it off (`browsers.sandbox`).
 */
const GATEWAY_DECIDES = new Set(['no-sandbox', 'disable-setuid-sandbox']);

/** Switches the gateway itself owns: never from capabilities, whatever the operator admits. */
const RESERVED = new Set(['user-data-dir', 'remote-debugging-pipe', 'remote-debugging-port', 'remote-debugging-address', 'remote-debugging-io-pipes']);

/** A switch as Chromium's parser reads it: its name and value (undefined: none). */
export interface ChromiumSwitch {
  name: string;
  value: string | undefined;
}

/**
 * One argument as Chromium reads it (base/command_line.cc on POSIX: the prefixes are `--` and
 * `-`, a switch's name is case-sensitive and ends at the first `=`), plus chromedriver's rule
 * that an argument without a dash is a switch (`user-agent=x` is `--user-agent=x`), so that
 * no argument is ever a positional one (Chromium opens those as URLs at start).
 */
export function parseChromiumSwitch(arg: string): ChromiumSwitch {
  const body = arg.startsWith('--') ? arg.slice(2) : arg.startsWith('-') ? arg.slice(1) : arg;
  const eq = body.indexOf('=');
  return eq === -1 ? { name: body, value: undefined } : { name: body.slice(0, eq), value: body.slice(eq + 1) };
}

/** The one spelling the gateway passes on. */
export const chromiumSwitchText = ({ name, value }: ChromiumSwitch): string => (value === undefined ? `--${name}` : `--${name}=${value}`);

/**
 * A session's switches, each checked and in the one spelling (`--name[=value]`); `field` names the
 * capability they came from. `admitted`: switch names the operator allows besides the table
 * (`--proxy-server` or `proxy-server`), with any value. Throws InvalidCapabilityError naming the switch
 * and the config key that admits it. Switches the gateway decides are left out.
 */
export function checkChromiumSwitches(args: readonly string[], field: string, admitted: readonly string[]): string[] {
  const admittedNames = new Set(admitted.map((a) => parseChromiumSwitch(a).name));
  const out: string[] = [];
  for (const arg of args) {
    const parsed = parseChromiumSwitch(arg);
    const { name, value } = parsed;
    // The argument as the client wrote it, and the switch Chromium would read from it.
    const said = arg.startsWith(`--${name}`) ? arg : `${arg} (--${name})`;
    if (arg === '--' || arg === '-' || name === '') throw new InvalidCapabilityError(`${field}: ${JSON.stringify(arg)} is not a browser switch`);
    if (/[\0\n\r]/.test(arg)) throw new InvalidCapabilityError(`${field}: browser switch ${JSON.stringify(arg)} holds a control character`);
    if (RESERVED.has(name)) throw new InvalidCapabilityError(`${field}: browser switch ${said} is reserved: wdgate owns the profile and the debugging pipe`);
    if (GATEWAY_DECIDES.has(name)) continue;
    if (admittedNames.has(name)) {
      out.push(chromiumSwitchText(parsed));
      continue;
    }
    const shape = Object.hasOwn(ALLOWED, name) ? ALLOWED[name]! : undefined;
    if (shape === undefined) {
      throw new InvalidCapabilityError(`${field}: browser switch ${said} is not allowed (sessions may pass the switches listed in the README; an operator may admit it with "native.allowedArgs": ["--${name}"] in the config)`);
    }
    if (shape === true ? value !== undefined && value !== '' : !shape.test(value ?? '')) {
      throw new InvalidCapabilityError(`${field}: browser switch ${said} has a value wdgate does not pass (${shape === true ? 'it takes none' : `it must match ${shape.source}`})`);
    }
    out.push(chromiumSwitchText(shape === true ? { name, value: undefined } : parsed));
  }
  return out;
}

/** Whether one of these checked switches asks for a headless browser. */
export const asksHeadless = (args: readonly string[]): boolean => args.some((a) => parseChromiumSwitch(a).name === 'headless');

/** The switch names a session may pass, for the README's table and `--help`. */
export const ALLOWED_CHROMIUM_SWITCHES: readonly string[] = Object.keys(ALLOWED);
export const IGNORED_CHROMIUM_SWITCHES: readonly string[] = [...GATEWAY_DECIDES];
