// Spec §8 "Sessions" and §9 "Timeouts": New Session, Delete Session, Status, Get/Set Timeouts.
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  InvalidCapabilityError,
  UpstreamError,
  type AnyBackend,
  type Backend,
  type LaunchSpec,
  type PageLoadStrategy,
  type PassThroughBackend,
  type UpstreamSpec,
} from '../../../backends/backend.ts';
import { LOCAL, type Principal } from '../../base/principal.ts';
import type { Ticket } from '../admission.ts';
import { matchStandardCapabilities, processCapabilities, resolveTimeouts, type MatchResult, type TimeoutsConfiguration } from '../capabilities.ts';
import { error, isErrorCode, WebDriverError } from '../errors.ts';
import { PassThroughSession } from '../pass-through.ts';
import { selectRoute, type ConfiguredRoute } from '../routing.ts';
import { p, type Parser } from '../params.ts';
import type { Gateway } from '../gateway.ts';
import { Session, type PromptHandlerConfig } from '../session.ts';
import type { SessionFacts } from '../seam.ts';
import { globalCommand, sessionCommand } from './types.ts';
import { sessionOptions, type SessionOptions } from '../session-options.ts';
import { keepLogs, loggingPrefs, type LoggingPrefs } from '../logging.ts';
import { askedWebAuthnCapabilities, webAuthnCapabilities, webAuthnMismatch } from '../webauthn.ts';
import { PRINCIPAL_CAPABILITY, takePrincipalClaim } from '../relayed.ts';

const DEFAULT_PROMPT_BEHAVIOR = 'dismiss and notify';

export const newSession = globalCommand({
  async handler({ gateway, request }, params: unknown) {
    const started = Date.now();
    const asker = request.principal ?? LOCAL;
    let ticket: Ticket | undefined;
    let unclaim: (() => void) | undefined;
    try {
      const refused = gateway.newSessionsRefused();
      if (refused) throw error('session not created', refused);
      // Through a Grid relay, the client's own principal (its proof is taken out of the capabilities).
      const claim = takePrincipalClaim(params);
      if (claim !== undefined && !request.vouch) throw error('invalid argument', `${PRINCIPAL_CAPABILITY} cannot be checked here`);
      const principal = claim === undefined ? asker : request.vouch!(claim);
      const { capabilities, matched } = processCapabilities(params, (caps) => matchBackends(gateway.backends, gateway.routes, caps, gateway.environment));
      // Its name, build and tags, whether it is traced or recorded: checked before anything starts.
      const options = sessionOptions(capabilities);
      if (!gateway.newSessionRate.take(principal.name)) {
        throw error('session not created', `too many new sessions: ${principal.name} may ask for ${gateway.newSessionRate.rate} per second (newSessionsPerSecond)`);
      }
      unclaim = gateway.claimSession(principal);
      // A slot first (waiting in the queue while every slot is taken), then a prepared context.
      ticket = await gateway.admission.admit(principal, request.signal);
      const created =
        matched.backend.kind === 'driven'
          ? await createSession(gateway, capabilities, matched as { backend: Backend; spec: LaunchSpec }, ticket, principal, unclaim, options, request.webSocketBase)
          : await createPassThroughSession(gateway, matched as { backend: PassThroughBackend; spec: UpstreamSpec }, ticket, principal, unclaim, options, request.signal);
      if (principal !== asker) gateway.sessions.relayed(created.sessionId, asker.name);
      const caps = created.capabilities as Record<string, unknown>;
      gateway.log.info({
        event: 'session created',
        sessionId: created.sessionId,
        principal: principal.name,
        ...(principal !== asker && { relay: asker.name }),
        backend: matched.backend.name,
        browser: `${caps.browserName} ${caps.browserVersion}`,
        ms: Date.now() - started,
      });
      return created;
    } catch (e) {
      ticket?.release();
      unclaim?.();
      throw e;
    }
  },
});

