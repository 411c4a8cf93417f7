// Session recordings: a session that asks (`wdgate:options` `recordVideo: true`) is recorded while
// it runs, from the same frames as the dashboard's live view (./live.ts), into a WebM file by
// ffmpeg (VP8, a few frames a second, the last frame repeated while the page is still, so the
// video's length is the session's). With it, the session's browser console log. Both stay for
// their principal (or an admin) to download for `retention` after the session, within a disk
// budget, then go.
import { mkdirSync, type WriteStream, createWriteStream } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { OwnedProcess } from '../../backends/owned-process.ts';
import type { ConsoleEntry } from '../../backends/backend.ts';
import type { Logger } from '../base/log.ts';
import type { Session } from '../webdriver/session.ts';
import type { AnySession } from '../webdriver/sessions.ts';
import type { Observer, SessionRecord } from '../webdriver/seam.ts';
import type { Redactor } from '../webdriver/redact.ts';
import { error } from '../webdriver/errors.ts';
import { frameType, watchPage } from './live.ts';

export interface RecordingsConfig {
  /** Where videos and logs are kept. */
  directory: string;
  /** The directory is the gateway's own (a temporary one): it goes when the gateway ends. */
  own: boolean;
  /** How long they are kept after their session ended (ms). */
  retention: number;
  /** At most this many bytes of recordings; past it the oldest go first. */
  maxBytes: number;
  /** Frames per second of the videos. */
  fps: number;
}

/** A gateway's own recordings directory in the temporary directory: `wdgate-recordings-<pid>`. */
export const RECORDINGS_DIR_PREFIX = 'wdgate-recordings-';

/** The size every video is drawn at (the page scaled to fit, centred). */
const WIDTH = 960;
const HEIGHT = 600;

interface Recording {
  id: string;
  owner: string;
  video: string;
  log: string;
  /** Resolves once ffmpeg has finished the file. */
  finished?: Promise<void>;
  endedAt?: number;
}

export class Recordings implements Observer {
  readonly #config: RecordingsConfig;
  readonly #log: Logger;
  readonly #recordings = new Map<string, Recording>();
  /** Running recordings' stops, by session id. */
  readonly #stops = new Map<string, () => Promise<void>>();
  readonly #sweeper: NodeJS.Timeout;

  constructor(config: RecordingsConfig, log: Logger) {
    this.#config = config;
    this.#log = log;
    this.#sweeper = setInterval(() => void this.sweep(), Math.min(60_000, Math.max(1000, config.retention / 4)));
    this.#sweeper.unref();
  }

  // ── The seam: a session that asks (wdgate:options recordVideo) is recorded until it closes ──

  keepsContent(session: AnySession): boolean {
    return session.options.recordVideo;
  }

  async opened(session: AnySession, record: SessionRecord): Promise<void> {
    if (session.kind !== 'driven' || !session.options.recordVideo) return;
    try {
      this.#stops.set(session.id, await this.start(session, record.redactor));
    } catch (e) {
      throw error('session not created', `wdgate:options.recordVideo: ${(e as Error).message}`);
    }
  }

  async closing(session: Session): Promise<void> {
    const stop = this.#stops.get(session.id);
    this.#stops.delete(session.id);
    await stop?.();
  }

