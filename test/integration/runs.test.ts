// Across runs (issue 34), with real sessions through the gateway and selenium-webdriver: tests named
// by se:name, results by sauce:job-result and Grid's se/event. A test that passes, then fails on a
// changed page, is a new failure whose comparison points to the step where the page differed (a
// button's text changed), not to an earlier one; a test that flips within one build is flaky; one
// that fails with the same error as before is not a new failure; a principal sees its own tests.
// The trace viewer (in headless Chromium) opens the failed run and its last pass side by side at
// the first difference; transcript.md says it in one paragraph.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Page } from 'puppeteer-core';
import { Builder, By, type WebDriver } from 'selenium-webdriver';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually } from '../helpers/pages.ts';

const TOKENS = { alice: 'alice-token-runs-5d1c9e7a3b2f', bob: 'bob-token-runs-9a7c5e3b1d2f46' };

let gw: TestGateway;
let site: Server;
let siteUrl: string;
let history: string;
/** What the shop's button says today. */
let button = 'Buy';
/** The checkout's passing run, and its failing one on the changed page (the first test's). */
let checkoutRuns: { good: string; bad: string } | undefined;

before(async () => {
  site = createServer((req, res) => {
    res.writeHead(req.url === '/home' || req.url === '/shop' ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    if (req.url === '/home') return res.end('<!doctype html><title>Home</title><h1>Welcome</h1><a href="/shop">shop</a>');
    if (req.url === '/shop') return res.end(`<!doctype html><title>Shop</title><h1>Shop</h1><p>One lamp, 20 €</p><button onclick="this.textContent='Done'">${button}</button>`);
    res.end('not found');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  history = mkdtempSync(join(tmpdir(), 'wdgate-runs-history-'));
  gw = await startGateway([], {
    historyDirectory: history,
    // Both runs' pictures of every step, whatever the machine's load (the side-by-side view shows them).
    config: { authTokens: [{ name: 'alice', token: TOKENS.alice }, { name: 'bob', token: TOKENS.bob }], requireAuthOnLoopback: true, trace: { pictures: 'every-step' } },
  });
});

after(async () => {
  await gw?.stop();
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
  rmSync(history, { recursive: true, force: true });
});

/** A selenium-webdriver session of alice's, named and traced as a CI suite's test would be. */
async function driver(name: string, build: string): Promise<WebDriver> {
  const server = gw.url.replace('http://', `http://alice:${TOKENS.alice}@`);
  return new Builder()
    .usingServer(server)
    .withCapabilities({
      browserName: 'chrome',
      'se:name': name,
      'wdgate:options': { build, trace: 'retain-on-failure' },
      'goog:chromeOptions': { args: ['--headless=new'] },
    })
    .build();
}

/** One run of "checkout": home, then the shop, then its button by its text. Reports its result. */
async function checkout(build: string, report: 'sauce' | 'se/event'): Promise<{ id: string; passed: boolean }> {
  const d = await driver('checkout', build);
  const id = (await d.getSession()).getId();
  let passed = false;
  try {
    await d.get(`${siteUrl}/home`);
    await d.get(`${siteUrl}/shop`);
    await d.findElement(By.xpath('//button[text()="Buy"]')).click();
    passed = true;
  } catch {
    passed = false;
  }
  if (report === 'sauce') await d.executeScript(`sauce:job-result=${passed ? 'passed' : 'failed'}`);
  else await sessionEvent(id, passed ? 'test:passed' : 'test:failed', passed ? {} : { error: 'the Buy button is gone' });
  await d.quit();
  return { id, passed };
}

async function sessionEvent(id: string, eventType: string, payload: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${gw.url}/session/${id}/se/event`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${TOKENS.alice}` },
    body: JSON.stringify({ eventType, payload }),
  });
  assert.equal(res.status, 200, await res.text());
}

const alice = () => gw.client.withToken(TOKENS.alice);

