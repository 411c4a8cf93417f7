// Nothing secret in a kept trace, on every path (issue 30): what is typed into a password field
// (Send Keys, classic key actions, BiDi input.performActions; through a pass-through session the
// gateway asks the upstream, or keeps no text), cookie values set and read back (names kept),
// credentials by member name in answers, the page's console and a recording's console log, and
// the configured secret patterns; and credentials by their names (issue 37): a page's own fetches
// with an X-Api-Key and an x-auth-token header, an access_token query, a client_secret form field,
// a JSON body with a refresh_token and a multipart password field, answered by a server that
// repeats them, logged by the page, and the page's own URL with an access_token. On each driven
// backend and through the pass-through, every file of the kept trace and of the history's folder
// is searched for each secret.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, startPageServer, type PageServer } from '../helpers/pages.ts';
import type { Session } from '../helpers/client.ts';
import { BidiSocket } from '../helpers/bidi.ts';

/** One secret per path, so that a leak names its path. Letters and digits: the same in any encoding. */
const SECRET = {
  sendKeys: 'SendKeysSecret7q',
  keyActions: 'KeyActionsSecret4w',
  bidiActions: 'BidiActionsSecret9e',
  cookie: 'CookieValueSecret2r',
  answer: 'AnswerMemberSecret5t',
  pattern: 'tok_p4ttern0secret',
  apiKeyHeader: 'ApiKeyHeaderSecret3y',
  authTokenHeader: 'AuthTokenHeaderSecret6u',
  accessTokenQuery: 'AccessTokenQuerySecret0p',
  clientSecretField: 'ClientSecretFieldSecret1i',
  refreshTokenJson: 'RefreshTokenJsonSecret8o',
  multipartPassword: 'MultipartPasswordSecret4s',
  navigationToken: 'NavigationTokenSecret2a',
} as const;

let gw: TestGateway;
let pages: PageServer;
let history: string;

before(async () => {
  pages = await startPageServer();
  history = mkdtempSync(join(tmpdir(), 'wdgate-secrets-history-'));
  gw = await startGateway([], { historyDirectory: history, config: { trace: { secretPatterns: ['tok_[a-z0-9]{14}'] } } });
});

after(async () => {
  await gw?.stop();
  await pages?.close();
  rmSync(history, { recursive: true, force: true });
});

/** Three password fields, a button that logs what they hold, and the pattern in the page's text. */
function login(): string {
  return pages.page(
    `<p>api key ${SECRET.pattern}</p>
     <input id="user"><input id="pw1" type="password"><input id="pw2" type="password"><input id="pw3" type="password">
     <button id="log" onclick="console.log('holding', pw1.value, pw2.value, pw3.value, '${SECRET.pattern}')">log</button>`,
    'Login',
  );
}

/**
 * A page whose button makes three requests, the way a single-page app calls its API: a form post
 * with credentials in headers, the query and a field; a JSON post with a refresh token; a
 * multipart post with a password. The server repeats each (/echo), and the page logs the answers.
 */
function apiCaller(): string {
  return pages.page(
    `<button id="call">call</button><p id="out"></p>
     <script>
       document.getElementById('call').addEventListener('click', async () => {
         const form = await fetch('/echo?access_token=${SECRET.accessTokenQuery}&page=1', {
           method: 'POST',
           headers: { 'X-Api-Key': '${SECRET.apiKeyHeader}', 'x-auth-token': '${SECRET.authTokenHeader}', 'Content-Type': 'application/x-www-form-urlencoded' },
           body: 'grant_type=client_credentials&client_secret=${SECRET.clientSecretField}',
         });
         const json = await fetch('/echo', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: '${SECRET.refreshTokenJson}' }) });
         const data = new FormData();
         data.append('user', 'ann');
         data.append('password', '${SECRET.multipartPassword}');
         const multipart = await fetch('/echo', { method: 'POST', body: data });
         const answers = [await form.text(), await json.text(), await multipart.text()];
         console.log('answered', ...answers);
         document.getElementById('out').textContent = 'answered ' + answers.length;
       });
     </script>`,
    'API',
  );
}

/** Key actions typing `text` (a key source). */
const typing = (text: string) => ({ type: 'key', id: 'keyboard', actions: [...text].flatMap((c) => [{ type: 'keyDown', value: c }, { type: 'keyUp', value: c }]) });

