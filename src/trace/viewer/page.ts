// The trace viewer's page as served (by the gateway at /ui/trace, and by show-trace): index.html
// with its script (./main.ts and fflate) bundled by esbuild into it, built once at the first
// request and kept. The page holds no data; its policy lets only that one script run, and lets
// the page fetch only from its own origin (the trace) and show images and video only from the
// trace's own bytes (data: and blob:), in the snapshot frame as well (a srcdoc frame inherits it).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export interface ViewerPage {
  html: Buffer;
  /** The Content-Security-Policy to serve it with. */
  policy: string;
}

let page: Promise<ViewerPage> | undefined;

export function viewerPage(): Promise<ViewerPage> {
  page ??= buildPage().catch((e: unknown) => {
    page = undefined; // a failed build is tried again at the next request
    throw e;
  });
  return page;
}

async function buildPage(): Promise<ViewerPage> {
  const [template, bundle] = await Promise.all([
    readFile(new URL('./index.html', import.meta.url), 'utf8'),
    build({
      entryPoints: [fileURLToPath(new URL('./main.ts', import.meta.url))],
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      legalComments: 'none',
      logLevel: 'silent',
    }),
  ]);
  const script = bundle.outputFiles[0]!.text;
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

/** The headers every answer with the page carries, besides its policy. */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
};
