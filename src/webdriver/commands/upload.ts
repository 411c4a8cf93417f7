// Selenium Grid's remote file upload (not W3C): POST /session/{id}/se/file {file: base64 of a ZIP
// archive holding one file}. Clients (Python's LocalFileDetector, Java's, JavaScript's
// FileDetector) send a local file this way, then type the answered path into an
// <input type=file>. As Grid does, each upload is unpacked into a fresh directory inside the
// session's temporary directory, which goes when the session ends.
import { giveToBrowsers } from '../../../backends/policy/index.ts';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { error } from '../errors.ts';
import { p } from '../params.ts';
import { readZip, ZipError, type ZipEntry } from '../zip.ts';
import { sessionCommand } from './types.ts';

const MiB = 1024 * 1024;
/** Per upload, once unpacked (the request body limit, --max-body-bytes, bounds the archive). */
const UPLOAD_LIMITS = { maxEntryBytes: 64 * MiB, maxTotalBytes: 64 * MiB, maxEntries: 64 };

/**
 * Base64 as clients send it: Python's base64.encodebytes breaks lines every 76 characters, so
 * whitespace is ignored; anything else outside the alphabet is refused (Buffer.from would skip it).
 */
function decodeBase64(text: string): Buffer {
  const compact = text.replace(/[\t\n\f\r ]+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) {
    throw error('invalid argument', 'file must be the base64 encoding of a ZIP archive');
  }
  return Buffer.from(compact, 'base64');
}

/** Grid: "Expected there to be only 1 file"; directory entries alone do not count. */
function theOneFile(entries: ZipEntry[]): ZipEntry {
  const files = entries.filter((e) => !e.directory);
  if (files.length !== 1) {
    throw error('invalid argument', `the ZIP archive must hold exactly one file; it holds ${files.length}`);
  }
  return files[0]!;
}

export const uploadFile = sessionCommand({
  params: p.object({ file: p.string }),
  // It touches no page: an open user prompt stays for the next command.
  handlesUserPrompts: false,
  async handler({ gateway, session }, { file }) {
    let entry: ZipEntry;
    try {
      entry = theOneFile(readZip(decodeBase64(file), UPLOAD_LIMITS));
    } catch (e) {
      if (e instanceof ZipError) throw error('invalid argument', `file: ${e.message}`);
      throw e;
    }
    const sessionDir = await session.files.makeOwnDirectory();
    const uploadDir = await mkdtemp(join(sessionDir, 'upload-'));
    const path = resolve(uploadDir, entry.name);
    // readZip refused names that leave the directory; this guards the guard.
    if (!path.startsWith(uploadDir + sep)) throw error('invalid argument', `file: unsafe entry name ${JSON.stringify(entry.name)}`);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, entry.data, { flag: 'wx' });
    // The browser reads it: the browsers' user's (backends/policy/browser-user.ts).
    await giveToBrowsers(uploadDir);
    // The session ended meanwhile (its browser went away): leave nothing behind.
    if (session.ended) {
      await rm(sessionDir, { recursive: true, force: true });
      throw error('invalid session id', `session ${session.id} has ended`);
    }
    return path;
  },
});