async function createSession(
  gateway: Gateway,
  capabilities: Record<string, unknown>,
  matched: { backend: Backend; spec: LaunchSpec },
  ticket: Ticket,
  principal: Principal,
  unclaim: () => void,
  options: SessionOptions,
  webSocketBase = '',
) {
  const { backend } = matched;
  const downloadsEnabled = capabilities['se:downloadsEnabled'];
  if (downloadsEnabled !== undefined && typeof downloadsEnabled !== 'boolean') throw error('invalid argument', 'se:downloadsEnabled must be a boolean');
  const { recordVideo } = options;
  // wdgate:options.ownBrowser: a browser no other session shares, ended with the session.
  const ownBrowser = (capabilities['wdgate:options'] as Record<string, unknown> | undefined)?.ownBrowser;
  if (ownBrowser !== undefined && typeof ownBrowser !== 'boolean') throw error('invalid argument', 'wdgate:options.ownBrowser must be a boolean');
  // chromedriver's logs (goog:loggingPrefs) and the WebAuthn capabilities' types: checked before a browser is leased.
  const logging = loggingPrefs(capabilities);
  const webAuthn = askedWebAuthnCapabilities(capabilities);
  // BiDi (webSocketUrl): unless the backend scopes its BiDi end to the session, the engine's
  // BiDi end sees its whole browser, so the session gets a browser of its own (a pool key of its
  // own), as one that asked for it does. A backend without BiDi answers no URL, and clients stay
  // on classic WebDriver (WebdriverIO falls back when it gets none).
  const bidi = capabilities.webSocketUrl === true && backend.bidi === true;
  const ownKey = bidi && !matched.spec.bidiScoped ? { bidi: true } : ownBrowser === true ? { ownBrowser: true } : undefined;
  const spec = ownKey ? { ...matched.spec, key: JSON.stringify({ ...JSON.parse(matched.spec.key), ...ownKey }), ownBrowser: true } : matched.spec;
  let lease;
  try {
    lease = await gateway.pool.lease(backend, spec, principal.name);
  } catch (e) {
    throw error('session not created', e instanceof Error ? e.message : String(e));
  }
  const { browser } = lease;
  // Admitted before a drain or SIGTERM took effect, it is served; only an end of everything
  // since it was asked for (it waited for a launch) leaves it unmade.
  if (gateway.endingEverything) {
    await lease.release();
    throw error('session not created', 'wdgate is shutting down');
  }
  const session = new Session({
    id: randomUUID(),
    browser,
    capabilities,
    timeouts: resolveTimeouts(capabilities),
    pageLoadStrategy: (capabilities.pageLoadStrategy as PageLoadStrategy | undefined) ?? 'normal',
    strictFileInteractability: capabilities.strictFileInteractability === true,
    unhandledPromptBehavior: (capabilities.unhandledPromptBehavior as PromptHandlerConfig | undefined) ?? DEFAULT_PROMPT_BEHAVIOR,
    options,
    log: gateway.log.child({ principal: principal.name }),
    owner: principal.name,
    reach: { files: principal.files === true, directories: gateway.fileInputDirectories, tempDir: gateway.environment.tempDir },
    release: async () => {
      // The slot is free at once; the context is disposed of meanwhile.
      ticket.release();
      unclaim();
      await lease.release();
    },
  });
  session.ownBrowser = lease.ownBrowser;
  gateway.sessions.add(session);
  // What the browser has is known once it is leased: asked and not had, the capabilities do not match.
  const mismatch = webAuthnMismatch(webAuthn, browser);
  if (mismatch) {
    await gateway.sessions.end(session, 'its capabilities did not match the browser');
    throw error('session not created', mismatch);
  }
  browser.onDisconnected(() => void gateway.sessions.end(session, 'its browser went away (it crashed or was killed)', 'crashed'));
  if (spec.emulation) await emulate(gateway, session, spec);
  if (downloadsEnabled) await keepDownloads(gateway, session);
  await startLogs(gateway, session, logging);
  const answered = {
    browserName: browser.browserName,
    browserVersion: browser.browserVersion,
    platformName: spec.endpoint.platformName,
    acceptInsecureCerts: spec.acceptInsecureCerts,
    pageLoadStrategy: session.pageLoadStrategy,
    proxy: capabilities.proxy ?? {},
    setWindowRect: spec.endpoint.setWindowRect,
    strictFileInteractability: session.strictFileInteractability,
    timeouts: session.timeouts,
    unhandledPromptBehavior: session.unhandledPromptBehavior,
    // The gateway's own address, as the client reached it (never one behind the gateway).
    ...(bidi && { webSocketUrl: `${webSocketBase}/session/${session.id}` }),
    // CDP (Selenium's createCDPConnection, Grid's CDP proxy): only with a browser of its own.
    // se:forwardCdp: where a Selenium Grid node relaying to the gateway connects its own CDP
    // proxy for the session (Grid otherwise looks for a debuggerAddress, which there is none of).
    ...(session.ownBrowser &&
      browser.openCdp && {
        'se:cdp': `${webSocketBase}/session/${session.id}/se/cdp`,
        'se:cdpVersion': browser.browserVersion,
        'se:forwardCdp': `${webSocketBase}/session/${session.id}/se/cdp`,
      }),
    ...(downloadsEnabled !== undefined && { 'se:downloadsEnabled': downloadsEnabled }),
    // The extension commands' capabilities, where the browser has them (as chromedriver answers them).
    ...webAuthnCapabilities(browser),
    ...(browser.fedCm && { 'fedcm:accounts': true }),
    ...spec.vendorCapabilities,
    ...((recordVideo || ownBrowser) && { 'wdgate:options': { ...(spec.vendorCapabilities['wdgate:options'] as object), ...(recordVideo && { recordVideo }), ...(ownBrowser && { ownBrowser }) } }),
  };
  // Its observers (a trace watches the browser, a recording starts) before the client has it.
  await opened(gateway, session, { id: session.id, principal: principal.name, backend: backend.name, browserName: browser.browserName, browserVersion: browser.browserVersion, capabilities, answered });
  if (bidi) await openBidi(gateway, session, spec);
  return { sessionId: session.id, capabilities: answered };
}

