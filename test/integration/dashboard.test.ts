// The dashboard (/ui), in a real browser (headless Chromium through puppeteer-core), as a person
// sees it while sessions start, run and end: the login, a session with its URL and title, the
// live view changing with the page, ending a session from the page, the queue's waiters, and no
// sign of another principal's sessions (an admin sees them all); a session that ends links to
// its history entry, and the History view lists ended sessions by name and result.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import type { Client } from '../helpers/client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { leftoverBrowsers, startPageServer, type PageServer } from '../helpers/pages.ts';

const TOKENS = { ops: 'ops-token-3c5e7a9b1d2f4680', alice: 'alice-token-8e6c4a2f0d9b7531', bob: 'bob-token-1f3d5b7a9c8e6420' };

let gw: TestGateway;
let pages: PageServer;
let dir: string;
let viewer: Browser;
let alice: Client;
let bob: Client;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wdgate-dashboard-'));
  writeFileSync(join(dir, 'tokens'), `ops ${TOKENS.ops} 5 admin\nalice ${TOKENS.alice} 5\nbob ${TOKENS.bob} 5\n`);
  [gw, pages] = await Promise.all([startGateway(['--auth-token-file', join(dir, 'tokens'), '--require-auth-on-loopback'], { config: { maxSessions: 2 } }), startPageServer()]);
  alice = gw.client.withToken(TOKENS.alice);
  bob = gw.client.withToken(TOKENS.bob);
  viewer = await puppeteer.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
});

after(async () => {
  await viewer?.close();
  const pid = gw?.process.pid;
  await gw?.stop();
  await pages?.close();
  rmSync(dir, { recursive: true, force: true });
  if (pid) assert.equal(await leftoverBrowsers(pid), 0, 'browser processes outlived the gateway');
});

/** The dashboard in a fresh browser context, logged in with the token through its form. */
async function dashboardAs(token: string): Promise<Page> {
  const context = await viewer.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  await page.goto(`${gw.url}/ui`);
  await page.waitForSelector('#login:not([hidden])');
  await page.type('#token', token);
  await page.click('#login button');
  await page.waitForSelector('#main:not([hidden])');
  return page;
}

/** What a row of the sessions table shows. */
function row(page: Page, id: string, cell: string): Promise<string | null> {
  return page.$eval(`tr[data-session="${id}"] .${cell}`, (e) => e.textContent).catch(() => null);
}

test('log in with a token: an HttpOnly, SameSite=Strict cookie, never the token; a wrong token is refused', async () => {
  const context = await viewer.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.goto(`${gw.url}/ui`);
    await page.waitForSelector('#login:not([hidden])');
    await page.type('#token', 'not-a-token-of-anyone-at-all');
    await page.click('#login button');
    await page.waitForFunction(() => document.getElementById('login-error')!.textContent !== '');
    assert.match(await page.$eval('#login-error', (e) => e.textContent!), /not valid/);
    await page.type('#token', TOKENS.alice);
    await page.click('#login button');
    await page.waitForSelector('#main:not([hidden])');
    const [cookie] = await context.cookies();
    assert.equal(cookie?.name, 'wdgate_ui');
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.sameSite, 'Strict');
    assert.ok(!cookie?.value.includes(TOKENS.alice));
    assert.match(await page.$eval('#who', (e) => e.textContent!), /^alice/);
    assert.doesNotMatch(gw.output(), new RegExp(TOKENS.alice));
  } finally {
    await context.close();
  }
});

test("a session appears with its URL and title; the live view follows its page; another principal's session is absent, an admin sees both", async () => {
  const page = await dashboardAs(TOKENS.alice);
  const hers = await alice.newSession();
  const his = await bob.newSession();
  try {
    const first = pages.page('<body style="background: rgb(200, 30, 30)"><h1>first</h1></body>', 'dash first');
    await hers.navigate(first);
    await page.waitForFunction((id) => document.querySelector(`tr[data-session="${id}"] .title`)?.textContent === 'dash first', {}, hers.id);
    assert.equal(await row(page, hers.id, 'url'), first);
    assert.equal(await row(page, hers.id, 'principal'), 'alice');
    assert.equal(await page.$(`tr[data-session="${his.id}"]`), null, "bob's session is not alice's to see");
    assert.equal(await page.$$eval('#sessions tbody tr', (rows) => rows.length), 1);
    // The live view: a picture of her page, and a new one once the page changes.
    await page.click(`tr[data-session="${hers.id}"] .watch`);
    await page.waitForFunction(() => document.getElementById('live')!.getAttribute('src')?.startsWith('data:image/'));
    const before = await page.$eval('#live', (e) => e.getAttribute('src'));
    await hers.navigate(pages.page('<body style="background: rgb(30, 30, 200)"><h1>second</h1></body>', 'dash second'));
    await page.waitForFunction((src) => document.getElementById('live')!.getAttribute('src') !== src, { timeout: 15_000 }, before);
    await page.waitForFunction((id) => document.querySelector(`tr[data-session="${id}"] .title`)?.textContent === 'dash second', {}, hers.id);
    // The admin's dashboard lists both.
    const admin = await dashboardAs(TOKENS.ops);
    await admin.waitForFunction((a, b) => Boolean(document.querySelector(`tr[data-session="${a}"]`) && document.querySelector(`tr[data-session="${b}"]`)), {}, hers.id, his.id);
    assert.match(await admin.$eval('#who', (e) => e.textContent!), /admin/);
    await admin.browserContext().close();
  } finally {
    await page.browserContext().close();
    await hers.end();
    await his.end();
  }
});

