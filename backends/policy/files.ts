// Which files of the machine a session may hand to a page (file inputs: W3C Element Send Keys,
// BiDi input.setFiles, CDP DOM.setFileInputFiles, a drag's files) and which directories its
// browser may write into (downloads). A session's own files are always its own: what it uploaded
// (/se/file) and what it downloaded live in its session folder. Files elsewhere are the
// machine's: only for a principal the operator lets reach them (`files`), and then only inside
// the operator's `fileInputDirectories` when that list is set.
import { access, copyFile, mkdtemp, realpath } from 'node:fs/promises';
import { basename, join, resolve, sep } from 'node:path';
import { browserIdentity, giveToBrowsers, readableByBrowsers } from './browser-user.ts';
import type { Reach } from './urls.ts';

/** What one session may reach of the machine's files. */
export interface SessionFiles extends Reach {
  /** The session's own folder (uploads, downloads), once it has one. */
  ownDirectory(): Promise<string | undefined>;
  /** The session's own folder, made now if it has none yet. */
  makeOwnDirectory(): Promise<string>;
  /** The operator's directories file inputs may read (real paths); null: anywhere, for a principal with `files`. */
  directories: string[] | null;
}

const inside = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/**
 * The gateway's own files (its secrets, its history and recordings; real paths): no file input
 * gets them, whoever the principal. A file the browsers' user cannot read is copied for a principal
 * with `files` by the gateway, which can read these: without this, Send Keys would hand a page
 * every principal's token.
 */
const gatewayFiles = new Set<string>();

/** Keep these files and directories (each with what is in it) from every session's file inputs. */
export async function keepFromSessions(paths: readonly (string | null | undefined)[]): Promise<void> {
  for (const path of paths) if (path) gatewayFiles.add(await realpath(path).catch(() => resolve(path)));
}

/** The directories `files` may read from, real paths; null: anywhere. */
async function readableDirectories(files: SessionFiles): Promise<string[] | null> {
  const own = await files.ownDirectory();
  const ownReal = own === undefined ? [] : [await realpath(own).catch(() => own)];
  if (files.files) return files.directories === null ? null : [...files.directories, ...ownReal];
  return [...(files.directories ?? []), ...ownReal];
}

/**
 * Each path resolved and checked: it must exist, and its real path (symbolic links followed) must
 * lie in a directory the session may read. Throws a FileRefusal naming the first that does not.
 */
export async function checkReadableFiles(paths: readonly string[], files: SessionFiles): Promise<string[]> {
  const allowed = await readableDirectories(files);
  const own = await files.ownDirectory();
  return Promise.all(
    paths.map(async (file) => {
      if (file === '') throw new FileRefusal('a file path is empty');
      const path = resolve(file);
      let real: string;
      try {
        await access(path);
        real = await realpath(path);
      } catch {
        // Without `files`, a missing file outside the session's directories is refused as an
        // existing one there is: whether a file exists on the machine is none of its business.
        if (!files.files && allowed && ![...allowed, ...(own ? [own] : [])].some((dir) => inside(path, dir))) throw notTheSessions(file, allowed);
        throw new FileRefusal(`file not found: ${file}`);
      }
      if (allowed && !allowed.some((dir) => inside(real, dir))) {
        throw files.files ? new FileRefusal(`file ${file} is outside the directories file inputs may read (fileInputDirectories: ${allowed.join(', ')})`) : notTheSessions(file, allowed);
      }
      // (After the check above: a principal without `files` learns nothing of which files these are.)
      if ([...gatewayFiles].some((kept) => inside(real, kept))) {
        throw new FileRefusal(`file ${file} is the gateway's own (its secrets, history or recordings): no session may give it to a page`);
      }
      return path;
    }),
  );
}

function notTheSessions(file: string, allowed: string[]): FileRefusal {
  const others = allowed.length > 1 ? ` or files in ${allowed.slice(0, -1).join(', ')}` : '';
  return new FileRefusal(`file ${file} is not this session's: a session may give a page the files it uploaded (/se/file)${others}; this principal may not reach the machine's other files`);
}

/**
 * The files, checked, as the browser can read them: a file the browsers' user cannot read (the
 * gateway runs as root, the file is in a directory of root's) is copied into the session's own
 * folder, under its own name, and that copy is what the page gets — the session may reach the
 * file (`checkReadableFiles` said so); the browser runs as a user who may not, and would
 * otherwise hand the page an empty file.
 */
export async function filesForBrowser(paths: readonly string[], files: SessionFiles): Promise<string[]> {
  const checked = await checkReadableFiles(paths, files);
  return Promise.all(
    checked.map(async (path) => {
      if (!browserIdentity() || (await readableByBrowsers(path).catch(() => true))) return path;
      const staged = await mkdtemp(join(await files.makeOwnDirectory(), 'file-'));
      const copy = join(staged, basename(path));
      await copyFile(path, copy);
      await giveToBrowsers(staged);
      return copy;
    }),
  );
}

/**
 * For raw BiDi and CDP, whose parameters go to the browser as they are: the files checked, and each
 * readable by the browsers' user (else a FileRefusal saying how to hand it over instead).
 */
export async function checkFilesForRawCommand(paths: readonly string[], files: SessionFiles): Promise<void> {
  for (const path of await checkReadableFiles(paths, files)) {
    if (browserIdentity() && !(await readableByBrowsers(path).catch(() => true))) {
      throw new FileRefusal(`file ${path} cannot be read by the browsers' user (${browserIdentity()!.name}): the page would get an empty file; upload it (/se/file) or give it with Element Send Keys, which copies it for the browser`);
    }
  }
}

/** Why the browser may not write into `dir` for this session (its own folder only), or null. */
export async function directoryRefusal(dir: string, files: SessionFiles): Promise<string | null> {
  if (files.files) return null;
  const own = await files.ownDirectory();
  const real = await realpath(resolve(dir)).catch(() => resolve(dir));
  if (own !== undefined && inside(real, await realpath(own).catch(() => own))) return null;
  return `the browser may write only into the session's own folder (${dir} is not); downloads go there with se:downloadsEnabled, and /se/files lists them`;
}

export class FileRefusal extends Error {}
