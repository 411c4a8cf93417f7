// The trace viewer in a real browser (headless Chromium through puppeteer-core), as a person
// uses it: /ui/trace on the gateway with a session's trace recorded by that gateway, or a file
// chosen there; `wdgate show-trace trace.zip` on a laptop, with a trace made from a real page
// (test/helpers/trace-fixture.ts: it has every kind of step, a click captured before and as it
// acted, a page error and the page's requests). The steps are listed, an error step is marked,
// choosing a step shows its screenshot and its DOM snapshot (the page's element found inside the
// sandboxed frame) Before, as it acted (the element outlined, the point marked) and After it; the
// filmstrip lists the screenshots and selects their steps; the Errors tab lists the failed command
// and the page error; Metadata, a request's headers and body (a cookie set never shown); the
// console and network tabs show that step's lines, up and down move between steps, left and right
// along the filmstrip. And Playwright's own trace viewer (from the installed playwright-core)
// opens a session's trace exported by the gateway.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import puppeteer, { type Browser, type ElementHandle, type Page } from 'puppeteer-core';
import { startGateway, type TestGateway } from '../helpers/gateway.ts';
import { eventually, startPageServer, type PageServer } from '../helpers/pages.ts';
import { makeFixtureTrace, type FixtureTrace } from '../helpers/trace-fixture.ts';

const BIN = fileURLToPath(new URL('../../bin/wdgate.js', import.meta.url));

let browser: Browser;
let pages: PageServer;
let dir: string;
let fixture: FixtureTrace;
let traceFile: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wdgate-trace-viewer-'));
  [browser, pages] = await Promise.all([
    puppeteer.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] }),
    startPageServer(),
  ]);
  fixture = await makeFixtureTrace(browser, pages, 'checkout shows the total (fixture)');
  traceFile = join(dir, 'trace.zip');
  writeFileSync(traceFile, fixture.zip);
});

