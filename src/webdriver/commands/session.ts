// Spec §8 "Sessions" and §9 "Timeouts": New Session, Delete Session, Status, Get/Set Timeouts.
import { randomUUID } from 'node:crypto';
import { InvalidCapabilityError, type Backend, type LaunchSpec, type PageLoadStrategy } from '../../../backends/backend.ts';
import { LOCAL, type Principal } from '../../server/auth.ts';
import type { Ticket } from '../admission.ts';
import { matchStandardCapabilities, processCapabilities, resolveTimeouts, type MatchResult, type TimeoutsConfiguration } from '../capabilities.ts';
import { error } from '../errors.ts';
import { p, type Parser } from '../params.ts';
import type { Gateway } from '../gateway.ts';
import { Session, type PromptHandlerConfig } from '../session.ts';
import { globalCommand, sessionCommand } from './types.ts';

const DEFAULT_PROMPT_BEHAVIOR = 'dismiss and notify';

export const newSession = globalCommand({
  async handler({ gateway, request }, params: unknown) {
    const started = Date.now();
    const principal = request.principal ?? LOCAL;
    let ticket: Ticket | undefined;
    let unclaim: (() => void) | undefined;
    try {
      if (gateway.closing) throw error('session not created', 'the gateway is shutting down');
      const { capabilities, matched } = processCapabilities(params, (caps) => matchBackends(gateway.backends, caps, gateway.environment));
      if (!gateway.newSessionRate.take(principal.name)) {
        throw error('session not created', `too many new sessions: ${principal.name} may ask for ${gateway.newSessionRate.rate} per second (newSessionsPerSecond)`);
      }
      unclaim = gateway.claimSession(principal);
      // A slot first (waiting in the queue while every slot is taken), then a prepared context.
      ticket = await gateway.admission.admit(request.signal);
      const created = await createSession(gateway, capabilities, matched, ticket, principal, unclaim);
      gateway.metrics.sessionsCreated.inc();
      gateway.log.info({
        event: 'session created',
        sessionId: created.sessionId,
        principal: principal.name,
        backend: matched.backend.name,
        browser: `${created.capabilities.browserName} ${created.capabilities.browserVersion}`,
        ms: Date.now() - started,
      });
      return created;
    } catch (e) {
      ticket?.release();
      unclaim?.();
      gateway.metrics.sessionsFailed.inc();
      throw e;
    }
  },
});

async function createSession(
  gateway: Gateway,
  capabilities: Record<string, unknown>,
  { backend, spec }: { backend: Backend; spec: LaunchSpec },
  ticket: Ticket,
  principal: Principal,
  unclaim: () => void,
) {
  let lease;
  try {
    lease = await gateway.pool.lease(backend, spec);
  } catch (e) {
    throw error('session not created', e instanceof Error ? e.message : String(e));
  }
  const { browser } = lease;
  if (gateway.closing) {
    await lease.release();
    throw error('session not created', 'the gateway is shutting down');
  }
  const session = new Session({
    id: randomUUID(),
    browser,
    capabilities,
    timeouts: resolveTimeouts(capabilities),
    pageLoadStrategy: (capabilities.pageLoadStrategy as PageLoadStrategy | undefined) ?? 'normal',
    strictFileInteractability: capabilities.strictFileInteractability === true,
    unhandledPromptBehavior: (capabilities.unhandledPromptBehavior as PromptHandlerConfig | undefined) ?? DEFAULT_PROMPT_BEHAVIOR,
    log: gateway.log.child({ principal: principal.name }),
    owner: principal.name,
    release: async () => {
      // The slot is free at once; the context is disposed of meanwhile.
      ticket.release();
      unclaim();
      await lease.release();
    },
  });
  gateway.sessions.add(session);
  browser.onDisconnected(() => void gateway.sessions.end(session, 'its browser went away (it crashed or was killed)'));
  return {
    sessionId: session.id,
    capabilities: {
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
      // webSocketUrl is accepted but not answered until BiDi is served: clients such as
      // WebdriverIO switch protocols when they see a URL here.
      ...spec.vendorCapabilities,
    },
  };
}

/** Spec "matching capabilities": the first backend that serves them, standard capabilities included. */
function matchBackends(
  backends: Backend[],
  caps: Record<string, unknown>,
  env: Parameters<Backend['match']>[1],
): MatchResult<{ backend: Backend; spec: LaunchSpec }> {
  const reasons: string[] = [];
  for (const backend of backends) {
    let result;
    try {
      result = backend.match(caps, env);
    } catch (e) {
      if (e instanceof InvalidCapabilityError) throw error('invalid argument', e.message);
      throw e;
    }
    const reason = result.ok ? matchStandardCapabilities(caps, result.value.endpoint) : result.reason;
    if (result.ok && reason === null) return { ok: true, value: { backend, spec: result.value } };
    reasons.push(backends.length > 1 ? `${backend.name}: ${reason}` : reason!);
  }
  return { ok: false, reason: reasons.join('; ') };
}

export const deleteSession = sessionCommand({
  handlesUserPrompts: false, // spec §16: its steps leave user prompts alone
  async handler({ gateway, session }) {
    // The client has its answer at once; the browser ends in the background (and the gateway's
    // shutdown still waits for it).
    void gateway.sessions.end(session, 'it was deleted');
    return null;
  },
});

export const status = globalCommand({
  handler({ gateway, request }) {
    const principal = request.principal ?? LOCAL;
    const { admission } = gateway;
    const ready = !gateway.closing && !admission.full;
    return {
      ready,
      message: gateway.closing
        ? 'wdgate is shutting down'
        : ready
          ? 'wdgate is ready to create a session'
          : `wdgate is at its limit of ${gateway.maxSessions} sessions (${admission.queued} waiting)`,
      sessions: {
        active: gateway.sessions.size,
        max: gateway.maxSessions,
        queued: admission.queued,
        oldestQueuedMs: admission.oldestWait,
        // The asking principal's own sessions only (another principal's ids are never shown).
        own: gateway.sessions.of(principal.name).map((session) => ({
          id: session.id,
          browserName: session.browser.browserName,
          createdAt: new Date(session.createdAt).toISOString(),
        })),
      },
      // Per launch key: browsers, contexts leased and prepared, contexts being prepared.
      pool: gateway.pool.stats(),
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
