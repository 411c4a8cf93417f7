// Session traces and history, the pure parts: names and trace modes from capabilities, the
// clients' reports (Grid session events, cloud grids' scripts), the result rule, redaction, the
// HAR, the list's query, and the store on disk (its index read again, retention and budget).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionLabels, traceMode } from '../../src/webdriver/session-options.ts';
import { scriptReports, sessionEventReports, ReportError } from '../../src/webdriver/reports.ts';
import { Outcome } from '../../src/webdriver/outcome.ts';
import { Seam } from '../../src/webdriver/seam.ts';
import type { PassThroughSession } from '../../src/webdriver/pass-through.ts';
import { Redactor, REDACTED, redactAnswer, redactParams } from '../../src/webdriver/redact.ts';
import { CredentialNames } from '../../src/webdriver/credentials.ts';
import defaults from '../../config/default.json' with { type: 'json' };
import { toHar } from '../../src/trace/har.ts';
import { listQuery } from '../../src/trace/query.ts';
import { HistoryStore } from '../../src/trace/store.ts';
import { defaultHistoryDirectory } from '../../src/trace/index.ts';
import { WebDriverError } from '../../src/webdriver/errors.ts';
import { silentLogger } from '../../src/base/log.ts';
import type { NetworkEntry } from '../../backends/backend.ts';

/** Credentials' names as the gateway is configured by default (trace.secretNames). */
const NAMES = new CredentialNames(defaults.trace.secretNames);

const invalid = (fn: () => unknown) => assert.throws(fn, (e: unknown) => e instanceof WebDriverError && e.code === 'invalid argument');

test('a session is named by wdgate:options.name, else se:name; build and tags are checked', () => {
  assert.deepEqual(sessionLabels({ 'se:name': 'login works' }), { name: 'login works', tags: [] });
  assert.deepEqual(sessionLabels({ 'se:name': 'grid', 'wdgate:options': { name: ' ours ', build: 'ci-7', tags: ['smoke', 'smoke', ''] } }), { name: 'ours', build: 'ci-7', tags: ['smoke'] });
  assert.deepEqual(sessionLabels({ 'se:name': '   ' }), { tags: [] });
  invalid(() => sessionLabels({ 'se:name': 42 }));
  invalid(() => sessionLabels({ 'wdgate:options': { tags: 'smoke' } }));
  assert.equal(sessionLabels({ 'se:name': 'x'.repeat(1000) }).name!.length, 256);
});

test('the trace mode comes from wdgate:options.trace, else the gateway default; anything else is invalid argument', () => {
  assert.equal(traceMode({}, 'off'), 'off');
  assert.equal(traceMode({}, 'retain-on-failure'), 'retain-on-failure');
  assert.equal(traceMode({ 'wdgate:options': { trace: 'on' } }, 'off'), 'on');
  assert.equal(traceMode({ 'wdgate:options': { trace: true } }, 'off'), 'on');
  assert.equal(traceMode({ 'wdgate:options': { trace: false } }, 'on'), 'off');
  invalid(() => traceMode({ 'wdgate:options': { trace: 'always' } }, 'off'));
});

test('Selenium Grid session events: results, a started test with its name, markers, other events kept as markers', () => {
  assert.deepEqual(sessionEventReports({ eventType: 'test:failed', payload: { testName: 'Login', error: 'Element not found' } }), [{ kind: 'result', result: 'failed', reason: 'Element not found' }]);
  assert.deepEqual(sessionEventReports({ eventType: 'test:passed' }), [{ kind: 'result', result: 'passed' }]);
  assert.deepEqual(sessionEventReports({ eventType: 'test:skipped', payload: {} }), [{ kind: 'result', result: 'skipped' }]);
  assert.deepEqual(sessionEventReports({ eventType: 'test:started', payload: { testName: 'Checkout' } }), [{ kind: 'started' }, { kind: 'name', name: 'Checkout' }]);
  assert.deepEqual(sessionEventReports({ eventType: 'marker:add', payload: { text: 'cart filled' } }), [{ kind: 'marker', label: 'marker', text: 'cart filled' }]);
  assert.deepEqual(sessionEventReports({ eventType: 'log:collect', payload: { level: 'info' } }), [{ kind: 'marker', label: 'log:collect', text: '{"level":"info"}' }]);
  for (const bad of [null, [], 'x', {}, { eventType: '' }, { eventType: 'test:failed', payload: 'boom' }]) assert.throws(() => sessionEventReports(bad), ReportError);
});

