// A small, strict reader for ZIP archives (APPNOTE.TXT), enough for Selenium's remote file
// upload: clients zip one file (stored or deflated) and send it base64-encoded. Everything about
// the archive is checked against the untrusted bytes: structure, sizes (zip bombs), CRC-32 and
// entry names (zip slip). Any failure is a ZipError saying what is wrong.
import * as zlib from 'node:zlib';

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
    const extraLength = archive.readUInt16LE(at + 30);
    const commentLength = archive.readUInt16LE(at + 32);
    const startDisk = archive.readUInt16LE(at + 34);
    const localOffset = archive.readUInt32LE(at + 42);
    const next = at + CENTRAL_SIZE + nameLength + extraLength + commentLength;
    if (next > centralOffset + centralSize) throw new ZipError(`central directory entry ${i + 1} runs past the directory`);
    const name = decodeName(archive.subarray(at + CENTRAL_SIZE, at + CENTRAL_SIZE + nameLength), (flags & FLAG_UTF8) !== 0);
    at = next;

    checkName(name);
    if (names.has(name)) throw new ZipError(`the archive holds ${JSON.stringify(name)} twice`);
    names.add(name);
    if (flags & FLAG_ENCRYPTED) throw new ZipError(`${JSON.stringify(name)} is encrypted`);
    if (startDisk !== 0) throw new ZipError('multi-part archives are not supported');
    if (size === 0xffffffff || compressedSize === 0xffffffff || localOffset === 0xffffffff) {
      throw new ZipError('ZIP64 archives are not supported');
    }
    if (size > limits.maxEntryBytes || compressedSize > limits.maxEntryBytes) {
      throw new ZipError(`${JSON.stringify(name)} is larger than ${limits.maxEntryBytes} bytes`);
    }
    total += size;
    if (total > limits.maxTotalBytes) throw new ZipError(`the archive's files are larger than ${limits.maxTotalBytes} bytes together`);

    // The local header: its own name and extra field lengths say where the data starts.
    if (localOffset + LOCAL_SIZE > centralOffset || archive.readUInt32LE(localOffset) !== LOCAL_SIGNATURE) {
      throw new ZipError(`the local header of ${JSON.stringify(name)} is missing or corrupt`);
    }
    const dataStart = localOffset + LOCAL_SIZE + archive.readUInt16LE(localOffset + 26) + archive.readUInt16LE(localOffset + 28);
    const dataEnd = dataStart + compressedSize;
    if (dataEnd > centralOffset) throw new ZipError(`the data of ${JSON.stringify(name)} runs past the archive (truncated?)`);
    const raw = archive.subarray(dataStart, dataEnd);

    const directory = name.endsWith('/');
    const data = uncompress(raw, method, size, name);
    if (directory && data.length !== 0) throw new ZipError(`the directory entry ${JSON.stringify(name)} holds data`);
    if (crc32(data) !== crc) throw new ZipError(`the CRC-32 of ${JSON.stringify(name)} does not match: the archive is corrupt`);
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

function uncompress(raw: Buffer, method: number, size: number, name: string): Buffer {
  let data: Buffer;
  if (method === STORED) {
    data = raw;
  } else if (method === DEFLATED) {
    try {
      // Never more than the declared size (+1 to notice a lie): a zip bomb stops here.
      data = zlib.inflateRawSync(raw, { maxOutputLength: size + 1 });
    } catch (e) {
      const tooLarge = (e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE';
      throw new ZipError(`${JSON.stringify(name)} ${tooLarge ? 'inflates past its declared size' : 'is not valid deflate data'}`);
    }
  } else {
    throw new ZipError(`${JSON.stringify(name)} uses compression method ${method}; only stored (0) and deflate (8) are supported`);
  }
  if (data.length !== size) throw new ZipError(`${JSON.stringify(name)} has ${data.length} bytes, not the ${size} its header declares`);
  return data;
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

/** CRC-32 (ISO 3309), as ZIP stores it. zlib.crc32 where Node has it (20.15+), else a table. */
export const crc32: (data: Uint8Array) => number =
  typeof (zlib as { crc32?: unknown }).crc32 === 'function'
    ? (data) => (zlib as unknown as { crc32(d: Uint8Array): number }).crc32(data)
    : tableCrc32;

let table: Uint32Array | undefined;
function tableCrc32(data: Uint8Array): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const byte of data) crc = table[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * An archive of one file, deflated (Grid's managed downloads answer one file this way). Sizes
 * past 4 GiB would need ZIP64: the caller refuses files that large.
 */
export function writeZip(name: string, data: Buffer, modified: Date): Buffer {
  const nameBytes = Buffer.from(name, 'utf8');
  const compressed = zlib.deflateRawSync(data);
  const crc = crc32(data);
  // MS-DOS date and time, local time, two-second resolution.
  const time = (modified.getHours() << 11) | (modified.getMinutes() << 5) | (modified.getSeconds() >> 1);
  const date = (Math.max(modified.getFullYear() - 1980, 0) << 9) | ((modified.getMonth() + 1) << 5) | modified.getDate();
  const local = Buffer.alloc(LOCAL_SIZE);
  local.writeUInt32LE(LOCAL_SIGNATURE, 0);
  local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
  local.writeUInt16LE(FLAG_UTF8, 6);
  local.writeUInt16LE(DEFLATED, 8);
  local.writeUInt16LE(time, 10);
  local.writeUInt16LE(date, 12);
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(compressed.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const central = Buffer.alloc(CENTRAL_SIZE);
  central.writeUInt32LE(CENTRAL_SIGNATURE, 0);
  central.writeUInt16LE(20, 4); // made by: 2.0
  local.copy(central, 6, 4, 30); // version needed through name length: the same fields
  central.writeUInt32LE(0, 42); // the local header is at offset 0
  const eocd = Buffer.alloc(EOCD_SIZE);
  eocd.writeUInt32LE(EOCD_SIGNATURE, 0);
  eocd.writeUInt16LE(1, 8);
  eocd.writeUInt16LE(1, 10);
  eocd.writeUInt32LE(CENTRAL_SIZE + nameBytes.length, 12);
  eocd.writeUInt32LE(LOCAL_SIZE + nameBytes.length + compressed.length, 16);
  return Buffer.concat([local, nameBytes, compressed, central, nameBytes, eocd]);
}
