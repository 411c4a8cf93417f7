// The security gate: loopback peers only, Host naming this machine, no Origin.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { UiLogins } from '../../src/server/ui-logins.ts';
import { checkRequest, isLoopbackAddress, isProbe, PROBE_CLIENT, type AccessPolicy, type RequestFacts } from '../../src/server/security.ts';
import { collectTokens, LOCAL, LOCAL_WITH_TOKENS, parseTokenFile, TokenFileError, Tokens } from '../../src/server/auth.ts';

describe('isLoopbackAddress', () => {
  test('IPv4 loopback, IPv6 loopback in every spelling, IPv4-mapped loopback', () => {
    for (const a of [
      '127.0.0.1',
      '127.1.2.3',
      '127.255.255.254',
      '::1',
      '0:0:0:0:0:0:0:1',
      '0000:0000:0000:0000:0000:0000:0000:0001',
      '::ffff:127.0.0.1',
      '::FFFF:127.0.0.1',
      '0:0:0:0:0:ffff:127.0.0.1',
      '0000:0000:0000:0000:0000:ffff:127.0.0.1',
      '::ffff:7f00:1',
      '0000:0000:0000:0000:0000:ffff:7f00:0001',
      '::ffff:7fff:fffe',
    ]) {
      assert.equal(isLoopbackAddress(a), true, a);
    }
  });

  test('everything else is not loopback', () => {
    for (const a of [
      '10.231.0.2',
      '192.168.1.1',
      '0.0.0.0',
      '128.0.0.1',
      '1.127.0.0',
      '::',
      '::2',
      '::11',
      '::101',
      'fe80::1',
      '2001:db8::1',
      '::ffff:10.0.0.1',
      '::ffff:0a00:0001',
      '::ffff:8000:1',
      '::fffe:127.0.0.1',
      '1::ffff:127.0.0.1',
      '',
      'localhost',
    ]) {
      assert.equal(isLoopbackAddress(a), false, a);
    }
  });
});

const NO_TOKENS: AccessPolicy = { tokens: new Tokens([]), requireAuthOnLoopback: false, allowHosts: [], allowOrigins: [], scheme: 'http' };
const TOKEN = 'a-token-of-sufficient-length';
const WITH_TOKENS: AccessPolicy = { ...NO_TOKENS, tokens: new Tokens([{ name: 'ci', token: TOKEN, maxSessions: 2, admin: false, share: 1 }]) };

function check(peer: string, host: string, origin = '', more: Partial<RequestFacts> = {}, policy = NO_TOKENS) {
  return checkRequest({ peer, host, origin, method: 'GET', contentType: '', authorization: '', ...more }, policy);
}