test("cloud grids' script commands are reports, never scripts; ordinary scripts are not", () => {
  assert.deepEqual(scriptReports('sauce:job-result=failed'), [{ kind: 'result', result: 'failed', reason: 'sauce:job-result' }]);
  assert.deepEqual(scriptReports(' sauce:job-result = passed '), [{ kind: 'result', result: 'passed', reason: 'sauce:job-result' }]);
  assert.deepEqual(scriptReports('sauce:job-name=My test'), [{ kind: 'name', name: 'My test' }]);
  assert.deepEqual(scriptReports('sauce:context=step 2'), [{ kind: 'marker', label: 'sauce:context', text: 'step 2' }]);
  assert.deepEqual(scriptReports('lambda-status=failed'), [{ kind: 'result', result: 'failed', reason: 'lambda-status' }]);
  assert.deepEqual(scriptReports('browserstack_executor: {"action": "setSessionStatus", "arguments": {"status": "failed", "reason": "title differs"}}'), [
    { kind: 'result', result: 'failed', reason: 'title differs' },
  ]);
  assert.deepEqual(scriptReports('browserstack_executor: {"action":"setSessionName","arguments":{"name":"Cart"}}'), [{ kind: 'name', name: 'Cart' }]);
  assert.deepEqual(scriptReports('browserstack_executor: {"action":"getFileProperties"}'), []);
  for (const script of ['return 1', 'return "sauce:job-result=failed"', 'window.lambda = 1', '// browserstack_executor:']) assert.equal(scriptReports(script), undefined, script);
  for (const bad of ['sauce:job-result=maybe', 'lambda-status=', 'browserstack_executor: {not json', 'browserstack_executor: {"action":"setSessionStatus","arguments":{"status":"meh"}}']) {
    assert.throws(() => scriptReports(bad), ReportError, bad);
  }
});

