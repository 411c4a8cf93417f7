// What operators ask the gateway over HTTP, beside the W3C commands (routes in src/webdriver/routes.ts):
// the Prometheus exposition, and a session's recording once it has ended.
import { readFile } from 'node:fs/promises';
import { LOCAL, type Principal } from '../base/principal.ts';
import { error } from '../webdriver/errors.ts';
import { TextBody } from '../webdriver/json.ts';
import { globalCommand, type Command, type CommandContext } from '../webdriver/commands/types.ts';
import type { CommandName } from '../webdriver/routes.ts';
import type { Metrics } from './metrics.ts';
import type { Recordings } from './recordings.ts';

/** Where an ended session's recording goes once its history entry is written (src/trace/). */
export interface RecordingsHistory {
  /** Resolves once the entry of a session that just ended is written. */
  settled(id: string): Promise<void>;
  file(id: string, principal: Principal, name: 'video.webm' | 'console.log'): string | undefined;
}

export function opsCommands(ops: { metrics: Metrics; recordings: Recordings; history: RecordingsHistory }): Partial<Record<CommandName, Command>> {
  /** A session's recording file, for its principal (or an admin), once the session has ended. */
  async function recordingFile(ctx: CommandContext, kind: 'video' | 'log', contentType: string): Promise<TextBody> {
    const principal = ctx.request.principal ?? LOCAL;
    const id = ctx.urlParams.sessionId!;
    await ops.history.settled(id);
    const state = ops.recordings.has(id, principal);
    if (state === 'running') throw error('unsupported operation', `session ${id} is still being recorded: its ${kind} is there once it ends`);
    // Once its session's history entry is written, the recording is the history's (src/trace/).
    const file = ops.recordings.file(id, principal, kind) ?? ops.history.file(id, principal, kind === 'video' ? 'video.webm' : 'console.log');
    const body = file && (await readFile(file).catch(() => undefined));
    if (!body) throw error('invalid session id', `no recording of session ${id} (recorded with wdgate:options recordVideo, kept for recordings.retention)`);
    return new TextBody(contentType, body);
  }

  return {
    /** GET /metrics: the Prometheus exposition. */
    metrics: globalCommand({
      async handler() {
        const { contentType, text } = await ops.metrics.scrape();
        return new TextBody(contentType, text);
      },
    }),
    /** GET /wdgate/sessions/{sessionId}/video: the session's recording (WebM). */
    getSessionVideo: globalCommand({ handler: (ctx) => recordingFile(ctx, 'video', 'video/webm') }),
    /** GET /wdgate/sessions/{sessionId}/log: the session's browser console, one JSON object per line. */
    getSessionLog: globalCommand({ handler: (ctx) => recordingFile(ctx, 'log', 'application/x-ndjson; charset=utf-8') }),
  };
}
