// The history over HTTP (docs/traces.md): ended and running sessions listed and filtered, one
// session's entry, its trace (wdgate's, or exported as Playwright's), HAR and transcript. A principal sees its own sessions, an admin every one;
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
import { toPlaywrightTrace } from './playwright/export.ts';
import { compareQuery, listQuery, testsQuery } from './query.ts';
import { transcript } from './transcript.ts';
import { readTrace, TraceError } from './viewer/model.ts';

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

    /**
     * GET /wdgate/sessions/{sessionId}/trace: the trace zip; `?format=playwright`: as a Playwright
     * trace (./playwright/export.ts), made when asked.
     */
    getSessionTrace: globalCommand({
      async handler(ctx) {
        const format = new URLSearchParams(ctx.request.query ?? '').get('format') ?? 'wdgate';
        if (format !== 'wdgate' && format !== 'playwright') throw error('invalid argument', `format: "${format}" is not a trace format (wdgate, playwright)`);
        const body = await traceOf(history, ctx);
        const entry = history.store.get(ctx.urlParams.sessionId!);
        const base = `${(entry?.name ?? entry?.id ?? 'session').replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 80)}`;
        if (format === 'playwright') {
          const exported = Buffer.from(await readable(() => toPlaywrightTrace(body)));
          return new TextBody('application/zip', exported, { 'Content-Disposition': `attachment; filename="playwright-trace-${base}.zip"` });
        }
        return new TextBody('application/zip', body, { 'Content-Disposition': `attachment; filename="trace-${base}.zip"` });
      },
    }),

    /** GET /wdgate/sessions/{sessionId}/transcript: the session in Markdown (the trace's transcript.md; made from the trace for one written before it had one). */
    getSessionTranscript: globalCommand({
      async handler(ctx) {
        const zip = await traceOf(history, ctx);
        const files = unzipSync(zip, { filter: (file) => file.name === 'transcript.md' });
        const text = files['transcript.md'] ? Buffer.from(files['transcript.md']) : Buffer.from(await readable(() => transcript(readTrace(zip))));
        return new TextBody('text/markdown; charset=utf-8', text);
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

/** A stored trace that cannot be read (written by another version, damaged) as a W3C error. */
async function readable<T>(read: () => T | Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (e instanceof TraceError) throw error('unknown error', `the kept trace cannot be read: ${e.message}`);
    throw e;
  }
}
