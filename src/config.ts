// One schema for every setting: defaults (config/default.json) ← config file (--config) ←
// command line. Invalid values are startup errors with a clear message (exit code 2).
import { readFileSync } from 'node:fs';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { DEBUG_PROCESS_SWITCHES } from '../backends/index.ts';
import type { PoolConfig } from './pool/pool.ts';
import { machineMaxSessions, type Machine } from './pool/capacity.ts';
import type { ConfiguredRoute } from './webdriver/routing.ts';
import { LOG_LEVELS, type LogLevel } from './base/log.ts';
import { TRACE_MODES } from './webdriver/session-options.ts';
import type { HistoryConfig, TraceConfig } from './trace/index.ts';
import defaults from '../config/default.json' with { type: 'json' };

export interface Config {
  port: number;
  listenAddress: string;
  /** A port of its own that serves GET /metrics to any peer without a token, and nothing else (null: none; src/server/metrics-listener.ts). */
  metricsPort: number | null;
  headless: boolean;
  certificate: string | null;
  certificateKey: string | null;
  forceCpuPainting: boolean;
  exposeExperimentalInterfaces: boolean;
  debugProcess: string | null;
  defaultTimeZone: string | null;
  maxSessions: number;
  /** New Session requests one principal may have waiting for a free slot at once. */
  maxQueuedSessions: number;
  /** How long a New Session request waits for a free slot (ms). */
  sessionQueueTimeout: number;
  /** A session no command used for this long is ended (ms). */
  sessionIdleTimeout: number;
  /** On SIGTERM, how long running sessions may go on before they are ended (ms). */
  shutdownGracePeriod: number;
  /**
   * Once the gateway turns unready (drain, SIGTERM), how long it still creates sessions (ms): the
   * time routers that poll GET /ready need to stop sending (a Selenium Grid's health check).
   */
  drainNoticePeriod: number;
  /** GET /ready also answers 503 while every session slot is taken. */
  readyRequiresFreeSlot: boolean;
  pool: PoolConfig;
  /** Session recordings (wdgate:options recordVideo): where, kept how long, within what disk budget. */
  recordings: { directory: string | null; retention: number; maxBytes: number; fps: number };
  /** Session traces (src/trace/): the default of wdgate:options.trace, what is redacted, size limits. */
  trace: TraceConfig;
  /** The history of ended sessions: where (null: the user's cache directory), kept how long, within what disk budget. */
  history: HistoryConfig;
  logLevel: LogLevel;
  maxBodyBytes: number;
  /** Bytes a BiDi socket may have waiting for a slow client before it is closed. */
  maxBidiBufferedBytes: number;
  /** Request paths longer than this are refused (bytes). */
  maxUrlLength: number;
  /** JSON bodies nested deeper than this are refused. */
  maxJsonDepth: number;
  /** Request headers larger than this (names and values) are refused (bytes). */
  maxHeaderBytes: number;
  /** New Session requests one principal may make per second (bursts of as many). */
  newSessionsPerSecond: number;
  /** Token file (src/server/auth.ts): tokens never come from the command line. */
  authTokenFile: string | null;
  /** Tokens in the config file itself: a token, or {name, token, maxSessions, admin, share, files}. */
  authTokens: (string | { name: string; token: string; maxSessions?: number; admin?: boolean; share?: number; files?: boolean; relay?: boolean })[];
  /** Loopback clients need a token too (when tokens are configured). */
  requireAuthOnLoopback: boolean;
  /** The tokenless loopback principal (no tokens configured) may reach the machine's files: file: URLs, file inputs anywhere. */
  localFiles: boolean;
  /** How long a Grid client's `wdgate:principal` proof is taken after it was issued (ms; src/server/relay.ts). */
  principalProofMaxAge: number;
  /** Host names accepted in the Host header besides IP addresses and localhost. */
  allowHosts: string[];
  /** Origins whose web pages may call the gateway. */
  allowOrigins: string[];
  /** Directories file inputs may take files from (Element Send Keys); empty: anywhere. */
  fileInputDirectories: string[];
  /**
   * Browser extensions a session may install (geckodriver's moz/addon/install): none unless
   * allowed; one given by its path only from these directories (an add-on is code the browser runs).
   */
  extensions: { allowInstall: boolean; directories: string[] };
  tempDir: string;
  /** Who browsers run as and whether they keep their sandbox (backends/policy/browser-user.ts). */
  browsers: { user: string | null; sandbox: boolean };
  /**
   * Chromium's binaries, and what sessions may pass besides the policy's tables
   * (backends/policy/): Chromium switches, Firefox arguments, Firefox pref names or families.
   */
  native: { binary: string; allowedBinaries: string[]; allowedArgs: string[]; allowedFirefoxArgs: string[]; allowedFirefoxPrefs: string[]; allowedFirefoxEnv: string[] };
  /** The config file the settings came from (not a setting: the command line's --config), for the start's checks. */
  configFile?: string | null;
  /** Capabilities → backend (src/webdriver/routing.ts), before the default routes. */
  routes: ConfiguredRoute[];
  remote: RemoteConfig;
  /** The Playwright backend's Firefox (its Chromium is native's). */
  playwright: { firefoxBinary: string; allowedFirefoxBinaries: string[] };
}

