// Across runs (issue 34), with real sessions through the gateway and selenium-webdriver: tests named
// by se:name, results by sauce:job-result and Grid's se/event. A test that passes, then fails on a
// changed page, is a new failure whose comparison points to the step where the page differed (a
// button's text changed), not to an earlier one; a test that flips within one build is flaky; one
// that fails with the same error as before is not a new failure; a principal sees its own tests.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    config: { authTokens: [{ name: 'alice', token: TOKENS.alice }, { name: 'bob', token: TOKENS.bob }], requireAuthOnLoopback: true },
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