/** The seam's observers learn of the session; one that cannot serve it (a recording that cannot start) fails New Session. */
async function opened(gateway: Gateway, session: Session | PassThroughSession, facts: SessionFacts): Promise<void> {
  try {
    await gateway.seam.opened(session, facts);
  } catch (e) {
    await gateway.sessions.end(session, `it could not be opened: ${(e as Error).message}`);
    throw e instanceof WebDriverError ? e : error('session not created', (e as Error).message);
  }
}

/** The session's BiDi session in the engine, begun now so that its cost is New Session's. */
async function openBidi(gateway: Gateway, session: Session, spec: LaunchSpec): Promise<void> {
  try {
    session.attachBidi(await session.browser.openBidi!({ acceptInsecureCerts: spec.acceptInsecureCerts, ownBrowser: session.ownBrowser }));
  } catch (e) {
    await gateway.sessions.end(session, 'its BiDi session could not be started');
    throw error('session not created', `webSocketUrl: ${(e as Error).message}`);
  }
}

/** Mobile emulation (goog:chromeOptions.mobileEmulation) in every page of the session's browser, before the client has it. */
async function emulate(gateway: Gateway, session: Session, spec: LaunchSpec): Promise<void> {
  try {
    if (!session.browser.emulate) throw error('session not created', `goog:chromeOptions.mobileEmulation: the ${session.browser.browserName} browser of this backend cannot emulate a device`);
    await session.browser.emulate(spec.emulation!);
  } catch (e) {
    await gateway.sessions.end(session, 'its emulation could not be set up');
    throw e instanceof WebDriverError ? e : error('session not created', `goog:chromeOptions.mobileEmulation: ${(e as Error).message}`);
  }
}

