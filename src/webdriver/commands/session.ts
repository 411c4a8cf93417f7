// Spec §8 "Sessions" and §9 "Timeouts": New Session, Delete Session, Status, Get/Set Timeouts.
import { randomUUID } from 'node:crypto';
import { InvalidCapabilityError, type Backend, type LaunchSpec, type PageLoadStrategy } from '../../../backends/backend.ts';
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
    let ticket: Ticket | undefined;
    try {
      if (gateway.closing) throw error('session not created', 'the gateway is shutting down');
      const { capabilities, matched } = processCapabilities(params, (caps) => matchBackends(gateway.backends, caps, gateway.environment));
      // A slot first (waiting in the queue while every slot is taken), then a prepared context.
      ticket = await gateway.admission.admit(request.signal);
      const created = await createSession(gateway, capabilities, matched, ticket);
      gateway.metrics.sessionsCreated.inc();
      gateway.log.info({
        event: 'session created',
        sessionId: created.sessionId,
        backend: matched.backend.name,
        browser: `${created.capabilities.browserName} ${created.capabilities.browserVersion}`,
        ms: Date.now() - started,
      });
      return created;
    } catch (e) {
      ticket?.release();
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
    log: gateway.log,
    release: async () => {
      // The slot is free at once; the context is disposed of meanwhile.
      ticket.release();
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
  handler({ gateway }) {
    const { admission } = gateway;
    const ready = !gateway.closing && !admission.full;
    return {
      ready,
      message: gateway.closing
        ? 'wdgate is shutting down'
        : ready
          ? 'wdgate is ready to create a session'
          : `wdgate is at its limit of ${gateway.maxSessions} sessions (${admission.queued} waiting)`,
      sessions: { active: gateway.sessions.size, max: gateway.maxSessions, queued: admission.queued, oldestQueuedMs: admission.oldestWait },
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