export interface RemoteConfig {
  /** Named upstream W3C servers (another wdgate, a Selenium Grid, a driver): name → URL. */
  upstreams: Record<string, string>;
  chromedriver: string;
  webkitDriver: string;
  webkitBrowser: string;
  /** New Session upstream, a managed driver's start included (ms). */
  newSessionTimeout: number;
  /** A forwarded command with no answer for this long is a timeout error (ms). */
  commandTimeout: number;
  /** A managed chromedriver with no session ends after this long (ms). */
  idleTimeout: number;
}

export class ConfigError extends Error {}

type Check = (value: unknown, name: string) => unknown;

const bool: Check = (v, name) => {
  if (typeof v !== 'boolean') throw new ConfigError(`${name} must be true or false`);
  return v;
};
const int = (min: number, max: number): Check => (v, name) => {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (!Number.isInteger(n) || (n as number) < min || (n as number) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(v)})`);
  }
  return n;
};
const str: Check = (v, name) => {
  if (typeof v !== 'string' || v === '') throw new ConfigError(`${name} must be a non-empty string`);
  return v;
};
const nullable = (inner: Check): Check => (v, name) => (v === null ? null : inner(v, name));
/** A list, or a comma-separated string (the command line). */
const names = (pattern: RegExp, what: string): Check => (v, name) => {
  const list = typeof v === 'string' ? v.split(',').map((x) => x.trim()).filter(Boolean) : v;
  if (!Array.isArray(list) || !list.every((x) => typeof x === 'string' && pattern.test(x))) {
    throw new ConfigError(`${name} must be a list of ${what} (got ${JSON.stringify(v)})`);
  }
  return list.map((x: string) => x.toLowerCase());
};
function authTokens(v: unknown, name: string): Config['authTokens'] {
  const ok =
    Array.isArray(v) &&
    v.every(
      (t) =>
        typeof t === 'string' ||
        (typeof t === 'object' &&
          t !== null &&
          typeof t.name === 'string' &&
          typeof t.token === 'string' &&
          (t.admin === undefined || typeof t.admin === 'boolean') &&
          (t.files === undefined || typeof t.files === 'boolean') &&
          (t.relay === undefined || typeof t.relay === 'boolean') &&
          (t.share === undefined || typeof t.share === 'number')),
    );
  if (!ok) throw new ConfigError(`${name} must be a list of tokens or {"name", "token", "maxSessions", "admin", "share", "files", "relay"} objects`);
  return v as Config['authTokens'];
}

function timeZone(v: unknown, name: string): string {
  const zone = str(v, name) as string;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new ConfigError(`${name} ${JSON.stringify(zone)} is not an IANA time zone name (such as Europe/Berlin)`);
  }
  return zone;
}

function debugProcess(v: unknown, name: string): string {
  const s = str(v, name) as string;
  if (!Object.hasOwn(DEBUG_PROCESS_SWITCHES, s)) {
    throw new ConfigError(`${name} must be one of ${Object.keys(DEBUG_PROCESS_SWITCHES).join(', ')} (got ${JSON.stringify(s)})`);
  }
  return s;
}

function native(v: unknown, name: string): Config['native'] {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(`${name} must be an object`);
  const o = v as Record<string, unknown>;
  const binary = str(o.binary, `${name}.binary`) as string;
  const allowed = o.allowedBinaries ?? [binary];
  if (!Array.isArray(allowed) || !allowed.every((b) => typeof b === 'string')) {
    throw new ConfigError(`${name}.allowedBinaries must be an array of paths`);
  }
  const allowedArgs = o.allowedArgs ?? [];
  if (!Array.isArray(allowedArgs) || !allowedArgs.every((a) => typeof a === 'string' && /^--[a-z0-9-]+$/.test(a))) {
    throw new ConfigError(`${name}.allowedArgs must be an array of switch names such as "--proxy-server"`);
  }
  const allowedFirefoxArgs = o.allowedFirefoxArgs ?? [];
  if (!Array.isArray(allowedFirefoxArgs) || !allowedFirefoxArgs.every((a) => typeof a === 'string' && /^--?[A-Za-z0-9-]+$/.test(a))) {
    throw new ConfigError(`${name}.allowedFirefoxArgs must be an array of argument names such as "-safe-mode"`);
  }
  const allowedFirefoxPrefs = o.allowedFirefoxPrefs ?? [];
  if (!Array.isArray(allowedFirefoxPrefs) || !allowedFirefoxPrefs.every((a) => typeof a === 'string' && /^[\w.-]+$/.test(a))) {
    throw new ConfigError(`${name}.allowedFirefoxPrefs must be an array of pref names, or families ending in "." (such as "network.proxy.")`);
  }
  const allowedFirefoxEnv = o.allowedFirefoxEnv ?? [];
  if (!Array.isArray(allowedFirefoxEnv) || !allowedFirefoxEnv.every((a) => typeof a === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(a))) {
    throw new ConfigError(`${name}.allowedFirefoxEnv must be an array of environment variable names such as "MOZ_LOG"`);
  }
  for (const key of Object.keys(o)) {
    if (!['binary', 'allowedBinaries', 'allowedArgs', 'allowedFirefoxArgs', 'allowedFirefoxPrefs', 'allowedFirefoxEnv'].includes(key)) throw new ConfigError(`unknown setting ${name}.${key}`);
  }
  return { binary, allowedBinaries: allowed, allowedArgs, allowedFirefoxArgs, allowedFirefoxPrefs, allowedFirefoxEnv };
}

function browsers(v: unknown, name: string): Config['browsers'] {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(`${name} must be an object`);
  const o = { ...defaults.browsers, ...(v as Record<string, unknown>) };
  for (const key of Object.keys(o)) if (!Object.hasOwn(defaults.browsers, key)) throw new ConfigError(`unknown setting ${name}.${key}`);
  const user = o.user as unknown;
  if (user !== null && (typeof user !== 'string' || !/^[a-z_][a-z0-9_-]{0,31}$|^\d+$/.test(user))) throw new ConfigError(`${name}.user must be a user name (or null: the gateway's own user)`);
  return { user: user as string | null, sandbox: bool(o.sandbox, `${name}.sandbox`) as boolean };
}

