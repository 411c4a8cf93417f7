// Cookies of the page's current document for the native backend, over CDP's Network domain.
import type { Page } from 'puppeteer-core';
import { ProtocolError } from 'puppeteer-core/internal/common/Errors.js';
import type { CookieData } from '../backend.ts';
import { cdp } from './cdp.ts';
import { cookieData } from '../shared.ts';

export type NewCookie = Omit<CookieData, 'domain' | 'sameSite'> & { domain?: string; sameSite?: CookieData['sameSite'] };

/** Cookies the current document's URL would send. */
export async function getCookies(page: Page): Promise<CookieData[]> {
  const { cookies } = await cdp(page).send('Network.getCookies', { urls: [page.url()] });
  return cookies.map(cookieData);
}

/** Set a cookie for the current document's URL; false if Chromium refuses it. */
export async function setCookie(page: Page, cookie: NewCookie): Promise<boolean> {
  const sent = cdp(page).send('Network.setCookie', {
    name: cookie.name,
    value: cookie.value,
    url: page.url(),
    ...(cookie.domain !== undefined && { domain: cookie.domain }),
    path: cookie.path,
    secure: cookie.secure,
    httpOnly: cookie.httpOnly,
    ...(cookie.sameSite !== undefined && { sameSite: cookie.sameSite }),
    ...(cookie.expiry !== undefined && { expires: cookie.expiry }),
  });
  try {
    return (await sent).success;
  } catch (e) {
    // Chromium refuses a malformed cookie (bad name or path) with an error, not success: false.
    if (e instanceof ProtocolError && /Sanitizing cookie failed|Invalid cookie fields/i.test(e.message)) return false;
    throw e;
  }
}

/** Delete the current document's cookies, or the one named `name`. */
export async function deleteCookies(page: Page, name?: string): Promise<void> {
  const client = cdp(page);
  const { cookies } = await client.send('Network.getCookies', { urls: [page.url()] });
  await Promise.all(
    cookies
      .filter((c) => name === undefined || c.name === name)
      .map((c) => client.send('Network.deleteCookies', { name: c.name, domain: c.domain, path: c.path })),
  );
}
