// Spec §14 "Cookies": the cookies of the current browsing context's active document. The
// document's URL decides which cookies are "associated" (RFC 6265 §5.4 for the HTTP API,
// httpOnly ones included); the browser's cookie store does the matching, so a cookie set on
// 127.0.0.1 is not one of a localhost page's.
import type { CookieData } from '../../../backends/backend.ts';
import { error } from '../errors.ts';
import { p, type Parser } from '../params.ts';
import type { Session } from '../session.ts';
import { sessionCommand } from './types.ts';

/**
 * Spec "all associated cookies" of the current browsing context's active document, already in
 * the serialized form (spec "table for cookie conversion": expiry only for non-session cookies).
 */
async function associatedCookies(session: Session): Promise<CookieData[]> {
  const { window } = await session.currentContext();
  return session.browser.getCookies(window);
}

export const getAllCookies = sessionCommand({
  async handler({ session }) {
    return associatedCookies(session);
  },
});

export const getNamedCookie = sessionCommand({
  async handler({ session, urlParams }) {
    const name = urlParams.name ?? '';
    const cookie = (await associatedCookies(session)).find((c) => c.name === name);
    if (!cookie) throw error('no such cookie', `no cookie named ${JSON.stringify(name)} is visible to the current document`);
    return cookie;
  },
});

/** An optional cookie field: absent or null leaves it unset (clients send null for "not given"). */
const optional = <T>(inner: Parser<T>): Parser<T | undefined> => {
  const parse = p.nullable(inner);
  return (v, path) => parse(v, path) ?? undefined;
};

const cookieParams = p.object({
  cookie: p.object({
    name: p.string,
    value: p.string,
    path: optional(p.string),
    domain: optional(p.string),
    secure: optional(p.boolean),
    httpOnly: optional(p.boolean),
    // Seconds since the Unix epoch: an integer from 0 to 2^53 - 1 (spec step 6).
    expiry: optional(p.integer()),
    sameSite: optional(p.oneOf('Lax', 'Strict', 'None')),
  }),
});

/** RFC 6265 §5.1.3 "domain-match", for a Domain attribute (a leading '.' is ignored, §5.2.3). */
function domainMatches(host: string, domain: string): boolean {
  const d = (domain.startsWith('.') ? domain.slice(1) : domain).toLowerCase();
  const h = host.toLowerCase();
  if (h === d) return true;
  // A suffix match only for host names, never for IP addresses.
  const isIp = /^\d+(\.\d+){3}$/.test(h) || h.startsWith('[');
  return !isIp && h.endsWith('.' + d);
}

export const addCookie = sessionCommand({
  params: cookieParams,
  async handler({ session }, { cookie }) {
    const { window } = await session.currentContext();
    // A cookie-averse document (a URL that is not HTTP(S): about:blank, data:, file:) has no
    // cookies to add to.
    let url: URL;
    try {
      url = new URL(await session.browser.currentUrl(window));
    } catch {
      throw error('invalid cookie domain', 'the current document has no URL that cookies apply to');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw error('invalid cookie domain', `the current document (${url.protocol} URL) is cookie-averse: only http and https documents have cookies`);
    }
    // An empty domain is no Domain attribute (RFC 6265 §5.2.3): a host-only cookie.
    const domain = cookie.domain === '' ? undefined : cookie.domain;
    if (domain !== undefined && !domainMatches(url.hostname, domain)) {
      throw error('invalid cookie domain', `cookie domain ${JSON.stringify(domain)} does not match the current document's host ${url.hostname}`);
    }
    const stored = await session.browser.setCookie(window, {
      name: cookie.name,
      value: cookie.value,
      path: cookie.path ?? '/',
      ...(domain !== undefined && { domain }),
      secure: cookie.secure ?? false,
      httpOnly: cookie.httpOnly ?? false,
      ...(cookie.expiry !== undefined && { expiry: cookie.expiry }),
      // Unset when not given: the browser's default policy applies (spec).
      ...(cookie.sameSite !== undefined && { sameSite: cookie.sameSite }),
    });
    if (!stored) throw error('unable to set cookie', `the browser refused cookie ${JSON.stringify(cookie.name)}`);
    return null;
  },
});

export const deleteCookie = sessionCommand({
  async handler({ session, urlParams }) {
    const { window } = await session.currentContext();
    await session.browser.deleteCookies(window, urlParams.name ?? '');
    return null;
  },
});

export const deleteAllCookies = sessionCommand({
  async handler({ session }) {
    const { window } = await session.currentContext();
    await session.browser.deleteCookies(window);
    return null;
  },
});
