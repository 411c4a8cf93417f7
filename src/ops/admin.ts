// The admin API (not W3C): what an operator of a shared gateway needs without reading logs —
// every session and the queue, ending one session or all, draining for an upgrade — and the
// liveness probe. Admin principals only (`admin` in the token file; the local user when no tokens
// are configured); another principal is refused with 403, as the gate refuses.
import { LOCAL, type Principal } from '../base/principal.ts';
import { error, HttpRefusal } from '../webdriver/errors.ts';
import { p } from '../webdriver/params.ts';
import { TextBody } from '../webdriver/json.ts';
import { globalCommand, type CommandContext } from '../webdriver/commands/types.ts';
import { describeSession } from './dashboard.ts';

const STARTED = Date.now();

function admin(ctx: CommandContext): Principal {
  const principal = ctx.request.principal ?? LOCAL;
  if (!principal.admin) throw new HttpRefusal(403, `${principal.name} is not an admin principal (the admin API needs "admin" after its max-sessions in the token file)`);
  return principal;
}

/** GET /wdgate/admin/sessions: every session of every principal. */
export const adminListSessions = globalCommand({
  handler(ctx) {
    admin(ctx);
    const now = Date.now();
    return ctx.gateway.sessions.all().map((session) => describeSession(session, now));
  },
});

/** DELETE /wdgate/admin/sessions/{sessionId}: end one session (a stuck one), whoever owns it. */
export const adminEndSession = globalCommand({
  async handler(ctx) {
    const principal = admin(ctx);
    const session = ctx.gateway.sessions.get(ctx.urlParams.sessionId!);
    if (!session) throw error('invalid session id', `no session ${ctx.urlParams.sessionId}`);
    await ctx.gateway.sessions.end(session, `an admin (${principal.name}) ended it`);
    return null;
  },
});

/** DELETE /wdgate/admin/sessions: end every session. */
export const adminEndAllSessions = globalCommand({
  async handler(ctx) {
    const principal = admin(ctx);
    const sessions = ctx.gateway.sessions.all();
    await Promise.all(sessions.map((session) => ctx.gateway.sessions.end(session, `an admin (${principal.name}) ended every session`)));
    return { ended: sessions.length };
  },
});

/** GET /wdgate/admin/queue: New Sessions waiting for a slot, per principal; whether New Session is still taken (a drain's notice). */
export const adminQueue = globalCommand({
  handler(ctx) {
    admin(ctx);
    const { gateway } = ctx;
    return {
      takingSessions: gateway.newSessionsRefused() === undefined,
      queued: gateway.admission.queued,
      oldestQueuedMs: gateway.admission.oldestWait,
      active: gateway.sessions.size,
      maxSessions: gateway.maxSessions,
      principals: gateway.principalQueues(),
      pool: gateway.pool.stats(),
    };
  },
});

/** POST /wdgate/admin/drain {message?}: take no new sessions (Status not ready, saying why); running ones go on. */
export const adminDrain = globalCommand({
  params: p.object({ message: p.optional(p.string) }),
  handler(ctx, { message }) {
    const principal = admin(ctx);
    ctx.gateway.drain(message ?? `drained by ${principal.name}`);
    return { draining: true, sessions: ctx.gateway.sessions.size };
  },
});

/** POST /wdgate/admin/undrain: take new sessions again. */
export const adminUndrain = globalCommand({
  handler(ctx) {
    admin(ctx);
    ctx.gateway.undrain();
    return { draining: false };
  },
});

/**
 * GET /ready: readiness for routers, which look only at the HTTP status (a Selenium Grid relay's
 * status-endpoint, a Kubernetes readiness probe): 200 while New Session is taken, 503 with the
 * reason from the moment the gateway drains or shuts down (its notice period included), or, with
 * readyRequiresFreeSlot, while every slot is taken. No browser is touched.
 */
export const ready = globalCommand({
  handler({ gateway }) {
    const readiness = gateway.routerReadiness();
    return new TextBody('application/json; charset=utf-8', JSON.stringify({ value: readiness }), undefined, readiness.ready ? 200 : 503);
  },
});

/** GET /health: liveness for probes. The process answers; no browser is touched. */
export const health = globalCommand({
  handler({ gateway }) {
    return { status: 'ok', uptimeMs: Date.now() - STARTED, draining: gateway.draining !== undefined, closing: gateway.closing };
  },
});
