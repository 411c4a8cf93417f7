// Session traces and history through the real gateway, real browsers and a real client: names
// and results from the conventions clients use, what a trace holds (steps, screenshots, DOM
// snapshots, console, HAR), what it never holds (a password typed), retain-on-failure, who sees
// which session, a restart keeping the history, transcript.md, and traces of Firefox, pass-through
// and BiDi sessions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { Snapshots } from '../../src/trace/viewer/snapshots.ts';
import WebSocket from 'ws';
import { Builder, By } from 'selenium-webdriver';
import chrome from 'selenium-webdriver/chrome.js';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, leftoverBrowsers, startPageServer, type PageServer } from '../helpers/pages.ts';
import type { Client } from '../helpers/client.ts';

const TOKENS = { alice: 'alice-token-5d1c9e7a3b2f8046', bob: 'bob-token-9a7c5e3b1d2f4608' };
const PASSWORD = 'correct-horse-battery-staple';

let gw: TestGateway;
let pages: PageServer;
let dir: string;
let local: Client;
let alice: Client;
let bob: Client;

/** A page with a stylesheet, a picture, a request that fails with 404, a console line, a password field and a button. */
function shop(): string {
  const css = `${pages.url}/style.css?css=${encodeURIComponent('h1 { color: green }')}`;
  const picture = pages.page('<svg></svg>');
  return pages.page(
    `<link rel="stylesheet" href="${css}"><img src="${picture}" alt="logo">
     <h1 id="heading">Checkout</h1>
     <input id="user" name="user"><input id="password" type="password" name="password">
     <button id="buy" onclick="document.getElementById('heading').textContent = 'Bought'; console.log('bought it')">Buy</button>
     <script>console.log('shop ready'); fetch('/missing-price').catch(() => {});</script>`,
    'Shop',
  );
}

/** The ended session's entry, once its history is written. */
async function ended(client: Client, id: string): Promise<any> {
  let entry: any;
  await eventually(async () => {
    const reply = await client.raw('GET', `/wdgate/sessions/${id}`);
    entry = reply.value;
    return reply.status === 200 && entry.state === 'ended';
  }, `session ${id} never showed as ended`);
  return entry;
}

/** The session's trace, unzipped: its index and files. */
async function traceOf(client: Client, id: string): Promise<{ index: any; files: Record<string, Uint8Array>; bytes: number }> {
  const res = await fetch(`${client.url}/wdgate/sessions/${id}/trace`, { headers: client.headers });
  assert.equal(res.status, 200, `the trace of ${id}: ${res.status}`);
  assert.equal(res.headers.get('content-type'), 'application/zip');
  const bytes = new Uint8Array(await res.arrayBuffer());
  const files = unzipSync(bytes);
  return { index: JSON.parse(Buffer.from(files['trace.json']!).toString()), files, bytes: bytes.length };
}

const text = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString('utf8');
/** A trace's snapshot read back as HTML, its references into earlier snapshots resolved. */
const snapshotHtml = (files: Record<string, Uint8Array>, name: string) => new Snapshots((n) => (files[n] ? text(files[n]) : undefined)).html(name) ?? '';

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wdgate-traces-test-'));
  writeFileSync(join(dir, 'tokens'), `alice ${TOKENS.alice} 5\nbob ${TOKENS.bob} 5\n`);
  [gw, pages] = await Promise.all([
    // Loopback clients without a token are the principal "local" (not an admin once tokens exist).
    startGateway(['--auth-token-file', join(dir, 'tokens')], { historyDirectory: join(dir, 'history') }),
    startPageServer(),
  ]);
  local = gw.client;
  alice = gw.client.withToken(TOKENS.alice);
  bob = gw.client.withToken(TOKENS.bob);
});

after(async () => {
  const pid = gw.process.pid!;
  await gw?.stop();
  await pages?.close();
  assert.equal(await leftoverBrowsers(pid), 0);
  rmSync(dir, { recursive: true, force: true });
});