/** Absolute directory paths: a list, or a comma-separated string. */
const directories: Check = (v, name) => {
  const list = typeof v === 'string' ? v.split(',').map((x) => x.trim()).filter(Boolean) : v;
  if (!Array.isArray(list) || !list.every((x) => typeof x === 'string' && x.startsWith('/'))) {
    throw new ConfigError(`${name} must be a list of absolute directory paths (got ${JSON.stringify(v)})`);
  }
  return list;
};

function extensions(v: unknown, name: string): Config['extensions'] {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(`${name} must be an object`);
  const o = { ...defaults.extensions, ...(v as Record<string, unknown>) };
  for (const key of Object.keys(o)) if (!Object.hasOwn(defaults.extensions, key)) throw new ConfigError(`unknown setting ${name}.${key}`);
  return { allowInstall: bool(o.allowInstall, `${name}.allowInstall`) as boolean, directories: directories(o.directories, `${name}.directories`) as string[] };
}

function pool(v: unknown, name: string): PoolConfig {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(`${name} must be an object`);
  const o = { ...defaults.pool, ...(v as Record<string, unknown>) };
  for (const key of Object.keys(o)) if (!Object.hasOwn(defaults.pool, key)) throw new ConfigError(`unknown setting ${name}.${key}`);
  return {
    minWarm: int(0, 100)(o.minWarm, `${name}.minWarm`) as number,
    // null: as many as the key's sessions need at most, and one more (resolveConfig).
    maxBrowsers: nullable(int(1, 1000))(o.maxBrowsers, `${name}.maxBrowsers`) as number,
    sessionsPerBrowser: int(1, 1000)(o.sessionsPerBrowser, `${name}.sessionsPerBrowser`) as number,
    idleTimeout: int(100, 2 ** 31 - 1)(o.idleTimeout, `${name}.idleTimeout`) as number,
  };
}