/** Every path a session of this backend has, then its end; the session is traced ("on"), and recorded where it can be. */
async function exercise(s: Session, paths: { bidi: boolean; console: boolean }): Promise<void> {
  await s.navigate(`${login()}?key=${SECRET.pattern}`);
  // Send Keys into a password field.
  await s.post(`/element/${await s.find('#pw1')}/value`, { text: SECRET.sendKeys });
  // Classic key actions into the focused password field.
  await s.post(`/element/${await s.find('#pw2')}/click`);
  await s.post('/actions', { actions: [typing(SECRET.keyActions)] });
  await s.delete('/actions');
  // BiDi input.performActions into the focused password field.
  if (paths.bidi) {
    const socket = await BidiSocket.open(s.capabilities.webSocketUrl);
    try {
      const { contexts } = await socket.call('browsingContext.getTree', {});
      const context = contexts[0].context;
      await s.post(`/element/${await s.find('#pw3')}/click`);
      await socket.call('input.performActions', { context, actions: [typing(SECRET.bidiActions)] });
      // BiDi's cookies: set and read back.
      await socket.call('storage.setCookie', { cookie: { name: 'bidi_sid', value: { type: 'string', value: SECRET.cookie }, domain: '127.0.0.1' } });
      const { cookies } = await socket.call('storage.getCookies', {});
      assert.ok(cookies.some((c: any) => c.name === 'bidi_sid'), 'the BiDi cookie was set');
    } finally {
      socket.close();
    }
  }
  if (paths.console) await s.post(`/element/${await s.find('#log')}/click`);
  // Cookies: Add Cookie, then read back each way.
  await s.post('/cookie', { cookie: { name: 'sid', value: SECRET.cookie } });
  assert.ok((await s.get('/cookie')).some((c: any) => c.name === 'sid' && c.value === SECRET.cookie), 'the client gets the cookie as it is');
  assert.equal((await s.get('/cookie/sid')).value, SECRET.cookie);
  // Credentials by member name in an answer (the script has the secret in two halves, the answer whole).
  const half = SECRET.answer.length / 2;
  const script = `return {user: "ann", password: ${JSON.stringify(SECRET.answer.slice(0, half))} + ${JSON.stringify(SECRET.answer.slice(half))}}`;
  assert.equal((await s.execute(script)).password, SECRET.answer);
  // Credentials by name (issue 37): the page's URL, its requests, their answers, its console.
  await s.navigate(`${apiCaller()}?access_token=${SECRET.navigationToken}`);
  await s.post(`/element/${await s.find('#call')}/click`);
  const out = await s.find('#out');
  await eventually(async () => (await s.get(`/element/${out}/text`)) === 'answered 3', 'the page made its three requests');
  assert.ok((await s.get('/url')).includes(SECRET.navigationToken), 'the client gets the URL as it is');
  // The failure that keeps the trace (retain-on-failure would keep it too).
  await s.fails('POST', '/element', { using: 'css selector', value: '#missing' }, 'no such element');
  await s.end();
}

/** Every file of the session's history folder, zips opened: name → text. */
async function historyFiles(id: string): Promise<Map<string, string>> {
  const folder = readdirSync(history).find((name) => name.includes(id));
  assert.ok(folder, `no history folder for ${id}`);
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.zip')) for (const [inner, data] of Object.entries(unzipSync(readFileSync(path)))) files.set(`${name}/${inner}`, Buffer.from(data).toString('latin1'));
      else files.set(name, readFileSync(path).toString('latin1'));
    }
  };
  walk(join(history, folder));
  return files;
}