  /** Record the session from now until `stop` (its console lines under the seam's redaction). */
  async start(session: Session, redactor?: Redactor): Promise<() => Promise<void>> {
    // Made with the first recording: a gateway that records nothing leaves no trace.
    // The gateway's own: never readable by the browsers' user (src/app.ts checks an existing one).
    mkdirSync(this.#config.directory, { recursive: true, mode: 0o700 });
    const video = join(this.#config.directory, `${session.id}.webm`);
    const logFile = join(this.#config.directory, `${session.id}.log`);
    const recording: Recording = { id: session.id, owner: session.owner, video, log: logFile };
    this.#recordings.set(session.id, recording);
    const codec = frameType(session) === 'image/jpeg' ? 'mjpeg' : 'png';
    const ffmpeg = OwnedProcess.spawn(
      'ffmpeg',
      ['-hide_banner', '-loglevel', 'error', '-f', 'image2pipe', '-c:v', codec, '-framerate', String(this.#config.fps), '-i', '-',
        '-vf', `scale=${WIDTH}:${HEIGHT}:force_original_aspect_ratio=decrease,pad=${WIDTH}:${HEIGHT}:(ow-iw)/2:(oh-ih)/2,format=yuv420p`,
        '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '400k', '-an', '-f', 'webm', '-y', video],
      process.env,
      ['pipe', 'ignore', 'pipe'],
    );
    let errors = '';
    ffmpeg.child.stderr!.on('data', (chunk: Buffer) => void (errors = (errors + chunk.toString()).slice(-2000)));
    const stdin = ffmpeg.child.stdin!;
    stdin.on('error', () => {}); // ffmpeg gone: reported at the end
    // The newest frame, written at the video's rate (repeated while the page is still).
    let latest: Buffer | undefined;
    let waiting = false;
    let written = 0;
    const ticker = setInterval(() => {
      if (!latest || waiting || ffmpeg.exited) return;
      written++;
      if (!stdin.write(latest)) {
        waiting = true;
        stdin.once('drain', () => void (waiting = false));
      }
    }, 1000 / this.#config.fps);
    const stopFrames = await watchPage(session, this.#config.fps, ({ data }) => void (latest = Buffer.from(data, 'base64')));
    const consoleLog = this.#consoleLog(session, logFile, redactor);
    this.#log.info({ event: 'recording started', sessionId: session.id });
    let stopping: Promise<void> | undefined;
    return () =>
      (stopping ??= (async () => {
        clearInterval(ticker);
        stopFrames();
        consoleLog.end();
        // A session shorter than one frame's time still gets its picture (a video with no frame
        // is no file at all): the newest frame, or a picture taken now while the browser is there.
        if (written === 0 && !ffmpeg.exited) {
          const window = session.currentWindow;
          const now = latest ?? (window === null ? undefined : await shotOf(session, window, codec).catch(() => undefined));
          if (now) stdin.write(now);
        }
        stdin.end();
        const exited = new Promise<void>((resolve) => ffmpeg.onExit(resolve));
        // ffmpeg finishes the file once its input ends; one that hangs is stopped.
        const timer = setTimeout(() => void ffmpeg.stop(1000), 15_000);
        await Promise.race([exited, new Promise<void>((resolve) => ffmpeg.child.once('exit', () => resolve()))]);
        clearTimeout(timer);
        recording.endedAt = Date.now();
        this.#log.info({ event: 'recording finished', sessionId: session.id, ...(errors && { ffmpeg: errors.trim().split('\n').at(-1) }) });
        await this.sweep();
      })());
  }

  /** The session's console messages, one JSON line each, into its log file; what is secret hidden as in a trace. */
  #consoleLog(session: Session, file: string, redactor: Redactor | undefined): WriteStream {
    const out = createWriteStream(file);
    out.on('error', () => {});
    session.browser.onConsoleMessage?.((entry: ConsoleEntry) => {
      if (!out.writableEnded) out.write(`${JSON.stringify(redactor ? { ...entry, text: redactor.text(entry.text) } : entry)}\n`);
    });
    return out;
  }

  /** A finished recording's file (`video` or `log`) for a principal: its own, or any for an admin. */
  file(id: string, principal: { name: string; admin: boolean }, kind: 'video' | 'log'): string | undefined {
    const recording = this.#recordings.get(id);
    if (!recording || recording.endedAt === undefined || (recording.owner !== principal.name && !principal.admin)) return undefined;
    return recording[kind];
  }

  /**
   * A finished recording's files, handed over to whoever keeps them from now on (the history,
   * src/trace/): forgotten here, not deleted. Undefined when the session was not recorded.
   */
  take(id: string): { video: string; log: string } | undefined {
    const recording = this.#recordings.get(id);
    if (!recording || recording.endedAt === undefined) return undefined;
    this.#recordings.delete(id);
    return { video: recording.video, log: recording.log };
  }

  /** Whether a recording of the session exists (running or kept) for the principal. */
  has(id: string, principal: { name: string; admin: boolean }): 'running' | 'finished' | undefined {
    const recording = this.#recordings.get(id);
    if (!recording || (recording.owner !== principal.name && !principal.admin)) return undefined;
    return recording.endedAt === undefined ? 'running' : 'finished';
  }

  /** Delete what is past its retention, then the oldest past the disk budget. */
  async sweep(): Promise<void> {
    const now = Date.now();
    const finished = [...this.#recordings.values()].filter((r) => r.endedAt !== undefined).sort((a, b) => a.endedAt! - b.endedAt!);
    let total = 0;
    const sizes = new Map<Recording, number>();
    for (const r of finished) {
      const size = ((await stat(r.video).catch(() => undefined))?.size ?? 0) + ((await stat(r.log).catch(() => undefined))?.size ?? 0);
      sizes.set(r, size);
      total += size;
    }
    for (const r of finished) {
      if (now - r.endedAt! < this.#config.retention && total <= this.#config.maxBytes) continue;
      total -= sizes.get(r)!;
      this.#recordings.delete(r.id);
      await Promise.all([rm(r.video, { force: true }), rm(r.log, { force: true })]);
      this.#log.info({ event: 'recording deleted', sessionId: r.id });
    }
  }

  /** Where the videos go. */
  get directory(): string {
    return this.#config.directory;
  }

  /** At start: recordings a previous run left in the directory are not served (nor kept). */
  async removeLeftovers(): Promise<void> {
    for (const name of await readdir(this.#config.directory).catch(() => [] as string[])) {
      const id = name.replace(/\.(webm|log)$/, '');
      if (!this.#recordings.has(id)) await rm(join(this.#config.directory, name), { force: true });
    }
  }

  /** The gateway ends (its sessions have): a directory of its own goes with it. */
  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    if (this.#config.own) await rm(this.#config.directory, { recursive: true, force: true });
  }
}

/** A picture of the window in the video's input format. */
async function shotOf(session: Session, window: string, codec: 'mjpeg' | 'png'): Promise<Buffer> {
  const data = await session.browser.screenshot(window, undefined, codec === 'mjpeg' ? { type: 'jpeg', quality: 60 } : undefined);
  return Buffer.from(data, 'base64');
}
