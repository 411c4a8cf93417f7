// Credentials by their names (issue 37): the rule that decides which names are credentials'
// (src/webdriver/credentials.ts, `trace.secretNames`), every spelling the issue names hidden and
// the near misses kept; the shapes in which a name hands its value to a text (queries, forms,
// JSON, scripts, header lines, multipart bodies, HTML form fields, a URL's password); and the
// Redactor's structures (members, header lists, BiDi pairs, bodies, the HAR) under that rule.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import defaults from '../../config/default.json' with { type: 'json' };
import { resolveConfig, ConfigError } from '../../src/config.ts';
import { toHar } from '../../src/trace/har.ts';
import { CredentialNames, words } from '../../src/webdriver/credentials.ts';
import { REDACTED, Redactor } from '../../src/webdriver/redact.ts';
import type { NetworkEntry } from '../../backends/backend.ts';

const names = new CredentialNames(defaults.trace.secretNames);
const hide = (s: string) => names.text(s, REDACTED);

test('a name is split into words at separators and case changes', () => {
  assert.deepEqual(words('X-Api-Key'), ['x', 'api', 'key']);
  assert.deepEqual(words('refreshToken'), ['refresh', 'token']);
  assert.deepEqual(words('APIKey'), ['api', 'key']);
  assert.deepEqual(words('ASP.NET_SessionId'), ['asp', 'net', 'session', 'id']);
  assert.deepEqual(words('user[password]'), ['user', 'password']);
  assert.deepEqual(words('oauth2Token'), ['oauth2', 'token']);
});

test("every spelling the issue names is a credential's, in any case; the near misses are not", () => {
  const credentials = [
    'X-Api-Key', 'x-api-key', 'X-API-KEY', 'x-auth-token', 'X-Auth-Token', 'client_secret', 'clientSecret', 'refresh_token', 'refreshToken', 'access_token',
    'accessToken', 'sessionid', 'SessionId', 'session_id', 'PHPSESSID', 'JSESSIONID', 'ASP.NET_SessionId', 'connect.sid', 'X-Amz-Signature', 'X-Amz-Credential',
    'X-Amz-Security-Token', 'X-Goog-Signature', 'sig', 'Authorization', 'Proxy-Authorization', 'Cookie', 'Set-Cookie', 'password', 'passwd', 'new_password',
    'user[password]', 'apikey', 'APIKey', 'api_key', 'key', 'private_key', 'X-CSRF-Token', 'XSRF-TOKEN', '_csrf', 'csrfmiddlewaretoken', 'authenticity_token',
    '__RequestVerificationToken', 'id_token', 'jwt', 'credentials', 'tokens', 'secrets',
  ];
  for (const name of credentials) assert.equal(names.test(name), true, `${name} is a credential's name`);
  const others = [
    'keyboard', 'monkey', 'hotkey', 'keyword', 'turkey', 'author', 'authority', 'Authors', 'tokenizer', 'secretary', 'passenger', 'compass', 'bypass',
    'possession', 'cookiecutter', 'design', 'inside', 'username', 'user', 'email', 'name', 'value', 'type', 'id', 'url', 'text', 'Accept', 'Content-Type',
    'User-Agent', 'Referer', 'WWW-Authenticate', 'Keep-Alive', 'grant_type', 'client_id', 'state', 'scope', 'expires_in',
  ];
  for (const name of others) assert.equal(names.test(name), false, `${name} is not a credential's name`);
});

test('the list is configurable: phrases match as consecutive words, an empty list hides nothing by name', () => {
  const narrow = new CredentialNames(['api-key', 'Client Secret']);
  assert.equal(narrow.test('X-Api-Key'), true);
  assert.equal(narrow.test('apiKeys'), true);
  assert.equal(narrow.test('client_secret'), true);
  assert.equal(narrow.test('partitionKey'), false, 'key alone is not listed');
  assert.equal(narrow.test('key_api'), false, 'the words in their order');
  assert.equal(narrow.test('secret'), false);
  const none = new CredentialNames([]);
  assert.equal(none.test('password'), false);
  assert.equal(none.text('?access_token=abc', REDACTED), '?access_token=abc');
});

