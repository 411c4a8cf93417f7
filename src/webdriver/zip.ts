// ZIP archives for Selenium's file commands: remote file upload reads one (the reader is
// backends/zip.ts, which geckodriver's profiles use too), managed downloads write one.
import { Zip, ZipDeflate } from 'fflate';

export { crc32, readZip, ZipError, type ZipEntry, type ZipLimits } from '../../backends/zip.ts';

/**
 * An archive of one file, deflated (Grid's managed downloads answer one file this way). Sizes
 * past 4 GiB would need ZIP64: the caller refuses files that large. fflate's Zip rather than
 * zipSync, which takes names as an object's keys (a download may be called "__proto__"); its
 * sizes follow the data (a data descriptor, as in Grid's own answers from Java's ZipOutputStream).
 */
export function writeZip(name: string, data: Buffer, modified: Date): Buffer {
  const chunks: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    chunks.push(chunk);
  });
  const file = new ZipDeflate(name, { level: 6 });
  file.mtime = inDosRange(modified);
  zip.add(file);
  file.push(data, true);
  zip.end();
  return Buffer.concat(chunks);
}

/** ZIP stores MS-DOS times (local time, 1980 on; fflate refuses years past 2099): clamp to them. */
function inDosRange(time: Date): Date {
  const first = new Date(1980, 0, 1);
  const last = new Date(2099, 11, 31, 23, 59, 58);
  return time < first ? first : time > last ? last : time;
}