describe('checkRequest', () => {
  test('loopback peer, IP or localhost Host, no Origin: allowed as the local principal', () => {
    for (const host of ['127.0.0.1:4444', '127.0.0.1', 'localhost:4444', 'localhost', 'LOCALHOST:4444', '[::1]:4444', '[::1]', '']) {
      assert.deepEqual(check('127.0.0.1', host), { ok: true, principal: LOCAL }, host);
    }
    assert.deepEqual(check('::1', '[::1]:9'), { ok: true, principal: LOCAL });
    assert.deepEqual(check('::ffff:127.0.0.1', 'localhost:9'), { ok: true, principal: LOCAL });
  });

  test("the local principal reaches the machine's files unless the operator says loopback is not the machine's own user; with tokens configured it never does", () => {
    const local = (policy: AccessPolicy) => {
      const v = check('127.0.0.1', 'localhost', '', {}, policy);
      assert.ok(v.ok);
      return v.principal;
    };
    assert.equal(local(NO_TOKENS).files, true);
    assert.equal(local({ ...NO_TOKENS, localFiles: false }).files, false);
    assert.equal(local({ ...NO_TOKENS, localFiles: false }).name, 'local');
    assert.notEqual(local(WITH_TOKENS).files, true);
  });

  test('a peer off loopback is refused with 403 naming it and how to open access', () => {
    const v = check('10.231.7.2', '10.231.7.1:4444');
    assert.ok(!v.ok && v.status === 403 && v.message.includes('10.231.7.2') && v.message.includes('--auth-token-file'));
    assert.equal(check('::ffff:10.231.7.2', '10.231.7.1:4444').ok, false);
  });

  test('a DNS name in Host is refused (DNS rebinding) unless allowed', () => {
    for (const host of ['evil.example:4444', 'evil.example', 'localhost.evil.example:4444', '127.0.0.1.nip.io:4444', 'localhostx:1', 'local host', '[::1]evil.example', '[::1]:80x', '127.0.0.1:']) {
      const v = check('127.0.0.1', host);
      assert.ok(!v.ok && v.status === 403, host);
      assert.ok(!v.ok && v.message.includes(JSON.stringify(host)) && v.message.includes('--allow-hosts'), host);
    }
    const allowing = { ...NO_TOKENS, allowHosts: ['wdgate.internal'] };
    assert.equal(check('127.0.0.1', 'WDGATE.internal:443', '', {}, allowing).ok, true);
    assert.equal(check('127.0.0.1', 'wdgate.internal.evil:443', '', {}, allowing).ok, false);
  });

  test('an Origin is refused unless allowed: web pages may not drive the browser', () => {
    for (const origin of ['http://evil.example', 'http://127.0.0.1:8080', 'null']) {
      const v = check('127.0.0.1', '127.0.0.1:4444', origin);
      assert.ok(!v.ok && v.status === 403 && v.message.includes(origin) && v.message.includes('--allow-origins'), origin);
    }
    const allowing = { ...NO_TOKENS, allowOrigins: ['https://dashboard.example'] };
    assert.equal(check('127.0.0.1', '127.0.0.1:4444', 'https://dashboard.example', {}, allowing).ok, true);
    assert.equal(check('127.0.0.1', '127.0.0.1:4444', 'https://dashboard.example.evil', {}, allowing).ok, false);
  });

  test('a POST a page could send cross-site without a preflight is refused; JSON or no Content-Type is not', () => {
    for (const contentType of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'Multipart/Form-Data; boundary=x']) {
      const v = check('127.0.0.1', 'localhost', '', { method: 'POST', contentType });
      assert.ok(!v.ok && v.status === 403 && v.message.includes('Content-Type'), contentType);
    }
    for (const contentType of ['application/json', 'application/json; charset=utf-8', '']) {
      assert.equal(check('127.0.0.1', 'localhost', '', { method: 'POST', contentType }).ok, true, contentType);
    }
    assert.equal(check('127.0.0.1', 'localhost', '', { method: 'GET', contentType: 'text/plain' }).ok, true);
  });
});

