// Selenium Grid's managed downloads (not W3C): a session created with `se:downloadsEnabled: true`
// has its downloads saved into a folder of its own (commands/session.ts sets it up), which goes
// with the session. GET /session/{id}/se/files lists the finished ones ({names}), POST with
// {name} answers one as a base64 ZIP archive ({filename, contents}), DELETE removes the finished
// ones. Selenium's clients (get_downloadable_files, download_file, delete_downloadable_files)
// use these.
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { error } from '../errors.ts';
import { p } from '../params.ts';
import type { Session } from '../session.ts';
import { writeZip } from '../zip.ts';
import { sessionCommand } from './types.ts';

/** The largest download answered (base64 in a JSON body): ZIP without ZIP64 stops at 4 GiB anyway. */
const MAX_DOWNLOAD_BYTES = 256 * 1024 * 1024;

function folderOf(session: Session): string {
  if (!session.downloads) {
    throw error('unsupported operation', 'downloads are not kept for this session: ask for "se:downloadsEnabled": true in New Session');
  }
  return session.downloads;
}

async function finished(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  return entries
    // A download appears in the folder only once finished (unfinished ones are in a subfolder).
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort();
}

// None touches a page: an open user prompt stays for the next command.
export const getDownloadableFiles = sessionCommand({
  handlesUserPrompts: false,
  async handler({ session }) {
    return { names: await finished(folderOf(session)) };
  },
});

export const downloadFile = sessionCommand({
  params: p.object({ name: p.string }),
  handlesUserPrompts: false,
  async handler({ session }, { name }) {
    const folder = folderOf(session);
    // Only a name the listing gives: never a path, so nothing outside the folder is reachable.
    if (!(await finished(folder)).includes(name)) {
      throw error('invalid argument', `name: no finished download is called ${JSON.stringify(name)} (GET /session/{id}/se/files lists them)`);
    }
    const path = join(folder, name);
    const info = await stat(path);
    if (info.size > MAX_DOWNLOAD_BYTES) {
      throw error('unsupported operation', `${name} is ${info.size} bytes; downloads larger than ${MAX_DOWNLOAD_BYTES} bytes are not answered`);
    }
    return { filename: name, contents: writeZip(name, await readFile(path), info.mtime).toString('base64') };
  },
});

export const deleteDownloadableFiles = sessionCommand({
  handlesUserPrompts: false,
  async handler({ session }) {
    const folder = folderOf(session);
    // The finished ones: downloads in progress go on (and are listed once finished).
    for (const name of await finished(folder)) await rm(join(folder, name), { force: true });
    return null;
  },
});
