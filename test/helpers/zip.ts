// A minimal ZIP writer for tests (what Selenium clients send to /se/file), with knobs to build
// broken archives: wrong CRC, lying sizes, other methods, flags.
import { deflateRawSync } from 'node:zlib';
import { crc32 } from '../../src/webdriver/zip.ts';

export interface TestEntry {
  name: string | Buffer;
  data?: Buffer | string;
  /** 0 stored, 8 deflate (default), or anything else to test refusal. */
  method?: number;
  /** Override what the headers declare. */
  crc?: number;
  size?: number;
  flags?: number;
  /** The bytes as stored, in place of `data` compressed by `method` (a hand-made deflate stream). */
  stored?: Buffer;
}

export function makeZip(entries: TestEntry[], options: { comment?: string } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = Buffer.from(entry.data ?? '');
    const method = entry.method ?? 8;
    const stored = entry.stored ?? (method === 8 ? deflateRawSync(data) : data);
    const name = Buffer.isBuffer(entry.name) ? entry.name : Buffer.from(entry.name, 'utf8');
    const flags = entry.flags ?? (Buffer.isBuffer(entry.name) ? 0 : 0x0800);
    const crc = entry.crc ?? crc32(data);
    const size = entry.size ?? data.length;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(stored.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, stored);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(flags, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(stored.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + stored.length;
  }
  const directory = Buffer.concat(centrals);
  const comment = Buffer.from(options.comment ?? '');
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  end.writeUInt16LE(comment.length, 20);
  return Buffer.concat([...locals, directory, end, comment]);
}

/** Base64 the way Python's base64.encodebytes does (Selenium's LocalFileDetector): 76-char lines. */
export function mimeBase64(data: Buffer): string {
  return (data.toString('base64').match(/.{1,76}/g) ?? []).join('\n') + '\n';
}
