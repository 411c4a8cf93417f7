// The history on disk: one folder per ended session (`<directory>/<session id>/`) with its entry
// (entry.json) and its files (trace.zip, video.webm, console.log). The index is the folders,
// read again at start; what is past the retention time or the disk budget goes, oldest first.
// A directory `shared` by the gateways of a fleet (one volume): each writes the folders of the
// sessions it ran and reads every other's as they appear (refresh); any of them sweeps.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../base/log.ts';
import type { SessionResult } from './session-history.ts';
import type { TraceMode } from '../webdriver/session-options.ts';

/** What the history lists of an ended session (docs/traces.md). */
export interface HistoryEntry {
  id: string;
  name?: string;
  build?: string;
  tags: string[];
  principal: string;
  backend: string;
  upstream?: string;
  browserName: string;
  browserVersion: string;
  startedAt: string;
  endedAt: string;
  durationMs: number;
  result: SessionResult;
  resultReason: string;
  endReason: string;
  commands: number;
  errors: number;
  trace: TraceMode;
  /** The failure nothing recovered from (a failed session): the command and its W3C error. */
  failure?: { command: string; code: string; message: string };
  /** Its test's verdict as of this run (a named session; src/trace/runs/). */
  verdict?: string;
  /** Files kept in the entry's folder. */
  files: HistoryFile[];
  /** Bytes of the files. */
  bytes: number;
}

export type HistoryFile = 'trace.zip' | 'video.webm' | 'console.log';

export interface StoreConfig {
  directory: string;
  /** How long an ended session stays listed (ms). */
  retention: number;
  /** Most bytes of files all entries together keep. */
  maxBytes: number;
  /** Other gateways write entries into the directory too (a fleet's shared volume). */
  shared?: boolean;
}

const ID = /^[A-Za-z0-9._-]{1,128}$/;
/** Entries read at once at start. */
const LOAD_BATCH = 64;
/** A shared directory's entries of other gateways are looked for this often (ms). */
const REFRESH_MS = 5000;
/** In a shared directory, a folder without its entry this old was left by a gateway killed while writing it (ms). */
const ABANDONED_MS = 3600_000;

/** What the store asks of the index of tests (src/trace/runs/). */
export interface StoreHooks {
  /** Entries kept past their retention while the budget allows: each test's last passing trace. */
  keep(): Set<string>;
  /** An entry's trace left the history. */
  traceGone(id: string): void;
  /** Another gateway's entry appeared (a shared directory). */
  added?(entry: HistoryEntry): void;
}

export class HistoryStore {
  readonly config: StoreConfig;
  readonly #log: Logger;
  readonly #hooks: StoreHooks;
  readonly #entries = new Map<string, HistoryEntry>();
  #bytes = 0;
  /** Retention is kept over time too, not only when another session ends. */
  #sweeper: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;
  #refresher: NodeJS.Timeout | undefined;
  #refreshing: Promise<void> | undefined;
  /** Folders this gateway is writing (a refresh meanwhile must not take them for another's). */
  readonly #writing = new Set<string>();

  constructor(config: StoreConfig, log: Logger, hooks: StoreHooks = { keep: () => new Set(), traceGone: () => {} }) {
    this.config = config;
    this.#log = log;
    this.#hooks = hooks;
  }

