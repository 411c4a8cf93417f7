// The dashboard (/ui), in a real browser (headless Chromium through puppeteer-core), as a person
// sees it while sessions start, run and end: the login, a session with its URL and title, the
// live view changing with the page, ending a session from the page, the queue's waiters, and no
// sign of another principal's sessions (an admin sees them all); a session that ends links to
// its history entry, and the History view lists ended sessions by name and result; the Tests view
// groups named sessions into tests with their runs, verdicts and a build's summary. Throughout,
// the page raises no Content-Security-Policy violation (its policy admits its own script and
// style sheet by hash, nothing inline), and a script or style injected into it is refused; a
// token in a session's URL is hidden.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import type { Client } from '../helpers/client.ts';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, leftoverBrowsers, startPageServer, type PageServer } from '../helpers/pages.ts';
import { VERDICTS } from '../../src/trace/runs/index.ts';

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
  // Sessions that ask for no trace are untraced here (the gateway's default is retain-on-failure).
  [gw, pages] = await Promise.all([startGateway(['--auth-token-file', join(dir, 'tokens'), '--require-auth-on-loopback'], { config: { maxSessions: 2, trace: { mode: 'off' } } }), startPageServer()]);
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

/** Content-Security-Policy violations the dashboard's pages raised (securitypolicyviolation events): each test expects none. */
const violations: string[] = [];
afterEach(() => {
  const raised = violations.splice(0);
  assert.deepEqual(raised, [], 'the dashboard raised Content-Security-Policy violations');
});

/** A new page that reports every CSP violation its documents raise into `violations`. */
async function watchedPage(context: Awaited<ReturnType<Browser['createBrowserContext']>>): Promise<Page> {
  const page = await context.newPage();
  await page.exposeFunction('reportViolation', (violation: string) => void violations.push(violation));
  await page.evaluateOnNewDocument(() =>
    document.addEventListener('securitypolicyviolation', (e) => (window as unknown as { reportViolation(v: string): void }).reportViolation(`${e.effectiveDirective}: ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`)),
  );
  return page;
}

/** The dashboard in a fresh browser context, logged in with the token through its form. */
async function dashboardAs(token: string): Promise<Page> {
  const context = await viewer.createBrowserContext();
  const page = await watchedPage(context);
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
    const page = await watchedPage(context);
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
    // The page shows itself, then fills its header from the socket's first state.
    await page.waitForFunction(() => document.getElementById('who')!.textContent !== '');
    assert.match(await page.$eval('#who', (e) => e.textContent!), /^alice/);
    assert.doesNotMatch(gw.output(), new RegExp(TOKENS.alice));
  } finally {
    await context.close();
  }
});

test("the page's policy admits its own script and style sheet by hash and nothing inline: a script or a style injected into the page is refused", async () => {
  const served = await fetch(`${gw.url}/ui`);
  const policy = served.headers.get('content-security-policy') ?? '';
  const directive = (name: string) => policy.split(';').map((d) => d.trim()).find((d) => d.startsWith(`${name} `)) ?? '';
  assert.match(directive('script-src'), /^script-src 'sha256-[A-Za-z0-9+/]+=*'$/);
  assert.match(directive('style-src'), /^style-src 'sha256-[A-Za-z0-9+/]+=*'$/);
  assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval|\*/);
  assert.match(policy, /default-src 'none'/);
  const page = await dashboardAs(TOKENS.alice);
  try {
    // What an injection would try: an inline script, an event handler attribute, a style attribute.
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.injected = true';
      document.body.append(script);
      const img = document.createElement('img');
      img.setAttribute('onerror', 'window.injected = true');
      img.src = 'data:,';
      document.body.append(img);
      document.getElementById('who')!.setAttribute('style', 'color: rgb(255, 0, 0)');
    });
    await eventually(() => violations.length >= 3, `the injected script, handler and style raise violations (so far: ${violations.join('; ')})`);
    assert.equal(await page.evaluate(() => (window as unknown as { injected?: boolean }).injected), undefined, 'no injected script ran');
    assert.notEqual(await page.$eval('#who', (e) => getComputedStyle(e).color), 'rgb(255, 0, 0)', 'the injected style was not applied');
    const raised = violations.splice(0);
    assert.deepEqual(raised.map((v) => v.split(':')[0]).sort(), ['script-src-attr', 'script-src-elem', 'style-src-attr']);
  } finally {
    await page.browserContext().close();
  }
});

