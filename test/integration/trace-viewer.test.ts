// The trace viewer in a real browser (headless Chromium through puppeteer-core), as a person
// uses it: /ui/trace on the gateway with a session's trace recorded by that gateway, or a file
// chosen there; `wdgate show-trace trace.zip` on a laptop, with a trace made from a real page
// (test/helpers/trace-fixture.ts: it has every kind of step and a page's requests). The steps are listed, an error step is marked, choosing a step shows its
// screenshot and its DOM snapshot (the page's element found inside the sandboxed frame), the
// console and network tabs show that step's lines, up and down move between steps.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import puppeteer, { type Browser, type ElementHandle, type Page } from 'puppeteer-core';
import { startGateway } from '../helpers/gateway.ts';
import { startPageServer, type PageServer } from '../helpers/pages.ts';
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

test("the gateway's /ui/trace opens a session's trace recorded by the gateway (steps, error, screenshot, DOM, console, network); a file chosen or dropped there opens too", async () => {
  const gw = await startGateway();
  const context = await browser.createBrowserContext();
  try {
    // A real session, traced, as a test whose last check fails: a click, then a missing element.
    const s = await gw.client.newSession({ 'se:name': 'checkout shows the total', 'wdgate:options': { trace: 'on' } });
    const checkout = pages.page(`<h1>Checkout</h1><p id="total">Total: -</p><button id="compute" onclick="document.getElementById('total').textContent = 'Total: 21.50'; console.log('total computed: 21.50')">compute</button>`, 'Checkout');
    await s.navigate(checkout);
    await s.post(`/element/${await s.find('#compute')}/click`);
    await s.fails('POST', '/element', { using: 'css selector', value: '#pay-now' }, 'no such element');
    await s.end();

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
    assert.equal(await snapshotText(page, '#total'), 'Total: 21.50');
    // The page's console line. (Which step's time it falls in is the recorder's timestamp's
    // business: the native backend stamps a line as it arrives, which under load may be after
    // the next command began. The fixture's test checks the viewer's filtering exactly.)
    await page.click('[data-tab="console"]');
    await page.click('#all');
    assert.match(await page.$eval('#console', (e) => e.textContent!), /total computed: 21\.50/);
    await page.click('#all');
    // The navigation's network: the page itself, 200.
    await page.click(`#steps li[data-n="${rows.find((r) => r.name === 'navigateTo')!.n}"]`);
    await page.click('[data-tab="network"]');
    const requests = await page.$$eval('#network tbody tr', (trs) => trs.map((tr) => [tr.children[2]!.textContent, tr.children[3]!.textContent]));
    assert.ok(requests.some(([url, status]) => url === checkout && status === '200'), JSON.stringify(requests));

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
    await gw.stop();
  }
});