  /** Read the entries a previous run of the gateway left. */
  async load(): Promise<void> {
    const started = performance.now();
    // The gateway's own: never readable by the browsers' user (src/app.ts checks an existing one).
    await mkdir(this.config.directory, { recursive: true, mode: 0o700 });
    // (Files beside the folders are not entries: the index of tests.)
    const folders = (await readdir(this.config.directory, { withFileTypes: true })).filter((d) => ID.test(d.name) && d.isDirectory()).map((d) => d.name);
    // Read a few dozen at a time: 10,000 entries one after another took seconds.
    for (let i = 0; i < folders.length; i += LOAD_BATCH) await Promise.all(folders.slice(i, i + LOAD_BATCH).map((name) => this.#loadEntry(name)));
    this.#log.info({ event: 'history read', entries: this.#entries.size, bytes: this.#bytes, ms: Math.round(performance.now() - started) });
    await this.sweep();
    this.#sweeper = setInterval(() => void this.sweep(), Math.min(60_000, Math.max(1000, this.config.retention / 4)));
    this.#sweeper.unref();
    if (this.config.shared) {
      this.#refresher = setInterval(() => void this.refresh(), REFRESH_MS);
      this.#refresher.unref();
    }
  }

  async #loadEntry(name: string): Promise<HistoryEntry | undefined> {
    const folder = join(this.config.directory, name);
    const text = await readFile(join(folder, 'entry.json'), 'utf8').catch(() => undefined);
    let entry: HistoryEntry | undefined;
    try {
      entry = text === undefined ? undefined : (JSON.parse(text) as HistoryEntry);
    } catch {
      entry = undefined;
    }
    // A folder without a readable entry is what a gateway killed while writing left; in a shared
    // directory it may be another gateway's, being written now.
    if (!entry || entry.id !== name) {
      const abandoned = !this.config.shared || Date.now() - ((await stat(folder).catch(() => undefined))?.mtimeMs ?? 0) > ABANDONED_MS;
      if (abandoned) await rm(folder, { recursive: true, force: true });
      return undefined;
    }
    this.#entries.set(entry.id, entry);
    this.#bytes += entry.bytes;
    return entry;
  }

  /**
   * A shared directory: the entries other gateways wrote since (told to the hooks), and those
   * another gateway's sweep deleted, forgotten. One refresh at a time.
   */
  async refresh(): Promise<void> {
    if (!this.config.shared) return;
    this.#refreshing ??= this.#refresh().finally(() => (this.#refreshing = undefined));
    await this.#refreshing;
  }

  async #refresh(): Promise<void> {
    // (Only entries known before the listing can be missing from it: one put meanwhile is not.)
    const known = [...this.#entries.values()];
    const names = await readdir(this.config.directory).catch(() => undefined);
    if (!names) return;
    const present = new Set(names);
    for (const entry of known) {
      if (present.has(entry.id) || this.#entries.get(entry.id) !== entry) continue;
      this.#entries.delete(entry.id);
      this.#bytes -= entry.bytes;
      if (entry.files.includes('trace.zip')) this.#hooks.traceGone(entry.id);
    }
    const added = names.filter((name) => ID.test(name) && !this.#entries.has(name) && !this.#writing.has(name));
    for (let i = 0; i < added.length; i += LOAD_BATCH) {
      const entries = await Promise.all(added.slice(i, i + LOAD_BATCH).map((name) => this.#loadEntry(name)));
      for (const entry of entries) if (entry) this.#hooks.added?.(entry);
    }
  }

  /** The gateway ends: no more sweeping (the entries stay on disk for the next run). */
  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    clearInterval(this.#refresher);
    await this.#sweeping;
    await this.#refreshing;
  }

  get(id: string): HistoryEntry | undefined {
    return this.#entries.get(id);
  }

  entries(): IterableIterator<HistoryEntry> {
    return this.#entries.values();
  }

  /** Where an entry's file is (only for an entry the index has). */
  path(id: string, file: HistoryFile): string | undefined {
    const entry = this.#entries.get(id);
    return entry?.files.includes(file) ? join(this.config.directory, id, file) : undefined;
  }

  /**
   * Keep an ended session: its files written (or moved in) first, the entry last, so that a
   * folder with an entry is whole.
   */
  async put(entry: Omit<HistoryEntry, 'files' | 'bytes'>, files: { name: HistoryFile; data?: Uint8Array; from?: string }[]): Promise<HistoryEntry> {
    if (!ID.test(entry.id)) throw new Error(`not a session id: ${entry.id}`);
    const folder = join(this.config.directory, entry.id);
    this.#writing.add(entry.id);
    try {
      return await this.#putFiles(folder, entry, files);
    } finally {
      this.#writing.delete(entry.id);
    }
  }

  async #putFiles(folder: string, entry: Omit<HistoryEntry, 'files' | 'bytes'>, files: { name: HistoryFile; data?: Uint8Array; from?: string }[]): Promise<HistoryEntry> {
    await mkdir(folder, { recursive: true });
    const kept: HistoryFile[] = [];
    let bytes = 0;
    for (const file of files) {
      const to = join(folder, file.name);
      if (file.data) {
        await writeFile(to, file.data);
        bytes += file.data.length;
      } else if (file.from) {
        const moved = await moveFile(file.from, to).catch(() => -1);
        if (moved < 0) continue;
        bytes += moved;
      }
      kept.push(file.name);
    }
    const full: HistoryEntry = { ...entry, files: kept, bytes };
    await writeEntry(folder, full);
    this.#entries.set(full.id, full);
    this.#bytes += bytes;
    await this.sweep();
    return full;
  }

  /** Delete what is past its retention, then the oldest while the files are over the budget. */
  async sweep(now = Date.now()): Promise<void> {
    // One sweep at a time: two would count the same entry's bytes out twice.
    while (this.#sweeping) await this.#sweeping;
    this.#sweeping = this.#sweep(now).finally(() => (this.#sweeping = undefined));
    await this.#sweeping;
  }

  /**
   * Past the retention, entries go oldest first; a test's last passing trace stays (for the
   * comparison of its next failure) as long as the budget allows. Over the budget, the others go
   * first, oldest first, then those too.
   */
  async #sweep(now: number): Promise<void> {
    // Each session's end sweeps: with 10,000 entries, their times are parsed once (not in the
    // sort's comparisons), and nothing is sorted when nothing is due.
    const ends = [...this.#entries.values()].map((entry) => ({ entry, end: Date.parse(entry.endedAt) }));
    const expired = (end: number) => now - end >= this.config.retention;
    if (this.#bytes <= this.config.maxBytes && !ends.some(({ end }) => expired(end))) return;
    const keep = this.#hooks.keep();
    const oldestFirst = ends.sort((a, b) => a.end - b.end).map(({ entry, end }) => ({ entry, expired: expired(end) }));
    for (const { entry, expired } of oldestFirst) {
      if (!keep.has(entry.id) && (expired || this.#bytes > this.config.maxBytes)) await this.#delete(entry);
    }
    for (const { entry } of oldestFirst) if (this.#bytes > this.config.maxBytes && this.#entries.has(entry.id)) await this.#delete(entry);
  }

  async #delete(entry: HistoryEntry): Promise<void> {
    this.#entries.delete(entry.id);
    this.#bytes -= entry.bytes;
    await rm(join(this.config.directory, entry.id), { recursive: true, force: true });
    if (entry.files.includes('trace.zip')) this.#hooks.traceGone(entry.id);
    this.#log.info({ event: 'history entry deleted', sessionId: entry.id });
  }

  /** One file of an entry goes (a passing trace kept for comparison, once a newer one replaces it). */
  async dropFile(id: string, file: HistoryFile): Promise<void> {
    const entry = this.#entries.get(id);
    if (!entry?.files.includes(file)) return;
    const path = join(this.config.directory, id, file);
    const size = (await stat(path).catch(() => undefined))?.size ?? 0;
    await rm(path, { force: true });
    const full: HistoryEntry = { ...entry, files: entry.files.filter((f) => f !== file), bytes: Math.max(0, entry.bytes - size) };
    await writeEntry(join(this.config.directory, id), full);
    this.#entries.set(id, full);
    this.#bytes -= entry.bytes - full.bytes;
    if (file === 'trace.zip') this.#hooks.traceGone(id);
  }
}

/**
 * An entry written whole, then renamed into place (a reader sees the old one or the new one); the
 * temporary file's name is this writer's own (another gateway may write the same folder's).
 */
async function writeEntry(folder: string, entry: HistoryEntry): Promise<void> {
  const temporary = join(folder, `entry.json.${randomBytes(6).toString('hex')}.tmp`);
  await writeFile(temporary, JSON.stringify(entry));
  await rename(temporary, join(folder, 'entry.json'));
}

/** Move a file (a rename, or a copy where it crosses file systems); its size. */
async function moveFile(from: string, to: string): Promise<number> {
  try {
    await rename(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    await writeFile(to, await readFile(from));
    await rm(from, { force: true });
  }
  return (await stat(to)).size;
}
