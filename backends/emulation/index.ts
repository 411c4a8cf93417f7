// goog:chromeOptions.mobileEmulation, read as chromedriver reads it (capabilities.cc
// ParseMobileEmulation): a device by name, or a user agent, device metrics and client hints; and
// the CDP overrides that show it (mobile_emulation_override_manager.cc). Device names come from
// Playwright's device descriptors (they ship with playwright-core and are kept up to date there),
// with chromedriver's names mapped to them where the two name one device differently.
import { createRequire } from 'node:module';
import { InvalidCapabilityError, type ClientHints, type Emulation } from '../backend.ts';

const FIELD = 'goog:chromeOptions.mobileEmulation';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const refuse = (why: string): never => {
  throw new InvalidCapabilityError(`${FIELD}: ${why}`);
};

/** Keys each part takes; another is refused (chromedriver passes over it: a misspelt key would do nothing). */
const EMULATION_KEYS = ['deviceName', 'userAgent', 'deviceMetrics', 'clientHints'];
const METRICS_KEYS = ['width', 'height', 'pixelRatio', 'touch', 'mobile'];
const HINTS_KEYS = ['platform', 'platformVersion', 'architecture', 'bitness', 'model', 'mobile', 'wow64', 'brands', 'fullVersionList'];

/** Platforms Chromium has a reduced user agent for: client hints of another need a userAgent too. */
const REDUCED_UA_PLATFORMS: Record<string, string> = {
  Android: 'Linux; Android 10; K',
  'Chrome OS': 'X11; CrOS x86_64 14541.0.0',
  'Chromium OS': 'X11; CrOS x86_64 14541.0.0',
  Fuchsia: 'Fuchsia',
  Linux: 'X11; Linux x86_64',
  macOS: 'Macintosh; Intel Mac OS X 10_15_7',
  Windows: 'Windows NT 10.0; Win64; x64',
};

/** The emulation a mobileEmulation value asks for, checked with chromedriver's rules (and its wording). */
export function parseMobileEmulation(value: unknown): Emulation {
  if (!isObject(value)) return refuse("'mobileEmulation' must be a dictionary");
  for (const key of Object.keys(value)) if (!EMULATION_KEYS.includes(key)) refuse(`unrecognized mobileEmulation option: ${key} (it takes ${EMULATION_KEYS.join(', ')})`);
  if (value.deviceName !== undefined) {
    if (Object.keys(value).length > 1) refuse("'deviceName' must be used alone");
    if (typeof value.deviceName !== 'string') refuse("'deviceName' must be a string");
    const device = deviceNamed(value.deviceName as string);
    if (!device) refuse(`'${value.deviceName}' must be a valid device (wdgate knows Playwright's device names, and chromedriver's where Playwright has the same device; give deviceMetrics and userAgent for another)`);
    return device!;
  }
  const emulation: Emulation = {};
  if (value.userAgent !== undefined) {
    if (typeof value.userAgent !== 'string') refuse("'userAgent' must be a string");
    if (/[\0\r\n]/.test(value.userAgent as string)) refuse("'userAgent' holds a control character");
    emulation.userAgent = value.userAgent as string;
  }
  if (value.deviceMetrics !== undefined) {
    const m = value.deviceMetrics;
    if (!isObject(m)) return refuse("'deviceMetrics' must be a dictionary");
    for (const key of Object.keys(m)) if (!METRICS_KEYS.includes(key)) refuse(`unrecognized deviceMetrics option: ${key} (it takes ${METRICS_KEYS.join(', ')})`);
    for (const key of ['width', 'height'] as const) {
      if (m[key] !== undefined && (!Number.isInteger(m[key]) || (m[key] as number) < 0 || (m[key] as number) > 10_000_000)) refuse(`'${key}' must be an integer`);
    }
    if (m.pixelRatio !== undefined && (typeof m.pixelRatio !== 'number' || m.pixelRatio < 0 || m.pixelRatio > 10)) refuse("'pixelRatio' must be a double (0 to 10)");
    for (const key of ['touch', 'mobile'] as const) if (m[key] !== undefined && typeof m[key] !== 'boolean') refuse(`'${key}' must be a boolean`);
    // chromedriver's defaults: a missing `mobile` or `touch` is true, a missing ratio the screen's.
    emulation.metrics = {
      width: (m.width as number | undefined) ?? 0,
      height: (m.height as number | undefined) ?? 0,
      deviceScaleFactor: (m.pixelRatio as number | undefined) ?? 0,
      mobile: (m.mobile as boolean | undefined) ?? true,
      touch: (m.touch as boolean | undefined) ?? true,
    };
  }
  if (value.clientHints !== undefined) emulation.clientHints = parseClientHints(value.clientHints, emulation.userAgent);
  return emulation;
}

