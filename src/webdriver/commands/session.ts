// Spec §7 "Sessions" and §9 "Timeouts": New Session, Delete Session, Status, Get/Set Timeouts.
import { randomUUID } from 'node:crypto';
import type { Backend, LaunchSpec, PageLoadStrategy } from '../../../backends/backend.ts';
import { processCapabilities, resolveTimeouts, type MatchResult, type TimeoutsConfiguration } from '../capabilities.ts';
import { error } from '../errors.ts';
import { p, type Parser } from '../params.ts';
import type { Gateway } from '../gateway.ts';
import { Session, type PromptHandlerConfig } from '../session.ts';
import { globalCommand, sessionCommand } from './types.ts';

const DEFAULT_PROMPT_BEHAVIOR = 'dismiss and notify';

/**
 * Sessions being created, per gateway: a slot is taken before the browser launches, so a burst
 * of New Session requests cannot pass the limit while earlier ones are still launching.
 */
const starting = new WeakMap<Gateway, number>();
const occupied = (gateway: Gateway) => gateway.sessions.size + (starting.get(gateway) ?? 0);

export const newSession = globalCommand({
  async handler({ gateway }, params: unknown) {
    if (gateway.closing) throw error('session not created', 'the gateway is shutting down');
    // Spec: "unable to start an additional session" is checked before capabilities.
    if (occupied(gateway) >= gateway.maxSessions) {
      throw error('session not created', `maximum number of active sessions reached (${gateway.maxSessions})`);
    }
    const { capabilities, matched } = processCapabilities(params, (caps) => matchBackends(gateway.backends, caps, gateway.environment));
    starting.set(gateway, (starting.get(gateway) ?? 0) + 1);
    try {
      return await createSession(gateway, capabilities, matched);
    } finally {
      starting.set(gateway, starting.get(gateway)! - 1);
    }
  },
});

async function createSession(gateway: Gateway, capabilities: Record<string, unknown>, { backend, spec }: { backend: Backend; spec: LaunchSpec }) {
  const browser = await backend.launch(spec, gateway.environment);
  let session: Session;
  try {
    if (gateway.closing) throw error('session not created', 'the gateway is shutting down');
    const [initialWindow] = await browser.windowHandles();
    if (!initialWindow) throw error('session not created', 'the browser opened no window');
    session = new Session({
      id: randomUUID(),
      browser,
      capabilities,
      timeouts: resolveTimeouts(capabilities),
      pageLoadStrategy: (capabilities.pageLoadStrategy as PageLoadStrategy | undefined) ?? 'normal',
      strictFileInteractability: capabilities.strictFileInteractability === true,
      unhandledPromptBehavior: (capabilities.unhandledPromptBehavior as PromptHandlerConfig | undefined) ?? DEFAULT_PROMPT_BEHAVIOR,
      initialWindow,
    });
  } catch (e) {
    await browser.close();
    throw e;
  }
  gateway.sessions.add(session);
  browser.onDisconnected(() => void gateway.sessions.end(session));
  return {
    sessionId: session.id,
    capabilities: {
      browserName: browser.browserName,
      browserVersion: browser.browserVersion,
      platformName: 'linux',
      acceptInsecureCerts: spec.acceptInsecureCerts,
      pageLoadStrategy: session.pageLoadStrategy,
      proxy: capabilities.proxy ?? {},
      setWindowRect: true,
      strictFileInteractability: session.strictFileInteractability,
      timeouts: session.timeouts,
      unhandledPromptBehavior: session.unhandledPromptBehavior,
      // webSocketUrl is accepted but not answered until BiDi is served: clients such as
      // WebdriverIO switch protocols when they see a URL here.
      ...spec.vendorCapabilities,
    },
  };
}

function matchBackends(
  backends: Backend[],
  caps: Record<string, unknown>,
  env: Parameters<Backend['match']>[1],
): MatchResult<{ backend: Backend; spec: LaunchSpec }> {
  const reasons: string[] = [];
  for (const backend of backends) {
    const result = backend.match(caps, env);
    if (result.ok) return { ok: true, value: { backend, spec: result.value } };
    reasons.push(backends.length > 1 ? `${backend.name}: ${result.reason}` : result.reason);
  }
  return { ok: false, reason: reasons.join('; ') };
}

export const deleteSession = sessionCommand({
  handlesUserPrompts: false, // spec §16: its steps leave user prompts alone
  async handler({ gateway, session }) {
    // The client has its answer at once; the browser ends in the background (and the gateway's
    // shutdown still waits for it).
    void gateway.sessions.end(session);
    return null;
  },
});

export const status = globalCommand({
  handler({ gateway }) {
    const ready = !gateway.closing && occupied(gateway) < gateway.maxSessions;
    return {
      ready,
      message: gateway.closing
        ? 'wdgate is shutting down'
        : ready
          ? 'wdgate is ready to create a session'
          : `wdgate is at its limit of ${gateway.maxSessions} sessions`,
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