/** The entry once written. */
async function entry(id: string): Promise<any> {
  let value: any;
  await eventually(async () => {
    const reply = await alice().raw('GET', `/wdgate/sessions/${id}`);
    value = reply.value;
    return reply.status === 200 && value.state === 'ended';
  }, `${id} never ended`, 30_000);
  return value;
}

test('a test that passes, then fails on a changed page: a new failure, and its comparison points to the step where the page differed', async () => {
  button = 'Buy';
  const good = await checkout('b1', 'sauce');
  assert.equal(good.passed, true);
  assert.equal((await entry(good.id)).result, 'passed');
  button = 'Purchase';
  const bad = await checkout('b2', 'se/event');
  assert.equal(bad.passed, false);
  const failed = await entry(bad.id);
  assert.equal(failed.result, 'failed');
  assert.equal(failed.verdict, 'new failure');

  const compared = await alice().ok('GET', `/wdgate/sessions/${bad.id}/compare`);
  assert.equal(compared.with, good.id, 'compared with the last passing run of the test');
  // Steps: New Session, navigate home (alike), navigate to the shop (the page differs), find (fails).
  assert.equal(compared.firstDifference.kind, 'page', JSON.stringify(compared.firstDifference));
  assert.match(compared.firstDifference.text, /"Purchase" where the passed run showed "Buy"/);
  const trace = await (await fetch(`${gw.url}/wdgate/sessions/${bad.id}/trace`, { headers: { authorization: `Bearer ${TOKENS.alice}` } })).arrayBuffer();
  const { unzipSync } = await import('fflate');
  const steps = JSON.parse(Buffer.from(unzipSync(new Uint8Array(trace))['trace.json']!).toString()).steps;
  const differing = steps.find((s: any) => s.n === compared.firstDifference.failedStep);
  assert.equal(differing.name, 'navigateTo');
  assert.match(differing.params.url, /\/shop$/, 'the shop, not the home page before it');
  assert.match(compared.summary, /^first difference at step \d+:/);
  // transcript.md, as served, ends with it in one paragraph, numbering the step as its list does.
  const md = await (await fetch(`${gw.url}/wdgate/sessions/${bad.id}/transcript`, { headers: { authorization: `Bearer ${TOKENS.alice}` } })).text();
  const n = differing.n + 1;
  const paragraph = `Since the last pass (session ${good.id}): first difference at step ${n}: after step ${n} (navigateTo) the page differs: it shows "Purchase" where the passed run showed "Buy". Side by side: /ui/trace?session=${bad.id}&compare=${good.id}`;
  assert.ok(md.endsWith(`\n## Since the last pass\n\n${paragraph}\n`), md);
  assert.match(md, new RegExp(`\\n${n}\\. \\+[\\d.]+ s \\*\\*navigateTo\\*\\* http://127\\.0\\.0\\.1:\\d+/shop `), 'the list names the navigation to the shop by that number');
  assert.equal(compared.summary, `first difference at step ${n}: ${compared.firstDifference.text}`);
  checkoutRuns = { good: good.id, bad: bad.id };

  const listed = await alice().ok('GET', '/wdgate/tests?name=checkout');
  assert.equal(listed.tests.length, 1);
  assert.equal(listed.tests[0].verdict, 'new failure');
  assert.deepEqual(listed.tests[0].runs.map((r: any) => r.result), ['passed', 'failed']);
  assert.equal(listed.tests[0].failures[0].count, 1);
  // The build's summary.
  const b2 = await alice().ok('GET', '/wdgate/tests?build=b2');
  assert.deepEqual(b2.build, { name: 'b2', tests: 1, passed: 0, failed: 1, flaky: 0, newFailures: 1 });
});

