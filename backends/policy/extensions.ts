// Chrome extensions a session brings (goog:chromeOptions.extensions: CRX files, base64), when the
// operator allows them (`extensions.allowInstall`): unpacked as chromedriver does (the CRX header
// skipped, the ZIP after it read: no signature is checked, as an unpacked extension has none),
// each entry checked (no path out of its directory, sizes bounded), and no permission that reaches
// the machine: native messaging runs programs installed on it, and the debugger API drives pages
// past the gateway's URL checks. An extension sees the whole browser, so it loads only into a
// browser of the session's own (the backend decides that).
import { createHash } from 'node:crypto';
import { InvalidCapabilityError } from '../backend.ts';
import { readZip, ZipError, type ZipEntry } from '../zip.ts';

/** Bounds of one archive a session sends (an extension, a Firefox profile). */
export const ARCHIVE_LIMITS = { maxEntries: 10_000, maxEntryBytes: 32 * 1024 * 1024, maxTotalBytes: 64 * 1024 * 1024 };

/** Permissions refused, with why. */
const REFUSED_PERMISSIONS: Record<string, string> = {
  nativeMessaging: 'it runs programs installed on the machine',
  debugger: "it drives pages through the browser's protocol, past the gateway's checks",
};

/** Base64 as clients send it (line breaks allowed), strictly: text that is not base64 is refused, not half decoded. */
export function decodeBase64(text: string, field: string): Buffer {
  const compact = text.replace(/[\r\n\t ]/g, '');
  if (compact === '' || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) throw new InvalidCapabilityError(`${field}: cannot base64 decode`);
  return Buffer.from(compact, 'base64');
}

/** A CRX (version 2 or 3) or a plain ZIP: its entries, checked. */
export function unpackExtension(data: Buffer, field: string): ZipEntry[] {
  let zip = data;
  if (data.subarray(0, 4).toString('latin1') === 'Cr24') {
    if (data.length < 12) throw new InvalidCapabilityError(`${field}: a truncated CRX header`);
    const version = data.readUInt32LE(4);
    // CRX2: public key and signature lengths; CRX3: one header length (a protobuf).
    const headerEnd = version === 2 ? 16 + data.readUInt32LE(8) + (data.length >= 16 ? data.readUInt32LE(12) : 0) : version === 3 ? 12 + data.readUInt32LE(8) : -1;
    if (headerEnd < 0) throw new InvalidCapabilityError(`${field}: CRX version ${version} is not supported (2 or 3)`);
    if (headerEnd > data.length) throw new InvalidCapabilityError(`${field}: a truncated CRX header`);
    zip = data.subarray(headerEnd);
  }
  let entries: ZipEntry[];
  try {
    entries = readZip(zip, ARCHIVE_LIMITS);
  } catch (e) {
    if (e instanceof ZipError) throw new InvalidCapabilityError(`${field}: not an extension archive: ${e.message}`);
    throw e;
  }
  const manifestEntry = entries.find((e) => e.name === 'manifest.json');
  if (!manifestEntry) throw new InvalidCapabilityError(`${field}: the extension has no manifest.json`);
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(manifestEntry.data.toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    throw new InvalidCapabilityError(`${field}: its manifest.json is not JSON`);
  }
  const asked = [manifest.permissions, manifest.optional_permissions].flatMap((list) => (Array.isArray(list) ? list : []));
  for (const permission of asked) {
    if (typeof permission === 'string' && Object.hasOwn(REFUSED_PERMISSIONS, permission)) {
      throw new InvalidCapabilityError(`${field}: the extension asks for the "${permission}" permission, which is refused: ${REFUSED_PERMISSIONS[permission]}`);
    }
  }
  return entries;
}

/** An unpacked extension's digest: part of the pool key, so that a browser is only ever given the extensions it was started with. */
export function extensionDigest(entries: readonly ZipEntry[]): string {
  const hash = createHash('sha256');
  for (const { name, data } of entries) hash.update(name).update('\0').update(String(data.length)).update('\0').update(data);
  return hash.digest('hex');
}
