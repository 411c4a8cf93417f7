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
  /** The line the page logs when its button is clicked. */
  consoleLine: string;
  pageUrl: string;
}

const PAGE = `<h1 id="greeting">Hello from the fixture</h1>
<button id="go" onclick="document.getElementById('out').textContent = 'clicked!'; console.log('the button was clicked')">go</button>
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
    const requestStarts = new Map<unknown, number>();
    page.on('request', (r) => requestStarts.set(r, Date.now()));
    page.on('response', (r: HTTPResponse) => {
      const started = requestStarts.get(r.request()) ?? Date.now();
      har.push({
        startedDateTime: new Date(started).toISOString(),
        time: Date.now() - started,
        request: { method: r.request().method(), url: r.url(), httpVersion: 'HTTP/1.1', cookies: [], headers: [], queryString: [], headersSize: -1, bodySize: 0 },
        response: { status: r.status(), statusText: r.statusText(), httpVersion: 'HTTP/1.1', cookies: [], headers: [], content: { size: Number(r.headers()['content-length'] ?? -1), mimeType: r.headers()['content-type'] ?? '' }, redirectURL: '', headersSize: -1, bodySize: -1 },
        cache: {},
        timings: { send: 0, wait: Date.now() - started, receive: 0 },
        _resourceType: r.request().resourceType(),
      });
    });
    const pageUrl = pages.page(PAGE, 'fixture page');
    /** One step: run it, then (if it changes the page) take the screenshot and the snapshot. */
    const step = async (fields: Record<string, unknown>, run: () => Promise<unknown>, capture: boolean) => {
      const n = steps.length;
      const start = Date.now();
      let error: { code: string; message: string } | undefined;
      let result: unknown;
      try {
        result = await run();
      } catch (e) {
        error = { code: 'no such element', message: (e as Error).message };
      }
      const entry: Record<string, unknown> = { n, ...fields, startedAt: start, durationMs: Date.now() - start, window: 'fixture-window', url: page.url() };
      if (result !== undefined) entry.result = result;
      if (error) entry.error = error;
      if (capture) {
        files[`screenshots/${n}.jpg`] = await page.screenshot({ type: 'jpeg', quality: 70 });
        // The DOM as it is now, scripts removed (no script runs in a snapshot).
        files[`snapshots/${n}.html`] = new TextEncoder().encode(
          await page.evaluate(() => {
            const copy = document.documentElement.cloneNode(true) as HTMLElement;
            for (const s of copy.querySelectorAll('script')) s.remove();
            for (const e of copy.querySelectorAll('[onclick]')) e.removeAttribute('onclick');
            return `<!doctype html>${copy.outerHTML}`;
          }),
        );
        entry.screenshot = `screenshots/${n}.jpg`;
        entry.snapshot = `snapshots/${n}.html`;
      }
      steps.push(entry);
    };
    await step({ kind: 'command', name: 'navigateTo', params: { url: pageUrl } }, () => page.goto(pageUrl).then(() => undefined), true);
    await step({ kind: 'command', name: 'findElement', params: { using: 'css selector', value: '#go' } }, async () => (await page.$('#go')) && { 'element-6066-11e4-a52f-4f735a6f2f5a': 'go' }, false);
    await step({ kind: 'command', name: 'elementClick', params: { id: 'go' } }, () => page.click('#go').then(() => page.waitForFunction(() => document.getElementById('out')!.textContent === 'clicked!')).then(() => undefined), true);
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
        capabilities: { browserName: 'chrome' },
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