test('the queue shows a waiting New Session; ending a session from the page ends it, and the waiter gets its place', async () => {
  const page = await dashboardAs(TOKENS.alice);
  const sessions = [await alice.newSession(), await bob.newSession()]; // maxSessions 2: full
  const waiting = alice.newSession();
  try {
    await page.waitForFunction(() => /1 waiting/.test(document.getElementById('queue')!.textContent!));
    // The queue per principal: her line (one session, one waiting); Bob's is not hers to see.
    await page.waitForFunction(() =>
      [...document.querySelectorAll<HTMLTableRowElement>('#principals tbody tr')].some((tr) => tr.cells[0]!.textContent === 'alice' && tr.cells[2]!.textContent === '1' && tr.cells[3]!.textContent === '1'),
    );
    assert.deepEqual(await page.$$eval('#principals tbody tr', (rows) => rows.map((r) => (r as HTMLTableRowElement).cells[0]!.textContent)), ['alice']);
    const mine = sessions[0]!;
    await page.waitForSelector(`tr[data-session="${mine.id}"] .end`);
    await page.click(`tr[data-session="${mine.id}"] .end`);
    // It stays a while, marked ended, its buttons gone.
    await page.waitForFunction((id) => document.querySelector(`tr[data-session="${id}"]`)?.classList.contains('ended'), {}, mine.id);
    assert.equal(await page.$(`tr[data-session="${mine.id}"] button`), null);
    const ended = await mine.fails('GET', '/title', undefined, 'invalid session id', 404);
    assert.match(ended.message, /alice ended it from the dashboard/);
    const third = await waiting;
    await page.waitForFunction((id) => Boolean(document.querySelector(`tr[data-session="${id}"]`)), {}, third.id);
    await page.waitForFunction(() => /0 waiting/.test(document.getElementById('queue')!.textContent!));
    await third.end();
  } finally {
    await page.browserContext().close();
    for (const s of sessions) await s.end().catch(() => {});
  }
});

