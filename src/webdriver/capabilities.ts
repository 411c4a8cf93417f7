// W3C WebDriver "Capabilities" (spec §7.2): processing the New Session parameters.
//
// Each spec algorithm is its own pure function, in the spec's order:
//   validateCapabilities  — "validate capabilities" (one alwaysMatch / firstMatch object)
//   mergeCapabilities     — "merging capabilities"
//   processCapabilities   — "process capabilities" (validate, merge, match, first wins)
//   matchStandardCapabilities — the generic, endpoint-independent half of "matching capabilities"
// Nothing here talks to a browser: what an endpoint serves is passed in.

import { error } from './errors.ts';

import type { EndpointCapabilities, MatchResult } from '../../backends/backend.ts';

/** The outcome of matching one merged capabilities object against what we serve. */
export type { EndpointCapabilities, MatchResult };

/** The session timeouts configuration (spec "timeouts"); script null means "no timeout". */
export interface TimeoutsConfiguration {
  script: number | null;
  pageLoad: number;
  implicit: number;
}

export const defaultTimeouts: Readonly<TimeoutsConfiguration> = Object.freeze({
  script: 30_000,
  pageLoad: 300_000,
  implicit: 0,
});

export const PAGE_LOAD_STRATEGIES = ['none', 'eager', 'normal'] as const;
export const PROXY_TYPES = ['pac', 'direct', 'autodetect', 'system', 'manual'] as const;
export const PROMPT_HANDLERS = ['dismiss', 'accept', 'dismiss and notify', 'accept and notify', 'ignore'] as const;
export const PROMPT_TYPES = ['alert', 'beforeUnload', 'confirm', 'default', 'file', 'prompt'] as const;
/** beforeUnload prompts cannot be "notified" (spec: user prompt handler). */
const BEFORE_UNLOAD_HANDLERS = ['dismiss', 'accept', 'ignore'] as const;

const MANUAL_PROXY_KEYS = ['ftpProxy', 'httpProxy', 'sslProxy', 'socksProxy', 'socksVersion', 'noProxy'] as const;
const PROXY_KEYS = ['proxyType', 'proxyAutoconfigUrl', ...MANUAL_PROXY_KEYS] as const;
const TIMEOUT_KEYS = ['script', 'pageLoad', 'implicit'] as const;

// ───────────────────────────── helpers ─────────────────────────────

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSafeNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= Number.MAX_SAFE_INTEGER;
}

/** A short description of a received value, for error messages (never the whole payload). */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') {
    const s = JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
    return `the string ${s}`;
  }
  if (typeof value === 'undefined') return 'undefined';
  return `${typeof value} ${String(value)}`;
}

function quoteList(values: readonly string[]): string {
  return values.map((v) => JSON.stringify(v)).join(', ');
}

const NOTHING: unique symbol = Symbol('nothing');

function invalid(path: string, requirement: string, got: unknown = NOTHING): never {
  const suffix = got === NOTHING ? '' : ` (got ${describe(got)})`;
  throw error('invalid argument', `${path} ${requirement}${suffix}`);
}

/** Own-property assignment that cannot touch the prototype, whatever the key. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function expectBoolean(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') invalid(path, 'must be a boolean', value);
  return value;
}

function expectString(value: unknown, path: string): string {
  if (typeof value !== 'string') invalid(path, 'must be a string', value);
  return value;
}

function expectOneOf<V extends string>(value: unknown, allowed: readonly V[], path: string): V {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    invalid(path, `must be one of ${quoteList(allowed)}`, value);
  }
  return value as V;
}

// ───────────────────────────── deserializers ─────────────────────────────

/**
 * A proxy host: "host[:port]" with no scheme, credentials, path, query or fragment.
 * IPv6 literals go in brackets ("[::1]:3128").
 */
