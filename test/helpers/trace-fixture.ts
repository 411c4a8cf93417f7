// A trace zip as docs/traces.md lays it out, made from a real page in a real Chromium (driven
// by puppeteer-core, not through wdgate): real JPEG screenshots, real DOM snapshots (scripts
// removed, as the recorder does), the page's real console line and requests. For the viewer's
// cases that a recorded session does not make (a trace from a file, an error step of a known
// shape) and for show-trace. Its video is a plain colour for the session's length (ffmpeg, as
// recordings use), for the viewer's seeking.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { zipSync } from 'fflate';
import type { Browser, HTTPResponse } from 'puppeteer-core';
import type { PageServer } from './pages.ts';

export interface FixtureTrace {
  zip: Buffer;
  /** What the steps are, for the assertions. */
  steps: Array<{ name: string; kind: string; startedAt: number; durationMs: number; error?: { code: string; message: string } }>;
  /** The session's start (ms since the epoch): the video's time zero. */
  startedAt: number;
  /** The line the page logs when its button is clicked, and the error it throws then. */
  consoleLine: string;
  pageError: string;
  /** The click's element box and point (CSS px of the 800×500 viewport). */
  click: { box: { x: number; y: number; width: number; height: number }; point: { x: number; y: number } };
  pageUrl: string;
}

const PAGE = `<h1 id="greeting">Hello from the fixture</h1>
<button id="go" onclick="document.getElementById('out').textContent = 'clicked!'; console.log('the button was clicked'); setTimeout(() => { throw new Error('fixture boom') })">go</button>
<p id="out">not yet</p>
<img src="/pixel.png" alt="">
<script>console.info('page script ran')</script>`;