function parseClientHints(value: unknown, userAgent: string | undefined): ClientHints {
  if (!isObject(value)) return refuse("'clientHints' must be a dictionary");
  for (const key of Object.keys(value)) if (!HINTS_KEYS.includes(key)) refuse(`unrecognized clientHints option: ${key} (it takes ${HINTS_KEYS.join(', ')})`);
  if (value.platform === undefined) refuse("'clientHints.platform' must be provided");
  const text = (key: string): string => {
    const v = value[key];
    if (v === undefined) return '';
    if (typeof v !== 'string') return refuse(`'clientHints.${key}' must be a string`);
    return v;
  };
  const platform = text('platform');
  if (userAgent === undefined && !Object.hasOwn(REDUCED_UA_PLATFORMS, platform)) {
    refuse(`'userAgent' is required for platforms other than: ${Object.keys(REDUCED_UA_PLATFORMS).join(', ')}`);
  }
  for (const key of ['mobile', 'wow64']) if (value[key] !== undefined && typeof value[key] !== 'boolean') refuse(`'clientHints.${key}' must be a boolean`);
  // chromedriver: an Android platform with a user agent is as mobile as the agent says.
  const mobile = (value.mobile as boolean | undefined) ?? (platform.toUpperCase() === 'ANDROID' && userAgent !== undefined ? userAgent.includes('Mobile') : false);
  const list = (key: 'brands' | 'fullVersionList') => {
    const v = value[key];
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) return refuse(`'clientHints.${key}' must be an array of objects`);
    return v.map((entry) => {
      if (!isObject(entry)) return refuse(`each 'clientHints.${key}' entry must be an object`);
      if (typeof entry.brand !== 'string') return refuse(`each 'clientHints.${key}' entry must have a 'brand' field of type string`);
      if (typeof entry.version !== 'string') return refuse(`each 'clientHints.${key}' entry must have a 'version' field of type string`);
      return { brand: entry.brand, version: entry.version };
    });
  };
  const brands = list('brands');
  const fullVersionList = list('fullVersionList');
  return {
    platform,
    platformVersion: text('platformVersion'),
    architecture: text('architecture'),
    bitness: text('bitness'),
    model: text('model'),
    mobile,
    wow64: (value.wow64 as boolean | undefined) ?? false,
    ...(brands && { brands }),
    ...(fullVersionList && { fullVersionList }),
  };
}

// ── Devices ─────────────────────────────────────────────────────────────────────────────────

interface PlaywrightDevice {
  userAgent: string;
  viewport: { width: number; height: number };
  deviceScaleFactor: number;
  isMobile: boolean;
  hasTouch: boolean;
}

/**
 * chromedriver's device names (its list of Chromium 156, and older ones suites still send) where
 * Playwright names the same device (same viewport and pixel ratio) otherwise. Names both lists
 * share are Playwright's as they are.
 */
const CHROMEDRIVER_NAMES: Record<string, string> = {
  'iPhone SE': 'iPhone SE (3rd gen)', // chromedriver's is the 375×667 one; Playwright's "iPhone SE" the first
  'iPhone 6/7/8': 'iPhone 8',
  'iPhone 6/7/8 Plus': 'iPhone 8 Plus',
  'iPhone 5/SE': 'iPhone SE',
  'Samsung Galaxy A55': 'Galaxy A55',
  iPad: 'iPad (gen 6)',
};

