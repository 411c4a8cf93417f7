// Cookies (spec §14 "Cookies": Get All / Get Named / Add / Delete / Delete All) against real
// Chromium through the server. Pages come from the loopback page server (http://127.0.0.1).
import { after, before, beforeEach, describe } from 'node:test';
import { test } from '../helpers/gaps.ts';
import assert from 'node:assert/strict';
import type { TestGateway } from '../helpers/gateway.ts';
import { closeSessionFixture, openSessionFixture } from '../helpers/fixture.ts';
import type { Session } from '../helpers/client.ts';
import type { PageServer } from '../helpers/pages.ts';

let gw: TestGateway;
let pages: PageServer;
let s: Session;
/** A page on 127.0.0.1 under /html/, so cookie paths "/" and "/html" both apply to it. */
let home: string;

before(async () => {
  ({ gw, pages, s } = await openSessionFixture());
  home = pages.page('<p>cookies</p>');
});

after(() => closeSessionFixture({ gw, pages, s }));

beforeEach(async () => {
  await s.navigate(home);
  await s.delete('/cookie');
});

const addCookie = (cookie: Record<string, unknown>) => s.post('/cookie', { cookie });
const allCookies = async (): Promise<any[]> => s.get('/cookie');
const names = async () => (await allCookies()).map((c) => c.name).sort();
const SERIALIZED_KEYS = ['domain', 'httpOnly', 'name', 'path', 'sameSite', 'secure', 'value'];