test('the result rule: reported wins; a crash fails; deleted after an unrecovered failure fails, else passes; ended otherwise is unknown', () => {
  const ok = new Outcome();
  ok.answered('navigateTo', undefined);
  assert.deepEqual(ok.result('deleted', 'it was deleted').result, 'passed');
  assert.deepEqual(ok.result('other', 'no command came for 300 s').result, 'unknown');
  assert.deepEqual(ok.result('crashed', 'its browser went away').result, 'failed');

  const failing = new Outcome();
  failing.answered('findElement', { code: 'no such element', message: 'no #login' });
  // A reporter's screenshot and page source after the failure are no recovery from it.
  failing.answered('takeScreenshot', undefined);
  failing.answered('getPageSource', undefined);
  const out = failing.result('deleted', 'it was deleted');
  assert.equal(out.result, 'failed');
  assert.match(out.reason, /findElement: no such element: no #login/);
  assert.equal(failing.errors, 1);
  assert.equal(failing.commands, 3);

  const recovered = new Outcome();
  recovered.answered('findElement', { code: 'no such element', message: 'not yet' });
  recovered.answered('findElement', undefined);
  assert.equal(recovered.result('deleted', '').result, 'passed');

  const reported = new Outcome();
  reported.answered('findElement', { code: 'no such element', message: 'x' });
  reported.report([{ kind: 'result', result: 'passed' }, { kind: 'name', name: 'renamed' }]);
  assert.equal(reported.result('deleted', '').result, 'passed');
});

test("the seam: a reported name, build and tags become the session's; its result follows the reports", async () => {
  const seam = new Seam();
  const session = { id: 's', options: { labels: { tags: [] }, trace: undefined, recordVideo: false } } as unknown as PassThroughSession;
  await seam.opened(session, { id: 's', principal: 'p', backend: 'remote', browserName: 'chrome', browserVersion: '1', capabilities: {} });
  seam.answered({ kind: 'forwarded', name: 'findElement', session, startedAt: 0, durationMs: 1, error: { code: 'no such element', message: 'x' } });
  seam.reported(session, [{ kind: 'result', result: 'passed' }, { kind: 'name', name: 'renamed' }, { kind: 'build', build: 'b7' }, { kind: 'tags', tags: ['smoke'] }], 'se/event');
  assert.deepEqual(session.options.labels, { name: 'renamed', build: 'b7', tags: ['smoke'] });
  assert.equal(seam.record(session)!.outcome.result('deleted', '').result, 'passed');
});

test('redaction at the seam: cookie values in every cookie command (names kept), credentials in answers and header lists, typed text', () => {
  const r = new Redactor([], NAMES);
  // Get All Cookies and Get Named Cookie answer cookies: each value hidden.
  assert.deepEqual(redactAnswer(r, 'getAllCookies', [{ name: 'sid', value: 's3cr3t', httpOnly: true }, { name: 'theme', value: 'dark' }]), [
    { name: 'sid', value: REDACTED, httpOnly: true },
    { name: 'theme', value: REDACTED },
  ]);
  assert.deepEqual(redactAnswer(r, 'getNamedCookie', { name: 'sid', value: 's3cr3t' }), { name: 'sid', value: REDACTED });
  // BiDi: storage.getCookies' answer and storage.setCookie's parameters (a value is {type, value}).
  assert.deepEqual(redactAnswer(r, 'storage.getCookies', { cookies: [{ name: 'sid', value: { type: 'string', value: 's3cr3t' } }], partitionKey: {} }), {
    cookies: [{ name: 'sid', value: REDACTED }],
    // "key" is a credential's word (trace.secretNames): BiDi's partitionKey is hidden with the rest.
    partitionKey: REDACTED,
  });
  assert.deepEqual(redactParams(r, 'storage.setCookie', { cookie: { name: 'sid', value: { type: 'string', value: 's3cr3t' }, domain: 'x' } }, false), {
    cookie: { name: 'sid', value: REDACTED, domain: 'x' },
  });
  // Credentials by member name in answers as in parameters; a header list's value by the header's name.
  assert.deepEqual(redactAnswer(r, 'executeScript', { user: 'ann', password: 'hunter22', token: 't' }), { user: 'ann', password: REDACTED, token: REDACTED });
  assert.deepEqual(redactParams(r, 'network.continueRequest', { headers: [{ name: 'Cookie', value: { type: 'string', value: 'sid=1' } }, { name: 'Accept', value: { type: 'string', value: '*/*' } }] }, false), {
    headers: [{ name: 'Cookie', value: REDACTED }, { name: 'Accept', value: { type: 'string', value: '*/*' } }],
  });
  // Typed into a password field: Send Keys' text, and key actions' values (classic and BiDi).
  assert.deepEqual(redactParams(r, 'elementSendKeys', { text: 'hunter22' }, true), { text: REDACTED });
  assert.deepEqual(redactParams(r, 'elementSendKeys', { text: 'ann' }, false), { text: 'ann' });
  const keys = { actions: [{ type: 'key', id: 'k', actions: [{ type: 'keyDown', value: 'h' }, { type: 'keyUp', value: 'h' }] }, { type: 'pointer', id: 'p', actions: [{ type: 'pause' }] }] };
  for (const name of ['performActions', 'input.performActions']) {
    assert.deepEqual(redactParams(r, name, keys, true), {
      actions: [{ type: 'key', id: 'k', actions: [{ type: 'keyDown', value: REDACTED }, { type: 'keyUp', value: REDACTED }] }, { type: 'pointer', id: 'p', actions: [{ type: 'pause' }] }],
    });
  }
  // WebAuthn: a passkey's private key, id, user handle and blob, in Add Credential's parameters and Get Credentials' answer.
  const credential = { credentialId: 'Y3JlZA', isResidentCredential: true, rpId: 'localhost', privateKey: 'MIGHAgEAMBMG', userHandle: 'dXNlcg', largeBlob: 'YmxvYg', signCount: 1 };
  const hidden = { credentialId: REDACTED, isResidentCredential: true, rpId: 'localhost', privateKey: REDACTED, userHandle: REDACTED, largeBlob: REDACTED, signCount: 1 };
  assert.deepEqual(redactParams(r, 'addCredential', credential, false), hidden);
  assert.deepEqual(redactAnswer(r, 'getCredentials', [credential]), [hidden]);
  // A screenshot's answer is kept as its size only.
  assert.equal(redactAnswer(r, 'takeScreenshot', 'A'.repeat(5000)), '[base64, 5000 characters]');
});

test('redaction: typed secrets everywhere (also percent-encoded), configured patterns, credentials by key, long values cut', () => {
  const r = new Redactor(['sk_live_[A-Za-z0-9]+'], NAMES);
  r.addSecret('p@ss word!');
  r.addSecret('ab'); // too short to search for elsewhere
  assert.equal(r.text('login with p@ss word! now'), `login with ${REDACTED} now`);
  assert.equal(r.text('/login?pw=p%40ss+word%21&u=x'), `/login?pw=${REDACTED}&u=x`);
  assert.equal(r.text('/login?pw=p%40ss%20word%21'), `/login?pw=${REDACTED}`);
  assert.equal(r.text('key sk_live_abc123 used'), `key ${REDACTED} used`);
  assert.equal(r.text('ab stays'), 'ab stays');
  // A cookie keeps its name (issue 30: names kept, values hidden).
  assert.deepEqual(r.value({ cookie: { name: 'sid', value: 'v' }, password: 'x', nested: [{ token: 't', keep: 'sk_live_zz' }] }), {
    cookie: { name: 'sid', value: REDACTED },
    password: REDACTED,
    nested: [{ token: REDACTED, keep: REDACTED }],
  });
  assert.match(r.value('x'.repeat(5000)) as string, /…\[3000 more\]$/);
  assert.deepEqual(r.headers([{ name: 'Authorization', value: 'Bearer abc' }, { name: 'Accept', value: 'p@ss word!' }]), [
    { name: 'Authorization', value: REDACTED },
    { name: 'Accept', value: REDACTED },
  ]);
});

const entry = (over: Partial<NetworkEntry>): NetworkEntry => ({
  method: 'GET',
  url: 'http://127.0.0.1:1/a?x=1&y=two',
  resourceType: 'document',
  startedAt: Date.UTC(2026, 10, 26, 12),
  durationMs: 40,
  status: 200,
  statusText: 'OK',
  httpVersion: 'HTTP/1.1',
  mimeType: 'text/html',
  requestHeaders: [{ name: 'Cookie', value: 'sid=1' }],
  responseHeaders: [{ name: 'Content-Type', value: 'text/html' }],
  transferSize: 500,
  bodySize: 300,
  timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 1, wait: -1, receive: 4 },
  fromCache: false,
  ...over,
});

