// A loopback web server for test pages: fixtures from test/fixtures, plus a few dynamic routes.
import { createServer, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join, normalize } from 'node:path';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

export interface PageServer {
  url: string;
  /** URL of a page with this HTML body served from /html/<n>. */
  page(html: string, title?: string): string;
  /** Downloads held in progress (/download?hold=1): half of each is sent. */
  held(): number;
  /** Finish the downloads held in progress: their last byte is "!". */
  finishHeld(): void;
  close(): Promise<void>;
}

export async function startPageServer(): Promise<PageServer> {
  const pages = new Map<string, string>();
  const held = new Set<import('node:http').ServerResponse>();
  let next = 0;
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.startsWith('/html/')) {
      const html = pages.get(url.pathname.slice(6));
      res.writeHead(html === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(html ?? 'not found');
    }
    if (url.pathname === '/style.css') {
      // A style sheet of its own type (a sheet served as text/html is ignored by browsers).
      res.writeHead(200, { 'content-type': 'text/css' });
      return res.end(url.searchParams.get('css') ?? 'p { color: green }');
    }
    if (url.pathname === '/api') {
      // A JSON answer (?json=) that sets a cookie (?cookie64=, "name=value" in base64: its value is not in the URL): a request whose body a trace keeps and whose cookie it hides.
      const cookie = url.searchParams.get('cookie64');
      res.writeHead(200, { 'content-type': 'application/json', ...(cookie && { 'set-cookie': Buffer.from(cookie, 'base64').toString() }) });
      return res.end(url.searchParams.get('json') ?? '{}');
    }
    if (url.pathname === '/echo') {
      // The request's body back, as its type, and its X-Api-Key and X-Auth-Token headers back as
      // the same headers: an answer that repeats a request's credentials (as a token endpoint does).
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const echoed = Object.fromEntries(['x-api-key', 'x-auth-token'].filter((name) => typeof req.headers[name] === 'string').map((name) => [name, req.headers[name] as string]));
      res.writeHead(200, { 'content-type': req.headers['content-type'] ?? 'text/plain', ...echoed });
      return res.end(Buffer.concat(chunks));
    }
    if (url.pathname === '/slow') {
      // Holds the response for ?ms= milliseconds: for page load strategies and timeouts.
      const ms = Number(url.searchParams.get('ms') ?? 1000);
      const timer = setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<title>slow</title><p>done after ${ms}</p>`);
      }, ms);
      req.on('close', () => clearTimeout(timer));
      return;
    }
    if (url.pathname === '/download') {
      // An attachment: ?name= (the suggested file name), ?body= (its text); ?hold=1 sends all but
      // its last byte until finishHeld() (a download in progress). Not a type Chromium sniffs:
      // it would wait for the whole body before deciding it is a download.
      const body = url.searchParams.get('body') ?? '';
      res.writeHead(200, {
        'content-type': 'application/x-wdgate-test',
        'content-length': String(Buffer.byteLength(body) + (url.searchParams.has('hold') ? 1 : 0)),
        'content-disposition': `attachment; filename="${url.searchParams.get('name') ?? 'file.bin'}"`,
      });
      if (url.searchParams.has('hold')) {
        res.write(body);
        held.add(res);
        res.on('close', () => held.delete(res));
        return;
      }
      return res.end(body);
    }
    if (url.pathname === '/slow-image') {
      // A page whose DOM is ready at once but whose load event waits for an image.
      const ms = Number(url.searchParams.get('ms') ?? 1000);
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(`<title>slow image</title><img src="/slow?ms=${ms}">`);
    }
    const file = normalize(join(FIXTURES, url.pathname));
    if (!file.startsWith(FIXTURES)) {
      res.writeHead(403);
      return res.end();
    }
    try {
      const body = await readFile(file);
      const type = file.endsWith('.html') ? 'text/html; charset=utf-8' : file.endsWith('.png') ? 'image/png' : 'text/plain';
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    page(html: string, title = 'test') {
      const id = String(next++);
      pages.set(id, `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${html}</body></html>`);
      return `${url}/html/${id}`;
    },
    held: () => held.size,
    finishHeld() {
      for (const res of held) res.end('!');
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Browser processes left (zombies included: nothing may be left unreaped): the leak check. */
export async function chromiumProcesses(): Promise<number> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolve) => {
    execFile('ps', ['-eo', 'stat=,comm='], (_e, stdout) => {
      resolve(
        String(stdout)
          .split('\n')
          .filter((l) => /\bchrom(e|ium)/.test(l)).length,
      );
    });
  });
}

/**
 * Browser processes started by one gateway that are still there (its profiles carry its pid).
 * Safe while other gateways run at the same time.
 */
export async function leftoverBrowsers(gatewayPid: number): Promise<number> {
  const { readdir, readFile } = await import('node:fs/promises');
  let count = 0;
  for (const proc of await readdir('/proc')) {
    if (!/^\d+$/.test(proc)) continue;
    const cmdline = await readFile(`/proc/${proc}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(`wdgate-profile-${gatewayPid}-`)) count++;
  }
  return count;
}

