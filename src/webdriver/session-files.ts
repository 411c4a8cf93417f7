// What one session may reach of the machine's files (backends/policy/files.ts), with its own
// folder: made below the gateway's tempDir on first use (an upload, a download, a file copied for
// its browser), the browsers' user's, and removed when the session ends. Driven and pass-through
// sessions alike.
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { giveToBrowsers, type SessionFiles } from '../../backends/policy/index.ts';

/** Per-session temporary directories (uploads): `<prefix><gateway pid>-<random>`. */
export const SESSION_DIR_PREFIX = 'wdgate-session-';

/** What a session's principal and the operator let it reach; where its own folder goes. */
export interface SessionReach {
  files: boolean;
  directories: string[] | null;
  tempDir: string;
}

export class OwnFiles implements SessionFiles {
  readonly files: boolean;
  readonly directories: string[] | null;
  readonly #base: string;
  #dir: Promise<string> | undefined;

  constructor(reach: SessionReach) {
    this.files = reach.files;
    this.directories = reach.directories;
    this.#base = reach.tempDir;
  }

  /** The session's own folder, made now if it has none yet. */
  makeOwnDirectory(): Promise<string> {
    this.#dir ??= mkdtemp(join(this.#base, `${SESSION_DIR_PREFIX}${process.pid}-`)).then(async (dir) => {
      await giveToBrowsers(dir);
      return dir;
    });
    return this.#dir;
  }

  /** The folder, if one was made. */
  async ownDirectory(): Promise<string | undefined> {
    return this.#dir?.catch(() => undefined);
  }

  /** Remove the folder and all in it (when the session ends). Never throws. */
  async remove(): Promise<void> {
    const dir = await this.ownDirectory();
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}