test('the HAR: version 1.2, one entry per request in time order, pages, query strings, non-negative send/wait/receive, credentials redacted', () => {
  const t = Date.UTC(2026, 10, 26, 12);
  const har = toHar(
    [entry({ url: 'http://127.0.0.1:1/late.css', startedAt: t + 100, resourceType: 'stylesheet' }), entry({}), entry({ url: 'http://127.0.0.1:1/missing', startedAt: t + 50, status: 0, statusText: '', error: 'net::ERR_FAILED' })],
    [{ id: 'page_1', startedAt: t - 1, title: 'Home' }],
    { name: 'chrome', version: '156' },
    '0.1.0',
    new Redactor([], NAMES),
  ) as { log: { version: string; pages: unknown[]; entries: any[] } };
  assert.equal(har.log.version, '1.2');
  assert.equal(har.log.pages.length, 1);
  assert.deepEqual(har.log.entries.map((e) => e.request.url), ['http://127.0.0.1:1/a?x=1&y=two', 'http://127.0.0.1:1/missing', 'http://127.0.0.1:1/late.css']);
  const [first, failed] = har.log.entries;
  assert.equal(first.pageref, 'page_1');
  assert.equal(first.startedDateTime, new Date(t).toISOString());
  assert.deepEqual(first.request.queryString, [{ name: 'x', value: '1' }, { name: 'y', value: 'two' }]);
  assert.deepEqual(first.request.headers, [{ name: 'Cookie', value: REDACTED }]);
  assert.equal(first.timings.wait, 35); // what the known phases leave of the 40 ms
  for (const e of har.log.entries) for (const phase of ['send', 'wait', 'receive']) assert.ok(e.timings[phase] >= 0);
  assert.equal(failed.response.status, 0);
  assert.equal(failed.response._error, 'net::ERR_FAILED');
});