describe('add, get and delete', () => {
  test('round trip with every field', async () => {
    const expiry = Math.floor(Date.now() / 1000) + 24 * 3600;
    assert.equal(
      await addCookie({ name: 'full', value: 'v1', path: '/html', domain: '127.0.0.1', secure: true, httpOnly: true, expiry, sameSite: 'Strict' }),
      null,
    );
    const cookie = await s.get('/cookie/full');
    assert.deepEqual(cookie, {
      name: 'full',
      value: 'v1',
      path: '/html',
      domain: '127.0.0.1',
      secure: true,
      httpOnly: true,
      expiry,
      sameSite: 'Strict',
    });
    assert.deepEqual(await allCookies(), [cookie]);
  });

  test('defaults: path "/", the document\'s host, not secure, not httpOnly, a session cookie', async () => {
    await addCookie({ name: 'min', value: 'x' });
    const cookie = await s.get('/cookie/min');
    assert.deepEqual(Object.keys(cookie).sort(), SERIALIZED_KEYS, 'no expiry member for a session cookie');
    assert.equal(cookie.path, '/');
    assert.equal(cookie.domain, '127.0.0.1');
    assert.equal(cookie.secure, false);
    assert.equal(cookie.httpOnly, false);
    assert.ok(['Lax', 'Strict', 'None'].includes(cookie.sameSite));
  });

  test('expiry round-trips as an integer number of seconds', async () => {
    const expiry = Math.floor(Date.now() / 1000) + 7 * 24 * 3600;
    await addCookie({ name: 'e', value: '1', expiry });
    const cookie = await s.get('/cookie/e');
    assert.equal(cookie.expiry, expiry);
    assert.ok(Number.isInteger(cookie.expiry));
  });

  test('an expiry in the past stores nothing (and removes an existing cookie of that name)', async () => {
    await addCookie({ name: 'old', value: '1' });
    await addCookie({ name: 'old', value: '2', expiry: 1 });
    await s.fails('GET', '/cookie/old', undefined, 'no such cookie', 404);
    await addCookie({ name: 'zero', value: '1', expiry: 0 });
    await s.fails('GET', '/cookie/zero', undefined, 'no such cookie', 404);
  });

  test('sameSite round-trips', async () => {
    await addCookie({ name: 'lax', value: '1', sameSite: 'Lax' });
    await addCookie({ name: 'strict', value: '1', sameSite: 'Strict' });
    await addCookie({ name: 'none', value: '1', sameSite: 'None', secure: true });
    assert.equal((await s.get('/cookie/lax')).sameSite, 'Lax');
    assert.equal((await s.get('/cookie/strict')).sameSite, 'Strict');
    assert.equal((await s.get('/cookie/none')).sameSite, 'None');
  });

  test('a leading dot in the domain is accepted; an empty domain is no domain (host-only)', async () => {
    await addCookie({ name: 'dotted', value: '1', domain: '.127.0.0.1' });
    assert.equal((await s.get('/cookie/dotted')).value, '1');
    await addCookie({ name: 'empty', value: '1', domain: '' });
    assert.equal((await s.get('/cookie/empty')).domain, '127.0.0.1');
  });

  test('null optional fields are taken as not given', async () => {
    await addCookie({ name: 'nulls', value: '1', path: null, domain: null, secure: null, httpOnly: null, expiry: null, sameSite: null });
    const cookie = await s.get('/cookie/nulls');
    assert.equal(cookie.path, '/');
    assert.equal(cookie.secure, false);
    assert.equal('expiry' in cookie, false);
  });

  test('adding a cookie of the same name, domain and path replaces it', async () => {
    await addCookie({ name: 'same', value: 'one' });
    await addCookie({ name: 'same', value: 'two' });
    assert.deepEqual((await allCookies()).map((c) => c.value), ['two']);
  });

  test('document.cookie sees an added cookie unless it is httpOnly', async () => {
    await addCookie({ name: 'visible', value: 'yes' });
    await addCookie({ name: 'hidden', value: 'no', httpOnly: true });
    const seen = String(await s.execute('return document.cookie'));
    assert.match(seen, /(^|; )visible=yes(;|$)/);
    assert.doesNotMatch(seen, /hidden/);
    // Get All Cookies includes httpOnly cookies (spec "all associated cookies").
    assert.deepEqual(await names(), ['hidden', 'visible']);
  });

  test('a cookie the page sets through document.cookie is returned', async () => {
    await s.execute('document.cookie = "fromPage=hello; path=/"');
    const cookie = await s.get('/cookie/fromPage');
    assert.equal(cookie.value, 'hello');
    assert.equal(cookie.path, '/');
    assert.equal(cookie.domain, '127.0.0.1');
    assert.equal(cookie.httpOnly, false);
    assert.equal('expiry' in cookie, false);
  });

  test('only cookies whose path applies to the document are associated with it', async () => {
    await addCookie({ name: 'here', value: '1', path: '/html' });
    await addCookie({ name: 'elsewhere', value: '1', path: '/other' });
    assert.deepEqual(await names(), ['here']);
    await s.fails('GET', '/cookie/elsewhere', undefined, 'no such cookie', 404);
  });

  test('get named cookie of an unknown name is no such cookie (404)', async () => {
    await addCookie({ name: 'known', value: '1' });
    await s.fails('GET', '/cookie/unknown', undefined, 'no such cookie', 404);
    await s.fails('GET', '/cookie/KNOWN', undefined, 'no such cookie', 404);
  });

  test('a URL-encoded name is decoded', async () => {
    await addCookie({ name: 'a b', value: 'spaced' });
    assert.equal((await s.get(`/cookie/${encodeURIComponent('a b')}`)).value, 'spaced');
    await s.delete(`/cookie/${encodeURIComponent('a b')}`);
    assert.deepEqual(await names(), []);
  });

  test('delete cookie removes every cookie of that name visible to the document, and only those', async () => {
    await addCookie({ name: 'dup', value: 'root' });
    await addCookie({ name: 'dup', value: 'html', path: '/html' });
    await addCookie({ name: 'keep', value: '1' });
    await s.execute('document.cookie = "dup=page; path=/html/"');
    assert.equal((await allCookies()).filter((c) => c.name === 'dup').length, 3);
    assert.equal(await s.delete('/cookie/dup'), null);
    assert.deepEqual(await names(), ['keep']);
    assert.equal(await s.execute('return document.cookie'), 'keep=1');
    // No such cookie: not an error.
    assert.equal(await s.delete('/cookie/never-was'), null);
    assert.deepEqual(await names(), ['keep']);
  });

  test('delete all cookies', async () => {
    await addCookie({ name: 'a', value: '1' });
    await addCookie({ name: 'b', value: '2', httpOnly: true });
    await s.execute('document.cookie = "c=3"');
    assert.equal((await allCookies()).length, 3);
    assert.equal(await s.delete('/cookie'), null);
    assert.deepEqual(await allCookies(), []);
    assert.equal(await s.execute('return document.cookie'), '');
  });

  test('the document decides: a cookie of 127.0.0.1 is not one of a localhost page', async () => {
    await addCookie({ name: 'ip', value: '1' });
    await s.navigate(home.replace('127.0.0.1', 'localhost'));
    assert.deepEqual(await allCookies(), []);
    await s.fails('GET', '/cookie/ip', undefined, 'no such cookie', 404);
    // Deleting from the localhost page does not touch 127.0.0.1's cookie.
    await s.delete('/cookie');
    await addCookie({ name: 'lh', value: '1' });
    assert.equal((await s.get('/cookie/lh')).domain, 'localhost');
    await s.navigate(home);
    assert.deepEqual(await names(), ['ip']);
  });
});