test("the viewer opens the failed run and its last pass side by side at the first difference (the navigation to the changed page, both pages' texts); up and down move along the pairs, a step without a partner is a gap; the failed run alone links there", async () => {
  assert.ok(checkoutRuns, 'the first test made the two runs');
  const { good, bad } = checkoutRuns;
  const compared = await alice().ok('GET', `/wdgate/sessions/${bad}/compare`);
  assert.equal(compared.links.viewer, `/ui/trace?session=${bad}&compare=${good}`);
  const browser = await puppeteer.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  try {
    const page = await browser.newPage();
    // Anything the page's policy refused, or a script error, would be said here.
    const problems: string[] = [];
    page.on('console', (m) => void (m.type() === 'error' && problems.push(m.text())));
    page.on('pageerror', (e) => void problems.push((e as Error).message));
    await page.setViewport({ width: 1400, height: 850 });
    // The gateway wants a token: as the dashboard's login would give it, on every request of the page.
    await page.setExtraHTTPHeaders({ authorization: `Bearer ${TOKENS.alice}` });
    const response = await page.goto(`${gw.url}${compared.links.viewer}`);
    assert.equal(response!.status(), 200);
    assert.match(response!.headers()['content-security-policy']!, /default-src 'none'; script-src 'sha256-[^']+';/);
    await page.waitForSelector('#pairs li.selected');
    const rows = await pairRows(page);
    assert.equal(rows.length, compared.aligned.length);
    // Opened at the first difference, highlighted, with what differs.
    const first = rows.findIndex((r) => r.selected);
    assert.deepEqual(rows.filter((r) => r.first).map((r) => r.index), [first], 'one pair is the first difference, and it is the one shown');
    assert.deepEqual(compared.aligned[first], [compared.firstDifference.failedStep, compared.firstDifference.passedStep]);
    for (const side of [rows[first]!.failed, rows[first]!.passed]) assert.match(side, /^\d+navigateTohttp:\/\/127\.0\.0\.1:\d+\/shop$/, 'the navigation to the shop, in both runs');
    assert.match(await page.$eval('#difference', (e) => e.textContent!), /^Since the last pass: First difference at step \d+: after step \d+ \(navigateTo\) the page differs: it shows "Purchase" where the passed run showed "Buy"/);
    // Both runs' pages after that step: their screenshots, then their DOM snapshots' texts.
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('#sides img')].every((img) => !img.hidden && img.complete && img.naturalWidth > 0));
    await page.click('#compare-tabs [data-view="snapshot"]');
    assert.equal(await sideText(page, 'failed', 'button', 'Purchase'), 'Purchase');
    assert.equal(await sideText(page, 'passed', 'button', 'Buy'), 'Buy');
    assert.equal(await page.$eval('#sides [data-side="failed"] iframe', (f) => f.getAttribute('sandbox')), '', 'a snapshot runs no script');
    // Down: the find, failed here and not in the last pass; then the click only the last pass made, beside a gap.
    await page.keyboard.press('ArrowDown');
    const find = (await pairRows(page))[first + 1]!;
    assert.ok(find.selected);
    assert.match(find.failed, /findElement.*no such element/);
    assert.match(await page.$eval('#sides [data-side="failed"] dl', (e) => e.textContent!), /error.*no such element/);
    const gap = rows.findIndex((r) => r.failedGap);
    assert.ok(gap > first + 1, JSON.stringify(rows));
    assert.match(rows[gap]!.passed, /elementClick/);
    for (let k = first + 1; k < gap; k++) await page.keyboard.press('ArrowDown');
    assert.equal((await pairRows(page)).findIndex((r) => r.selected), gap);
    assert.match(await page.$eval('#sides [data-side="failed"]', (e) => `${e.className} ${e.textContent}`), /\bgap\b.*The failed run took no step here/s);
    // Up, past the difference: the home page, alike in both runs.
    for (let k = gap; k >= first; k--) await page.keyboard.press('ArrowUp');
    assert.equal((await pairRows(page)).findIndex((r) => r.selected), first - 1);
    assert.equal(await sideText(page, 'failed', 'h1', 'Welcome'), 'Welcome');
    assert.equal(await sideText(page, 'passed', 'h1', 'Welcome'), 'Welcome');
    // The failed run alone links to the same view (its last pass found by the gateway); the pass does not.
    await page.goto(`${gw.url}/ui/trace?session=${good}`);
    await page.waitForSelector('#steps li.selected');
    assert.equal(await page.$eval('#compare-last', (a) => (a as HTMLElement).hidden), true);
    await page.goto(`${gw.url}/ui/trace?session=${bad}`);
    await page.waitForSelector('#compare-last:not([hidden])');
    await Promise.all([page.waitForNavigation(), page.click('#compare-last')]);
    await page.waitForSelector('#pairs li.selected.first');
    assert.match(await page.$eval('#sides [data-side="passed"] a.alone', (a) => a.getAttribute('href')!), new RegExp(`session=${good}$`));
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});

