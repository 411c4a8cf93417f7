// Cookies over BiDi's storage module, in the window's user context. BiDi answers every cookie
// of the partition; the W3C commands are about the current document's (RFC 6265 §5.4: domain,
// path and the Secure flag decide), so they are matched here against the document's URL. A
// cookie added is the user context's, in no partition: as geckodriver adds it (Marionette's
// cookie.add, no partition key), so that every window of the user context has it, and
// Firefox's network events list it among a request's cookies (a cookie stored under the
// page's partition key is sent but not listed there).
import type { CookieData, DrivenBrowser } from '../backend.ts';
import { isIP } from 'node:net';
import { pathMatches } from '../shared.ts';
import type { Channel } from './hub.ts';

interface BidiCookie {
  name: string;
  value: { type: 'string' | 'base64'; value: string };
  domain: string;
  path: string;
  size?: number;
  httpOnly: boolean;
  secure: boolean;
  sameSite: 'strict' | 'lax' | 'none' | 'default';
  expiry?: number;
}

const SAME_SITE = { strict: 'Strict', lax: 'Lax', none: 'None', default: 'Lax' } as const;

export class FirefoxCookies {
  constructor(
    readonly channel: Channel,
    readonly url: (handle: string) => Promise<string>,
    /** The user context of a window. */
    readonly userContextOf: (handle: string) => string,
  ) {}

  async #visible(handle: string): Promise<BidiCookie[]> {
    const url = new URL(await this.url(handle));
    const { cookies } = await this.channel.call<{ cookies: BidiCookie[] }>('storage.getCookies', { partition: { type: 'context', context: handle } });
    return cookies.filter((c) => domainMatches(url.hostname, c.domain) && pathMatches(url.pathname, c.path) && (!c.secure || url.protocol === 'https:' || url.hostname === 'localhost' || url.hostname === '127.0.0.1'));
  }

  async get(handle: string): Promise<CookieData[]> {
    return (await this.#visible(handle)).map((c) => ({
      name: c.name,
      value: c.value.type === 'string' ? c.value.value : Buffer.from(c.value.value, 'base64').toString(),
      path: c.path,
      domain: c.domain,
      secure: c.secure,
      httpOnly: c.httpOnly,
      ...(c.expiry !== undefined && { expiry: c.expiry }),
      sameSite: SAME_SITE[c.sameSite] ?? 'Lax',
    }));
  }

  async set(handle: string, cookie: Parameters<DrivenBrowser['setCookie']>[1]): Promise<boolean> {
    const url = new URL(await this.url(handle));
    const answer = await this.channel.send('storage.setCookie', {
      cookie: {
        name: cookie.name,
        value: { type: 'string', value: cookie.value },
        domain: cookieDomain(cookie.domain ?? url.hostname),
        path: cookie.path || '/',
        httpOnly: cookie.httpOnly,
        secure: cookie.secure,
        ...(cookie.sameSite && { sameSite: cookie.sameSite.toLowerCase() }),
        ...(cookie.expiry !== undefined && { expiry: cookie.expiry }),
      },
      partition: { type: 'storageKey', userContext: this.userContextOf(handle) },
    });
    return answer.type === 'success';
  }

  async delete(handle: string, name?: string): Promise<void> {
    // Only the cookies the current document sees, as the spec asks.
    for (const cookie of await this.#visible(handle)) {
      if (name !== undefined && cookie.name !== name) continue;
      await this.channel.call('storage.deleteCookies', { filter: { name: cookie.name, domain: cookie.domain, path: cookie.path }, partition: { type: 'context', context: handle } });
    }
  }
}

/**
 * The domain to set: an IP address has no subdomains, so a leading dot changes nothing there
 * (chromedriver takes ".127.0.0.1"); Firefox refuses the dotted form, so it goes.
 */
function cookieDomain(domain: string): string {
  return isIP(domain.replace(/^\./, '')) ? domain.replace(/^\./, '') : domain;
}

/** RFC 6265 §5.1.3 domain-match (a leading dot is the old notation of a domain cookie). */
function domainMatches(host: string, domain: string): boolean {
  const bare = domain.replace(/^\./, '');
  return host === bare || host.endsWith(`.${bare}`);
}