function expectProxyHost(value: unknown, path: string): string {
  if (typeof value !== 'string') invalid(path, 'must be a string of the form host[:port]', value);
  const shapeError = () => invalid(path, 'must be a host with an optional port, without scheme, credentials or path', value);
  if (value === '' || /[\s/?#@\\]/.test(value)) shapeError();
  let url: URL;
  try {
    url = new URL(`http://${value}`);
  } catch {
    return shapeError();
  }
  if (url.hostname === '') shapeError();
  return value;
}

/** Spec "deserialize as a proxy". */
export function deserializeProxy(value: unknown, path: string): Record<string, unknown> {
  if (!isJsonObject(value)) invalid(path, 'must be a JSON object', value);
  const proxy: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const keyPath = `${path}.${key}`;
    switch (key) {
      case 'proxyType':
        proxy.proxyType = expectOneOf(v, PROXY_TYPES, keyPath);
        break;
      case 'proxyAutoconfigUrl': {
        const s = expectString(v, keyPath);
        if (!URL.canParse(s)) invalid(keyPath, 'must be an absolute URL', v);
        proxy.proxyAutoconfigUrl = s;
        break;
      }
      case 'ftpProxy':
      case 'httpProxy':
      case 'sslProxy':
      case 'socksProxy':
        proxy[key] = expectProxyHost(v, keyPath);
        break;
      case 'socksVersion':
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 255) {
          invalid(keyPath, 'must be an integer from 0 to 255', v);
        }
        proxy.socksVersion = v;
        break;
      case 'noProxy':
        if (!Array.isArray(v)) invalid(keyPath, 'must be an array of strings', v);
        v.forEach((entry, i) => expectString(entry, `${keyPath}[${i}]`));
        proxy.noProxy = [...v];
        break;
      default:
        invalid(path, `has unknown key ${JSON.stringify(key)}; allowed keys are ${quoteList(PROXY_KEYS)}`);
    }
  }
  const proxyType = proxy.proxyType;
  if (proxyType === undefined) invalid(`${path}.proxyType`, `is required (one of ${quoteList(PROXY_TYPES)})`);
  if (proxyType === 'pac' && proxy.proxyAutoconfigUrl === undefined) {
    invalid(`${path}.proxyAutoconfigUrl`, 'is required when proxyType is "pac"');
  }
  if (proxyType !== 'pac' && proxy.proxyAutoconfigUrl !== undefined) {
    invalid(`${path}.proxyAutoconfigUrl`, `is only allowed when proxyType is "pac", not ${JSON.stringify(proxyType)}`);
  }
  if (proxyType !== 'manual') {
    for (const key of MANUAL_PROXY_KEYS) {
      if (proxy[key] !== undefined) {
        invalid(`${path}.${key}`, `is only allowed when proxyType is "manual", not ${JSON.stringify(proxyType)}`);
      }
    }
  }
  if (proxy.socksProxy !== undefined && proxy.socksVersion === undefined) {
    invalid(`${path}.socksVersion`, 'is required when socksProxy is given');
  }
  return proxy;
}

/** Spec "deserialize as timeouts configuration" (the capability form: a partial object). */
export function deserializeTimeouts(value: unknown, path: string): Partial<TimeoutsConfiguration> {
  if (!isJsonObject(value)) invalid(path, 'must be a JSON object', value);
  const timeouts: Partial<TimeoutsConfiguration> = {};
  for (const [key, v] of Object.entries(value)) {
    const keyPath = `${path}.${key}`;
    switch (key) {
      case 'script':
        if (v !== null && !isSafeNonNegativeInteger(v)) {
          invalid(keyPath, 'must be null or an integer from 0 to 2^53-1', v);
        }
        timeouts.script = v;
        break;
      case 'pageLoad':
      case 'implicit':
        if (!isSafeNonNegativeInteger(v)) invalid(keyPath, 'must be an integer from 0 to 2^53-1', v);
        timeouts[key] = v;
        break;
      default:
        invalid(path, `has unknown key ${JSON.stringify(key)}; allowed keys are ${quoteList(TIMEOUT_KEYS)}`);
    }
  }
  return timeouts;
}