after(async () => {
  await browser?.close();
  await pages?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `wdgate show-trace ...`: the process, its output so far, and its exit. */
function showTrace(args: string[]) {
  const child = spawn(process.execPath, [BIN, 'show-trace', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => void (stdout += d));
  child.stderr.on('data', (d: Buffer) => void (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = /http:\/\/127\.0\.0\.1:\d+\/\S*/.exec(stdout);
      if (m) resolve(m[0]);
    });
    void exited.then((code) => reject(new Error(`show-trace exited with ${code}: ${stderr}`)));
  });
  url.catch(() => {}); // awaited only by the tests that expect it to serve
  return { child, url, exited, output: () => ({ stdout, stderr }) };
}

/** Text of the viewer's step rows and which are selected, errors, markers, events. */
const stepRows = (page: Page) =>
  page.$$eval('#steps li', (rows) => rows.map((li) => ({ n: Number((li as HTMLElement).dataset.n), name: li.querySelector('.name')!.firstChild!.textContent, classes: li.className, detail: li.querySelector('.detail')?.textContent ?? '' })));

const selectedStep = (page: Page) => page.$eval('#steps li.selected', (li) => Number((li as HTMLElement).dataset.n));

/** The DOM snapshot frame of the viewer, once it shows a document holding `selector`. */
async function snapshotText(page: Page, selector: string): Promise<string> {
  await page.waitForFunction(() => document.getElementById('snapshot') !== null);
  for (;;) {
    const frame = page.frames().find((f) => f.parentFrame() === page.mainFrame());
    const text = await frame?.$eval(selector, (e) => e.textContent ?? '').catch(() => undefined);
    if (text !== undefined) return text;
    await new Promise((r) => setTimeout(r, 50)); // the srcdoc is parsed after it is set
  }
}

/** What every way of opening the fixture trace must show. */
async function checkFixtureTrace(page: Page): Promise<void> {
  await page.waitForFunction((count) => document.querySelectorAll('#steps li').length === count, {}, fixture.steps.length);
  const rows = await stepRows(page);
  assert.deepEqual(rows.map((r) => r.name), fixture.steps.map((s) => s.name));
  assert.equal(await page.$eval('#title', (e) => e.textContent), 'checkout shows the total (fixture)');
  assert.equal(await page.$eval('#result .badge', (e) => e.textContent), 'failed');
  // The error step: marked, with its code and message; a failed session opens at it.
  const failing = fixture.steps.findIndex((s) => s.error);
  assert.match(rows[failing]!.classes, /\berror\b/);
  assert.equal(rows[failing]!.detail, `no such element: ${fixture.steps[failing]!.error!.message}`);
  assert.equal(rows.filter((r) => /\berror\b/.test(r.classes)).length, 1, 'only the failing step is marked');
  assert.equal(await selectedStep(page), failing);
  assert.match(await page.$eval('#call', (e) => e.textContent!), /no such element: no element matches the css selector "#missing"/);
  // Markers and the client's events are not commands, and look it.
  assert.match(rows[fixture.steps.findIndex((s) => s.kind === 'marker')]!.classes, /\bmarker\b/);
  assert.match(rows[fixture.steps.findIndex((s) => s.kind === 'event')]!.classes, /\bevent\b/);

  // The click: its screenshot (the page's viewport, 800x500) and its DOM after it.
  const click = fixture.steps.findIndex((s) => s.name === 'elementClick');
  await page.click(`#steps li[data-n="${click}"]`);
  await page.waitForFunction(() => {
    const img = document.getElementById('shot') as HTMLImageElement;
    return !img.hidden && img.src.startsWith('blob:') && img.complete && img.naturalWidth > 0;
  });
  assert.deepEqual(await page.$eval('#shot', (img) => [(img as HTMLImageElement).naturalWidth, (img as HTMLImageElement).naturalHeight]), [800, 500]);
  await page.click('[data-tab="snapshot"]');
  assert.equal(await snapshotText(page, '#out'), 'clicked!', 'the snapshot is the DOM after the click');
  assert.equal(await page.$eval('#snapshot', (f) => f.getAttribute('sandbox')), '', 'the snapshot frame runs no script');
  // Its console: the page's line logged by the click, and not the one from the page's load.
  await page.click('[data-tab="console"]');
  const consoleText = await page.$eval('#console', (e) => e.textContent!);
  assert.match(consoleText, new RegExp(fixture.consoleLine));
  assert.doesNotMatch(consoleText, /page script ran/);
  await page.click('#all');
  await page.waitForFunction(() => /page script ran/.test(document.getElementById('console')!.textContent!));
  await page.click('#all');
  // Down and up move between steps.
  await page.keyboard.press('ArrowDown');
  assert.equal(await selectedStep(page), click + 1);
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  assert.equal(await selectedStep(page), click - 1);
  // The navigation's requests: the page (200) and its missing image (404, marked failed).
  await page.click('#steps li[data-n="0"]');
  await page.click('[data-tab="network"]');
  const requests = await page.$$eval('#network tbody tr', (rows) => rows.map((tr) => ({ url: tr.children[2]!.textContent, status: tr.children[3]!.textContent, failed: tr.classList.contains('failed') })));
  assert.deepEqual(requests.find((r) => r.url === fixture.pageUrl), { url: fixture.pageUrl, status: '200', failed: false });
  assert.ok(requests.some((r) => r.url!.endsWith('/pixel.png') && r.status === '404' && r.failed), JSON.stringify(requests));
}

/** Until the DOM snapshot frame shows `expected` in `selector` (a srcdoc is parsed after it is set); the text last seen. */
async function snapshotShows(page: Page, selector: string, expected: string): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const text = await snapshotText(page, selector);
    if (text === expected || Date.now() > deadline) return text;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The DOM snapshot frame's document, once it holds `selector`: a function run in it. */
async function inSnapshot<T>(page: Page, selector: string, run: (e: Element) => T): Promise<T> {
  await snapshotText(page, selector);
  const frame = page.frames().find((f) => f.parentFrame() === page.mainFrame())!;
  return frame.$eval(selector, run as (e: Element) => Awaited<T>) as Promise<T>;
}

const rectOf = (page: Page, selector: string) => page.$eval(selector, (e) => e.getBoundingClientRect().toJSON() as { x: number; y: number; width: number; height: number });

/** Before, Action and After of the fixture's click; the filmstrip; Errors; Metadata; a request's details. */
async function checkFixtureCaptures(page: Page): Promise<void> {
  const click = fixture.steps.findIndex((s) => s.name === 'elementClick');
  const failing = fixture.steps.findIndex((s) => s.error);
  await page.click(`#steps li[data-n="${click}"]`);
  await page.click('[data-tab="snapshot"]');
  await page.click('#phase [data-phase="before"]');
  assert.equal(await snapshotShows(page, '#out', 'not yet'), 'not yet', 'Before: the page before the click');
  await page.click('#phase [data-phase="after"]');
  assert.equal(await snapshotShows(page, '#out', 'clicked!'), 'clicked!', 'After: the page after it');
  // Action: the button outlined in the snapshot, the pointer's point on it.
  await page.click('#phase [data-phase="action"]');
  await snapshotText(page, '[data-wdgate-pointer]');
  const outline = await inSnapshot(page, '#go', (e) => getComputedStyle(e).outlineStyle + ' ' + getComputedStyle(e).outlineColor);
  assert.equal(outline, 'solid rgb(9, 105, 218)');
  const [button, dot] = await Promise.all([inSnapshot(page, '#go', (e) => e.getBoundingClientRect().toJSON()), inSnapshot(page, '[data-wdgate-pointer]', (e) => e.getBoundingClientRect().toJSON())]);
  const center = { x: dot.x + dot.width / 2, y: dot.y + dot.height / 2 };
  assert.ok(center.x > button.x && center.x < button.x + button.width && center.y > button.y && center.y < button.y + button.height, `the point ${JSON.stringify(center)} is on the button ${JSON.stringify(button)}`);
  assert.equal(await inSnapshot(page, '#out', (e) => getComputedStyle(e).outlineStyle), 'none', 'only the element addressed');
  // Over the screenshot: the box where the button is (the viewport is 800 px wide), the point within it.
  await page.click('[data-tab="screenshot"]');
  await page.waitForSelector('#shot-box:not([hidden])');
  const [img, box, point] = await Promise.all([rectOf(page, '#shot'), rectOf(page, '#shot-box'), rectOf(page, '#shot-point')]);
  const scale = Math.min(img.width / 800, img.height / 500);
  const left = img.x + (img.width - 800 * scale) / 2;
  assert.ok(Math.abs(box.x - (left + fixture.click.box.x * scale)) < 2 && Math.abs(box.width - fixture.click.box.width * scale) < 2, `box ${JSON.stringify(box)} at the button, scale ${scale}`);
  const pointAt = { x: point.x + point.width / 2, y: point.y + point.height / 2 };
  assert.ok(pointAt.x > box.x && pointAt.x < box.x + box.width && pointAt.y > box.y && pointAt.y < box.y + box.height, 'the point is in the box');
  await page.click('#phase [data-phase="after"]');
  assert.equal(await page.$eval('#shot-box', (e) => (e as HTMLElement).hidden), true, 'no box after the click');

  // The filmstrip: the navigation's picture, the click's before and after (dashed: before), in time order, failed steps marked.
  const frames = () => page.$$eval('#filmstrip img.frame', (imgs) => imgs.map((i) => ({ n: Number((i as HTMLElement).dataset.n), phase: (i as HTMLElement).dataset.phase, current: i.classList.contains('current'), left: parseFloat((i as HTMLElement).style.left) })));
  const strip = await frames();
  assert.deepEqual(strip.map((f) => [f.n, f.phase]), [[0, 'after'], [click, 'before'], [click, 'after']]);
  assert.ok(strip[0]!.left < strip[1]!.left && strip[1]!.left < strip[2]!.left, 'along the time');
  assert.equal(await page.$$eval(`#filmstrip .tick.error`, (ticks) => ticks.map((t) => Number((t as HTMLElement).dataset.n)).join()), String(failing));
  await page.click('#filmstrip img.frame[data-n="0"]');
  assert.equal(await selectedStep(page), 0);
  await page.click(`#filmstrip img.frame[data-n="${click}"][data-phase="before"]`);
  assert.equal(await selectedStep(page), click);
  assert.equal(await page.$eval('#phase button.active', (b) => (b as HTMLElement).dataset.phase), 'before', 'the picture chosen is the before one');
  await page.hover('#filmstrip img.frame[data-n="0"]');
  await page.waitForSelector('#filmstrip .zoom:not([hidden])');
  // Right and left along the strip.
  await page.keyboard.press('ArrowRight');
  assert.deepEqual([await selectedStep(page), (await frames()).findIndex((f) => f.current)], [click, 2]);
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  assert.deepEqual([await selectedStep(page), (await frames()).findIndex((f) => f.current)], [0, 0]);

  // Errors: the page error (at the click) and the failed command, each selecting its step.
  await page.click('[data-tab="errors"]');
  const errors = await page.$$eval('#errors .error-item', (items) => items.map((i) => ({ n: Number((i as HTMLElement).dataset.n), text: i.textContent })));
  assert.deepEqual(errors.map((e) => e.n), [click, failing]);
  assert.match(errors[0]!.text!, new RegExp(`Uncaught page error.*${fixture.pageError}`));
  assert.match(errors[1]!.text!, /findElement: no such element.*#missing/);
  await page.click(`#errors .error-item[data-n="${click}"]`);
  assert.equal(await selectedStep(page), click);
  await page.click(`#errors .error-item[data-n="${failing}"]`);
  assert.equal(await selectedStep(page), failing);
  // Metadata: the browser and its version, the window, the counts.
  await page.click('[data-tab="metadata"]');
  const metadata = await page.$eval('#metadata', (e) => e.textContent!);
  assert.match(metadata, new RegExp(`Browserchrome ${(await browser.version()).replace(/[/.]/g, '\\$&')}`));
  assert.match(metadata, /Window800 × 500/);
  // A request's details: its headers and its body.
  await page.click('#steps li[data-n="0"]');
  await page.click('[data-tab="network"]');
  await page.$$eval('#network tbody tr', (rows, url) => (rows.find((r) => r.children[2]!.textContent === url) as HTMLElement).click(), fixture.pageUrl);
  const request = await page.$eval('#request', (e) => e.textContent!);
  assert.match(request, /Request headers.*user-agent/is);
  assert.match(request, /Response headers.*content-type.*text\/html/is);
  assert.match(request, /Response body.*Hello from the fixture/s);
}

test('show-trace serves the viewer with the file on 127.0.0.1; it shows the steps, pictures, DOM, console, network and the video at the step; Ctrl-C ends it with 0', async () => {
  const run = showTrace([traceFile]);
  const context = await browser.createBrowserContext();
  try {
    const url = await run.url;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/\?trace=\/trace\.zip$/);
    const page = await context.newPage();
    await page.setViewport({ width: 1400, height: 850 });
    const blocked: string[] = [];
    page.on('console', (m) => void (/Content Security Policy/.test(m.text()) && blocked.push(m.text())));
    const response = await page.goto(url);
    assert.match(response!.headers()['content-security-policy']!, /default-src 'none'; script-src 'sha256-/);
    await checkFixtureTrace(page);
    await checkFixtureCaptures(page);
    // The video: at the end of the step chosen, counted from the session's start.
    await page.click('[data-tab="video"]');
    const click = fixture.steps.findIndex((s) => s.name === 'elementClick');
    await page.click(`#steps li[data-n="${click}"]`);
    const at = (fixture.steps[click]!.startedAt + fixture.steps[click]!.durationMs - fixture.startedAt) / 1000;
    await page.waitForFunction((t) => {
      const video = document.getElementById('video') as HTMLVideoElement;
      return video.src.startsWith('blob:') && video.readyState > 0 && Math.abs(video.currentTime - t) < 0.01;
    }, {}, at);
    // The snapshot's image is relative to the page it was taken from: not fetched from here.
    assert.ok(blocked.some((b) => /pixel\.png/.test(b)), 'the snapshot tried no fetch, or the policy let it');
    // Another Host name (a web page rebinding its DNS name to 127.0.0.1) is refused.
    const status = await new Promise<number>((resolve, reject) => {
      const { port } = new URL(url);
      request({ host: '127.0.0.1', port, path: '/trace.zip', headers: { host: `attacker.example:${port}` } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      })
        .on('error', reject)
        .end();
    });
    assert.equal(status, 403);
  } finally {
    await context.close();
    run.child.kill('SIGINT');
  }
  assert.equal(await run.exited, 0, run.output().stderr);
});

test('show-trace refuses a file that is not a trace with exit code 2 and why (the other refusals: test/unit/show-trace.test.ts)', async () => {
  const notZip = join(dir, 'notes.txt');
  writeFileSync(notZip, 'just some notes');
  const run = showTrace([notZip]);
  assert.equal(await run.exited, 2);
  assert.match(run.output().stderr, /^wdgate show-trace: .*notes\.txt is not a zip file/);
});

describe('a session recorded by the gateway', () => {
  let gw: TestGateway;
  let s: Awaited<ReturnType<TestGateway['client']['newSession']>>;
  let checkout: string;
  const COOKIE = 'wdgate-session-cookie-6f1e2d';

  before(async () => {
    // Every step's picture: the click's is looked at below, and the page changes after it (the
    // API's answer), so by default a busy machine would leave it out (trace.pictures).
    gw = await startGateway([], { config: { trace: { pictures: 'every-step' } } });
    // A real session, traced, as a test whose last check fails: a click that asks the shop's API
    // (its answer sets a cookie) and makes the page throw, then a missing element.
    s = await gw.client.newSession({ 'se:name': 'checkout shows the total', 'wdgate:options': { trace: 'on' } });
    const api = `${pages.url}/api?json=${encodeURIComponent('{"total": "21.50", "currency": "EUR"}')}&cookie64=${encodeURIComponent(Buffer.from(`sid=${COOKIE}; Path=/`).toString('base64'))}`;
    checkout = pages.page(
      `<h1>Checkout</h1><p id="total">Total: -</p><p id="saved"></p><button id="compute" onclick="document.getElementById('total').textContent = 'Total: 21.50'; console.log('total computed: 21.50'); fetch('${api}').then((r) => r.json()).then((j) => { document.getElementById('saved').textContent = 'saved in ' + j.currency; setTimeout(() => { throw new Error('checkout page broke') }) })">compute</button>`,
      'Checkout',
    );
    await s.navigate(checkout);
    await s.post(`/element/${await s.find('#compute')}/click`);
    await eventually(async () => (await s.get(`/element/${await s.find('#saved')}/text`)) === 'saved in EUR', 'the API never answered');
    await s.fails('POST', '/element', { using: 'css selector', value: '#pay-now' }, 'no such element');
    await s.end();
  });

  after(async () => {
    await gw?.stop();
  });

  test("/ui/trace opens it (steps, error, screenshot, DOM before and after, console, network with a request's headers and body, errors, metadata); a file chosen or dropped there opens too", async () => {
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      await page.setViewport({ width: 1400, height: 850 });
      const response = await page.goto(`${gw.url}/ui/trace?session=${s.id}`);
      assert.equal(response!.status(), 200);
      const headers = response!.headers();
      assert.match(headers['content-security-policy']!, /default-src 'none'; script-src 'sha256-[^']+'; style-src 'unsafe-inline'; img-src data: blob:; media-src blob:; connect-src 'self'/);
      assert.equal(headers['x-content-type-options'], 'nosniff');
      await page.waitForSelector('#steps li');
      assert.equal(await page.$eval('#title', (e) => e.textContent), 'checkout shows the total');
      assert.equal(await page.$eval('#result .badge', (e) => e.textContent), 'failed');
      assert.equal(await page.$eval('#playwright', (a) => a.getAttribute('href')), `/wdgate/sessions/${s.id}/trace?format=playwright`);
      const rows = await stepRows(page);
      const names = rows.map((r) => r.name);
      for (const name of ['navigateTo', 'findElement', 'elementClick']) assert.ok(names.includes(name), `${name} is not among ${names}`);
      // The failed find: marked, with its code; the trace opens at it.
      const failing = rows.filter((r) => /\berror\b/.test(r.classes));
      assert.equal(failing.length, 1);
      assert.equal(failing[0]!.name, 'findElement');
      assert.match(failing[0]!.detail, /^no such element: /);
      assert.equal(await selectedStep(page), failing[0]!.n);
      // The click: the page's picture after it, its DOM with the element changed, its console line.
      const click = rows.find((r) => r.name === 'elementClick')!;
      await page.click(`#steps li[data-n="${click.n}"]`);
      await page.waitForFunction(() => {
        const img = document.getElementById('shot') as HTMLImageElement;
        return !img.hidden && img.complete && img.naturalWidth > 0;
      });
      await page.click('[data-tab="snapshot"]');
      assert.equal(await snapshotShows(page, '#total', 'Total: 21.50'), 'Total: 21.50');
      // Before it: the navigation's capture (the find between them changed nothing), said so.
      await page.click('#phase [data-phase="before"]');
      assert.equal(await snapshotShows(page, '#total', 'Total: -'), 'Total: -');
      assert.match(await page.$eval('#picture-note', (e) => e.textContent!), /as step \d+ left it/);
      // As it acted: the button outlined in that capture (found by the selector the recorder
      // took), the point where the click went down on it.
      await page.click('#phase [data-phase="action"]');
      await snapshotText(page, '[data-wdgate-pointer]');
      assert.equal(await inSnapshot(page, '#compute', (e) => getComputedStyle(e).outlineStyle), 'solid');
      assert.equal(await inSnapshot(page, '#total', (e) => getComputedStyle(e).outlineStyle), 'none', 'only the element clicked');
      const [button, dot] = await Promise.all([inSnapshot(page, '#compute', (e) => e.getBoundingClientRect().toJSON()), inSnapshot(page, '[data-wdgate-pointer]', (e) => e.getBoundingClientRect().toJSON())]);
      const center = { x: dot.x + dot.width / 2, y: dot.y + dot.height / 2 };
      assert.ok(Math.abs(center.x - (button.x + button.width / 2)) <= 1 && Math.abs(center.y - (button.y + button.height / 2)) <= 1, `the point ${JSON.stringify(center)} at the button's center ${JSON.stringify(button)}`);
      await page.click('#phase [data-phase="after"]');
      // The page's console line. (Which step's time it falls in is the recorder's timestamp's
      // business: the native backend stamps a line as it arrives, which under load may be after
      // the next command began. The fixture's test checks the viewer's filtering exactly.)
      await page.click('[data-tab="console"]');
      await page.click('#all');
      assert.match(await page.$eval('#console', (e) => e.textContent!), /total computed: 21\.50/);
      // The API's request: its headers (the cookie it set hidden, its name kept) and its JSON body.
      await page.click('[data-tab="network"]');
      await page.$$eval('#network tbody tr', (trs) => (trs.find((tr) => tr.children[2]!.textContent!.includes('/api?')) as HTMLElement).click());
      const request = await page.$eval('#request', (e) => e.textContent!);
      assert.match(request, /Response headers.*set-cookie\[redacted\]/is);
      assert.match(request, /Response body.*"total": "21\.50"/s);
      assert.match(request, /Request headers.*user-agent/is);
      assert.equal(request.includes(COOKIE), false, 'the cookie set is shown');
      await page.click('#all');
      // The navigation's network: the page itself, 200.
      await page.click(`#steps li[data-n="${rows.find((r) => r.name === 'navigateTo')!.n}"]`);
      const requests = await page.$$eval('#network tbody tr', (trs) => trs.map((tr) => [tr.children[2]!.textContent, tr.children[3]!.textContent]));
      assert.ok(requests.some(([url, status]) => url === checkout && status === '200'), JSON.stringify(requests));
      // Errors: the failed find and the page's error, each selecting its step.
      await page.click('[data-tab="errors"]');
      const errors = await page.$$eval('#errors .error-item', (items) => items.map((i) => ({ n: Number((i as HTMLElement).dataset.n), kind: i.classList[1], text: i.textContent! })));
      assert.deepEqual(errors.map((e) => e.kind).sort(), ['command', 'page']);
      const pageError = errors.find((e) => e.kind === 'page')!;
      assert.match(pageError.text, /checkout page broke/);
      await page.click(`#errors .error-item.page`);
      assert.equal(await selectedStep(page), pageError.n);
      await page.click(`#errors .error-item.command`);
      assert.equal(await selectedStep(page), failing[0]!.n);
      // Metadata: the browser's version as New Session answered it.
      await page.click('[data-tab="metadata"]');
      const metadata = await page.$eval('#metadata', (e) => e.textContent!);
      assert.ok(metadata.includes(`Browserchrome ${s.capabilities.browserVersion}`), metadata);
      assert.match(metadata, /Enginechromium.*Backendnative/s);
      assert.match(metadata, /Capabilities answered\{/);

      // A session without a kept trace: said so.
      await page.goto(`${gw.url}/ui/trace?session=no-such-session`);
      await page.waitForFunction(() => document.getElementById('message')!.className === 'error');
      assert.match(await page.$eval('#message', (e) => e.textContent!), /could not be loaded \(404\): no trace of session no-such-session/);
      // A file chosen that is not a trace: said so.
      const bad = join(dir, 'bad.zip');
      writeFileSync(bad, 'PK but not really a zip');
      const input = (await page.$('input#open')) as ElementHandle<HTMLInputElement>;
      await input.uploadFile(bad);
      await page.waitForFunction(() => /bad\.zip: this zip file cannot be read/.test(document.getElementById('message')!.textContent!));
      // The fixture's file dropped on the page: opened.
      await page.evaluate((base64) => {
        const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        const data = new DataTransfer();
        data.items.add(new File([bytes], 'trace.zip', { type: 'application/zip' }));
        document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
      }, fixture.zip.toString('base64'));
      await page.waitForFunction((count) => document.querySelectorAll('#steps li').length === count && document.getElementById('message')!.hidden, {}, fixture.steps.length);
      assert.equal(await page.$eval('#title', (e) => e.textContent), 'checkout shows the total (fixture)');
    } finally {
      await context.close();
    }
  });

  test("Playwright's own trace viewer (playwright-core's, served on 127.0.0.1) opens its export: the steps as actions, a step's snapshot shows the page", async () => {
    const res = await fetch(`${gw.url}/wdgate/sessions/${s.id}/trace?format=playwright`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="playwright-trace-checkout-shows-the-total\.zip"$/);
    const viewer = await servePlaywrightViewer(Buffer.from(await res.arrayBuffer()));
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      await page.setViewport({ width: 1400, height: 850 });
      await page.goto(`${viewer.url}/index.html?trace=${encodeURIComponent(`${viewer.url}/trace.zip`)}`);
      // Its action list: the session's commands, the failed find among them.
      await page.waitForFunction(() => document.querySelectorAll('.action-title').length > 3);
      const titles = await page.$$eval('.action-title', (els) => els.map((e) => e.textContent!));
      for (const name of ['newSession', 'navigateTo', 'findElement css selector #compute', 'elementClick', 'findElement css selector #pay-now', 'deleteSession']) {
        assert.ok(titles.some((t) => t.startsWith(name)), `${name} is not among ${titles}`);
      }
      // The click's After snapshot, rendered by Playwright's viewer: the total the click computed.
      await page.$$eval('.action-title', (els) => (els.find((e) => e.textContent!.startsWith('elementClick')) as HTMLElement).click());
      await page.click('button[role="tab"][title="After"]');
      assert.equal(await waitForSnapshotElement(page, 'phase=after', '#total'), 'Total: 21.50');
      await page.click('button[role="tab"][title="Before"]');
      assert.equal(await waitForSnapshotElement(page, 'phase=before', '#total'), 'Total: -');
      // As it acted: Playwright's viewer outlines the element the click addressed.
      await page.click('button[role="tab"][title="Action"]');
      const frames = () => page.frames().map((f) => f.url());
      const outlined = async () => {
        for (const frame of page.frames()) {
          const outline = await frame.$eval('#compute', (e) => (e as HTMLElement).style.outline).catch(() => '');
          if (outline) return outline;
        }
        return '';
      };
      await eventually(async () => /solid/.test(await outlined()), `the clicked button is not outlined in the action snapshot: ${frames().join(', ')}`, 20_000);
      // Its filmstrip has the screenshots; its console and network tabs count the page's lines and requests.
      assert.ok((await page.$$('.film-strip-frame')).length > 0, 'no screenshot in the filmstrip');
      assert.match(await page.$eval('button[role="tab"][title="Console"]', (e) => e.textContent!), /^Console[1-9]/);
      assert.match(await page.$eval('button[role="tab"][title="Network"]', (e) => e.textContent!), /^Network[1-9]/);
    } finally {
      await context.close();
      await viewer.close();
    }
  });
});

/** playwright-core's trace viewer (its built files) and one trace, on 127.0.0.1 (a secure context: its service worker registers). */
async function servePlaywrightViewer(trace: Buffer): Promise<{ url: string; close: () => Promise<void> }> {
  const root = join(dirname(createRequire(import.meta.url).resolve('playwright-core/package.json')), 'lib/vite/traceViewer');
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.ttf': 'font/ttf', '.webmanifest': 'application/manifest+json' };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/trace.zip') {
      res.writeHead(200, { 'content-type': 'application/zip' });
      return res.end(trace);
    }
    const file = normalize(join(root, path));
    if (!file.startsWith(root)) {
      res.writeHead(403);
      return res.end();
    }
    readFile(file).then(
      (body) => {
        res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
        res.end(body);
      },
      () => {
        res.writeHead(404);
        res.end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The text of `selector` in Playwright's snapshot frame whose address has `phase`, once it is there. */
async function waitForSnapshotElement(page: Page, phase: string, selector: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const frame = page.frames().find((f) => f.url().includes('/snapshot/') && f.url().includes(phase));
    const text = await frame?.$eval(selector, (e) => e.textContent ?? '').catch(() => undefined);
    if (text) return text;
    if (Date.now() > deadline) throw new Error(`no ${selector} in a snapshot frame of ${phase}: ${page.frames().map((f) => f.url()).join(', ')}`);
    await new Promise((r) => setTimeout(r, 50)); // the service worker renders it after the frame navigates
  }
}