test("the history list's query: filters checked, paging bounded", () => {
  assert.deepEqual(listQuery(''), { limit: 50, offset: 0 });
  assert.deepEqual(listQuery('state=all&result=failed&name=Login&build=&since=2026-11-26T00:00:00Z&limit=10&offset=20'), {
    limit: 10,
    offset: 20,
    state: 'all',
    result: 'failed',
    name: 'Login',
    since: Date.parse('2026-11-26T00:00:00Z'),
  });
  assert.equal(listQuery('until=1700000000000').until, 1700000000000);
  for (const bad of ['state=gone', 'result=broken', 'limit=0', 'limit=501', 'offset=-1', 'since=yesterday']) invalid(() => listQuery(bad));
});

test('the default history directory is under XDG_CACHE_HOME, else ~/.cache', () => {
  assert.equal(defaultHistoryDirectory({ XDG_CACHE_HOME: '/var/cache/ci' }), '/var/cache/ci/wdgate/history');
  assert.match(defaultHistoryDirectory({ XDG_CACHE_HOME: 'relative' }), /\/\.cache\/wdgate\/history$/);
});

test('the store: entries written whole and read again at start; past the retention or the budget the oldest go first; half-written folders swept', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wdgate-store-'));
  try {
    const base = { tags: [], principal: 'p', backend: 'native', browserName: 'chrome', browserVersion: '1', durationMs: 1, result: 'passed' as const, resultReason: '', endReason: '', commands: 1, errors: 0, trace: 'on' as const };
    const store = new HistoryStore({ directory: dir, retention: 60_000, maxBytes: 250 }, silentLogger);
    await store.load();
    const now = Date.now();
    await store.put({ ...base, id: 'old', startedAt: new Date(now - 3000).toISOString(), endedAt: new Date(now - 3000).toISOString() }, [{ name: 'trace.zip', data: new Uint8Array(100) }]);
    await store.put({ ...base, id: 'mid', startedAt: new Date(now - 2000).toISOString(), endedAt: new Date(now - 2000).toISOString() }, [{ name: 'trace.zip', data: new Uint8Array(100) }]);
    assert.deepEqual([...store.entries()].map((e) => e.id).sort(), ['mid', 'old']);
    // Over the 250-byte budget: the oldest goes.
    await store.put({ ...base, id: 'new', startedAt: new Date(now).toISOString(), endedAt: new Date(now).toISOString() }, [{ name: 'trace.zip', data: new Uint8Array(100) }]);
    assert.deepEqual([...store.entries()].map((e) => e.id).sort(), ['mid', 'new']);
    assert.equal(existsSync(join(dir, 'old')), false);
    assert.equal(store.path('new', 'trace.zip'), join(dir, 'new', 'trace.zip'));
    assert.equal(store.path('new', 'video.webm'), undefined);
    // A folder a killed gateway left without its entry goes at the next start.
    mkdirSync(join(dir, 'half'));
    writeFileSync(join(dir, 'half', 'trace.zip'), 'x');
    const again = new HistoryStore({ directory: dir, retention: 60_000, maxBytes: 10_000 }, silentLogger);
    await again.load();
    assert.deepEqual([...again.entries()].map((e) => e.id).sort(), ['mid', 'new']);
    assert.equal(existsSync(join(dir, 'half')), false);
    // Past the retention time.
    await again.sweep(now + 60_000 - 1000);
    assert.deepEqual([...again.entries()].map((e) => e.id), ['new']);
    await Promise.all([store.close(), again.close()]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