/** Poll `check` until it holds (up to `limitMs`), else fail with `message`. */
export async function eventually(check: () => Promise<boolean> | boolean, message: string, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(message);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Main browser processes started by one gateway (its profile dirs carry its pid). */
export async function browserMains(gatewayPid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const proc of await (await import('node:fs/promises')).readdir('/proc')) {
    if (!/^\d+$/.test(proc)) continue;
    // Chromium rewrites its helpers' command lines into one space-separated string.
    const cmdline = await (await import('node:fs/promises')).readFile(`/proc/${proc}/cmdline`, 'utf8').catch(() => '');
    // Not its helpers (--type=…), nor the crash handler Chromium starts as the browsers' user.
    if (cmdline.includes(`wdgate-profile-${gatewayPid}-`) && !/(?:^|[\s\0])--type=/.test(cmdline) && !cmdline.includes('chrome_crashpad_handler')) pids.push(Number(proc));
  }
  return pids;
}

/** Processes whose command line names this profile directory (one session's browser). */
export async function processesUsing(profile: string): Promise<number> {
  let count = 0;
  for (const proc of await (await import('node:fs/promises')).readdir('/proc')) {
    if (/^\d+$/.test(proc) && (await (await import('node:fs/promises')).readFile(`/proc/${proc}/cmdline`, 'utf8').catch(() => '')).includes(profile)) count++;
  }
  return count;
}


/** The profile directory a browser process was started with. */
export async function profileOf(pid: number): Promise<string> {
  const cmdline = await (await import('node:fs/promises')).readFile(`/proc/${pid}/cmdline`, 'utf8');
  return /--user-data-dir=(\S+?)(?:\0|\s|$)/.exec(cmdline)![1]!;
}

/**
 * Live processes the remote backend of one gateway started (drivers, their browsers, Xvfb): they
 * carry WDGATE_OWNER=<gateway pid> in their environment. Each as its command line.
 */
export async function ownedProcesses(gatewayPid: number): Promise<string[]> {
  const { readdir, readFile } = await import('node:fs/promises');
  const found: string[] = [];
  for (const proc of await readdir('/proc')) {
    if (!/^\d+$/.test(proc)) continue;
    const environ = await readFile(`/proc/${proc}/environ`, 'latin1').catch(() => '');
    if (!environ.split('\0').includes(`WDGATE_OWNER=${gatewayPid}`)) continue;
    const stat = await readFile(`/proc/${proc}/stat`, 'utf8').catch(() => '');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue; // a zombie is not running
    found.push((await readFile(`/proc/${proc}/cmdline`, 'utf8').catch(() => '')).replace(/\0/g, ' ').trim());
  }
  return found;
}

/** A process as /proc shows it: its pid, its start time (pids are reused) and its name. */
export interface ProcessEntry {
  pid: number;
  start: string;
  name: string;
}

/** /proc/PID/stat's fields after the name (which may hold spaces and parentheses). */
async function statFields(pid: number | string): Promise<{ name: string; fields: string[] } | undefined> {
  const stat = await (await import('node:fs/promises')).readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (!stat) return undefined;
  const close = stat.lastIndexOf(')');
  return { name: stat.slice(stat.indexOf('(') + 1, close), fields: stat.slice(close + 2).split(' ') };
}

/**
 * Every process under `pid` (its children, theirs, …), found by walking the tree: a browser's
 * helpers do not inherit a mark in their environment (PLATFORM-NOTES), and puppeteer starts
 * browsers in groups and sessions of their own.
 */
export async function descendants(pid: number): Promise<ProcessEntry[]> {
  const children = new Map<number, ProcessEntry[]>();
  for (const proc of await (await import('node:fs/promises')).readdir('/proc')) {
    if (!/^\d+$/.test(proc)) continue;
    const stat = await statFields(proc);
    if (!stat) continue;
    // Fields after the name: state (0), ppid (1), …, starttime (19).
    const parent = Number(stat.fields[1]);
    const list = children.get(parent) ?? [];
    list.push({ pid: Number(proc), start: stat.fields[19]!, name: stat.name });
    children.set(parent, list);
  }
  const out: ProcessEntry[] = [];
  const walk = (p: number) => {
    for (const child of children.get(p) ?? []) {
      out.push(child);
      walk(child.pid);
    }
  };
  walk(pid);
  return out;
}

/** Those of `entries` still running (the same process: same start time; a zombie has ended). */
export async function stillRunning(entries: ProcessEntry[]): Promise<ProcessEntry[]> {
  const left: ProcessEntry[] = [];
  for (const entry of entries) {
    const stat = await statFields(entry.pid);
    if (stat && stat.fields[19] === entry.start && stat.fields[0] !== 'Z') left.push(entry);
  }
  return left;
}

/**
 * Processes carrying a gateway's mark in their environment (WDGATE_OWNER, which the processes
 * the gateway spawns itself, and what they start, inherit): helpers that left the process tree
 * (a crash handler forks twice) are found this way.
 */
export async function markedProcesses(gatewayPid: number): Promise<ProcessEntry[]> {
  const { readdir, readFile } = await import('node:fs/promises');
  const found: ProcessEntry[] = [];
  for (const proc of await readdir('/proc')) {
    if (!/^\d+$/.test(proc)) continue;
    const environ = await readFile(`/proc/${proc}/environ`, 'utf8').catch(() => '');
    if (!environ.split('\0').includes(`WDGATE_OWNER=${gatewayPid}`)) continue;
    const stat = await statFields(proc);
    if (stat && stat.fields[0] !== 'Z') found.push({ pid: Number(proc), start: stat.fields[19]!, name: stat.name });
  }
  return found;
}
