// What operators ask the gateway over HTTP, beside the W3C commands (routes in src/server/routes.ts).
import { readFile } from 'node:fs/promises';
import { LOCAL } from '../server/auth.ts';
import { error } from '../webdriver/errors.ts';
import { TextBody } from '../webdriver/json.ts';
import { globalCommand, type CommandContext } from '../webdriver/commands/types.ts';

/** GET /metrics: the Prometheus exposition. */
export const metrics = globalCommand({
  async handler({ gateway }) {
    const { contentType, text } = await gateway.metrics.scrape();
    return new TextBody(contentType, text);
  },
});

/** A session's recording file, for its principal (or an admin), once the session has ended. */
async function recordingFile(ctx: CommandContext, kind: 'video' | 'log', contentType: string): Promise<TextBody> {
  const principal = ctx.request.principal ?? LOCAL;
  const id = ctx.urlParams.sessionId!;
  await ctx.gateway.history.settled(id);
  const state = ctx.gateway.recordings.has(id, principal);
  if (state === 'running') throw error('unsupported operation', `session ${id} is still being recorded: its ${kind} is there once it ends`);
  // Once its session's history entry is written, the recording is the history's (src/trace/).
  const file = ctx.gateway.recordings.file(id, principal, kind) ?? ctx.gateway.history.file(id, principal, kind === 'video' ? 'video.webm' : 'console.log');
  const body = file && (await readFile(file).catch(() => undefined));
  if (!body) throw error('invalid session id', `no recording of session ${id} (recorded with wdgate:options recordVideo, kept for recordings.retention)`);
  return new TextBody(contentType, body);
}

/** GET /wdgate/sessions/{sessionId}/video: the session's recording (WebM). */
export const getSessionVideo = globalCommand({
  handler: (ctx) => recordingFile(ctx, 'video', 'video/webm'),
});

/** GET /wdgate/sessions/{sessionId}/log: the session's browser console, one JSON object per line. */
export const getSessionLog = globalCommand({
  handler: (ctx) => recordingFile(ctx, 'log', 'application/x-ndjson; charset=utf-8'),
});