function recordings(v: unknown, name: string): Config['recordings'] {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(`${name} must be an object`);
  const o = { ...defaults.recordings, ...(v as Record<string, unknown>) };
  for (const key of Object.keys(o)) if (!Object.hasOwn(defaults.recordings, key)) throw new ConfigError(`unknown setting ${name}.${key}`);
  return {
    directory: nullable(str)(o.directory, `${name}.directory`) as string | null,
    retention: int(0, 2 ** 31 - 1)(o.retention, `${name}.retention`) as number,
    maxBytes: int(0, Number.MAX_SAFE_INTEGER)(o.maxBytes, `${name}.maxBytes`) as number,
    fps: int(1, 30)(o.fps, `${name}.fps`) as number,
  };
}

function trace(v: unknown, name: string): TraceConfig {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(`${name} must be an object`);
  const o = { ...defaults.trace, ...(v as Record<string, unknown>) };
  for (const key of Object.keys(o)) if (!Object.hasOwn(defaults.trace, key)) throw new ConfigError(`unknown setting ${name}.${key}`);
  if (!(TRACE_MODES as readonly unknown[]).includes(o.mode)) throw new ConfigError(`${name}.mode must be one of ${TRACE_MODES.join(', ')} (got ${JSON.stringify(o.mode)})`);
  const PICTURES: readonly TraceConfig['pictures'][] = ['when-room', 'every-step'];
  if (!(PICTURES as readonly unknown[]).includes(o.pictures)) throw new ConfigError(`${name}.pictures must be one of ${PICTURES.join(', ')} (got ${JSON.stringify(o.pictures)})`);
  const patterns = o.secretPatterns as unknown;
  if (!Array.isArray(patterns) || !patterns.every((p) => typeof p === 'string' && p !== '')) throw new ConfigError(`${name}.secretPatterns must be a list of regular expressions`);
  for (const pattern of patterns as string[]) {
    try {
      new RegExp(pattern, 'g');
    } catch (e) {
      throw new ConfigError(`${name}.secretPatterns: ${JSON.stringify(pattern)} is not a regular expression (${(e as Error).message})`);
    }
  }
  const names = o.secretNames as unknown;
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string' && /[A-Za-z0-9]/.test(n))) throw new ConfigError(`${name}.secretNames must be a list of names (words such as "token", or phrases such as "api-key")`);
  return {
    mode: o.mode as TraceConfig['mode'],
    secretPatterns: patterns as string[],
    secretNames: names as string[],
    maxBytes: int(0, Number.MAX_SAFE_INTEGER)(o.maxBytes, `${name}.maxBytes`) as number,
    maxSnapshotBytes: int(1024, 2 ** 30)(o.maxSnapshotBytes, `${name}.maxSnapshotBytes`) as number,
    pictures: o.pictures as TraceConfig['pictures'],
  };
}