describe('traces and history', () => {
  let failedId: string;

  test('selenium-webdriver names a session with se:name and fails it with sauce:job-result: History lists it, and its trace shows every step', async () => {
    const options = new chrome.Options();
    options.addArguments('--headless=new');
    options.set('se:name', 'checkout buys the cart');
    options.set('wdgate:options', { trace: 'on', build: 'ci-42' });
    const driver = await new Builder().usingServer(gw.url).withCapabilities(options).build();
    let id: string;
    try {
      id = (await driver.getSession()).getId();
      await driver.get(shop());
      await driver.findElement(By.id('user')).sendKeys('alice');
      await driver.findElement(By.id('password')).sendKeys(PASSWORD);
      await driver.findElement(By.id('buy')).click();
      await assert.rejects(driver.findElement(By.id('receipt')), { name: 'NoSuchElementError' });
      await driver.executeScript('sauce:job-result=failed');
    } finally {
      await driver.quit();
    }
    failedId = id!;
    const entry = await ended(local, id!);
    assert.equal(entry.name, 'checkout buys the cart');
    assert.equal(entry.build, 'ci-42');
    assert.equal(entry.principal, 'local');
    assert.equal(entry.result, 'failed');
    assert.equal(entry.errors, 1);
    assert.ok(entry.commands >= 8, `${entry.commands} commands`);
    assert.ok(entry.links.trace && entry.links.har && entry.links.viewer);
    // Found by its name, and by its result.
    const byName = await local.ok('GET', '/wdgate/sessions?name=CHECKOUT&result=failed');
    assert.deepEqual(byName.sessions.map((s: any) => s.id), [id!]);
    assert.equal((await local.ok('GET', '/wdgate/sessions?result=passed')).total, 0);

    const { index, files, bytes } = await traceOf(local, id!);
    assert.equal(index.session.name, 'checkout buys the cart');
    assert.equal(index.session.result, 'failed');
    const names = index.steps.filter((s: any) => s.kind === 'command').map((s: any) => s.name);
    for (const name of ['newSession', 'navigateTo', 'findElement', 'elementSendKeys', 'elementClick', 'executeScript', 'deleteSession']) assert.ok(names.includes(name), `${name} in ${names}`);
    // The click's step shows the page after it: its screenshot is a picture, its snapshot holds the changed heading.
    const click = index.steps.find((s: any) => s.name === 'elementClick');
    assert.ok(click.screenshot && click.snapshot, JSON.stringify(click));
    assert.deepEqual([...files[click.screenshot]!.subarray(0, 3)], [0xff, 0xd8, 0xff], 'a JPEG');
    const snapshot = snapshotHtml(files, click.snapshot);
    assert.match(snapshot, /<h1 id="heading">Bought<\/h1>/);
    assert.doesNotMatch(snapshot, /<script|onclick/i, 'nothing in a snapshot runs');
    assert.match(snapshot, /color: green/, 'the stylesheet is inlined');
    // The failed find is an error step with its code.
    const failed = index.steps.find((s: any) => s.error);
    assert.equal(failed.name, 'findElement');
    assert.equal(failed.error.code, 'no such element');
    assert.ok(index.steps.some((s: any) => s.kind === 'event' && s.name === 'test:failed'));
    // Console: the page's lines.
    const consoleLines = JSON.parse(text(files['console.json'])).map((c: any) => c.text);
    assert.ok(consoleLines.includes('shop ready') && consoleLines.includes('bought it'), JSON.stringify(consoleLines));
    // The HAR lists the page's requests with their statuses.
    const har = JSON.parse(text(files['network.har']));
    assert.equal(har.log.version, '1.2');
    const status = (suffix: string) => har.log.entries.find((e: any) => e.request.url.endsWith(suffix))?.response.status;
    assert.equal(status('/missing-price'), 404);
    assert.equal(har.log.entries.filter((e: any) => e.response.status === 200).length >= 3, true, 'the page, its stylesheet and its picture');
    const harReply = await fetch(`${gw.url}/wdgate/sessions/${id!}/har`);
    assert.match(harReply.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(await harReply.json(), har);
    // The password typed is nowhere in the file, whatever the encoding; the name typed is.
    const all = Object.values(files).map((f) => Buffer.from(f).toString('latin1')).join('\n');
    assert.equal(all.includes(PASSWORD), false, 'the password is in the trace');
    assert.ok(index.steps.some((s: any) => s.name === 'elementSendKeys' && s.params?.text === 'alice'));
    assert.ok(bytes < 5 * 1024 * 1024);
  });

  test("transcript.md: in the trace and at …/transcript, the failed session in Markdown naming the failed command, its error and the steps before it; the trace's metadata", async () => {
    const res = await fetch(`${local.url}/wdgate/sessions/${failedId}/transcript`, { headers: local.headers });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/markdown; charset=utf-8');
    const md = await res.text();
    assert.match(md, /^# checkout buys the cart — failed\n/);
    const failure = md.slice(md.indexOf('## Failure'), md.indexOf('## Steps'));
    assert.match(failure, /Step \d+, \*\*findElement\*\*, failed: \*\*no such element\*\*/);
    // The steps that led to it, each element named by the locator that found it: the password's Send Keys (its text hidden) and the click.
    assert.match(failure, /\*\*elementSendKeys\*\* css selector "\*\[id="password"\]" \(found in step \d+\) value "\[redacted\]" — ok/);
    assert.match(failure, /\*\*elementClick\*\* css selector "\*\[id="buy"\]" \(found in step \d+\) — ok/);
    assert.equal(md.includes(PASSWORD), false);
    assert.match(md, /- \*\*Final page:\*\* http:\/\/127\.0\.0\.1:\d+\/html\/\d+ — "Shop"/);
    assert.match(md, /request failed \+[\d.]+ s: GET http:\/\/127\.0\.0\.1:\d+\/missing-price → 404/);
    // The same text is in the trace, with what the viewer's Metadata tab shows.
    const { index, files } = await traceOf(local, failedId);
    assert.equal(text(files['transcript.md']), md);
    assert.equal(index.session.engine, 'chromium');
    assert.equal(index.session.endCause, 'deleted');
    assert.equal(index.session.answeredCapabilities.browserVersion, index.session.browserVersion);
    assert.ok(index.session.window.width > 0 && index.session.window.height > 0, JSON.stringify(index.session.window));
    // Another format than wdgate's or Playwright's: said so.
    await local.fails('GET', `/wdgate/sessions/${failedId}/trace?format=har`, undefined, 'invalid argument', 400);
    await bob.fails('GET', `/wdgate/sessions/${failedId}/transcript`, undefined, 'invalid session id', 404);
  });

  test('another principal does not see the session; its owner does', async () => {
    assert.equal((await bob.ok('GET', '/wdgate/sessions')).total, 0);
    await bob.fails('GET', `/wdgate/sessions/${failedId}`, undefined, 'invalid session id', 404);
    await bob.fails('GET', `/wdgate/sessions/${failedId}/trace`, undefined, 'invalid session id', 404);
    assert.deepEqual((await local.ok('GET', '/wdgate/sessions')).sessions.map((s: any) => s.id), [failedId]);
  });

  test('Grid session events: test:failed with its error and a marker reach the trace; the result is the reported one', async () => {
    const s = await alice.newSession({ 'wdgate:options': { trace: 'on', name: 'grid events' } });
    await s.navigate(pages.page('<p>step one</p>', 'one'));
    assert.deepEqual(await s.post('/se/event', { eventType: 'marker:add', payload: { text: 'cart filled' } }), { success: true, eventType: 'marker:add' });
    await s.post('/se/event', { eventType: 'test:failed', payload: { testName: 'grid events', error: 'expected 3 items, saw 2' } });
    await s.fails('POST', '/se/event', { eventType: 42 }, 'invalid argument', 400);
    await s.end();
    const entry = await ended(alice, s.id);
    assert.equal(entry.result, 'failed');
    assert.equal(entry.resultReason, 'expected 3 items, saw 2');
    const { index } = await traceOf(alice, s.id);
    const marker = index.steps.find((x: any) => x.kind === 'marker');
    assert.equal(marker.text, 'cart filled');
    assert.ok(index.steps.some((x: any) => x.kind === 'event' && x.name === 'test:failed' && x.text === 'expected 3 items, saw 2'));
  });

  test("retain-on-failure keeps the trace of a session that failed and drops that of one that passed; a named test's last pass is kept for comparison until the next replaces it", async () => {
    const passing = await alice.newSession({ 'wdgate:options': { trace: 'retain-on-failure' } });
    await passing.navigate(pages.page('<p>fine</p>'));
    await passing.end();
    const failing = await alice.newSession({ 'wdgate:options': { trace: 'retain-on-failure', name: 'fails' } });
    await failing.navigate(pages.page('<p>no button here</p>'));
    await failing.fails('POST', '/element', { using: 'css selector', value: '#missing' }, 'no such element');
    await failing.end();
    const [pass, fail] = await Promise.all([ended(alice, passing.id), ended(alice, failing.id)]);
    assert.equal(pass.result, 'passed');
    assert.equal(pass.links.trace, undefined);
    await alice.fails('GET', `/wdgate/sessions/${passing.id}/trace`, undefined, 'invalid session id');
    assert.equal(fail.result, 'failed');
    assert.match(fail.resultReason, /findElement: no such element/);
    const { index } = await traceOf(alice, failing.id);
    assert.equal(index.session.result, 'failed');
    const metrics = await (await fetch(`${gw.url}/metrics`, { headers: alice.headers })).text();
    assert.match(metrics, /wdgate_traces_dropped_total\{reason="retain-on-failure"\} 1/);
    // A named test's passing run keeps its trace as the one its next failure is compared with
    // (issue 34); the next pass replaces it, and the older trace goes.
    const first = await alice.newSession({ 'wdgate:options': { trace: 'retain-on-failure', name: 'passes' } });
    await first.navigate(pages.page('<p>fine</p>'));
    await first.end();
    assert.equal((await ended(alice, first.id)).links.trace, `/wdgate/sessions/${first.id}/trace`);
    const second = await alice.newSession({ 'wdgate:options': { trace: 'retain-on-failure', name: 'passes' } });
    await second.navigate(pages.page('<p>fine again</p>'));
    await second.end();
    assert.equal((await ended(alice, second.id)).links.trace, `/wdgate/sessions/${second.id}/trace`);
    await eventually(async () => (await alice.raw('GET', `/wdgate/sessions/${first.id}`)).value.links.trace === undefined, 'the older pass kept its trace');
    await alice.fails('GET', `/wdgate/sessions/${first.id}/trace`, undefined, 'invalid session id');
  });

  test('a BiDi session is traced: its messages are steps', async () => {
    const s = await alice.newSession({ webSocketUrl: true, 'wdgate:options': { trace: 'on' } });
    const ws = new WebSocket(s.capabilities.webSocketUrl, { headers: { authorization: `Bearer ${TOKENS.alice}` } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const answer = new Promise<any>((resolve) => ws.on('message', (m) => resolve(JSON.parse(String(m)))));
    ws.send(JSON.stringify({ id: 1, method: 'browsingContext.getTree', params: {} }));
    assert.equal((await answer).type, 'success');
    ws.close();
    await s.end();
    await ended(alice, s.id);
    const { index } = await traceOf(alice, s.id);
    assert.ok(index.steps.some((x: any) => x.kind === 'bidi' && x.name === 'browsingContext.getTree' && !x.error));
  });
});

test('a gateway restarted keeps its history', async () => {
  const history = join(dir, 'restart-history');
  let first = await startGateway([], { historyDirectory: history });
  let id: string;
  try {
    const s = await first.client.newSession({ 'se:name': 'survives a restart', 'wdgate:options': { trace: 'on' } });
    id = s.id;
    await s.navigate(pages.page('<p>kept</p>'));
    await s.end();
    await ended(first.client, id);
  } finally {
    await first.stop();
  }
  // It serves the history only: nothing warm (pool.minWarm 0).
  const second = await startGateway([], { historyDirectory: history, config: { pool: { minWarm: 0 } } });
  try {
    const listed = await second.client.ok('GET', '/wdgate/sessions?state=ended');
    assert.deepEqual(listed.sessions.map((s: any) => [s.id, s.name, s.result]), [[id!, 'survives a restart', 'passed']]);
    const { index } = await traceOf(second.client, id!);
    assert.ok(index.steps.some((x: any) => x.name === 'navigateTo' && x.snapshot));
  } finally {
    await second.stop();
  }
});

test('a trace past its size limit goes on without pictures; a history that cannot be written drops the entry: counted, logged, and no command fails', async () => {
  const history = join(dir, 'failing-history');
  const small = await startGateway([], { historyDirectory: history, config: { trace: { maxBytes: 1 } } });
  try {
    const metric = async (line: RegExp) => line.exec(await (await fetch(`${small.url}/metrics`)).text())?.[1];
    // Past trace.maxBytes: every command still answers, the steps are kept, the pictures are not.
    const big = await small.client.newSession({ 'wdgate:options': { trace: 'on', name: 'over its size' } });
    await big.navigate(pages.page('<button id="b" onclick="this.textContent = \'done\'">go</button>', 'big'));
    await big.post(`/element/${await big.find('#b')}/click`);
    assert.equal(await big.get(`/element/${await big.find('#b')}/text`), 'done');
    await big.end();
    await ended(small.client, big.id);
    const { index, files } = await traceOf(small.client, big.id);
    assert.deepEqual(index.steps.filter((x: any) => x.name === 'navigateTo' || x.name === 'elementClick').map((x: any) => [x.name, x.screenshot, x.snapshot]), [
      ['navigateTo', undefined, undefined],
      ['elementClick', undefined, undefined],
    ]);
    assert.match(index.steps.find((x: any) => x.name === 'elementClick').captureError, /size limit/);
    assert.equal(Object.keys(files).filter((name) => name.startsWith('screenshots/') || name.startsWith('snapshots/')).length, 0);
    assert.equal(await metric(/^wdgate_trace_captures_dropped_total\{reason="size limit"\} (\d+)/m), '1');
    // The history's directory gone (a disk that fails): Delete Session still answers, the entry is dropped, counted and logged.
    const lost = await small.client.newSession({ 'wdgate:options': { trace: 'on', name: 'not written' } });
    await lost.navigate(pages.page('<p>lost</p>'));
    rmSync(history, { recursive: true, force: true });
    writeFileSync(history, 'not a directory');
    await lost.end();
    await eventually(async () => (await metric(/^wdgate_traces_dropped_total\{reason="write failed"\} (\d+)/m)) === '1', 'the failed write was not counted');
    assert.match(small.output(), new RegExp(`history entry not written.*${lost.id}|${lost.id}.*history entry not written`));
    assert.equal((await small.client.raw('GET', `/wdgate/sessions/${lost.id}`)).status, 404);
    // And the gateway goes on serving.
    const next = await small.client.newSession({});
    assert.equal(await next.get('/title'), '');
    await next.end();
  } finally {
    await small.stop();
    rmSync(history, { recursive: true, force: true });
  }
});

test('Firefox (native) and a pass-through session (chromedriver) are traced: Firefox with captures, the pass-through with commands and results', async () => {
  const other = await startGateway([], { historyDirectory: join(dir, 'engines-history') });
  try {
    const firefox = await other.client.newSession({ browserName: 'firefox', 'wdgate:options': { backend: 'native', trace: 'on', name: 'on firefox' } });
    const remote = await other.client.newSession({ 'wdgate:options': { backend: 'remote', trace: 'on', name: 'through chromedriver' } });
    for (const s of [firefox, remote]) {
      await s.navigate(pages.page('<button id="b" onclick="this.textContent = \'done\'">go</button>', 'engines'));
      await s.post(`/element/${await s.find('#b')}/click`);
      await s.fails('POST', '/element', { using: 'css selector', value: '#none' }, 'no such element');
      await s.execute('lambda-status=passed');
      await s.end();
    }
    const [ff, rm] = await Promise.all([traceOf(other.client, firefox.id), traceOf(other.client, remote.id)]);
    const ffClick = ff.index.steps.find((x: any) => x.name === 'elementClick');
    assert.ok(ffClick.screenshot && ffClick.snapshot, JSON.stringify(ffClick));
    assert.match(snapshotHtml(ff.files, ffClick.snapshot), /<button id="b">done<\/button>/);
    assert.equal(ff.index.session.result, 'passed');
    const forwarded = rm.index.steps.filter((x: any) => x.kind === 'forwarded');
    assert.deepEqual(
      ['navigateTo', 'findElement', 'elementClick'].map((name) => forwarded.some((x: any) => x.name === name)),
      [true, true, true],
    );
    const miss = forwarded.find((x: any) => x.error);
    assert.equal(miss.error.code, 'no such element');
    assert.equal(forwarded.find((x: any) => x.name === 'findElement' && !x.error).result.includes('element-6066'), true);
    assert.equal(rm.index.session.result, 'passed', 'lambda-status is the history\'s, not chromedriver\'s');
    assert.equal(rm.index.steps.some((x: any) => x.screenshot), false);
  } finally {
    await other.stop();
  }
});