describe('tokens', () => {
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

  test('with tokens, a remote peer needs one: Bearer, or Basic with the token as password', () => {
    for (const authorization of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, basic('anyone', TOKEN), basic('', TOKEN)]) {
      const v = check('10.231.7.2', '10.231.7.1:4444', '', { authorization }, WITH_TOKENS);
      assert.ok(v.ok && v.principal.name === 'ci' && v.principal.maxSessions === 2, authorization);
    }
    for (const authorization of ['', `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, basic(TOKEN, 'wrong'), `Token ${TOKEN}`, 'Basic !!!']) {
      const v = check('10.231.7.2', '10.231.7.1:4444', '', { authorization }, WITH_TOKENS);
      assert.ok(!v.ok && v.status === 401, authorization);
      assert.equal(!v.ok && v.headers?.['WWW-Authenticate'], 'Basic realm="wdgate", Bearer');
      assert.ok(!v.ok && !v.message.includes(TOKEN));
    }
  });

  test('loopback needs no token unless the operator says so; a wrong token is refused even there', () => {
    assert.deepEqual(check('127.0.0.1', 'localhost', '', {}, WITH_TOKENS), { ok: true, principal: LOCAL_WITH_TOKENS });
    assert.equal(check('127.0.0.1', 'localhost', '', { authorization: 'Bearer nope' }, WITH_TOKENS).ok, false);
    const strict = { ...WITH_TOKENS, requireAuthOnLoopback: true };
    assert.equal(check('127.0.0.1', 'localhost', '', {}, strict).ok, false);
    assert.equal(check('127.0.0.1', 'localhost', '', { authorization: `Bearer ${TOKEN}` }, strict).ok, true);
  });

  test('a token file: bare tokens, named tokens with a session limit, admins, shares, files, relays, comments and blank lines', () => {
    const entries = parseTokenFile(
      `# operators\n\n${TOKEN}\nci   ${TOKEN}-ci   3\nops ${TOKEN}-ops 1 admin\n  # indented comment\nqa ${TOKEN}-qa 8 share=3\nboss ${TOKEN}-boss 2 share=2 admin\nlocal-suite ${TOKEN}-files 1 files share=2 admin\ngrid ${TOKEN}-relay 16 relay\n`,
      'tokens',
    );
    assert.deepEqual(entries, [
      { name: 'token1', token: TOKEN, maxSessions: null, admin: false, share: 1 },
      { name: 'ci', token: `${TOKEN}-ci`, maxSessions: 3, admin: false, share: 1 },
      { name: 'ops', token: `${TOKEN}-ops`, maxSessions: 1, admin: true, share: 1 },
      { name: 'qa', token: `${TOKEN}-qa`, maxSessions: 8, admin: false, share: 3 },
      { name: 'boss', token: `${TOKEN}-boss`, maxSessions: 2, admin: true, share: 2 },
      { name: 'local-suite', token: `${TOKEN}-files`, maxSessions: 1, admin: true, share: 2, files: true },
      { name: 'grid', token: `${TOKEN}-relay`, maxSessions: 16, admin: false, share: 1, relay: true },
    ]);
    for (const [text, message] of [
      ['a b', /line 1/],
      [`ci ${TOKEN} 0`, /max-sessions/],
      [`ci ${TOKEN} x`, /max-sessions/],
      ['short', /shorter than 16/],
      [`ci ${TOKEN} 1\nci ${TOKEN}2 1`, /twice/],
      [`local ${TOKEN} 1`, /reserved/],
      [`ci ${TOKEN} 1 root`, /only "admin", "files", "relay" and "share=N"/],
      [`ci ${TOKEN} 1 relay relay`, /once each/],
      [`ci ${TOKEN} 1 files files`, /once each/],
      [`ci ${TOKEN} 1 admin admin`, /once each/],
      [`ci ${TOKEN} 1 share=0`, /share must be an integer from 1 to 1000/],
      [`ci ${TOKEN} 1 share=1001`, /share must be/],
      [`ci ${TOKEN} 1 share=2 share=3`, /once each/],
      [`ci ${TOKEN} 1 share=2 admin files relay extra`, /expected/],
    ] as const) {
      assert.throws(() => parseTokenFile(text, 'tokens'), (e: Error) => e instanceof TokenFileError && message.test(e.message) && !e.message.includes(TOKEN), text);
    }
  });

  test('tokens from the file, WDGATE_TOKEN ("default") and the config are one set of principals', () => {
    const tokens = collectTokens({
      file: 'tokens',
      fileText: `ci ${TOKEN}-ci 3\n`,
      env: `${TOKEN}-env\n`,
      list: [`${TOKEN}-cfg`, { name: 'ops', token: `${TOKEN}-ops`, maxSessions: 2, admin: true, share: 4 }],
    });
    const who = (token: string) => tokens.authenticate(`Bearer ${token}`);
    assert.deepEqual(who(`${TOKEN}-ci`), { name: 'ci', maxSessions: 3, admin: false, share: 1 });
    assert.deepEqual(who(`${TOKEN}-env`), { name: 'default', maxSessions: null, admin: false, share: 1 });
    assert.equal(who(`${TOKEN}-cfg`)?.maxSessions, null);
    assert.deepEqual(who(`${TOKEN}-ops`), { name: 'ops', maxSessions: 2, admin: true, share: 4 });
    assert.equal(who(TOKEN), null);
    // A name or a token used twice over the sources is refused (which principal would it be?).
    for (const sources of [
      { file: 'tokens', fileText: `default ${TOKEN}-a 1`, env: `${TOKEN}-b`, list: [] },
      { file: null, env: TOKEN, list: [TOKEN] },
      { file: null, env: undefined, list: ['short'] },
      { file: null, env: undefined, list: [{ name: 'ops', token: TOKEN, share: 0 }] },
    ]) {
      assert.throws(() => collectTokens(sources), (e: Error) => e instanceof TokenFileError && !e.message.includes(TOKEN));
    }
  });
});

