// `wdgate show-trace trace.zip`: the trace viewer and that one file, served on loopback until
// Ctrl-C, for a trace downloaded from a gateway (or a CI's artifacts) and opened offline. Only
// this machine's Host names are answered (a web page elsewhere cannot rebind its name to us).
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { unzipSync } from 'fflate';
import { PAGE_HEADERS, viewerPage } from './viewer/page.ts';

export const SHOW_TRACE_HELP = `Usage: wdgate show-trace <trace.zip> [--port <n>]

Serves the trace viewer with this trace on http://127.0.0.1 (a free port, or --port) and prints
its address; Ctrl-C stops it. Nothing is fetched from elsewhere: it works offline.
`;

/** Where the served trace is, for the viewer's `?trace=`. */
const TRACE_PATH = '/trace.zip';

class UsageError extends Error {}

/** Run the subcommand; resolves with the process's exit code once it is stopped. */
export async function showTrace(argv: string[]): Promise<number> {
  let file: string;
  let port: number;
  try {
    ({ file, port } = parse(argv));
    await checkTrace(file);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`wdgate show-trace: ${e.message}\n`);
    return 2;
  }
  if (file === '') {
    process.stdout.write(SHOW_TRACE_HELP);
    return 0;
  }
  // Built before the address is printed: the first page is then at once.
  const page = await viewerPage();
  const server = createServer((req, res) => serve(req, res, file, page, port));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  } catch (e) {
    process.stderr.write(`wdgate show-trace: cannot listen on 127.0.0.1:${port}: ${(e as Error).message}\n`);
    return 1;
  }
  port = (server.address() as { port: number }).port;
  process.stdout.write(`Serving ${basename(file)} at http://127.0.0.1:${port}/?trace=${TRACE_PATH}\nPress Ctrl-C to stop.\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop).off('SIGTERM', stop);
      server.closeAllConnections();
      server.close(() => resolve());
    };
    process.on('SIGINT', stop).on('SIGTERM', stop);
  });
  return 0;
}

function parse(argv: string[]): { file: string; port: number } {
  let values, positionals;
  try {
    ({ values, positionals } = parseArgs({ args: argv, options: { port: { type: 'string' }, help: { type: 'boolean' } }, allowPositionals: true, strict: true }));
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n${SHOW_TRACE_HELP}`);
  }
  if (values.help) return { file: '', port: 0 };
  if (positionals.length !== 1) throw new UsageError(`name one trace file\n${SHOW_TRACE_HELP}`);
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535 || values.port === '') throw new UsageError(`--port must be a port number (0-65535), not ${JSON.stringify(values.port)}`);
  return { file: positionals[0]!, port };
}

/** A file that is there and is a trace: a zip with a trace.json (only the zip's directory is decoded). */
async function checkTrace(file: string): Promise<void> {
  const info = await stat(file).catch((e: NodeJS.ErrnoException) => {
    throw new UsageError(e.code === 'ENOENT' ? `${file}: no such file` : `${file}: ${e.message}`);
  });
  if (!info.isFile()) throw new UsageError(`${file} is not a file`);
  const bytes = new Uint8Array(await readFile(file));
  if (bytes[0] !== 0x50 || bytes[1] !== 0x4b) throw new UsageError(`${file} is not a zip file (a trace is the zip wdgate records)`);
  const names: string[] = [];
  try {
    unzipSync(bytes, { filter: (entry) => (names.push(entry.name), false) });
  } catch (e) {
    throw new UsageError(`${file} cannot be read as a zip file: ${(e as Error).message}`);
  }
  if (!names.includes('trace.json')) throw new UsageError(`${file} is a zip file but not a wdgate trace (it has no trace.json)`);
}

function serve(req: IncomingMessage, res: ServerResponse, file: string, page: { html: Buffer; policy: string }, port: number): void {
  const host = (req.headers.host ?? '').toLowerCase();
  const actualPort = (req.socket.localPort ?? port).toString();
  if (host !== `127.0.0.1:${actualPort}` && host !== `localhost:${actualPort}`) {
    res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8' }).end(`Host ${JSON.stringify(req.headers.host ?? '')} is refused: open http://127.0.0.1:${actualPort}/\n`);
    return;
  }
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD' }).end();
    return;
  }
  if (path === '/' || path === '/ui/trace') {
    res.writeHead(200, { ...PAGE_HEADERS, 'Content-Security-Policy': page.policy }).end(req.method === 'HEAD' ? undefined : page.html);
    return;
  }
  if (path === TRACE_PATH) {
    res.writeHead(200, { 'Content-Type': 'application/zip', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    if (req.method === 'HEAD') return void res.end();
    // Read at each request: a trace written again is shown as it is now.
    createReadStream(file)
      .on('error', () => res.destroy())
      .pipe(res);
    return;
  }
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
}