let devices: Record<string, PlaywrightDevice> | undefined;

/**
 * A device's emulation by name. Playwright's descriptors are read from playwright-core on the
 * first name asked for (once: loading playwright-core takes ≈ 0.5 s and 40 MB, which a gateway
 * that is never asked for a device does not pay).
 */
export function deviceNamed(name: string): Emulation | undefined {
  devices ??= (createRequire(import.meta.url)('playwright-core') as { devices: Record<string, PlaywrightDevice> }).devices;
  const key = Object.hasOwn(CHROMEDRIVER_NAMES, name) ? CHROMEDRIVER_NAMES[name]! : name;
  if (!Object.hasOwn(devices, key)) return undefined;
  const { userAgent, viewport, deviceScaleFactor, isMobile, hasTouch } = devices[key]!;
  return { userAgent, metrics: { width: viewport.width, height: viewport.height, deviceScaleFactor, mobile: isMobile, touch: hasTouch } };
}

// ── What the browser is told ────────────────────────────────────────────────────────────────

/** The user agent a session shows: its own, or Chromium's reduced one for its client hints' platform. */
export function userAgentOf(emulation: Emulation, browserVersion: string): string | undefined {
  if (emulation.userAgent !== undefined) return emulation.userAgent;
  const hints = emulation.clientHints;
  if (!hints) return undefined;
  const major = browserVersion.split('.')[0] || '0';
  const mobile = hints.platform === 'Android' && hints.mobile ? 'Mobile ' : '';
  return `Mozilla/5.0 (${REDUCED_UA_PLATFORMS[hints.platform]}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 ${mobile}Safari/537.36`;
}

/**
 * The client hints a session shows: its own, or (a user agent without them, chromedriver's
 * "legacy mode") the platform guessed from the user agent, mobile only for a mobile Android one.
 */
export function clientHintsOf(emulation: Emulation): ClientHints | undefined {
  if (emulation.clientHints) return emulation.clientHints;
  const ua = emulation.userAgent;
  if (ua === undefined) return undefined;
  const platform = /Android/.test(ua)
    ? 'Android'
    : /iPhone|iPad|iPod/.test(ua)
      ? 'iOS'
      : /CrOS/.test(ua)
        ? 'Chrome OS'
        : /Fuchsia/.test(ua)
          ? 'Fuchsia'
          : /Windows/.test(ua)
            ? 'Windows'
            : /Macintosh|Mac OS X/.test(ua)
              ? 'macOS'
              : /Linux|X11/.test(ua)
                ? 'Linux'
                : '';
  return { platform, platformVersion: '', architecture: '', bitness: '', model: '', mobile: platform === 'Android' && ua.includes('Mobile'), wow64: false };
}

/** The CDP commands that show `emulation` in a page, in the order to send them. */
export function emulationCommands(emulation: Emulation, browserVersion: string): { method: string; params: Record<string, unknown> }[] {
  const commands: { method: string; params: Record<string, unknown> }[] = [];
  const userAgent = userAgentOf(emulation, browserVersion);
  if (userAgent !== undefined) {
    const hints = clientHintsOf(emulation)!;
    commands.push({ method: 'Emulation.setUserAgentOverride', params: { userAgent, userAgentMetadata: hints } });
  }
  const m = emulation.metrics;
  if (m) {
    commands.push({ method: 'Emulation.setDeviceMetricsOverride', params: { width: m.width, height: m.height, deviceScaleFactor: m.deviceScaleFactor, mobile: m.mobile } });
    commands.push({ method: 'Emulation.setTouchEmulationEnabled', params: m.touch ? { enabled: true, maxTouchPoints: 5 } : { enabled: false } });
  }
  return commands;
}