describe('the dashboard', () => {
  test("the gateway's own pages are same-origin: their Origin is accepted, another port's or scheme's is not", () => {
    assert.equal(check('127.0.0.1', '127.0.0.1:8000', 'http://127.0.0.1:8000').ok, true);
    assert.equal(check('127.0.0.1', 'LOCALHOST:8000', 'http://localhost:8000').ok, true);
    assert.equal(check('127.0.0.1', '127.0.0.1:8000', 'http://127.0.0.1:8001').ok, false);
    assert.equal(check('127.0.0.1', '127.0.0.1:8000', 'https://127.0.0.1:8000').ok, false);
    assert.equal(check('127.0.0.1', '', 'http://').ok, false);
  });

  test('a login cookie stands for its principal, only with no Authorization header; a forged or ended one for nobody', () => {
    const logins = new UiLogins();
    const principal = { name: 'ci', maxSessions: 2, admin: false, share: 1 };
    const setCookie = logins.login(principal, false);
    assert.match(setCookie, /^wdgate_ui=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\//);
    const cookie = setCookie.split(';')[0]!;
    const policy = { ...WITH_TOKENS, logins };
    assert.deepEqual(check('10.0.0.2', '10.0.0.1', '', { cookie: `theme=dark; ${cookie}` }, policy), { ok: true, principal });
    assert.equal(check('10.0.0.2', '10.0.0.1', '', { cookie: 'wdgate_ui=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, policy).ok, false);
    assert.equal(check('10.0.0.2', '10.0.0.1', '', { cookie, authorization: 'Bearer wrong-token-of-nobody-at-all' }, policy).ok, false);
    // Tokens read again: the login is its principal as it is now, or nobody once it is gone.
    const promoted = { ...principal, admin: true };
    logins.retain([promoted]);
    assert.deepEqual(check('10.0.0.2', '10.0.0.1', '', { cookie }, policy), { ok: true, principal: promoted });
    logins.retain([{ name: 'someone else', maxSessions: null, admin: false, share: 1 }]);
    assert.equal(check('10.0.0.2', '10.0.0.1', '', { cookie }, policy).ok, false);
  });
});

describe('admin principals', () => {
  test('the local user is an admin only while no tokens are configured; with tokens, a tokenless loopback client is not', () => {
    const bare = check('127.0.0.1', '127.0.0.1:4444');
    assert.ok(bare.ok && bare.principal.admin);
    const withTokens = check('127.0.0.1', '127.0.0.1:4444', '', {}, WITH_TOKENS);
    assert.ok(withTokens.ok && withTokens.principal.name === 'local' && !withTokens.principal.admin);
  });
});

describe('probes', () => {
  const probe = (peer: string, path: string, more: Partial<RequestFacts> = {}, policy = NO_TOKENS) =>
    checkRequest({ peer, host: '10.0.0.1:8000', origin: '', method: 'GET', contentType: '', authorization: '', probe: isProbe('GET', path), ...more }, policy);

  test('GET /health and GET /ready answer any peer without a token (a kubelet cannot send one), as nobody in particular', () => {
    assert.equal(isProbe('GET', '/ready'), true);
    assert.equal(isProbe('HEAD', '/health'), true);
    assert.equal(isProbe('POST', '/ready'), false);
    assert.equal(isProbe('GET', '/status'), false);
    for (const policy of [NO_TOKENS, WITH_TOKENS]) {
      assert.deepEqual(probe('10.0.0.2', '/ready', {}, policy), { ok: true, principal: PROBE_CLIENT });
      assert.deepEqual(probe('10.0.0.2', '/health', {}, policy), { ok: true, principal: PROBE_CLIENT });
      assert.equal(probe('10.0.0.2', '/status', {}, policy).ok, false);
    }
    assert.equal(PROBE_CLIENT.admin, false);
  });

  test('the rest of the gate still holds for probes: a wrong token, a DNS name in Host, an Origin', () => {
    assert.equal(probe('10.0.0.2', '/ready', { authorization: 'Bearer not-a-token-of-anyone' }, WITH_TOKENS).ok, false);
    assert.equal(probe('10.0.0.2', '/ready', { host: 'evil.example' }).ok, false);
    assert.equal(probe('10.0.0.2', '/ready', { origin: 'https://evil.example' }).ok, false);
    // A loopback client is still who it always was.
    assert.deepEqual(probe('127.0.0.1', '/ready'), { ok: true, principal: LOCAL });
  });
});
