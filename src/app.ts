// Start and stop a whole gateway: backends, the W3C layer, the HTTP edge, and cleanup on exit.
import { readFileSync, realpathSync, statSync } from 'node:fs';
import type { AnyBackend, BackendEnvironment } from '../backends/backend.ts';
import { createBackends, removeDeadGatewayDirs } from '../backends/index.ts';
import { LAUNCHER_DIR_PREFIX, parentDeathAvailable, prepareLaunchers, removeLaunchers } from '../backends/parent-death.ts';
import { browserIdentity, BrowserUserError, keepFromSessions, letBrowsersThrough, readableByBrowsers, setUpBrowserUser } from '../backends/policy/index.ts';
import { createLogger, type Logger } from './base/log.ts';
import { Pool } from './pool/pool.ts';
import { SESSION_DIR_PREFIX } from './webdriver/session.ts';
import { selectRoute, type ConfiguredRoute } from './webdriver/routing.ts';
import { ConfigError, type Config } from './config.ts';
import { collectTokens, LOCAL, TokenFileError, type Tokens } from './server/auth.ts';
import { checkTlsFiles, TlsSettingsError } from './server/tls.ts';
import type { AccessPolicy } from './server/security.ts';
import { UiLogins } from './server/ui-logins.ts';
import { startServer } from './server/http.ts';
import { startMetricsListener } from './server/metrics-listener.ts';
import { loadEdge } from './server/uws.ts';
import { Gateway } from './webdriver/gateway.ts';
import { webdriverCommands } from './webdriver/commands/index.ts';
import type { Command } from './webdriver/commands/types.ts';
import type { Observer } from './webdriver/seam.ts';
import * as admin from './ops/admin.ts';
import { opsCommands } from './ops/commands.ts';
import { Dashboard } from './ops/dashboard.ts';
import { Metrics } from './ops/metrics.ts';
import { RECORDINGS_DIR_PREFIX, Recordings } from './ops/recordings.ts';
import { History } from './trace/index.ts';
import { historyCommands } from './trace/commands.ts';
import { join } from 'node:path';
import { chmod } from 'node:fs/promises';

export interface RunningGateway {
  port: number;
  url: string;
  gateway: Gateway;
  history: History;
  /** Stop listening and end every session (and its browser). */
  close(): Promise<void>;
  /**
   * Take from `config` what can change while sessions run (SIGHUP): the principals' tokens
   * (sessions of a principal that is gone end, the others go on), the Host and Origin allow-lists
   * and the log level. A token file that cannot be used throws ConfigError and changes nothing.
   */
  reload(config: Config): void;
}

/**
 * Every command the route table names, by name: the W3C commands (src/webdriver/commands/), the
 * operators' (src/ops/) and the history's (src/trace/). A route whose command is in none of them
 * answers `unsupported operation`.
 */
export function commandTable(rooms: { history: History; metrics: Metrics; recordings: Recordings }): Record<string, Command> {
  return { ...webdriverCommands, ...opsCommands(rooms), ...admin, ...historyCommands(rooms.history) };
}

/**
 * `observers`: more observers of the command seam (src/webdriver/seam.ts) than the gateway's own
 * (a program embedding wdgate, a test of the seam).
 */