test('in texts: query parameters and fragments in URLs, form bodies, cookie lines', () => {
  assert.equal(hide('https://x/cb?access_token=q1&state=s#id_token=f1'), `https://x/cb?access_token=${REDACTED}&state=s#id_token=${REDACTED}`);
  assert.equal(hide('grant_type=refresh_token&client_id=app&client_secret=s3&refresh_token=r1'), `grant_type=refresh_token&client_id=app&client_secret=${REDACTED}&refresh_token=${REDACTED}`);
  assert.equal(hide('user%5Bpassword%5D=pw&u=1'), `user%5Bpassword%5D=${REDACTED}&u=1`);
  assert.equal(hide('<a href="/x?ref=list&amp;api_key=k1">'), `<a href="/x?ref=list&amp;api_key=${REDACTED}">`);
  assert.equal(hide('sid=c1; theme=dark'), `sid=${REDACTED}; theme=dark`);
  assert.equal(hide('https://ann:pw1@host/a and http://[::1]:80/a@b'), `https://ann:${REDACTED}@host/a and http://[::1]:80/a@b`);
});

test('in texts: JSON members (also escaped inside a string), scripts, header lines', () => {
  assert.equal(
    hide('{"refresh_token":"r1","expires_in":3600,"otp": 123456,"scope":"a b"}'),
    `{"refresh_token":"${REDACTED}","expires_in":3600,"otp": ${REDACTED},"scope":"a b"}`,
  );
  assert.equal(hide('"{\\"api_key\\":\\"k1\\",\\"u\\":\\"ann\\"}"'), `"{\\"api_key\\":\\"${REDACTED}\\",\\"u\\":\\"ann\\"}"`);
  assert.equal(hide('{"Api Key": "k1"}'), `{"Api Key": "${REDACTED}"}`);
  // A member whose value is a credential's name is not a name: the next member keeps its name.
  assert.equal(hide('{"grant_type":"refresh_token","refresh_token":"r1"}'), `{"grant_type":"refresh_token","refresh_token":"${REDACTED}"}`);
  // A JSON text cut short: the value to its end.
  assert.equal(hide('{"user":"ann","password":"hunt'), `{"user":"ann","password":"${REDACTED}`);
  assert.equal(
    hide(`fetch('/a?access_token=q1', {headers: {'X-Api-Key': 'h1', 'x-auth-token': "h2"}, body: JSON.stringify({refresh_token: 'r1'})})`),
    `fetch('/a?access_token=${REDACTED}', {headers: {'X-Api-Key': '${REDACTED}', 'x-auth-token': "${REDACTED}"}, body: JSON.stringify({refresh_token: '${REDACTED}'})})`,
  );
  assert.equal(hide('const apiKey = "k2"; token = `t3`;'), `const apiKey = "${REDACTED}"; token = \`${REDACTED}\`;`);
  assert.equal(
    hide(`xhr.setRequestHeader('X-Api-Key', 'h1'); form.append("password", "p1"); localStorage.setItem('token', t); new Headers([['x-auth-token', 'h2']])`),
    `xhr.setRequestHeader('X-Api-Key', '${REDACTED}'); form.append("password", "${REDACTED}"); localStorage.setItem('token', t); new Headers([['x-auth-token', '${REDACTED}']])`,
  );
  assert.equal(hide('X-Api-Key: h1\r\nAccept: */*\r\nCookie: sid=c1; theme=dark'), `X-Api-Key: ${REDACTED}\r\nAccept: */*\r\nCookie: ${REDACTED}`);
});

test('in texts: multipart fields and HTML form fields by their names', () => {
  const multipart = '--b\r\nContent-Disposition: form-data; name="client_secret"\r\n\r\ns3\r\n--b\r\nContent-Disposition: form-data; name="user"\r\n\r\nann\r\n--b--\r\n';
  assert.equal(hide(multipart), multipart.replace('\r\ns3\r\n', `\r\n${REDACTED}\r\n`));
  assert.equal(
    hide('<input type="hidden" name="csrf_token" value="c1"><meta name="csrf-token" content="c2"><input name=user value=ann>'),
    `<input type="hidden" name="csrf_token" value="${REDACTED}"><meta name="csrf-token" content="${REDACTED}"><input name=user value=ann>`,
  );
});

test('in texts: near misses kept, and hiding twice is hiding once', () => {
  const plain = 'keyboard=1 monkey: "x" author=ann "tokenizer": "bpe" a == b; .password:focus { outline: 0 } input[type=password] http://host/token/abc';
  assert.equal(hide(plain), plain);
  // A key mentioned in prose, a colon without a quoted value (CSS, a sentence): kept.
  assert.equal(hide('press the key: Enter'), 'press the key: Enter');
  assert.equal(hide('[data-api-key=k1]'), `[data-api-key=${REDACTED}]`);
  for (const s of ['?access_token=q1&x=1', '{"token": "t"}', 'X-Api-Key: h1', '[data-api-key=k1]', '<meta name="csrf-token" content="c2">', 'https://a:b@c/']) {
    assert.equal(hide(hide(s)), hide(s), s);
  }
});

