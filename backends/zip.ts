// Reading ZIP archives (APPNOTE.TXT) a client sends: Selenium's remote file upload (one file,
// stored or deflated, base64-encoded) and geckodriver's moz:firefoxOptions.profile (a profile
// directory). fflate inflates. The reader walks the central directory itself: every byte of an
// upload is untrusted, and fflate's unzipSync trusts them (it reads offsets past the end as
// zeros, inflates a lying entry to its very end, checks no CRC or flag, and keys entries by name
// in a plain object). Everything is checked: structure, sizes (zip bombs), CRC-32, flags and entry
// names (zip slip). Any failure is a ZipError saying what is wrong.
import { crc32 as zlibCrc32 } from 'node:zlib';
import { Inflate } from 'fflate';

export class ZipError extends Error {}

export interface ZipEntry {
  /** The entry's name, as stored ('/'-separated, relative; checked: no '..', no absolute path). */
  name: string;
  /** A directory entry (its name ends with '/'); its data is empty. */
  directory: boolean;
  data: Buffer;
}

export interface ZipLimits {
  /** Most bytes one entry may hold, compressed or not. */
  maxEntryBytes: number;
  /** Most bytes all entries together may hold once uncompressed. */
  maxTotalBytes: number;
  /** Most entries (directories included). */
  maxEntries: number;
}

// Records (APPNOTE 4.3.16 end of central directory, 4.3.12 central, 4.3.7 local file header).
const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const EOCD_SIZE = 22;
const CENTRAL_SIZE = 46;
const LOCAL_SIZE = 30;
const MAX_COMMENT = 0xffff;

const STORED = 0;
const DEFLATED = 8;
const FLAG_ENCRYPTED = 0x0001;
const FLAG_UTF8 = 0x0800;

/** Read every entry of `archive`, checking it whole. */
export function readZip(archive: Buffer, limits: ZipLimits): ZipEntry[] {
  const eocd = findEndOfCentralDirectory(archive);
  const diskNumber = archive.readUInt16LE(eocd + 4);
  const centralDisk = archive.readUInt16LE(eocd + 6);
  const entriesOnDisk = archive.readUInt16LE(eocd + 8);
  const count = archive.readUInt16LE(eocd + 10);
  const centralSize = archive.readUInt32LE(eocd + 12);
  const centralOffset = archive.readUInt32LE(eocd + 16);
  if (count === 0xffff || centralSize === 0xffffffff || centralOffset === 0xffffffff) {
    throw new ZipError('ZIP64 archives are not supported');
  }
  if (diskNumber !== 0 || centralDisk !== 0 || entriesOnDisk !== count) throw new ZipError('multi-part archives are not supported');
  if (centralOffset + centralSize > eocd) throw new ZipError('the central directory lies outside the archive (truncated?)');
  if (count > limits.maxEntries) throw new ZipError(`the archive has ${count} entries, more than ${limits.maxEntries}`);

  const entries: ZipEntry[] = [];
  const names = new Set<string>();
  let total = 0;
  let at = centralOffset;
  for (let i = 0; i < count; i++) {
    if (at + CENTRAL_SIZE > centralOffset + centralSize || archive.readUInt32LE(at) !== CENTRAL_SIGNATURE) {
      throw new ZipError(`central directory entry ${i + 1} of ${count} is missing or corrupt`);
    }
    const flags = archive.readUInt16LE(at + 8);
    const method = archive.readUInt16LE(at + 10);
    const crc = archive.readUInt32LE(at + 16);
    const compressedSize = archive.readUInt32LE(at + 20);
    const size = archive.readUInt32LE(at + 24);
    const nameLength = archive.readUInt16LE(at + 28);
    const next = at + CENTRAL_SIZE + nameLength + archive.readUInt16LE(at + 30) + archive.readUInt16LE(at + 32);
    const startDisk = archive.readUInt16LE(at + 34);
    const localOffset = archive.readUInt32LE(at + 42);
    if (next > centralOffset + centralSize) throw new ZipError(`central directory entry ${i + 1} runs past the directory`);
    const name = decodeName(archive.subarray(at + CENTRAL_SIZE, at + CENTRAL_SIZE + nameLength), (flags & FLAG_UTF8) !== 0);
    const quoted = JSON.stringify(name);
    at = next;

    checkName(name);
    if (names.has(name)) throw new ZipError(`the archive holds ${quoted} twice`);
    names.add(name);
    if (flags & FLAG_ENCRYPTED) throw new ZipError(`${quoted} is encrypted`);
    if (startDisk !== 0) throw new ZipError('multi-part archives are not supported');
    if (size === 0xffffffff || compressedSize === 0xffffffff || localOffset === 0xffffffff) {
      throw new ZipError('ZIP64 archives are not supported');
    }
    if (size > limits.maxEntryBytes || compressedSize > limits.maxEntryBytes) {
      throw new ZipError(`${quoted} is larger than ${limits.maxEntryBytes} bytes`);
    }
    total += size;
    if (total > limits.maxTotalBytes) throw new ZipError(`the archive's files are larger than ${limits.maxTotalBytes} bytes together`);

    // The local header: its own name and extra field lengths say where the data starts.
    if (localOffset + LOCAL_SIZE > centralOffset || archive.readUInt32LE(localOffset) !== LOCAL_SIGNATURE) {
      throw new ZipError(`the local header of ${quoted} is missing or corrupt`);
    }
    const dataStart = localOffset + LOCAL_SIZE + archive.readUInt16LE(localOffset + 26) + archive.readUInt16LE(localOffset + 28);
    if (dataStart + compressedSize > centralOffset) throw new ZipError(`the data of ${quoted} runs past the archive (truncated?)`);
    const raw = archive.subarray(dataStart, dataStart + compressedSize);

    let data: Buffer;
    if (method === STORED) data = raw;
    else if (method === DEFLATED) data = inflate(raw, size, quoted);
    else throw new ZipError(`${quoted} uses compression method ${method}; only stored (0) and deflate (8) are supported`);
    if (data.length !== size) throw new ZipError(`${quoted} has ${data.length} bytes, not the ${size} its header declares`);
    const directory = name.endsWith('/');
    if (directory && data.length !== 0) throw new ZipError(`the directory entry ${quoted} holds data`);
    if (crc32(data) !== crc) throw new ZipError(`the CRC-32 of ${quoted} does not match: the archive is corrupt`);
    entries.push({ name, directory, data });
  }
  return entries;
}