function history(v: unknown, name: string): HistoryConfig {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(`${name} must be an object`);
  const o = { ...defaults.history, ...(v as Record<string, unknown>) };
  for (const key of Object.keys(o)) if (!Object.hasOwn(defaults.history, key)) throw new ConfigError(`unknown setting ${name}.${key}`);
  return {
    directory: nullable(str)(o.directory, `${name}.directory`) as string | null,
    retention: int(0, Number.MAX_SAFE_INTEGER)(o.retention, `${name}.retention`) as number,
    maxBytes: int(0, Number.MAX_SAFE_INTEGER)(o.maxBytes, `${name}.maxBytes`) as number,
    verdictWindow: int(2, 1000)(o.verdictWindow, `${name}.verdictWindow`) as number,
    shared: bool(o.shared, `${name}.shared`) as boolean,
  };
}

function routes(v: unknown, name: string): ConfiguredRoute[] {
  if (!Array.isArray(v)) throw new ConfigError(`${name} must be an array of {match, backend, upstream}`);
  return v.map((r, i) => {
    const at = `${name}[${i}]`;
    if (typeof r !== 'object' || r === null || Array.isArray(r)) throw new ConfigError(`${at} must be an object {match, backend, upstream}`);
    const { match, backend, upstream, ...rest } = r as Record<string, unknown>;
    if (Object.keys(rest).length) throw new ConfigError(`unknown setting ${at}.${Object.keys(rest)[0]}`);
    if (typeof match !== 'object' || match === null || Array.isArray(match)) throw new ConfigError(`${at}.match must be an object of capabilities`);
    if (typeof backend !== 'string') throw new ConfigError(`${at}.backend must name a backend (native, playwright, remote)`);
    if (upstream !== undefined && (typeof upstream !== 'string' || backend !== 'remote')) throw new ConfigError(`${at}.upstream must be a string, on a remote route`);
    return { match: match as Record<string, unknown>, backend, ...(upstream === undefined ? {} : { upstream: upstream as string }) };
  });
}

function remote(v: unknown, name: string): RemoteConfig {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(`${name} must be an object`);
  const o = { ...defaults.remote, ...(v as Record<string, unknown>) };
  for (const key of Object.keys(o)) if (!Object.hasOwn(defaults.remote, key)) throw new ConfigError(`unknown setting ${name}.${key}`);
  const upstreams = o.upstreams as unknown;
  if (typeof upstreams !== 'object' || upstreams === null || Array.isArray(upstreams)) throw new ConfigError(`${name}.upstreams must map names to URLs`);
  for (const [key, url] of Object.entries(upstreams)) {
    let ok = false;
    try {
      ok = typeof url === 'string' && ['http:', 'https:'].includes(new URL(url).protocol);
    } catch {
      /* not a URL */
    }
    if (!ok) throw new ConfigError(`${name}.upstreams.${key} must be an http(s) URL (got ${JSON.stringify(url)})`);
  }
  return {
    upstreams: upstreams as Record<string, string>,
    chromedriver: str(o.chromedriver, `${name}.chromedriver`) as string,
    webkitDriver: str(o.webkitDriver, `${name}.webkitDriver`) as string,
    webkitBrowser: str(o.webkitBrowser, `${name}.webkitBrowser`) as string,
    newSessionTimeout: int(100, 2 ** 31 - 1)(o.newSessionTimeout, `${name}.newSessionTimeout`) as number,
    commandTimeout: int(100, 2 ** 31 - 1)(o.commandTimeout, `${name}.commandTimeout`) as number,
    idleTimeout: int(0, 2 ** 31 - 1)(o.idleTimeout, `${name}.idleTimeout`) as number,
  };
}

function playwright(v: unknown, name: string): Config['playwright'] {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(`${name} must be an object`);
  const o = { ...defaults.playwright, ...(v as Record<string, unknown>) };
  for (const key of Object.keys(o)) if (!Object.hasOwn(defaults.playwright, key)) throw new ConfigError(`unknown setting ${name}.${key}`);
  const allowed = o.allowedFirefoxBinaries as unknown;
  if (!Array.isArray(allowed) || !allowed.every((b) => typeof b === 'string')) throw new ConfigError(`${name}.allowedFirefoxBinaries must be an array of paths`);
  return { firefoxBinary: str(o.firefoxBinary, `${name}.firefoxBinary`) as string, allowedFirefoxBinaries: allowed };
}