test("the Redactor: members, {name, value} pairs, BiDi's [name, value] pairs, bodies by type", () => {
  const r = new Redactor([], names);
  assert.deepEqual(r.value({ clientSecret: 'c', 'X-Api-Key': 'k', user: 'ann', nested: { refresh_token: 'r', url: '/cb?access_token=q' } }), {
    clientSecret: REDACTED,
    'X-Api-Key': REDACTED,
    user: 'ann',
    nested: { refresh_token: REDACTED, url: `/cb?access_token=${REDACTED}` },
  });
  // BiDi: network.setExtraHeaders' headers, and script.evaluate's serialized object.
  assert.deepEqual(r.value({ headers: [{ name: 'x-auth-token', value: { type: 'string', value: 'h' } }, { name: 'Accept', value: { type: 'string', value: '*/*' } }] }), {
    headers: [{ name: 'x-auth-token', value: REDACTED }, { name: 'Accept', value: { type: 'string', value: '*/*' } }],
  });
  assert.deepEqual(r.value({ type: 'object', value: [['apiKey', { type: 'string', value: 'k' }], ['user', { type: 'string', value: 'ann' }]] }), {
    type: 'object',
    value: [['apiKey', REDACTED], ['user', { type: 'string', value: 'ann' }]],
  });
  assert.deepEqual(r.headers([{ name: 'X-Api-Key', value: 'k' }, { name: 'Referer', value: 'http://x/?token=t' }]), [
    { name: 'X-Api-Key', value: REDACTED },
    { name: 'Referer', value: `http://x/?token=${REDACTED}` },
  ]);
  assert.deepEqual(JSON.parse(r.body('{"access_token":"a","refresh_token":"r","token_type":"Bearer","expires_in":60}', 'application/json')), {
    access_token: REDACTED,
    refresh_token: REDACTED,
    token_type: REDACTED,
    expires_in: 60,
  });
  assert.equal(r.body('client_secret=s&grant_type=client_credentials', 'application/x-www-form-urlencoded'), `client_secret=${REDACTED}&grant_type=client_credentials`);
});

test("the HAR: a request's query string, its headers and its body's credentials hidden; the rest kept", () => {
  const entry: NetworkEntry = {
    method: 'POST',
    url: 'http://127.0.0.1:1/api?access_token=q1&page=2',
    resourceType: 'fetch',
    startedAt: Date.UTC(2026, 11, 1),
    durationMs: 5,
    status: 200,
    statusText: 'OK',
    httpVersion: 'HTTP/1.1',
    mimeType: 'application/json',
    requestHeaders: [{ name: 'X-Api-Key', value: 'h1' }, { name: 'x-auth-token', value: 'h2' }, { name: 'Accept', value: '*/*' }],
    responseHeaders: [{ name: 'Content-Type', value: 'application/json' }],
    transferSize: 100,
    bodySize: 50,
    timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: 4, receive: 1 },
    fromCache: false,
    responseBody: '{"refresh_token":"r1","user":"ann"}',
  };
  const har = toHar([entry], [], { name: 'chrome', version: '156' }, '0', new Redactor([], names)) as { log: { entries: any[] } };
  const [e] = har.log.entries;
  assert.equal(e.request.url, `http://127.0.0.1:1/api?access_token=${REDACTED}&page=2`);
  assert.deepEqual(e.request.queryString, [{ name: 'access_token', value: REDACTED }, { name: 'page', value: '2' }]);
  assert.deepEqual(e.request.headers, [{ name: 'X-Api-Key', value: REDACTED }, { name: 'x-auth-token', value: REDACTED }, { name: 'Accept', value: '*/*' }]);
  assert.deepEqual(JSON.parse(e.response.content.text), { refresh_token: REDACTED, user: 'ann' });
  for (const secret of ['q1', 'h1', 'h2', 'r1']) assert.ok(!JSON.stringify(har).includes(`"${secret}`) && !JSON.stringify(har).includes(`=${secret}`), secret);
});

test('trace.secretNames: the default list in config/default.json; a list of names, checked', () => {
  assert.deepEqual(resolveConfig({}).trace.secretNames, defaults.trace.secretNames);
  assert.deepEqual(resolveConfig({ trace: { secretNames: ['api-key'] } }).trace.secretNames, ['api-key']);
  for (const bad of ['token', [1], ['-'], [''], null]) assert.throws(() => resolveConfig({ trace: { secretNames: bad } }), ConfigError);
});