/** Grid's managed downloads: the session's downloads go to a folder of its own (commands/downloads.ts). */
async function keepDownloads(gateway: Gateway, session: Session): Promise<void> {
  try {
    if (!session.browser.saveDownloadsTo) throw error('session not created', `se:downloadsEnabled: the ${session.browser.browserName} browser of this backend cannot keep downloads`);
    const directory = join(await session.files.makeOwnDirectory(), 'downloads');
    await mkdir(directory);
    await session.browser.saveDownloadsTo(directory);
    session.downloads = directory;
  } catch (e) {
    await gateway.sessions.end(session, 'its downloads could not be set up');
    throw e instanceof WebDriverError ? e : error('session not created', `se:downloadsEnabled: ${(e as Error).message}`);
  }
}

/** The session's logs (src/webdriver/logging.ts); what its browser cannot keep fails New Session. */
async function startLogs(gateway: Gateway, session: Session, prefs: LoggingPrefs): Promise<void> {
  try {
    await keepLogs(session, prefs);
  } catch (e) {
    await gateway.sessions.end(session, 'its logs could not be set up');
    throw e instanceof WebDriverError ? e : error('session not created', `goog:loggingPrefs: ${(e as Error).message}`);
  }
}

/**
 * A session on an upstream W3C server: created there, its commands forwarded by the edge. The
 * answer is the upstream's, with our session id, and without addresses behind the gateway.
 */
async function createPassThroughSession(
  gateway: Gateway,
  { backend, spec }: { backend: PassThroughBackend; spec: UpstreamSpec },
  ticket: Ticket,
  principal: Principal,
  unclaim: () => void,
  options: SessionOptions,
  signal: AbortSignal | undefined,
) {
  let upstream;
  try {
    upstream = await backend.createSession(spec, gateway.environment, signal);
  } catch (e) {
    // An upstream's refusal keeps its code (Grid answers 500 for what was invalid argument).
    if (e instanceof UpstreamError) throw error(isErrorCode(e.code) ? e.code : 'session not created', e.message);
    throw error('session not created', e instanceof Error ? e.message : String(e));
  }
  if (gateway.endingEverything) {
    await upstream.end(false);
    throw error('session not created', 'wdgate is shutting down');
  }
  const session = new PassThroughSession({
    id: randomUUID(),
    owner: principal.name,
    reach: { files: principal.files === true, directories: gateway.fileInputDirectories, tempDir: gateway.environment.tempDir },
    upstreamName: spec.upstream,
    upstream,
    options,
    release: () => {
      ticket.release();
      unclaim();
    },
  });
  gateway.sessions.add(session);
  const answered = { ...withoutUpstreamAddresses(upstream.capabilities), 'wdgate:options': { backend: backend.name, upstream: spec.upstream } };
  await opened(gateway, session, {
    id: session.id,
    principal: principal.name,
    backend: backend.name,
    upstream: spec.upstream,
    browserName: session.browserName,
    browserVersion: String(upstream.capabilities.browserVersion ?? ''),
    capabilities: spec.capabilities,
    answered,
  });
  upstream.onGone(() => void gateway.sessions.end(session, `its upstream ${spec.upstream} went away (the driver exited)`, 'crashed'));
  return { sessionId: session.id, capabilities: answered };
}

/** Capabilities that hold an address of the upstream's own, which clients must never get. */
const UPSTREAM_ADDRESSES = ['webSocketUrl', 'se:cdp', 'se:cdpVersion', 'se:bidi', 'se:vnc', 'se:vncLocalAddress', 'se:noVncPort', 'se:gridWebSocketUrl', 'se:forwardCdp', 'moz:debuggerAddress'];

function withoutUpstreamAddresses(caps: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(caps)) {
    if (UPSTREAM_ADDRESSES.includes(key)) continue;
    if (typeof value === 'string' && /^(wss?|https?):\/\//i.test(value) && key.includes(':')) continue;
    if (/^(goog:chromeOptions|ms:edgeOptions)$/.test(key) && typeof value === 'object' && value !== null) {
      const { debuggerAddress: _address, ...rest } = value as Record<string, unknown>;
      out[key] = rest;
      continue;
    }
    out[key] = value;
  }
  return out;
}

/**
 * Spec "matching capabilities": the backend the routes choose (src/webdriver/routing.ts), or
 * else the first backend that serves them, standard capabilities included.
 */