const SCHEMA: Record<Exclude<keyof Config, 'configFile'>, Check> = {
  port: int(0, 65535),
  listenAddress: str,
  metricsPort: nullable(int(0, 65535)),
  headless: bool,
  certificate: nullable(str),
  certificateKey: nullable(str),
  forceCpuPainting: bool,
  exposeExperimentalInterfaces: bool,
  debugProcess: nullable(debugProcess),
  defaultTimeZone: nullable(timeZone),
  maxSessions: nullable(int(1, 1000)),
  maxQueuedSessions: int(0, 100_000),
  sessionQueueTimeout: int(0, 2 ** 31 - 1),
  sessionIdleTimeout: int(100, 2 ** 31 - 1),
  shutdownGracePeriod: int(0, 2 ** 31 - 1),
  drainNoticePeriod: int(0, 2 ** 31 - 1),
  readyRequiresFreeSlot: bool,
  pool,
  recordings,
  trace,
  history,
  logLevel: (v, name) => {
    if (!(LOG_LEVELS as readonly unknown[]).includes(v)) throw new ConfigError(`${name} must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(v)})`);
    return v;
  },
  maxBodyBytes: int(1024, 2 ** 31),
  maxBidiBufferedBytes: int(1024, 2 ** 31),
  maxUrlLength: int(256, 1_000_000),
  maxJsonDepth: int(8, 10_000),
  maxHeaderBytes: int(1024, 1_000_000),
  newSessionsPerSecond: int(1, 100_000),
  authTokenFile: nullable(str),
  authTokens,
  requireAuthOnLoopback: bool,
  localFiles: bool,
  principalProofMaxAge: int(1000, 86_400_000),
  allowHosts: names(/^[a-z0-9.-]+$/i, 'host names'),
  allowOrigins: names(/^(https?:\/\/[^/\s]+|null)$/i, 'origins such as https://ci.example:8443'),
  fileInputDirectories: directories,
  extensions,
  tempDir: nullable(str),
  browsers,
  native,
  routes,
  remote,
  playwright,
};

/** This machine: its cores, and its memory (a container's cgroup limit where lower). */
function thisMachine(): Machine {
  const limit = process.constrainedMemory?.() ?? 0;
  return { memoryBytes: limit > 0 ? Math.min(limit, totalmem()) : totalmem(), cores: availableParallelism() };
}

/** Merge and check layers of settings, later layers winning. */
export function resolveConfig(...layers: Record<string, unknown>[]): Config {
  const merged: Record<string, unknown> = { ...defaults };
  for (const layer of layers) {
    for (const [key, value] of Object.entries(layer)) {
      if (!Object.hasOwn(SCHEMA, key)) throw new ConfigError(`unknown setting ${JSON.stringify(key)}`);
      if (value !== undefined) merged[key] = value;
    }
  }
  const config: Record<string, unknown> = {};
  for (const [key, check] of Object.entries(SCHEMA)) config[key] = check(merged[key], key);
  config.tempDir ??= tmpdir();
  // null: what the machine holds (./pool/capacity.ts), and browsers enough for it, and one more:
  // room for the contexts prepared ahead while every slot is taken (without it, a New Session
  // under churn waits for a context to be prepared after the last one is given back).
  config.maxSessions ??= machineMaxSessions(thisMachine());
  const pooled = config.pool as PoolConfig;
  pooled.maxBrowsers ??= Math.ceil((config.maxSessions as number) / pooled.sessionsPerBrowser) + 1;
  return config as unknown as Config;
}

export function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ConfigError(`cannot read config file ${path}: ${(e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`config file ${path} is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`config file ${path} must hold a JSON object`);
  }
  return parsed as Record<string, unknown>;
}