test("a session appears with its URL and title; the live view follows its page; another principal's session is absent, an admin sees both", async () => {
  const page = await dashboardAs(TOKENS.alice);
  const hers = await alice.newSession();
  const his = await bob.newSession();
  try {
    const first = pages.page('<body style="background: rgb(200, 30, 30)"><h1>first</h1></body>', 'dash first');
    // A token in the page's URL is hidden on the dashboard (as in a trace), the rest of it shown.
    await hers.navigate(`${first}?access_token=DashboardTokenSecret9k&tab=2`);
    await page.waitForFunction((id) => document.querySelector(`tr[data-session="${id}"] .title`)?.textContent === 'dash first', {}, hers.id);
    assert.equal(await row(page, hers.id, 'url'), `${first}?access_token=[redacted]&tab=2`);
    assert.doesNotMatch(await page.content(), /DashboardTokenSecret9k/);
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

test("Tests: named sessions grouped into tests, each with its runs as marks (newest right; build, time and error on hover), its verdict and failures by error; a build's summary; the filters; a failed run compared with its last pass", async () => {
  // "tv checkout" (se:name, traced on failure: its pass is kept to compare with) passes in b1, then
  // its button says "Purchase" in b2 and the test fails; "tv cart" (wdgate:options.name) fails,
  // then passes on a retry in b2: flaky.
  const shop = pages.page('<h1>Shop</h1><button id="buy">Buy</button>', 'shop');
  const checkout = async (build: string, label: string) => {
    const s = await alice.newSession({ 'se:name': 'tv checkout', 'wdgate:options': { build, trace: 'retain-on-failure' } });
    await s.navigate(shop);
    await s.execute('document.getElementById("buy").textContent = arguments[0]', [label]);
    const find = { using: 'xpath', value: '//button[text()="Buy"]' };
    if (label === 'Buy') await s.post('/element', find);
    else await s.fails('POST', '/element', find, 'no such element', 404);
    await s.end(); // deleted right after a failure nothing recovered from: failed
    return s.id;
  };
  const cart = async (result: string) => {
    const s = await alice.newSession({ 'wdgate:options': { name: 'tv cart', build: 'b2' } });
    await s.execute(`sauce:job-result=${result}`);
    await s.end();
    return s.id;
  };
  const good = await checkout('b1', 'Buy');
  const bad = await checkout('b2', 'Purchase');
  const cartIds = [await cart('failed'), await cart('passed')];
  await eventually(async () => (await alice.ok('GET', '/wdgate/tests?name=tv%20')).tests.reduce((n: number, t: any) => n + t.runs.length, 0) === 4, 'the four runs were never listed', 30_000);

  const page = await dashboardAs(TOKENS.alice);
  try {
    await page.click('#nav-tests');
    await page.waitForSelector('#tests-page:not([hidden])');
    // The verdict is chosen from the API's verdicts (no other value can be asked for).
    assert.deepEqual(await page.$$eval('#test-filters select[name="verdict"] option', (os) => os.map((o) => (o as HTMLOptionElement).value)), ['', ...VERDICTS]);
    // Alice's tests, never bob's.
    await page.waitForFunction(() => document.querySelector('#tests tbody tr[data-test="tv cart"]') !== null);
    assert.equal(await page.$('#tests tbody tr[data-test="bob private test"]'), null);
    /** Resolves once the rows answer a query with these filters (the filters wait for typing to pause). */
    const shown = (filters: Record<string, string>) =>
      page.waitForFunction((want) => {
        const query = new URLSearchParams(document.getElementById('tests')!.dataset.query ?? 'none=');
        return Object.entries(want).every(([key, value]) => (query.get(key) ?? '') === value);
      }, {}, filters);
    await page.type('#test-filters input[name="name"]', 'tv ');
    await shown({ name: 'tv', build: '', verdict: '' });
    const rows = () =>
      page.$$eval('#tests tbody tr', (trs) =>
        trs.map((tr) => ({
          test: tr.querySelector('.name')!.textContent,
          verdict: tr.querySelector('.verdict')!.textContent,
          marks: [...tr.querySelectorAll('a.mark')].map((a) => ({ result: a.className.replace('mark ', ''), href: a.getAttribute('href'), title: a.getAttribute('title') })),
          failures: [...tr.querySelectorAll('.failure')].map((f) => f.textContent),
        })),
      );
    const [checkoutRow, cartRow] = await rows();
    // The most telling first: the new failure, then the flaky test.
    assert.deepEqual([checkoutRow!.test, checkoutRow!.verdict, cartRow!.test, cartRow!.verdict], ['tv checkout', 'new failure', 'tv cart', 'flaky']);
    // Newest right; each mark to its trace where one is kept, else to its History entry.
    assert.deepEqual(checkoutRow!.marks.map((m) => [m.result, m.href]), [['passed', `/ui/trace?session=${good}`], ['failed', `/ui/trace?session=${bad}`]]);
    assert.deepEqual(cartRow!.marks.map((m) => [m.result, m.href]), [['failed', `#history/${cartIds[0]}`], ['passed', `#history/${cartIds[1]}`]]);
    assert.match(checkoutRow!.marks[1]!.title!, /^failed · build b2 · .+\nno such element in findElement: /);
    assert.match(checkoutRow!.marks[0]!.title!, /^passed · build b1 · /);
    assert.deepEqual(checkoutRow!.failures, ['no such element in findElement × 1 newest']);
    assert.deepEqual(cartRow!.failures, ['failed (reported) × 1 newest']);
    // The failed run against its last pass: the comparison's summary, and the viewer side by side.
    assert.equal(await page.$('tr[data-test="tv cart"] button.compare'), null, 'no pass with a trace to compare with');
    await page.click('tr[data-test="tv checkout"] button.compare');
    await page.waitForSelector('tr[data-test="tv checkout"] .comparison .summary');
    const said = await page.$eval('tr[data-test="tv checkout"] .comparison .summary', (e) => e.textContent!);
    assert.match(said, /^first difference at step \d+: .*"Purchase" where the passed run showed "Buy"/);
    assert.equal(await page.$eval('tr[data-test="tv checkout"] a.side-by-side', (a) => a.getAttribute('href')), `/ui/trace?session=${bad}&compare=${good}`);
    // Drawn again (a reload, a session that ended), the list keeps the comparison open.
    await page.$eval('tr[data-test="tv checkout"]', (tr) => ((tr as HTMLElement).dataset.drawn = 'before'));
    await page.click('#tests-reload');
    await page.waitForSelector('tr[data-test="tv checkout"]:not([data-drawn])');
    assert.equal(await page.$eval('tr[data-test="tv checkout"] .comparison .summary', (e) => e.textContent!), said);

    // A build chosen: its summary; the verdict filter narrows the tests, not the build's summary.
    const summary = () => page.$$eval('#build-summary .stat', (stats) => Object.fromEntries(stats.map((s) => [(s as HTMLElement).dataset.stat, Number(s.querySelector('b')!.textContent)])));
    await page.type('#test-filters input[name="build"]', 'b2');
    await shown({ name: 'tv', build: 'b2', verdict: '' });
    assert.deepEqual(await summary(), { tests: 2, passed: 1, failed: 1, flaky: 1, 'new-failures': 1 });
    await page.select('#test-filters select[name="verdict"]', 'flaky');
    await shown({ name: 'tv', build: 'b2', verdict: 'flaky' });
    assert.deepEqual((await rows()).map((r) => r.test), ['tv cart']);
    assert.deepEqual(await summary(), { tests: 2, passed: 1, failed: 1, flaky: 1, 'new-failures': 1 });
    await page.select('#test-filters select[name="verdict"]', 'always failing');
    await shown({ name: 'tv', build: 'b2', verdict: 'always failing' });
    assert.equal(await page.$eval('#tests-message', (e) => (e as HTMLElement).hidden), false);
    assert.match(await page.$eval('#tests-message', (e) => e.textContent!), /No test matches/);
    // Build b1 alone: checkout as it was then (stable, one pass), no summary once the build is cleared.
    await page.select('#test-filters select[name="verdict"]', '');
    await page.$eval('#test-filters input[name="build"]', (input) => {
      (input as HTMLInputElement).value = 'b1';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await shown({ name: 'tv', build: 'b1', verdict: '' });
    assert.deepEqual((await rows()).map((r) => [r.test, r.verdict, r.marks.length]), [['tv checkout', 'stable', 1]]);
    await page.$eval('#test-filters input[name="build"]', (input) => {
      (input as HTMLInputElement).value = '';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await shown({ name: 'tv', build: '', verdict: '' });
    assert.equal(await page.$eval('#build-summary', (e) => (e as HTMLElement).hidden), true);
  } finally {
    await page.browserContext().close();
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
    // The row's cells under their headings, on one line, nothing cut or spilling over at 1400 px but
    // the key: as they read now, and in any state the pool may be in (each cell given the widest
    // figure it can show: 1000 sessions, browsers, contexts; waits up to minutes), so that what the
    // moment holds (a session waiting or not) does not decide it.
    const headings = await page.$$eval('#pool thead th', (ths) => ths.map((th) => th.textContent));
    assert.deepEqual(headings, ['backend', 'key', 'browsers', 'in use', 'prepared / target', 'preparing', 'waiting', 'New Sessions', 'wait p50 / p99']);
    const spilling = () => page.$$eval('#pool thead th, #pool tbody tr:first-child td:not(.key)', (cells) => cells.filter((c) => c.scrollWidth > c.clientWidth).map((c) => c.textContent));
    assert.deepEqual(await spilling(), []);
    const widest = { browsers: '1000', 'in-use': '1000', prepared: '1000 / 1000', preparing: '1000', waiting: '1000', rate: '9999/min', wait: '99.9 s / 99.9 s' };
    assert.deepEqual(await page.$$eval('#pool tbody tr:first-child td:not(.key)', (cells) => cells.map((c) => c.className).filter(Boolean)), Object.keys(widest));
    // Set and measured in one go: the view is redrawn with each update.
    const spillingWhenWidest = await page.$$eval(
      '#pool thead th, #pool tbody tr:first-child td:not(.key)',
      (cells, texts) => {
        for (const c of cells) if (c.className in texts) c.textContent = texts[c.className as keyof typeof texts]!;
        return cells.filter((c) => c.scrollWidth > c.clientWidth).map((c) => c.textContent);
      },
      widest,
    );
    assert.deepEqual(spillingWhenWidest, []);
  } finally {
    await page.browserContext().close();
  }
});