/** The side-by-side view's rows: each run's cell, which is selected, the first difference, gaps. */
const pairRows = (page: Page) =>
  page.$$eval('#pairs li', (lis) =>
    lis.map((li) => ({
      index: Number((li as HTMLElement).dataset.index),
      failed: li.children[0]!.textContent!,
      passed: li.children[1]!.textContent!,
      failedGap: li.children[0]!.classList.contains('gap'),
      selected: li.classList.contains('selected'),
      first: li.classList.contains('first'),
    })),
  );

/** The text of `selector` in one side's DOM snapshot frame, once it is `expected` (the srcdoc is parsed after it is set). */
async function sideText(page: Page, side: 'failed' | 'passed', selector: string, expected: string): Promise<string> {
  let text: string | undefined;
  await eventually(async () => {
    const frame = await (await page.$(`#sides [data-side="${side}"] iframe`))!.contentFrame();
    text = await frame?.$eval(selector, (e) => e.textContent!).catch(() => undefined);
    return text === expected;
  }, `the ${side} run's snapshot never showed ${selector} "${expected}"`);
  return text!;
}

test('a test that flips within one build is flaky; one that fails with the same error again is not a new failure', async () => {
  for (const [build, result] of [['b3', 'failed'], ['b3', 'passed']] as const) {
    const d = await driver('cart', build);
    const id = (await d.getSession()).getId();
    await d.get(`${siteUrl}/home`);
    if (result === 'failed') await d.findElement(By.id('cart')).catch(() => undefined);
    await d.executeScript(`sauce:job-result=${result}`);
    await d.quit();
    await entry(id);
  }
  const ids: string[] = [];
  for (const build of ['b4', 'b5']) {
    const d = await driver('login', build);
    ids.push((await d.getSession()).getId());
    await d.get(`${siteUrl}/home`);
    await d.findElement(By.id('login')).catch(() => undefined);
    await d.quit(); // deleted right after a failure nothing recovered from: failed
  }
  assert.equal((await entry(ids[0]!)).verdict, 'new failure');
  assert.equal((await entry(ids[1]!)).verdict, 'always failing', 'the same error as before is not new');
  const flaky = await alice().ok('GET', '/wdgate/tests?verdict=flaky');
  assert.deepEqual(flaky.tests.map((t: any) => t.name), ['cart']);
  const login = (await alice().ok('GET', '/wdgate/tests?name=login')).tests[0];
  assert.deepEqual(login.failures, [{ error: 'no such element in findElement', count: 2, sessions: ids }]);
  // A bad filter is invalid argument, as in the history API.
  await alice().fails('GET', '/wdgate/tests?verdict=sometimes', undefined, 'invalid argument', 400);
  // Another principal sees none of alice's tests, nor can compare her sessions.
  assert.equal((await gw.client.withToken(TOKENS.bob).ok('GET', '/wdgate/tests')).total, 0);
  await gw.client.withToken(TOKENS.bob).fails('GET', `/wdgate/sessions/${ids[1]}/compare`, undefined, 'invalid session id', 404);
});