async function assertNoSecret(id: string, what: { bidi: boolean; console: boolean; recorded: boolean; har?: 'bodies' | 'requests' }): Promise<void> {
  await eventually(async () => (await gw.client.raw('GET', `/wdgate/sessions/${id}`)).value?.state === 'ended', `session ${id} never ended`, 30_000);
  const files = await historyFiles(id);
  assert.ok(files.has('trace.zip/trace.json'), `the trace was kept: ${[...files.keys()].join(', ')}`);
  if (what.recorded) assert.ok(files.has('console.log'), `the recording's console log is in the history: ${[...files.keys()].join(', ')}`);
  const trace = JSON.parse(files.get('trace.zip/trace.json')!);
  // The steps are there (names kept), their secrets are not.
  const names = trace.steps.map((step: any) => step.name);
  for (const step of ['elementSendKeys', 'performActions', 'addCookie', 'getAllCookies', 'getNamedCookie', 'executeScript']) assert.ok(names.includes(step), `${step} is a step`);
  if (what.bidi) for (const step of ['input.performActions', 'storage.setCookie', 'storage.getCookies']) assert.ok(names.includes(step), `${step} is a step`);
  const addCookie = trace.steps.find((step: any) => step.name === 'addCookie');
  assert.equal(addCookie.params.cookie.name, 'sid', 'a cookie keeps its name');
  for (const [path, secret] of Object.entries(SECRET)) {
    if (path === 'bidiActions' && !what.bidi) continue;
    for (const [file, text] of files) {
      const at = text.indexOf(secret);
      assert.ok(at < 0, `the ${path} secret is in ${file}: …${text.slice(Math.max(0, at - 200), at + secret.length + 20)}`);
    }
  }
  // What the page sent and got is there, names kept, values hidden (the search above is not vacuous).
  assert.match(JSON.stringify(trace.steps.find((step: any) => step.name === 'getCurrentUrl')), /access_token=\[redacted\]/, "Get Current URL's answer is kept, its token hidden");
  if (what.har) {
    const entries: any[] = JSON.parse(files.get('trace.zip/network.har')!).log.entries;
    const form = entries.find((e) => e.request.url.includes('/echo?'));
    assert.ok(form, `the form post is in the HAR: ${entries.map((e) => e.request.url).join(', ')}`);
    assert.equal(form.request.url, `${pages.url}/echo?access_token=[redacted]&page=1`);
    assert.deepEqual(form.request.queryString, [{ name: 'access_token', value: '[redacted]' }, { name: 'page', value: '1' }]);
    const header = (list: any[], name: string) => list.find((h) => h.name.toLowerCase() === name)?.value;
    assert.equal(header(form.request.headers, 'x-api-key'), '[redacted]');
    assert.equal(header(form.request.headers, 'x-auth-token'), '[redacted]');
    assert.equal(header(form.response.headers, 'x-api-key'), '[redacted]');
    if (what.har === 'bodies') {
      assert.equal(form.response.content.text, 'grant_type=client_credentials&client_secret=[redacted]', "the form's answer is kept, its secret field hidden");
      const json = entries.find((e) => e.request.url.endsWith('/echo') && e.response.content.mimeType === 'application/json');
      assert.deepEqual(JSON.parse(json.response.content.text), { grant_type: 'refresh_token', refresh_token: '[redacted]' });
    }
  }
  if (what.console) {
    assert.match(files.get('trace.zip/console.json') ?? '', /answered.*client_secret=\[redacted\]/, 'the page logged the answers (and the trace kept the line, its secrets hidden)');
    if (what.recorded) assert.match(files.get('console.log')!, /answered/, "the recording's log has the answers' line");
    assert.match(files.get('trace.zip/console.json') ?? '', /holding/, 'the page logged its fields (and the trace kept the line)');
    if (what.recorded) assert.match(files.get('console.log')!, /holding/, "the recording's log has the line");
  }
}

for (const backend of [
  { name: 'native Chromium', caps: {}, bidi: true, recorded: true, har: 'bodies' as const },
  { name: 'native Firefox', caps: { browserName: 'firefox' }, bidi: true, recorded: true, har: 'requests' as const },
  { name: 'Playwright Chromium', caps: { 'wdgate:options': { backend: 'playwright' } }, bidi: false, recorded: false, har: 'bodies' as const },
]) {
  test(`${backend.name}: no secret in the kept trace or the history, typed, set or logged any way`, async () => {
    const options = { ...((backend.caps as any)['wdgate:options'] ?? {}), trace: 'on', ...(backend.recorded && { recordVideo: true }) };
    const s = await gw.client.newSession({ ...backend.caps, ...(backend.bidi && { webSocketUrl: true }), 'wdgate:options': options });
    await exercise(s, { bidi: backend.bidi, console: true });
    await assertNoSecret(s.id, { bidi: backend.bidi, console: true, recorded: backend.recorded, har: backend.har });
  });
}

test('pass-through (remote → chromedriver): Send Keys into a password field is hidden (the upstream is asked), key actions keep no text, cookies and credentials hidden', async () => {
  const s = await gw.client.newSession({ 'goog:chromeOptions': { args: ['--headless=new', '--no-sandbox'] }, 'wdgate:options': { backend: 'remote', trace: 'on' } });
  await exercise(s, { bidi: false, console: false });
  await assertNoSecret(s.id, { bidi: false, console: false, recorded: false });
  // What is not secret stays readable: Send Keys into a plain field keeps its text.
  const t = await gw.client.newSession({ 'goog:chromeOptions': { args: ['--headless=new', '--no-sandbox'] }, 'wdgate:options': { backend: 'remote', trace: 'on' } });
  await t.navigate(login());
  await t.post(`/element/${await t.find('#user')}/value`, { text: 'ann-the-user' });
  await t.fails('POST', '/element', { using: 'css selector', value: '#missing' }, 'no such element');
  await t.end();
  await eventually(async () => (await gw.client.raw('GET', `/wdgate/sessions/${t.id}`)).value?.state === 'ended', 'never ended', 30_000);
  const trace = JSON.parse((await historyFiles(t.id)).get('trace.zip/trace.json')!);
  assert.equal(trace.steps.find((step: any) => step.name === 'elementSendKeys').params.text, 'ann-the-user');
});