/** Spec "deserialize as an unhandled prompt behavior": a handler string, or a per-prompt-type map. */
export function deserializeUnhandledPromptBehavior(value: unknown, path: string): string | Record<string, string> {
  if (typeof value === 'string') return expectOneOf(value, PROMPT_HANDLERS, path);
  if (!isJsonObject(value)) {
    invalid(path, `must be one of ${quoteList(PROMPT_HANDLERS)} or a JSON object keyed by prompt type`, value);
  }
  const behavior: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!(PROMPT_TYPES as readonly string[]).includes(key)) {
      invalid(path, `has unknown prompt type ${JSON.stringify(key)}; allowed keys are ${quoteList(PROMPT_TYPES)}`);
    }
    const allowed = key === 'beforeUnload' ? BEFORE_UNLOAD_HANDLERS : PROMPT_HANDLERS;
    behavior[key] = expectOneOf(v, allowed, `${path}.${key}`);
  }
  return behavior;
}

// ───────────────────────────── spec algorithms ─────────────────────────────

/**
 * Spec "validate capabilities". `path` names the object in error messages, e.g.
 * "capabilities.alwaysMatch" or "capabilities.firstMatch[1]". Returns a new object:
 * null-valued keys dropped, standard capabilities type-checked (and copied), extension
 * capabilities ("vendor:name") passed through untouched.
 */
export function validateCapabilities(caps: unknown, path: string): Record<string, unknown> {
  if (!isJsonObject(caps)) invalid(path, 'must be a JSON object', caps);
  const result: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(caps)) {
    if (value === null) continue;
    const keyPath = `${path}.${name}`;
    let deserialized: unknown;
    switch (name) {
      case 'acceptInsecureCerts':
      case 'setWindowRect':
      case 'strictFileInteractability':
      case 'webSocketUrl':
        deserialized = expectBoolean(value, keyPath);
        break;
      case 'browserName':
      case 'browserVersion':
      case 'platformName':
        deserialized = expectString(value, keyPath);
        break;
      case 'pageLoadStrategy':
        deserialized = expectOneOf(value, PAGE_LOAD_STRATEGIES, keyPath);
        break;
      case 'proxy':
        deserialized = deserializeProxy(value, keyPath);
        break;
      case 'timeouts':
        deserialized = deserializeTimeouts(value, keyPath);
        break;
      case 'unhandledPromptBehavior':
        deserialized = deserializeUnhandledPromptBehavior(value, keyPath);
        break;
      default:
        if (!name.includes(':')) {
          invalid(
            keyPath,
            'is not a W3C capability; extension capabilities must be prefixed with a vendor, e.g. "goog:chromeOptions"',
          );
        }
        deserialized = value;
    }
    setOwn(result, name, deserialized);
  }
  return result;
}

/**
 * Spec "merging capabilities": primary (alwaysMatch) plus secondary (one firstMatch entry).
 * A key present in both is an invalid argument: firstMatch may not shadow alwaysMatch.
 * `secondaryPath` only names the secondary object in the error message.
 */
export function mergeCapabilities(
  primary: Record<string, unknown>,
  secondary?: Record<string, unknown>,
  secondaryPath = 'capabilities.firstMatch entry',
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(primary)) setOwn(result, name, value);
  if (secondary === undefined) return result;
  for (const [name, value] of Object.entries(secondary)) {
    if (Object.hasOwn(primary, name)) {
      throw error(
        'invalid argument',
        `${secondaryPath}.${name} shadows capabilities.alwaysMatch.${name}; a key may not appear in both alwaysMatch and firstMatch`,
      );
    }
    setOwn(result, name, value);
  }
  return result;
}

/**
 * Spec "process capabilities" for New Session `parameters`. `match` decides, per merged
 * capabilities object in firstMatch order, whether (and how) we can serve it; the first
 * ok result wins. No match → `session not created` naming every reason.
 */