test('a named session: its name and its long URL cut to fit 1400 px (whole on hover); once ended it links to its History entry and trace; History lists it by name and filters by result, start time and name', async () => {
  const page = await dashboardAs(TOKENS.alice);
  const his = await bob.newSession({ 'se:name': 'bob private test' });
  await his.end(); // (two sessions at most here)
  const failing = await alice.newSession({ 'se:name': 'checkout shows the total', 'wdgate:options': { trace: 'on', build: 'ci-77' } });
  const passing = await alice.newSession({ 'se:name': 'search finds coffee' });
  try {
    const long = `${pages.page('<h1>cart</h1>', 'cart')}?items=${'coffee-beans-'.repeat(40)}`;
    await failing.navigate(long);
    await page.waitForFunction((id, url) => document.querySelector(`tr[data-session="${id}"] .url`)?.textContent === url, {}, failing.id, long);
    const row = `tr[data-session="${failing.id}"]`;
    assert.equal(await page.$eval(`${row} .name`, (e) => e.textContent), 'checkout shows the total');
    // The URL is cut by an ellipsis, whole in its title; nothing scrolls sideways.
    const url = await page.$eval(`${row} .url`, (e) => ({ title: e.getAttribute('title'), cut: e.scrollWidth > e.clientWidth, overflow: getComputedStyle(e).textOverflow }));
    assert.deepEqual(url, { title: long, cut: true, overflow: 'ellipsis' });
    const sideways = await page.evaluate(() => [document.documentElement.scrollWidth - document.documentElement.clientWidth, ...[...document.querySelectorAll('section')].map((s) => s.scrollWidth - s.clientWidth)]);
    assert.ok(sideways.every((d) => d <= 0), `scrolls sideways: ${sideways}`);

    await failing.execute('sauce:job-result=failed');
    await failing.end();
    await passing.end();
    // The ended session stays in the table, linking to its entry and, its trace kept, the viewer.
    await page.waitForSelector(`${row}.ended a.trace`, { timeout: 15_000 });
    assert.equal(await page.$eval(`${row} a.trace`, (a) => a.getAttribute('href')), `/ui/trace?session=${failing.id}`);
    await page.click(`${row} a.history`);
    await page.waitForSelector(`#history tbody tr[data-session="${failing.id}"].focused`);
    await page.waitForFunction((id) => document.querySelector(`#history tbody tr[data-session="${id}"]`) !== null, {}, passing.id);
    const listed = () =>
      page.$$eval('#history tbody tr', (rows) => rows.map((tr) => ({ name: tr.querySelector('.name')!.textContent, result: tr.querySelector('.badge')!.textContent, viewer: tr.querySelector('a.viewer')?.getAttribute('href') ?? null })));
    // Alice's named sessions (her unnamed ones of the tests above too), not bob's.
    assert.deepEqual(
      (await listed()).filter((r) => r.name !== '').sort((a, b) => a.name!.localeCompare(b.name!)),
      [
        { name: 'checkout shows the total', result: 'failed', viewer: `/ui/trace?session=${failing.id}` },
        { name: 'search finds coffee', result: 'passed', viewer: null },
      ],
    );
    await page.select('#filters select[name="result"]', 'failed');
    await page.waitForFunction(() => document.querySelectorAll('#history tbody tr').length === 1);
    assert.deepEqual((await listed()).map((r) => r.name), ['checkout shows the total']);
    await page.select('#filters select[name="result"]', 'passed');
    await page.waitForFunction(() => [...document.querySelectorAll('#history .name')].some((e) => e.textContent === 'search finds coffee'));
    const passed = await listed();
    assert.ok(passed.every((r) => r.result === 'passed') && !passed.some((r) => r.name === 'checkout shows the total'), JSON.stringify(passed));
    // Started after an hour from now: none; after an hour ago: these again.
    const since = (offsetMs: number) =>
      page.evaluate((ms) => {
        const input = document.querySelector<HTMLInputElement>('#filters input[name="since"]')!;
        const at = new Date(Date.now() + ms);
        input.value = new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16); // datetime-local: local time
        input.dispatchEvent(new Event('input', { bubbles: true }));
      }, offsetMs);
    await since(3_600_000);
    await page.waitForFunction(() => document.querySelectorAll('#history tbody tr').length === 0);
    await since(-3_600_000);
    await page.waitForFunction(() => [...document.querySelectorAll('#history .name')].some((e) => e.textContent === 'search finds coffee'));
    await page.type('#filters input[name="name"]', 'checkout');
    await page.waitForFunction(() => !document.getElementById('history-message')!.hidden);
    assert.equal((await listed()).length, 0);
    assert.match(await page.$eval('#history-message', (e) => e.textContent!), /No ended session matches/);
  } finally {
    await page.browserContext().close();
    for (const s of [failing, passing, his]) await s.end().catch(() => {});
  }
});

test('the pool view shows what the pool prepares ahead: contexts prepared of how many it keeps, the New Session rate it prepares for, and New Session’s wait for a context', async () => {
  const page = await dashboardAs(TOKENS.alice);
  try {
    // Sessions one after another, as a test suite's: the rate the pool prepares for rises above 0.
    for (let i = 0; i < 3; i++) await (await alice.newSession()).end();
    const { pool } = await alice.ok('GET', '/status');
    const [key] = pool;
    assert.ok(key.rate > 0 && key.target >= 1 && key.leaseWait.count >= 3, JSON.stringify(key));
    await page.waitForFunction(() => {
      const [prepared, rate, wait] = ['prepared', 'rate', 'wait'].map((name) => document.querySelector(`#pool tbody tr .${name}`)?.textContent ?? '');
      return /^\d+ \/ [1-9]\d*$/.test(prepared!) && /^[1-9]\d*\/min$/.test(rate!) && /^[\d.]+ m?s \/ [\d.]+ m?s$/.test(wait!);
    });
    // The row's cells under their headings, on one line, nothing cut or spilling over at 1400 px but the key.
    const headings = await page.$$eval('#pool thead th', (ths) => ths.map((th) => th.textContent));
    assert.deepEqual(headings, ['backend', 'key', 'browsers', 'in use', 'prepared / target', 'preparing', 'New Sessions', 'wait p50 / p99']);
    const cut = await page.$$eval('#pool thead th, #pool tbody tr:first-child td:not(.key)', (cells) => cells.filter((c) => c.scrollWidth > c.clientWidth).map((c) => c.textContent));
    assert.deepEqual(cut, []);
  } finally {
    await page.browserContext().close();
  }
});
