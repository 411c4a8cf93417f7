// Small helpers more than one backend needs: reading vendor options out of capabilities, a
// browser binary's version, and a cookie as the W3C layer takes it.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { InvalidCapabilityError, type CookieData } from './backend.ts';

/** A vendor options object of the capabilities (`goog:chromeOptions` ...); {} when absent. */
export function vendorObject(caps: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = caps[key];
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidCapabilityError(`${key} must be an object`);
  return value as Record<string, unknown>;
}

/** An array of strings at `path` ([] when absent). */
export function stringArray(value: unknown, path: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new InvalidCapabilityError(`${path} must be an array of strings`);
  return value;
}

const execFileAsync = promisify(execFile);

/** The version a browser binary reports (`--version`), or undefined when it cannot run. */
export async function probeVersion(binary: string): Promise<string | undefined> {
  try {
    const { stdout } = await execFileAsync(binary, ['--version'], { timeout: 10_000 });
    return /(\d+(\.\d+)+)/.exec(stdout)?.[1];
  } catch {
    return undefined;
  }
}

/** A browser's cookie as the W3C layer takes it: an expiry only for a cookie that is not a session cookie. */
export function cookieData(c: { name: string; value: string; path: string; domain: string; secure: boolean; httpOnly: boolean; expires: number; session?: boolean; sameSite?: string }): CookieData {
  return {
    name: c.name,
    value: c.value,
    path: c.path,
    domain: c.domain,
    secure: c.secure,
    httpOnly: c.httpOnly,
    ...(!c.session && c.expires > 0 && { expiry: Math.floor(c.expires) }),
    sameSite: (c.sameSite ?? 'Lax') as CookieData['sameSite'],
  };
}