export function processCapabilities<T>(
  params: unknown,
  match: (merged: Record<string, unknown>) => MatchResult<T>,
): { capabilities: Record<string, unknown>; matched: T } {
  if (!isJsonObject(params)) invalid('New Session parameters', 'must be a JSON object', params);
  const request = params.capabilities;
  if (request === undefined) {
    const legacy = Object.hasOwn(params, 'desiredCapabilities')
      ? ' (legacy JSON Wire "desiredCapabilities" is not supported; send W3C "capabilities")'
      : '';
    invalid('capabilities', `is required: New Session parameters must contain a "capabilities" JSON object${legacy}`);
  }
  if (!isJsonObject(request)) invalid('capabilities', 'must be a JSON object', request);

  const alwaysMatchRaw = request.alwaysMatch;
  const requiredCapabilities =
    alwaysMatchRaw === undefined ? {} : validateCapabilities(alwaysMatchRaw, 'capabilities.alwaysMatch');

  const firstMatchRaw = request.firstMatch === undefined ? [{}] : request.firstMatch;
  if (!Array.isArray(firstMatchRaw)) {
    invalid('capabilities.firstMatch', 'must be an array of JSON objects', firstMatchRaw);
  }
  if (firstMatchRaw.length === 0) invalid('capabilities.firstMatch', 'must contain at least one entry (use [{}])');
  const validatedFirstMatch = firstMatchRaw.map((entry, i) =>
    validateCapabilities(entry, `capabilities.firstMatch[${i}]`),
  );

  const mergedCapabilities = validatedFirstMatch.map((entry, i) =>
    mergeCapabilities(requiredCapabilities, entry, `capabilities.firstMatch[${i}]`),
  );

  const reasons: string[] = [];
  for (const [i, merged] of mergedCapabilities.entries()) {
    const result = match(merged);
    if (result.ok) return { capabilities: merged, matched: result.value };
    reasons.push(`firstMatch[${i}]: ${result.reason}`);
  }
  throw error('session not created', `No matching capabilities found: ${reasons.join('; ')}`);
}

/** Does the requested version equal the served one, component by component, as a prefix? */
function versionMatches(requested: string, served: string): boolean {
  const want = requested.split('.');
  const have = served.split('.');
  if (want.length > have.length) return false;
  return want.every((part, i) => part === have[i]);
}

/**
 * The endpoint-independent part of spec "matching capabilities": null if `merged` can be
 * served by `endpoint` as far as the standard capabilities go, else the reason it cannot.
 */
export function matchStandardCapabilities(merged: Record<string, unknown>, endpoint: EndpointCapabilities): string | null {
  const { browserName, browserVersion, platformName, acceptInsecureCerts, setWindowRect } = merged;
  if (browserName !== undefined && !(typeof browserName === 'string' && endpoint.browserNames.includes(browserName))) {
    return `browserName ${JSON.stringify(browserName)} is not served (${endpoint.browserNames.join(', ')})`;
  }
  if (
    browserVersion !== undefined &&
    !(typeof browserVersion === 'string' && versionMatches(browserVersion, endpoint.browserVersion))
  ) {
    return `browserVersion ${JSON.stringify(browserVersion)} does not match the served version ${endpoint.browserVersion}`;
  }
  if (
    platformName !== undefined &&
    !(typeof platformName === 'string' && platformName.toLowerCase() === endpoint.platformName.toLowerCase())
  ) {
    return `platformName ${JSON.stringify(platformName)} is not served (${endpoint.platformName})`;
  }
  if (acceptInsecureCerts === true && !endpoint.acceptInsecureCerts) {
    return 'acceptInsecureCerts true is not supported';
  }
  if (setWindowRect === true && !endpoint.setWindowRect) {
    return 'setWindowRect true is not supported';
  }
  return null;
}

/** The session's timeouts: the (validated) `timeouts` capability overlaid on the defaults. */
export function resolveTimeouts(merged: Record<string, unknown>): TimeoutsConfiguration {
  const resolved: TimeoutsConfiguration = { ...defaultTimeouts };
  const requested = merged.timeouts;
  if (!isJsonObject(requested)) return resolved;
  if (requested.script === null || isSafeNonNegativeInteger(requested.script)) resolved.script = requested.script;
  if (isSafeNonNegativeInteger(requested.pageLoad)) resolved.pageLoad = requested.pageLoad;
  if (isSafeNonNegativeInteger(requested.implicit)) resolved.implicit = requested.implicit;
  return resolved;
}