function matchBackends(
  backends: AnyBackend[],
  routes: ConfiguredRoute[],
  caps: Record<string, unknown>,
  env: Parameters<Backend['match']>[1],
): MatchResult<{ backend: AnyBackend; spec: LaunchSpec | UpstreamSpec }> {
  const route = selectRoute(caps, routes);
  const candidates = route ? backends.filter((b) => b.name === route.backend) : backends;
  if (candidates.length === 0) {
    const what = caps.browserName === undefined ? 'these capabilities are' : `browserName ${JSON.stringify(caps.browserName)} is`;
    return { ok: false, reason: `${what} routed to the ${route!.backend} backend, which this gateway does not have (it has ${backends.map((b) => b.name).join(', ')})` };
  }
  const reasons: string[] = [];
  for (const backend of candidates) {
    let result;
    try {
      result = backend.match(caps, env, route);
    } catch (e) {
      if (e instanceof InvalidCapabilityError) throw error('invalid argument', e.message);
      throw e;
    }
    // An upstream not started yet decides the standard capabilities itself.
    const endpoint = result.ok ? result.value.endpoint : undefined;
    const reason = result.ok ? (endpoint ? matchStandardCapabilities(caps, endpoint) : null) : result.reason;
    if (result.ok && reason === null) return { ok: true, value: { backend, spec: result.value } };
    reasons.push(backends.length > 1 ? `${backend.name}: ${reason}` : reason!);
  }
  return { ok: false, reason: reasons.join('; ') };
}

export const deleteSession = sessionCommand({
  handlesUserPrompts: false, // spec §16: its steps leave user prompts alone
  endsSession: true,
  async handler({ gateway, session }) {
    // The client has its answer at once; the browser ends in the background (and the gateway's
    // shutdown still waits for it).
    void gateway.sessions.end(session, 'it was deleted', 'deleted');
    return null;
  },
});

export const status = globalCommand({
  handler({ gateway, request }) {
    const principal = request.principal ?? LOCAL;
    const { admission } = gateway;
    return {
      ...gateway.readiness(),
      sessions: {
        active: gateway.sessions.size,
        max: gateway.maxSessions,
        queued: admission.queued,
        oldestQueuedMs: admission.oldestWait,
        // The queue per principal: the asking principal's own, or every one's for an admin.
        principals: gateway.principalQueues().filter((queue) => principal.admin || queue.principal === principal.name),
        // The asking principal's own sessions only (another principal's ids are never shown).
        own: gateway.sessions.of(principal.name).map((session) => ({
          id: session.id,
          browserName: session.browserName,
          createdAt: new Date(session.createdAt).toISOString(),
        })),
      },
      // Per launch key: browsers, contexts leased and prepared, contexts being prepared (a key
      // of one principal's browsers: its own, or every one's for an admin).
      pool: gateway.pool.statsFor(principal),
      bidi: { connections: gateway.sessions.bidiConnections() },
    };
  },
});

export const getTimeouts = sessionCommand({
  handlesUserPrompts: false, // spec §16: its steps leave user prompts alone
  handler({ session }): TimeoutsConfiguration {
    const { script, pageLoad, implicit } = session.timeouts;
    return { script, pageLoad, implicit };
  },
});

const timeoutValue = p.integer(0);

const scriptTimeout: Parser<number | null | undefined> = (v, path) =>
  v === undefined ? undefined : v === null ? null : timeoutValue(v, path);

export const setTimeouts = sessionCommand({
  handlesUserPrompts: false, // spec §16: its steps leave user prompts alone
  // Spec "JSON deserialize as timeouts configuration": known keys checked, others ignored.
  params: p.object({ script: scriptTimeout, pageLoad: p.optional(timeoutValue), implicit: p.optional(timeoutValue) }),
  handler({ session }, { script, pageLoad, implicit }) {
    const next = { ...session.timeouts };
    if (script !== undefined) next.script = script;
    if (pageLoad !== undefined) next.pageLoad = pageLoad;
    if (implicit !== undefined) next.implicit = implicit;
    session.timeouts = next;
    return null;
  },
});