export async function startGateway(config: Config, log: Logger = createLogger(config.logLevel), observers: Observer[] = []): Promise<RunningGateway> {
  // Settings that cannot work are found before anything starts (ConfigError: exit code 2).
  const tokens = loadTokens(config);
  const tls = config.certificate ? { certFile: config.certificate, keyFile: config.certificateKey ?? config.certificate } : undefined;
  if (tls) {
    try {
      checkTlsFiles(tls.certFile, tls.keyFile);
    } catch (e) {
      if (e instanceof TlsSettingsError) throw new ConfigError(e.message);
      throw e;
    }
  }
  // The edge's uWebSockets.js: its native build, or no start (EdgeRefusal: exit code 1, before
  // any browser starts).
  const edge = loadEdge({ maxUrlLength: config.maxUrlLength, maxHeaderBytes: config.maxHeaderBytes });
  const { remote } = config;
  const fileInputDirectories = realDirectories(config.fileInputDirectories, 'fileInputDirectories');
  const extensions = { allowInstall: config.extensions.allowInstall, directories: realDirectories(config.extensions.directories, 'extensions.directories') ?? [] };
  // Who the browsers run as (backends/policy/browser-user.ts), before their launchers are made;
  // and what of the gateway's they must not read.
  const browserNotes = await setUpBrowsers(config, tls?.keyFile);
  // Every browser binary the config lets a session start gets its launcher now (browsers die
  // with the gateway: backends/parent-death.ts); a dead gateway's launchers go.
  await removeDeadGatewayDirs(config.tempDir, LAUNCHER_DIR_PREFIX);
  await prepareLaunchers(config.tempDir, [
    config.native.binary,
    ...config.native.allowedBinaries,
    config.playwright.firefoxBinary,
    ...config.playwright.allowedFirefoxBinaries,
    remote.webkitBrowser,
  ]);
  const firefox = {
    binary: config.playwright.firefoxBinary,
    allowedBinaries: config.playwright.allowedFirefoxBinaries,
    allowedArgs: config.native.allowedFirefoxArgs,
    allowedPrefs: config.native.allowedFirefoxPrefs,
    allowedEnv: config.native.allowedFirefoxEnv,
  };
  // Extensions (Chrome's in capabilities, Firefox's add-on command) are the operator's to allow: extensions.allowInstall.
  const chromium = { ...config.native, allowExtensions: config.extensions.allowInstall };
  const backends = await createBackends({
    native: { ...chromium, firefox },
    remote: {
      upstreams: remote.upstreams,
      chromedriver: { driver: remote.chromedriver, ...config.native, idleTimeout: remote.idleTimeout },
      webkit: { driver: remote.webkitDriver, browser: remote.webkitBrowser },
      newSessionTimeout: remote.newSessionTimeout,
    },
    playwright: {
      chromium,
      firefox,
    },
  });
  // Leftovers of a gateway that died without cleaning up: its browsers, profiles, upload dirs.
  for (const backend of backends) await backend.sweep(config.tempDir);
  await removeDeadGatewayDirs(config.tempDir, SESSION_DIR_PREFIX);
  const environment: BackendEnvironment = {
    headless: config.headless,
    hasDisplay: Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY),
    forceCpuPainting: config.forceCpuPainting,
    exposeExperimentalInterfaces: config.exposeExperimentalInterfaces,
    debugProcess: config.debugProcess ?? undefined,
    defaultTimeZone: config.defaultTimeZone ?? undefined,
    tempDir: config.tempDir,
    log: (entry) => log.debug(entry),
  };
  const pool = new Pool(environment, config.pool, config.sessionQueueTimeout);
  warmDefault(pool, backends, environment, config.routes);
  liveBackends.push(...backends);
  // Recordings: in the configured directory, or in one of the gateway's own (gone with it, and
  // swept at the next start if the gateway died).
  await removeDeadGatewayDirs(config.tempDir, RECORDINGS_DIR_PREFIX);
  const recordings = new Recordings(
    { ...config.recordings, directory: config.recordings.directory ?? join(config.tempDir, `${RECORDINGS_DIR_PREFIX}${process.pid}`), own: config.recordings.directory === null },
    log,
  );
  await recordings.removeLeftovers();
  // The command seam's observers (src/webdriver/seam.ts) and the gateway they watch.
  let gateway: Gateway | undefined;
  const metrics = new Metrics({
    sessionsActive: () => gateway!.sessions.size,
    slotsBusy: () => gateway!.admission.active,
    sessionsQueued: () => gateway!.admission.queued,
    queuedByPrincipal: () => gateway!.admission.lines(),
    pool: () => pool.stats(),
    bidiConnections: () => gateway!.sessions.bidiConnections(),
  });
  const history = new History(config.trace, config.history, {
    log,
    takeRecording: (id) => recordings.take(id),
    counted: {
      traceWritten: () => metrics.tracesWritten.inc(),
      traceDropped: (reason) => metrics.tracesDropped.inc({ reason }),
      captureDropped: (reason) => metrics.traceCapturesDropped.inc({ reason }),
    },
  });
  gateway = new Gateway({
    commands: commandTable({ history, metrics, recordings }),
    secretPatterns: config.trace.secretPatterns,
    secretNames: config.trace.secretNames,
    backends,
    environment,
    pool,
    routes: config.routes,
    fileInputDirectories,
    extensions,
    admission: { maxSessions: config.maxSessions, maxQueued: config.maxQueuedSessions, queueTimeout: config.sessionQueueTimeout, drainNotice: config.drainNoticePeriod },
    readyRequiresFreeSlot: config.readyRequiresFreeSlot,
    sessionIdleTimeout: config.sessionIdleTimeout,
    newSessionsPerSecond: config.newSessionsPerSecond,
    log,
  });
  const dashboard = new Dashboard(gateway, (session) => history.mode(session));
  // Recordings before the history: a session's recording is finished when its entry is written.
  for (const observer of [metrics, recordings, history, dashboard, ...observers]) gateway.seam.add(observer);
  // The history kept by earlier runs: listed again (a directory that cannot be used stops the start).
  try {
    await history.load();
  } catch (e) {
    throw new ConfigError(`history.directory ${history.store.config.directory} cannot be used: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  // Every principal's traces and videos: the gateway's own, never the browsers'.
  for (const dir of [history.store.config.directory, recordings.directory]) browserNotes.push(...(await keepFromBrowsers(dir)));
  await keepFromSessions([history.store.config.directory, recordings.directory]);
  for (const note of browserNotes) (/WITHOUT/.test(note) ? log.warn.bind(log) : log.info.bind(log))({ event: 'browsers' }, note);
  const logins = new UiLogins();
  const access: AccessPolicy = {
    tokens,
    requireAuthOnLoopback: config.requireAuthOnLoopback,
    localFiles: config.localFiles,
    allowHosts: config.allowHosts,
    allowOrigins: config.allowOrigins,
    scheme: tls ? 'https' : 'http',
    logins,
  };
  const server = await startServer(gateway, {
    uWS: edge.uWS,
    host: config.listenAddress,
    port: config.port,
    tls,
    maxBodyBytes: config.maxBodyBytes,
    maxBidiBufferedBytes: config.maxBidiBufferedBytes,
    maxUrlLength: config.maxUrlLength,
    maxJsonDepth: config.maxJsonDepth,
    maxHeaderBytes: config.maxHeaderBytes,
    forwardTimeout: remote.commandTimeout,
    access,
    logins,
    dashboard,
    bidiCounters: { message: (direction) => metrics.bidiMessage(direction), error: (code) => metrics.bidiError(code) },
    principalProofMaxAge: config.principalProofMaxAge,
  });
  const scheme = tls ? 'https' : 'http';
  const origin = (port: number) => `${scheme}://${config.listenAddress.includes(':') ? `[${config.listenAddress}]` : config.listenAddress}:${port}`;
  const url = origin(server.port);
  // Prometheus' own port (metricsPort): GET /metrics without a token, nothing else.
  const metricsServer = config.metricsPort === null ? undefined : await startMetricsListener(metrics, { uWS: edge.uWS, host: config.listenAddress, port: config.metricsPort, tls, access, log });
  const metricsUrl = metricsServer && `${origin(metricsServer.port)}/metrics`;
  // The start line tells where the gateway listens (--port 0): written whatever the log level.
  log.child({}, { level: 'info' }).info(
    { event: 'listening', url, metrics: metricsUrl, backends: backends.map((b) => b.name), uWebSockets: 'native', uWebSocketsBuild: edge.build, headless: config.headless },
    `wdgate listening on ${url} backends=${backends.map((b) => b.name).join(',')} uWebSockets.js=native` +
      (config.headless ? ' headless' : '') +
      (metricsUrl ? ` metrics=${metricsUrl}` : ''),
  );
  let closing: Promise<void> | undefined;
  return {
    port: server.port,
    url,
    gateway,
    history,
    close() {
      closing ??= (async () => {
        server.close();
        metricsServer?.close();
        await gateway.close();
        // Once every session has ended: its recording is finished, its entry written.
        await recordings.close();
        await history.close();
        removeLaunchers();
      })();
      return closing;
    },
    reload(next: Config) {
      access.tokens = loadTokens(next);
      access.requireAuthOnLoopback = next.requireAuthOnLoopback;
      access.localFiles = next.localFiles;
      access.allowHosts = next.allowHosts;
      access.allowOrigins = next.allowOrigins;
      log.level = next.logLevel;
      const names = new Set(access.tokens.principals().map((p) => p.name));
      // The local user stays a principal while loopback clients need no token.
      if (!access.tokens.configured || !access.requireAuthOnLoopback) names.add(LOCAL.name);
      logins.retain(access.tokens.principals());
      const gone = gateway.sessions.all().filter((session) => !names.has(session.owner));
      for (const session of gone) void gateway.sessions.end(session, `the token of ${session.owner} was removed`);
      log.info({ event: 'reloaded', principals: names.size, sessionsEnded: gone.length });
    },
  };
}

/** Directories a session may read from (file inputs, add-ons), as real paths (a symbolic link cannot lead out of them). */
function realDirectories(dirs: string[], setting: string): string[] | null {
  if (dirs.length === 0) return null;
  return dirs.map((dir) => {
    try {
      if (!statSync(dir).isDirectory()) throw new Error('not a directory');
      return realpathSync(dir);
    } catch (e) {
      throw new ConfigError(`${setting}: ${dir} is not a readable directory (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  });
}

/** The principals' tokens: the token file, WDGATE_TOKEN and the config's authTokens. */
function loadTokens(config: Config): Tokens {
  let fileText: string | undefined;
  if (config.authTokenFile) {
    try {
      fileText = readFileSync(config.authTokenFile, 'utf8');
    } catch (e) {
      throw new ConfigError(`the token file ${config.authTokenFile} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  }
  try {
    return collectTokens({ file: config.authTokenFile, fileText, env: process.env.WDGATE_TOKEN, list: config.authTokens });
  } catch (e) {
    if (e instanceof TokenFileError) throw new ConfigError(e.message);
    throw e;
  }
}

/**
 * Decide who the browsers run as, let them reach the temporary directory, and refuse to start
 * when a file of secrets (the token file, the TLS key, a config file holding tokens or upstream
 * credentials) is readable by them: a browser that a session got around the URL and file checks
 * with would read every principal's token. Returns lines for the log.
 */
async function setUpBrowsers(config: Config, tlsKey: string | undefined): Promise<string[]> {
  try {
    const notes = await setUpBrowserUser(config.browsers);
    const identity = browserIdentity();
    if (identity && !parentDeathAvailable) throw new BrowserUserError('browsers run as their own user through setpriv (util-linux), which is missing here');
    notes.push(...(await letBrowsersThrough(config.tempDir)));
    const configHasSecrets = config.authTokens.length > 0 || Object.values(config.remote.upstreams).some((url) => new URL(url).password !== '');
    const secrets = [config.authTokenFile, tlsKey, configHasSecrets ? config.configFile : null];
    // Whatever the browsers' user may read, a file input never gets these (nor the history and recordings: below).
    await keepFromSessions([config.authTokenFile, tlsKey, config.configFile]);
    for (const file of secrets) {
      if (file && identity && (await readableByBrowsers(file))) {
        throw new BrowserUserError(`${file} holds secrets and the browsers' user ${identity.name} can read it: make it readable by the gateway's user only (chmod 600 ${file})`);
      }
    }
    return notes;
  } catch (e) {
    if (e instanceof BrowserUserError) throw new ConfigError(e.message);
    throw e;
  }
}

/** A directory of the gateway's (history, recordings) made unreadable to the browsers' user when it is not. */
async function keepFromBrowsers(dir: string): Promise<string[]> {
  if (!(await readableByBrowsers(dir).catch(() => false))) return [];
  await chmod(dir, 0o700);
  return [`${dir}: made readable by the gateway's user only (the browsers' user could read it)`];
}

/** Backends of the gateways running in this process, for the last-resort kill on exit. */
const liveBackends: AnyBackend[] = [];

/**
 * The default key is warm from the start: capabilities that ask for nothing special, on the
 * backend New Session would route them to (a route of the config may name another than native).
 */
function warmDefault(pool: Pool, backends: AnyBackend[], environment: BackendEnvironment, routes: ConfiguredRoute[]): void {
  const route = selectRoute({}, routes);
  for (const backend of backends) {
    if (backend.kind !== 'driven' || (route && backend.name !== route.backend)) continue;
    const match = backend.match({}, environment, route);
    if (match.ok) return pool.warm(backend, match.value);
  }
}

/**
 * Signals. SIGTERM (a service manager): not ready at once (GET /ready answers 503), New Session
 * still served for `drainNoticePeriod` (routers polling /ready stop sending meanwhile), then
 * refused; running sessions may finish for `shutdownGracePeriod` (the notice included), then every
 * session and browser is ended. SIGINT, or a second signal: end everything now. SIGHUP: the tokens
 * are read again (`reread` gives the config as it is now). On any exit, whatever is left is killed.
 */
export function installShutdown(running: RunningGateway, config: Config, reread: () => Config): void {
  const { gateway } = running;
  let shuttingDown = false;
  const end = (signal: string) => {
    gateway.log.info({ event: 'shutdown', signal, sessions: gateway.sessions.size }, `wdgate: ${signal}, ending every session`);
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    void running.close().finally(() => process.exit(0));
  };
  const shutdown = (signal: 'SIGTERM' | 'SIGINT') => {
    const grace = signal === 'SIGTERM' && !shuttingDown ? config.shutdownGracePeriod : 0;
    shuttingDown = true;
    if (grace === 0) return end(signal);
    gateway.stopTakingSessions();
    const { admission } = gateway;
    // Done once the notice is over and no session runs, is being created or waits for a slot.
    const done = () => gateway.newSessionsRefused() !== undefined && admission.active === 0 && admission.queued === 0 && gateway.sessions.size === 0;
    if (done()) return end(signal);
    gateway.log.info(
      { event: 'shutdown', signal, sessions: gateway.sessions.size, graceMs: grace, noticeMs: admission.config.drainNotice },
      `wdgate: ${signal}, not ready; no new sessions after ${admission.config.drainNotice} ms; running ones may finish for ${grace} ms`,
    );
    const deadline = Date.now() + grace;
    const wait = setInterval(() => {
      if (!done() && Date.now() < deadline) return;
      clearInterval(wait);
      end(signal);
    }, 100);
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGHUP', () => {
    try {
      running.reload(reread());
    } catch (e) {
      gateway.log.error({ event: 'reload failed', reason: (e as Error).message }, `wdgate: SIGHUP: ${(e as Error).message}; the tokens stay as they were`);
    }
  });
  process.on('exit', () => {
    for (const backend of liveBackends) backend.killAllNow();
    removeLaunchers();
  });
}
