// The history over HTTP (docs/traces.md): ended and running sessions listed and filtered, one
// session's entry, its trace and HAR; and Selenium Grid's session events, by which a client
// reports its test's result. A principal sees its own sessions, an admin every one; another's
// session is as unknown as one that never was.
import { readFile } from 'node:fs/promises';
import { unzipSync } from 'fflate';
import { LOCAL } from '../server/auth.ts';
import { error } from '../webdriver/errors.ts';
import { TextBody } from '../webdriver/json.ts';
import { globalCommand, sessionCommand, type CommandContext } from '../webdriver/commands/types.ts';
import { answerSessionEvent } from './index.ts';
import { listQuery } from './query.ts';

/** GET /wdgate/sessions?state=&name=&build=&result=&principal=&since=&until=&limit=&offset= */
export const listSessions = globalCommand({
  handler(ctx) {
    return ctx.gateway.history.list(ctx.request.principal ?? LOCAL, listQuery(ctx.request.query ?? ''));
  },
});

/** GET /wdgate/sessions/{sessionId}: one session, running or ended. */
export const getSessionEntry = globalCommand({
  async handler(ctx) {
    const id = ctx.urlParams.sessionId!;
    await ctx.gateway.history.settled(id);
    const entry = ctx.gateway.history.entry(id, ctx.request.principal ?? LOCAL);
    if (!entry) throw error('invalid session id', `no session ${id} in the history (it is kept for history.retention)`);
    return entry;
  },
});

/** GET /wdgate/sessions/{sessionId}/trace: the trace zip. */
export const getSessionTrace = globalCommand({
  async handler(ctx) {
    const body = await traceOf(ctx);
    const entry = ctx.gateway.history.store.get(ctx.urlParams.sessionId!);
    const name = `trace-${(entry?.name ?? entry?.id ?? 'session').replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 80)}.zip`;
    return new TextBody('application/zip', body, { 'Content-Disposition': `attachment; filename="${name}"` });
  },
});

/** GET /wdgate/sessions/{sessionId}/har: the session's requests, HAR 1.2 (from its trace). */
export const getSessionHar = globalCommand({
  async handler(ctx) {
    const files = unzipSync(await traceOf(ctx), { filter: (file) => file.name === 'network.har' });
    const har = files['network.har'];
    if (!har) throw error('unknown error', 'the trace holds no network.har');
    return new TextBody('application/json; charset=utf-8', Buffer.from(har));
  },
});

/** POST /session/{sessionId}/se/event: a Selenium Grid session event (test:failed, marker:add …). */
export const sessionEvent = sessionCommand({
  handlesUserPrompts: false, // nothing of the page is touched
  handler({ session }, body: unknown) {
    return answerSessionEvent(session.history, body);
  },
});

async function traceOf(ctx: CommandContext): Promise<Buffer> {
  const id = ctx.urlParams.sessionId!;
  const principal = ctx.request.principal ?? LOCAL;
  await ctx.gateway.history.settled(id);
  const running = ctx.gateway.history.entry(id, principal)?.state === 'active';
  if (running) throw error('unsupported operation', `session ${id} is still running: its trace is there once it ends`);
  const path = ctx.gateway.history.file(id, principal, 'trace.zip');
  const body = path && (await readFile(path).catch(() => undefined));
  if (!body) throw error('invalid session id', `no trace of session ${id} (traced with wdgate:options.trace "on" or "retain-on-failure", kept for history.retention)`);
  return body;
}

