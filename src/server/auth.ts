// Who is asking: tokens are principals. A request carries a token as `Authorization: Bearer
// <token>` or as the password of HTTP Basic (what Selenium clients send for
// http://user:token@host:port); the token names a principal, which owns the sessions it creates
// and may have its own session limit. Without a token a loopback peer is the "local" principal.
import { createHash, timingSafeEqual } from 'node:crypto';

import { LOCAL, type Principal } from '../base/principal.ts';

export { LOCAL, LOCAL_WITH_TOKENS, type Principal } from '../base/principal.ts';

export interface TokenEntry extends Principal {
  token: string;
}

export class TokenFileError extends Error {}

/** The largest share a principal may have (shares weigh turns in the queue: 1 to this). */
export const MAX_SHARE = 1000;

/**
 * A token file: one token per line, either the token alone or `name token max-sessions`
 * separated by spaces, optionally followed by `admin` (the admin API, every principal's
 * sessions), `share=N` (its weight when principals wait for slots in turn), `files` (its
 * sessions may reach the machine's files: file: URLs, file inputs anywhere) and `relay` (a
 * Selenium Grid relay node: it opens sessions for the principals its clients prove), in any
 * order; blank lines and `#` comments are ignored. Errors name the line, never the token.
 */
export function parseTokenFile(text: string, file: string): TokenEntry[] {
  const entries: TokenEntry[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const fields = line.split(/\s+/);
    const where = `${file} line ${i + 1}`;
    if (fields.length === 1) {
      entries.push({ name: `token${entries.length + 1}`, token: fields[0]!, maxSessions: null, admin: false, share: 1 });
    } else if (fields.length >= 3 && fields.length <= 7) {
      const [name, token, max, ...flags] = fields as [string, string, string, ...string[]];
      if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new TokenFileError(`${where}: the name may hold letters, digits, ".", "_" and "-" only`);
      if (!/^[1-9]\d{0,5}$/.test(max)) throw new TokenFileError(`${where}: max-sessions must be a positive integer`);
      let admin = false;
      let files = false;
      let relay = false;
      let share: number | undefined;
      for (const flag of flags) {
        const shareMatch = /^share=(\d+)$/.exec(flag);
        if (flag === 'admin' && !admin) admin = true;
        else if (flag === 'files' && !files) files = true;
        else if (flag === 'relay' && !relay) relay = true;
        else if (shareMatch && share === undefined) share = checkShare(Number(shareMatch[1]), where);
        else throw new TokenFileError(`${where}: after max-sessions only "admin", "files", "relay" and "share=N" may follow, once each`);
      }
      entries.push({ name, token, maxSessions: Number(max), admin, share: share ?? 1, ...(files && { files }), ...(relay && { relay }) });
    } else {
      throw new TokenFileError(`${where}: expected "token", or "name token max-sessions" optionally followed by "admin", "files", "relay" and "share=N"`);
    }
  });
  checkTokens(entries, file);
  return entries;
}

function checkShare(share: number, where: string): number {
  if (!Number.isInteger(share) || share < 1 || share > MAX_SHARE) throw new TokenFileError(`${where}: share must be an integer from 1 to ${MAX_SHARE}`);
  return share;
}

/** Tokens long enough to resist guessing, and names that tell principals apart. */
function checkTokens(entries: TokenEntry[], where: string): void {
  const names = new Set<string>();
  const tokens = new Set<string>();
  for (const { name, token } of entries) {
    if (token.length < 16) throw new TokenFileError(`${where}: the token of ${name} is shorter than 16 characters`);
    if (names.has(name) || name === LOCAL.name) throw new TokenFileError(`${where}: the name ${name} is used twice or is reserved`);
    if (tokens.has(token)) throw new TokenFileError(`${where}: the token of ${name} is also another principal's`);
    names.add(name);
    tokens.add(token);
  }
}

const digest = (s: string) => createHash('sha256').update(s).digest();

export class Tokens {
  readonly #entries: { principal: Principal; digest: Buffer }[];

  constructor(entries: TokenEntry[]) {
    this.#entries = entries.map(({ token, ...principal }) => ({ principal: Object.freeze(principal), digest: digest(token) }));
  }

  get configured(): boolean {
    return this.#entries.length > 0;
  }

  /** The principals. */
  principals(): Principal[] {
    return this.#entries.map((e) => e.principal);
  }

  /**
   * A principal by its name, with the key its clients sign a `wdgate:principal` proof with: the
   * SHA-256 of its token (./relay.ts; the token itself is not kept).
   */
  named(name: string): { principal: Principal; key: Buffer } | undefined {
    const entry = this.#entries.find((e) => e.principal.name === name);
    return entry && { principal: entry.principal, key: entry.digest };
  }

  /**
   * The principal an Authorization header names, or null. Every token is compared, in constant
   * time over equal-length digests, so the answer's timing tells nothing about any token.
   */
  authenticate(authorization: string): Principal | null {
    const presented = presentedToken(authorization);
    if (presented === null) return null;
    const candidate = digest(presented);
    let found: Principal | null = null;
    for (const entry of this.#entries) {
      if (timingSafeEqual(candidate, entry.digest) && found === null) found = entry.principal;
    }
    return found;
  }
}

/** The token in `Bearer <token>` or in Basic's `user:token`; null for anything else. */
function presentedToken(authorization: string): string | null {
  const match = /^(Bearer|Basic)\s+(\S+)\s*$/i.exec(authorization);
  if (!match) return null;
  if (match[1]!.toLowerCase() === 'bearer') return match[2]!;
  const decoded = Buffer.from(match[2]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? null : decoded.slice(colon + 1);
}

/** Where tokens come from: a token file, the WDGATE_TOKEN environment variable, the config file. */
export interface TokenSources {
  file: string | null;
  fileText?: string;
  env: string | undefined;
  list: (string | { name: string; token: string; maxSessions?: number; admin?: boolean; share?: number; files?: boolean; relay?: boolean })[];
}

/**
 * Every configured token as a principal: the file's, then WDGATE_TOKEN (named "default"), then
 * the config's. Tokens never come from the command line (they would show in `ps`).
 */
export function collectTokens(sources: TokenSources): Tokens {
  const entries: TokenEntry[] = [];
  if (sources.fileText !== undefined) entries.push(...parseTokenFile(sources.fileText, sources.file ?? 'the token file'));
  if (sources.env) entries.push({ name: 'default', token: sources.env.trim(), maxSessions: null, admin: false, share: 1 });
  for (const entry of sources.list) {
    entries.push(
      typeof entry === 'string'
        ? { name: `config${entries.length + 1}`, token: entry, maxSessions: null, admin: false, share: 1 }
        : {
            name: entry.name,
            token: entry.token,
            maxSessions: entry.maxSessions ?? null,
            admin: entry.admin === true,
            share: entry.share === undefined ? 1 : checkShare(entry.share, `authTokens (${entry.name})`),
            ...(entry.files === true && { files: true }),
            ...(entry.relay === true && { relay: true }),
          },
    );
  }
  checkTokens(entries, 'tokens (token file, WDGATE_TOKEN and authTokens together)');
  return new Tokens(entries);
}
