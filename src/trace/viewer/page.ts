// The trace viewer's page as served (by the gateway at /ui/trace, and by show-trace): index.html
// with its script (./main.ts and fflate) bundled by esbuild into it, built once at the first
// request (≈ 0.3 s, in a process of its own) and kept. The page holds no data; its policy lets
// only that one script run, and lets the page fetch only from its own origin (the trace) and show
// images and video only from the trace's own bytes (data: and blob:), in the snapshot frame as
// well (a srcdoc frame inherits it).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export interface ViewerPage {
  html: Buffer;
  /** The Content-Security-Policy to serve it with. */
  policy: string;
}

const run = promisify(execFile);

let page: Promise<ViewerPage> | undefined;

export function viewerPage(): Promise<ViewerPage> {
  page ??= buildPage().catch((e: unknown) => {
    page = undefined; // a failed build is tried again at the next request
    throw e;
  });
  return page;
}

async function buildPage(): Promise<ViewerPage> {
  const [template, script] = await Promise.all([readFile(new URL('./index.html', import.meta.url), 'utf8'), bundle()]);
  // esbuild escapes "</script" inside strings; the check keeps that promise for this page.
  if (/<\/script/i.test(script)) throw new Error('the viewer bundle holds "</script" and cannot be inlined');
  const hash = createHash('sha256').update(script).digest('base64');
  const html = template.replace('<!--viewer-script-->', () => `<script>${script}</script>`);
  return {
    html: Buffer.from(html),
    policy: [
      "default-src 'none'",
      `script-src 'sha256-${hash}'`,
      "style-src 'unsafe-inline'",
      'img-src data: blob:',
      'media-src blob:',
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
  };
}

/**
 * ./main.ts with what it imports, as one script. Built in a Node process of its own, waited for:
 * esbuild's API in the gateway's process would leave a service process running for the
 * gateway's life and unreaped after it (PID 1 reaps nothing here); in that process, without
 * worker threads, esbuild's synchronous build runs its binary once and waits for it.
 */
async function bundle(): Promise<string> {
  const options = {
    entryPoints: [fileURLToPath(new URL('./main.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  };
  const esbuild = createRequire(import.meta.url).resolve('esbuild');
  const program = `process.stdout.write(require(${JSON.stringify(esbuild)}).buildSync(${JSON.stringify(options)}).outputFiles[0].text)`;
  const { stdout } = await run(process.execPath, ['-e', program], { env: { ...process.env, ESBUILD_WORKER_THREADS: '0' }, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

/** The headers every answer with the page carries, besides its policy. */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
};
