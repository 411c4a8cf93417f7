// Dashboard logins. A browser cannot send an Authorization header on a page load or a WebSocket
// upgrade, so an operator logs in once with a token (POST /ui/login) and gets a cookie instead:
// HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), random and
// held only here. The token itself never goes in a URL, a cookie or a log.
import { randomBytes } from 'node:crypto';
import type { Principal } from './auth.ts';

export const LOGIN_COOKIE = 'wdgate_ui';
/** A login lasts this long (ms). */
const LOGIN_LIFETIME_MS = 12 * 3600_000;

export class UiLogins {
  readonly #logins = new Map<string, { principal: Principal; expires: number }>();

  /** A new login for the principal: the Set-Cookie header value. */
  login(principal: Principal, secure: boolean): string {
    for (const [value, login] of this.#logins) if (login.expires < Date.now()) this.#logins.delete(value);
    const value = randomBytes(32).toString('base64url');
    this.#logins.set(value, { principal, expires: Date.now() + LOGIN_LIFETIME_MS });
    return `${LOGIN_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${LOGIN_LIFETIME_MS / 1000}${secure ? '; Secure' : ''}`;
  }

  /** The principal a Cookie header's login stands for, or null. */
  principalOf(cookieHeader: string): Principal | null {
    const value = new RegExp(`(?:^|;\\s*)${LOGIN_COOKIE}=([A-Za-z0-9_-]{43})(?:;|$)`).exec(cookieHeader)?.[1];
    const login = value === undefined ? undefined : this.#logins.get(value);
    if (!login || login.expires < Date.now()) return null;
    return login.principal;
  }

  /**
   * Tokens were read again (SIGHUP): a login stands for its principal as it is now (its admin
   * flag, its limit), and the logins of principals that are gone end.
   */
  retain(principals: Principal[]): void {
    const byName = new Map(principals.map((p) => [p.name, p]));
    for (const [value, login] of this.#logins) {
      const now = byName.get(login.principal.name);
      if (now) login.principal = now;
      else this.#logins.delete(value);
    }
  }
}
