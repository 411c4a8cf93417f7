// The uWebSockets.js edge: listen, read bodies, write responses. Every request passes the
// security gate, then the route table; a body is parsed once here. Nothing below sees HTTP.
import { createRequire } from 'node:module';
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import { error, serializeError, toWebDriverError, type WebDriverError } from '../webdriver/errors.ts';
import type { Gateway } from '../webdriver/gateway.ts';
import { JsonText, TextBody } from '../webdriver/json.ts';
import { matchRoute } from './routes.ts';
import { checkRequest } from './security.ts';

const require = createRequire(import.meta.url);
const uWS = require('uWebSockets.js') as typeof import('uWebSockets.js');

/** The native build exports more than the ws-based fallback (which has no getParts). */
export const uwsImplementation: 'native' | 'fallback' = typeof (uWS as { getParts?: unknown }).getParts === 'function' ? 'native' : 'fallback';

export interface ServerOptions {
  host: string;
  port: number;
  /** PEM files for HTTPS; the key may be in the certificate file. */
  tls?: { certFile: string; keyFile: string };
  maxBodyBytes: number;
}

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK',
  400: '400 Bad Request',
  403: '403 Forbidden',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  500: '500 Internal Server Error',
};

const JSON_TYPE = 'application/json; charset=utf-8';

export interface RunningServer {
  port: number;
  close(): void;
}

export function startServer(gateway: Gateway, options: ServerOptions): Promise<RunningServer> {
  const app: TemplatedApp = options.tls
    ? uWS.SSLApp({ cert_file_name: options.tls.certFile, key_file_name: options.tls.keyFile })
    : uWS.App();

  app.any('/*', (res, req) => handle(gateway, options, res, req));

  return new Promise((resolve, reject) => {
    app.listen(options.host, options.port, (token: us_listen_socket | false) => {
      if (!token) return reject(new Error(`could not listen on ${options.host}:${options.port}`));
      resolve({ port: uWS.us_socket_local_port(token), close: () => uWS.us_listen_socket_close(token) });
    });
  });
}

function handle(gateway: Gateway, options: ServerOptions, res: HttpResponse, req: HttpRequest): void {
  // uWS contract: read everything from req now; it is gone once this function returns.
  const method = req.getCaseSensitiveMethod().toUpperCase();
  const path = req.getUrl();
  const host = req.getHeader('host');
  const origin = req.getHeader('origin');
  const peer = Buffer.from(res.getRemoteAddressAsText()).toString();
  const state: ResponseState = { aborted: false, head: method === 'HEAD' };
  // The client going away is told to what waits for it (a queued New Session leaves the queue);
  // the signal is made only for a command that asks for it.
  let gone: AbortController | undefined;
  const request = {
    get signal(): AbortSignal {
      gone ??= new AbortController();
      if (state.aborted && !state.answered) gone.abort();
      return gone.signal;
    },
  };
  res.onAborted(() => {
    state.aborted = true;
    gone?.abort();
  });

  const verdict = checkRequest(peer, host, origin);
  if (!verdict.ok) {
    const body = JSON.stringify({ value: { error: 'unknown error', message: verdict.message, stacktrace: '' } });
    return send(res, state, verdict.status, body);
  }

  const match = matchRoute(method, path);
  if (match.kind === 'unknown command') {
    return sendError(res, state, error('unknown command', `no command is mapped to ${method} ${path}`));
  }
  if (match.kind === 'unknown method') {
    return sendError(res, state, error('unknown method', `${method} is not supported for ${path} (allowed: ${match.allowed.join(', ')})`));
  }
  const { route, urlParams } = match;
  const run = (body: unknown) =>
    gateway.execute(route.command, urlParams, body, request).then(
      (value) =>
        value instanceof TextBody
          ? send(res, state, 200, value.text, value.contentType)
          : send(res, state, 200, value instanceof JsonText ? `{"value":${value.text}}` : JSON.stringify({ value: value === undefined ? null : value })),
      (e) => sendError(res, state, toWebDriverError(e)),
    );

  if (method !== 'POST') {
    void run(undefined);
    return;
  }
  readBody(res, options.maxBodyBytes, (raw) => {
    if (raw === null) return sendError(res, state, error('invalid argument', `request body exceeds ${options.maxBodyBytes} bytes`));
    // An empty POST body is taken as {} (chromedriver does; some clients send none for Back).
    if (raw.length === 0) return void run({});
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch (e) {
      return sendError(res, state, error('invalid argument', `request body is not valid JSON: ${(e as Error).message}`));
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return sendError(res, state, error('invalid argument', 'request body must be a JSON object'));
    }
    void run(body);
  });
}

/** Collect the body; `null` if it grows past the limit. Chunks are views into a reused buffer. */
function readBody(res: HttpResponse, limit: number, done: (body: Buffer | null) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  res.onData((chunk, isLast) => {
    if (over) return;
    size += chunk.byteLength;
    if (size > limit) {
      over = true;
      return done(null);
    }
    chunks.push(Buffer.from(chunk.slice(0)));
    if (isLast) done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
  });
}

interface ResponseState {
  /** The client went away, or we answered already: never touch res again. */
  aborted: boolean;
  /** We answered (aborted is set too). */
  answered?: boolean;
  /** A HEAD request: headers only, or the body would be read as the next response. */
  head: boolean;
}

function sendError(res: HttpResponse, state: ResponseState, e: WebDriverError): void {
  const { status, body } = serializeError(e);
  send(res, state, status, body);
}

function send(res: HttpResponse, state: ResponseState, status: number, body: string, contentType = JSON_TYPE): void {
  if (state.aborted) return;
  state.aborted = true; // answered: never touch res again
  state.answered = true;
  res.cork(() => {
    res
      .writeStatus(STATUS_TEXT[status] ?? `${status} Error`)
      .writeHeader('Content-Type', contentType)
      .writeHeader('Cache-Control', 'no-cache');
    // (endWithoutBody(length) leaves this uWS build's response unfinished: no length given.)
    if (state.head) res.endWithoutBody();
    else res.end(body);
  });
}
