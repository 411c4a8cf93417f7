// Which MiniBrowser options a session may pass (webkitgtk:browserOptions.args) to the WebKitGTK
// browser that WebKitWebDriver starts. MiniBrowser reads GLib's option syntax: `--name=value`,
// `--name value`, and one-letter aliases (`-p`). Its file options (a cookie store, a session
// file, a content filter, a configuration file) and the web settings that open file: URLs to
// pages are not for sessions; positional arguments are URLs to open at start, refused too.
import { InvalidCapabilityError } from '../backend.ts';

const BOOLEAN = /^(|true|false|TRUE|FALSE|1|0)$/;

/** MiniBrowser's own options a session may pass: `true` without a value, a pattern for a value. */
const ALLOWED: Record<string, true | RegExp> = {
  automation: true,
  'full-screen': true,
  'dark-mode': true,
  private: true,
  'ignore-tls-errors': true,
  'enable-itp': true,
  'cookies-policy': /^(always|never|no-third-party)$/,
  'time-zone': /^[A-Za-z0-9_+\/-]{1,64}$/,
  'autoplay-policy': /^(allow|allow-without-sound|deny)$/,
  'bg-color': /^[#\w(),. ]{1,32}$/,
  geometry: /^[\dx+-]{1,32}$/,
  features: /^[\w,+-]{0,2048}$/,
  'user-agent': /^[\x20-\x7e]{1,1024}$/,
  'default-charset': /^[\w-]{1,32}$/,
};

/** One-letter aliases GLib accepts for the options above. */
const SHORT: Record<string, string> = { f: 'full-screen', d: 'dark-mode', p: 'private', t: 'time-zone', g: 'geometry', F: 'features' };

/** WebKitSettings a session may not set (every other `--enable-…` / setting is a page's behaviour). */
const DENIED_SETTINGS = new Set(['allow-file-access-from-file-urls', 'allow-universal-access-from-file-urls', 'disable-web-security']);

/** WebKitSettings that take a text value (fonts, the charset, media types); the rest are booleans. */
const TEXT_SETTING = /^(.*-font-family|media-content-types-requiring-hardware-support|webrtc-udp-ports-range)$/;

/** The options checked, in `--name[=value]` form; throws naming the first that is refused. */
export function checkMiniBrowserArgs(args: readonly string[], field: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (/[\0\n\r]/.test(arg)) throw new InvalidCapabilityError(`${field}: ${JSON.stringify(arg)} holds a control character`);
    let name: string;
    let value: string | undefined;
    if (arg.startsWith('--') && arg.length > 2) {
      const eq = arg.indexOf('=');
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      value = eq === -1 ? undefined : arg.slice(eq + 1);
    } else if (/^-[A-Za-z]$/.test(arg) && Object.hasOwn(SHORT, arg[1]!)) {
      name = SHORT[arg[1]!]!;
    } else {
      throw new InvalidCapabilityError(`${field}: ${JSON.stringify(arg)} is not a MiniBrowser option a session may pass (an argument without dashes is a URL to open at start)`);
    }
    if (DENIED_SETTINGS.has(name)) throw new InvalidCapabilityError(`${field}: --${name} is not allowed: it opens the machine's files to pages`);
    let shape: true | RegExp | undefined = Object.hasOwn(ALLOWED, name) ? ALLOWED[name] : undefined;
    // WebKitSettings properties (MiniBrowser --help-websettings): booleans and a few texts.
    if (shape === undefined && /^(enable|allow|javascript|auto|load|media|print|zoom|draw|default|monospace|serif|sans|cursive|fantasy|pictograph)-[a-z0-9-]+$/.test(name)) {
      shape = TEXT_SETTING.test(name) ? /^[\x20-\x7e]{0,256}$/ : BOOLEAN;
    }
    if (shape === undefined) throw new InvalidCapabilityError(`${field}: MiniBrowser option --${name} is not allowed (sessions may pass the options listed in the README)`);
    if (shape instanceof RegExp && value === undefined && shape !== BOOLEAN) value = args[++i];
    if (shape === true ? value !== undefined : !shape.test(value ?? '')) {
      throw new InvalidCapabilityError(`${field}: MiniBrowser option --${name} ${shape === true ? 'takes no value' : `needs a value that matches ${shape.source}`}`);
    }
    out.push(value === undefined ? `--${name}` : `--${name}=${value}`);
  }
  return out;
}