export async function makeFixtureTrace(browser: Browser, pages: PageServer, name = 'fixture trace'): Promise<FixtureTrace> {
  const context = await browser.createBrowserContext();
  const files: Record<string, Uint8Array> = {};
  const steps: Array<Record<string, unknown>> = [];
  const consoleEntries: Array<Record<string, unknown>> = [];
  const har: Array<Record<string, unknown>> = [];
  const startedAt = Date.now();
  try {
    const page = await context.newPage();
    await page.setViewport({ width: 800, height: 500 });
    page.on('console', (m) => consoleEntries.push({ type: 'console', level: m.type() === 'warn' ? 'warning' : m.type(), text: m.text(), timestamp: Date.now() }));
    page.on('pageerror', (e) => consoleEntries.push({ type: 'pageerror', level: 'error', text: (e as Error).message, timestamp: Date.now() }));
    const requestStarts = new Map<unknown, number>();
    page.on('request', (r) => requestStarts.set(r, Date.now()));
    const list = (headers: Record<string, string>) => Object.entries(headers).map(([name, value]) => ({ name, value }));
    const responses: Promise<void>[] = [];
    page.on('response', (r: HTTPResponse) => {
      const started = requestStarts.get(r.request()) ?? Date.now();
      const time = Date.now() - started;
      const mimeType = r.headers()['content-type'] ?? '';
      responses.push(
        (/^text\//.test(mimeType) ? r.text() : Promise.resolve(undefined)).catch(() => undefined).then((text) => {
          har.push({
            startedDateTime: new Date(started).toISOString(),
            time,
            request: { method: r.request().method(), url: r.url(), httpVersion: 'HTTP/1.1', cookies: [], headers: list(r.request().headers()), queryString: [], headersSize: -1, bodySize: 0 },
            response: { status: r.status(), statusText: r.statusText(), httpVersion: 'HTTP/1.1', cookies: [], headers: list(r.headers()), content: { size: Number(r.headers()['content-length'] ?? -1), mimeType, ...(text !== undefined && { text }) }, redirectURL: '', headersSize: -1, bodySize: -1 },
            cache: {},
            timings: { blocked: 0, dns: -1, connect: -1, ssl: -1, send: 0, wait: time, receive: 0 },
            _resourceType: r.request().resourceType(),
            _window: 'fixture-window',
          });
        }),
      );
    });
    const pageUrl = pages.page(PAGE, 'fixture page');
    const viewport = { width: 800, height: 500, scrollX: 0, scrollY: 0 };
    /** The DOM as it is now, scripts removed (no script runs in a snapshot); `target`: that element marked as the one addressed. */
    const snapshot = (target?: string) =>
      page.evaluate((selector) => {
        if (selector) document.querySelector(selector)!.setAttribute('data-wdgate-target', 'fixture-target');
        const copy = document.documentElement.cloneNode(true) as HTMLElement;
        if (selector) document.querySelector(selector)!.removeAttribute('data-wdgate-target');
        for (const s of copy.querySelectorAll('script')) s.remove();
        for (const e of copy.querySelectorAll('[onclick]')) e.removeAttribute('onclick');
        return `<!doctype html>${copy.outerHTML}`;
      }, target ?? '');
    /**
     * One step: `before` (the click's) captures the page before it and as it acts, with the element
     * addressed and its in-view center point; run it, then (if it changes the page) take the
     * screenshot and the snapshot after it.
     */
    const step = async (fields: Record<string, unknown>, run: () => Promise<unknown>, capture: boolean, before?: string) => {
      const n = steps.length;
      const captures: Record<string, unknown> = {};
      if (before) {
        files[`screenshots/${n}-before.jpg`] = await page.screenshot({ type: 'jpeg', quality: 70 });
        files[`snapshots/${n}-before.html`] = new TextEncoder().encode(await snapshot());
        files[`snapshots/${n}-action.html`] = new TextEncoder().encode(await snapshot(before));
        const box = (await page.$eval(before, (e) => {
          const r = e.getBoundingClientRect();
          return { x: r.x, y: r.y, width: r.width, height: r.height };
        }))!;
        captures.before = { screenshot: `screenshots/${n}-before.jpg`, snapshot: `snapshots/${n}-before.html`, viewport };
        captures.action = { snapshot: `snapshots/${n}-action.html`, viewport, element: { marker: 'fixture-target', box }, point: { x: box.x + box.width / 2, y: box.y + box.height / 2 } };
      }
      const start = Date.now();
      let error: { code: string; message: string } | undefined;
      let result: unknown;
      try {
        result = await run();
      } catch (e) {
        error = { code: 'no such element', message: (e as Error).message };
      }
      const entry: Record<string, unknown> = { n, ...fields, startedAt: start, durationMs: Date.now() - start, window: 'fixture-window', url: page.url(), ...captures };
      if (result !== undefined) entry.result = result;
      if (error) entry.error = error;
      if (capture) {
        files[`screenshots/${n}.jpg`] = await page.screenshot({ type: 'jpeg', quality: 70 });
        files[`snapshots/${n}.html`] = new TextEncoder().encode(await snapshot());
        entry.screenshot = `screenshots/${n}.jpg`;
        entry.snapshot = `snapshots/${n}.html`;
        entry.viewport = viewport;
      }
      steps.push(entry);
    };
    await step({ kind: 'command', name: 'navigateTo', params: { url: pageUrl } }, () => page.goto(pageUrl).then(() => undefined), true);
    await step({ kind: 'command', name: 'findElement', params: { using: 'css selector', value: '#go' } }, async () => (await page.$('#go')) && { 'element-6066-11e4-a52f-4f735a6f2f5a': 'go' }, false);
    await step({ kind: 'command', name: 'elementClick', params: { id: 'go' } }, () => page.click('#go').then(() => page.waitForFunction(() => document.getElementById('out')!.textContent === 'clicked!')).then(() => undefined), true, '#go');
    await step({ kind: 'marker', name: 'marker:add', text: 'after the click' }, async () => undefined, false);
    await step({ kind: 'command', name: 'getTitle', params: {} }, () => page.title(), false);
    await step(
      { kind: 'command', name: 'findElement', params: { using: 'css selector', value: '#missing' } },
      async () => {
        if (!(await page.$('#missing'))) throw new Error('no element matches the css selector "#missing"');
      },
      false,
    );
    await step({ kind: 'event', name: 'test:failed', text: 'expected #missing to be there' }, async () => undefined, false);
    await Promise.all(responses);
    await page.close();
    const endedAt = Date.now();
    const index = {
      version: 1,
      session: {
        id: 'fixture-0000-1111-2222',
        name,
        build: 'ci-42',
        tags: ['fixture'],
        principal: 'local',
        backend: 'native',
        browserName: 'chrome',
        browserVersion: await browser.version(),
        startedAt: new Date(startedAt).toISOString(),
        endedAt: new Date(endedAt).toISOString(),
        durationMs: endedAt - startedAt,
        result: 'failed',
        resultReason: 'expected #missing to be there',
        endReason: 'it was deleted',
        engine: 'chromium',
        window: { width: 800, height: 500 },
        capabilities: { browserName: 'chrome' },
        answeredCapabilities: { browserName: 'chrome', browserVersion: await browser.version() },
      },
      steps,
      consoleCount: consoleEntries.length,
      pageErrorCount: 0,
      requestCount: har.length,
      video: 'video.webm',
    };
    files['video.webm'] = await plainVideo(Math.ceil((endedAt - startedAt) / 1000) + 1);
    files['trace.json'] = new TextEncoder().encode(JSON.stringify(index));
    files['console.json'] = new TextEncoder().encode(JSON.stringify(consoleEntries));
    files['network.har'] = new TextEncoder().encode(JSON.stringify({ log: { version: '1.2', creator: { name: 'wdgate test fixture', version: '1' }, pages: [], entries: har } }));
    return {
      zip: Buffer.from(zipSync(files)),
      steps: steps.map((s) => ({ name: s.name as string, kind: s.kind as string, startedAt: s.startedAt as number, durationMs: s.durationMs as number, ...(s.error ? { error: s.error as { code: string; message: string } } : {}) })),
      startedAt,
      consoleLine: 'the button was clicked',
      pageError: 'fixture boom',
      click: { box: (steps[2]!.action as { element: { box: FixtureTrace['click']['box'] } }).element.box, point: (steps[2]!.action as { point: FixtureTrace['click']['point'] }).point },
      pageUrl,
    };
  } finally {
    await context.close();
  }
}

/** A WebM of one colour lasting `seconds` (VP8, 4 frames a second, small). */
async function plainVideo(seconds: number): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), 'wdgate-fixture-video-'));
  try {
    const file = join(dir, 'video.webm');
    await promisify(execFile)('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `color=c=0x3b2f2f:s=320x200:r=4:d=${seconds}`, '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '50k', '-f', 'webm', '-y', file]);
    return new Uint8Array(await readFile(file));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
