// The history over HTTP (docs/traces.md): ended and running sessions listed and filtered, one
// session's entry, its trace and HAR. A principal sees its own sessions, an admin every one;
// another's session is as unknown as one that never was. (Selenium Grid's session events, by which
// a client reports its test's result, are the W3C layer's: src/webdriver/commands/script.ts.)
import { readFile } from 'node:fs/promises';
import { unzipSync } from 'fflate';
import { LOCAL } from '../base/principal.ts';
import { error } from '../webdriver/errors.ts';
import { TextBody } from '../webdriver/json.ts';
import { globalCommand, type Command, type CommandContext } from '../webdriver/commands/types.ts';
import type { CommandName } from '../webdriver/routes.ts';
import type { History } from './index.ts';
import { compareQuery, listQuery, testsQuery } from './query.ts';

/** The history's commands, by route name (src/webdriver/routes.ts), for the gateway's command table. */
export function historyCommands(history: History): Partial<Record<CommandName, Command>> {
  return {
    /** GET /wdgate/tests?name=&build=&verdict=&limit=&offset=: tests by name, their runs and verdicts. */
    listTests: globalCommand({
      handler(ctx) {
        return history.runs.list(ctx.request.principal ?? LOCAL, testsQuery(ctx.request.query ?? ''));
      },
    }),

    /** GET /wdgate/sessions/{sessionId}/compare?with=: a failed run against the last pass of its test. */
    compareSession: globalCommand({
      handler(ctx) {
        return history.compare(ctx.urlParams.sessionId!, ctx.request.principal ?? LOCAL, compareQuery(ctx.request.query ?? '').with);
      },
    }),

    /** GET /wdgate/sessions?state=&name=&build=&result=&principal=&since=&until=&limit=&offset= */
    listSessions: globalCommand({
      handler(ctx) {
        return history.list(ctx.request.principal ?? LOCAL, listQuery(ctx.request.query ?? ''));
      },
    }),

    /** GET /wdgate/sessions/{sessionId}: one session, running or ended. */
    getSessionEntry: globalCommand({
      async handler(ctx) {
        const id = ctx.urlParams.sessionId!;
        await history.settled(id);
        const entry = history.entry(id, ctx.request.principal ?? LOCAL);
        if (!entry) throw error('invalid session id', `no session ${id} in the history (it is kept for history.retention)`);
        return entry;
      },
    }),

    /** GET /wdgate/sessions/{sessionId}/trace: the trace zip. */
    getSessionTrace: globalCommand({
      async handler(ctx) {
        const body = await traceOf(history, ctx);
        const entry = history.store.get(ctx.urlParams.sessionId!);
        const name = `trace-${(entry?.name ?? entry?.id ?? 'session').replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 80)}.zip`;
        return new TextBody('application/zip', body, { 'Content-Disposition': `attachment; filename="${name}"` });
      },
    }),

    /** GET /wdgate/sessions/{sessionId}/har: the session's requests, HAR 1.2 (from its trace). */
    getSessionHar: globalCommand({
      async handler(ctx) {
        const files = unzipSync(await traceOf(history, ctx), { filter: (file) => file.name === 'network.har' });
        const har = files['network.har'];
        if (!har) throw error('unknown error', 'the trace holds no network.har');
        return new TextBody('application/json; charset=utf-8', Buffer.from(har));
      },
    }),
  };
}

async function traceOf(history: History, ctx: CommandContext): Promise<Buffer> {
  const id = ctx.urlParams.sessionId!;
  const principal = ctx.request.principal ?? LOCAL;
  await history.settled(id);
  const running = history.entry(id, principal)?.state === 'active';
  if (running) throw error('unsupported operation', `session ${id} is still running: its trace is there once it ends`);
  const path = history.file(id, principal, 'trace.zip');
  const body = path && (await readFile(path).catch(() => undefined));
  if (!body) throw error('invalid session id', `no trace of session ${id} (traced with wdgate:options.trace "on" or "retain-on-failure", kept for history.retention)`);
  return body;
}