/** The end of central directory record: the last signature whose comment ends the archive. */
function findEndOfCentralDirectory(archive: Buffer): number {
  if (archive.length < EOCD_SIZE) throw new ZipError('not a ZIP archive (too short)');
  const lowest = Math.max(0, archive.length - EOCD_SIZE - MAX_COMMENT);
  for (let at = archive.length - EOCD_SIZE; at >= lowest; at--) {
    if (archive.readUInt32LE(at) === EOCD_SIGNATURE && at + EOCD_SIZE + archive.readUInt16LE(at + 20) === archive.length) return at;
  }
  throw new ZipError('not a ZIP archive (no end of central directory record)');
}

/**
 * Deflate expands a byte at most 1032-fold, so fflate is fed a slice at a time: data inflating
 * past its declared size (a zip bomb) is refused after at most one slice's worth (8 MiB), not
 * inflated to its end as fflate's inflateSync into a buffer of the declared size would. (Smaller
 * slices cost more per byte: 8 KiB was the balance measured on 10 MB files and on a bomb.)
 */
const INFLATE_SLICE = 8 * 1024;

function inflate(raw: Buffer, size: number, quoted: string): Buffer {
  const data = Buffer.allocUnsafe(size);
  let length = 0;
  const inflater = new Inflate((chunk) => {
    if (length + chunk.length > size) throw new ZipError(`${quoted} inflates past its declared size`);
    data.set(chunk, length);
    length += chunk.length;
  });
  try {
    for (let at = 0; ; at += INFLATE_SLICE) {
      const last = at + INFLATE_SLICE >= raw.length;
      inflater.push(raw.subarray(at, at + INFLATE_SLICE), last);
      if (last) break;
    }
  } catch (e) {
    if (e instanceof ZipError) throw e;
    throw new ZipError(`${quoted} is not valid deflate data (${(e as Error).message})`);
  }
  return data.subarray(0, length);
}

/** Entry names must stay inside the directory they are unpacked into (no "zip slip"). */
function checkName(name: string): void {
  const bad = (why: string): never => {
    throw new ZipError(`unsafe entry name ${JSON.stringify(name)}: ${why}`);
  };
  if (name === '' || name === '/') bad('empty');
  if (name.includes('\0')) bad('contains NUL');
  if (name.includes('\\')) bad('contains a backslash');
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) bad('absolute path');
  const segments = (name.endsWith('/') ? name.slice(0, -1) : name).split('/');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..') bad('empty, "." or ".." path segment');
  }
}

/** Names are UTF-8 when flagged (bit 11), else IBM code page 437 (APPNOTE appendix D). */
function decodeName(bytes: Buffer, utf8: boolean): string {
  if (utf8) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new ZipError('an entry name is not valid UTF-8');
    }
  }
  let out = '';
  for (const b of bytes) out += b < 0x80 ? String.fromCharCode(b) : CP437_HIGH[b - 0x80];
  return out;
}

const CP437_HIGH =
  'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0';

/** CRC-32 (ISO 3309), as ZIP stores it (node:zlib has it from Node 20.15). */
export function crc32(data: Uint8Array): number {
  return zlibCrc32(data);
}