describe('add cookie errors', () => {
  test('invalid argument for a missing or malformed cookie', async () => {
    const bad: unknown[] = [
      {},
      { cookie: null },
      { cookie: 'name=value' },
      { cookie: [] },
      { cookie: { value: 'v' } },
      { cookie: { name: 'n' } },
      { cookie: { name: 5, value: 'v' } },
      { cookie: { name: 'n', value: 5 } },
      { cookie: { name: null, value: 'v' } },
      { cookie: { name: 'n', value: null } },
    ];
    for (const body of bad) await s.fails('POST', '/cookie', body, 'invalid argument', 400);
  });

  test('invalid argument for each bad optional field', async () => {
    const bad: Record<string, unknown>[] = [
      { path: 5 },
      { path: true },
      { domain: 5 },
      { domain: {} },
      { secure: 'true' },
      { secure: 1 },
      { httpOnly: 'false' },
      { httpOnly: 0 },
      { expiry: -1 },
      { expiry: 1.5 },
      { expiry: '1700000000' },
      { expiry: 2 ** 53 },
      { sameSite: 'lax' },
      { sameSite: 'Invalid' },
      { sameSite: 1 },
    ];
    for (const field of bad) {
      await s.fails('POST', '/cookie', { cookie: { name: 'n', value: 'v', ...field } }, 'invalid argument', 400);
    }
    assert.deepEqual(await allCookies(), [], 'nothing was stored');
  });

  test('invalid cookie domain on documents that are not http(s)', async () => {
    for (const url of ['about:blank', 'data:text/html,<p>data</p>']) {
      await s.navigate(url);
      await s.fails('POST', '/cookie', { cookie: { name: 'n', value: 'v' } }, 'invalid cookie domain', 400);
    }
  });

  test('invalid cookie domain for a domain the document\'s host does not match', async () => {
    for (const domain of ['example.com', '.example.com', '127.0.0.2', '0.0.1', '.0.0.1', 'localhost']) {
      await s.fails('POST', '/cookie', { cookie: { name: 'n', value: 'v', domain } }, 'invalid cookie domain', 400);
    }
    assert.deepEqual(await allCookies(), []);
  });

  test('unable to set cookie when the browser refuses it', async () => {
    // SameSite=None requires Secure (Chromium); a path must start with "/"; no ";" in a name.
    await s.fails('POST', '/cookie', { cookie: { name: 'n', value: 'v', sameSite: 'None' } }, 'unable to set cookie', 500);
    await s.fails('POST', '/cookie', { cookie: { name: 'n', value: 'v', path: 'relative' } }, 'unable to set cookie', 500);
    await s.fails('POST', '/cookie', { cookie: { name: 'a;b', value: 'v' } }, 'unable to set cookie', 500);
    assert.deepEqual(await allCookies(), []);
  });
});

describe('browsing context', () => {
  test('cookie commands on a closed current window are no such window', async () => {
    const first = await s.get('/window');
    const { handle } = await s.post('/window/new', { type: 'tab' });
    await s.post('/window', { handle });
    await s.delete('/window');
    await s.fails('GET', '/cookie', undefined, 'no such window', 404);
    await s.fails('GET', '/cookie/x', undefined, 'no such window', 404);
    await s.fails('POST', '/cookie', { cookie: { name: 'x', value: 'y' } }, 'no such window', 404);
    await s.fails('DELETE', '/cookie/x', undefined, 'no such window', 404);
    await s.fails('DELETE', '/cookie', undefined, 'no such window', 404);
    await s.post('/window', { handle: first });
    assert.deepEqual(await allCookies(), []);
  });

  test('on about:blank there are no cookies and deleting is a no-op', async () => {
    await s.navigate('about:blank');
    assert.deepEqual(await allCookies(), []);
    assert.equal(await s.delete('/cookie'), null);
    await s.fails('GET', '/cookie/anything', undefined, 'no such cookie', 404);
  });
});
