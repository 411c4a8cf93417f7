// The uWebSockets.js edge: listen, read bodies, write responses. Every request passes the
// security gate, then the route table; a body is parsed once here. Nothing below sees HTTP.
import { createRequire } from 'node:module';
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import { error, HttpRefusal, serializeError, toWebDriverError, type WebDriverError } from '../webdriver/errors.ts';
import type { Gateway } from '../webdriver/gateway.ts';
import { JsonText, TextBody } from '../webdriver/json.ts';
import { matchRoute, withoutBasePath } from '../webdriver/routes.ts';
import { forwardedReports } from '../webdriver/reports.ts';
import { LOCAL } from './auth.ts';
import type { Principal } from './auth.ts';
import { checkRequest, isProbe, type AccessPolicy, type RequestFacts } from './security.ts';
import { jsonDepthExceeds } from './limits.ts';
import { Forwarder } from './forward.ts';
import type { PassThroughSession } from '../webdriver/pass-through.ts';
import { bidiSockets, type BidiCounters } from '../bidi/socket.ts';
import type { Dashboard } from '../ops/dashboard.ts';
import { serveDashboard } from './ui.ts';
import type { UiLogins } from './ui-logins.ts';

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
  /** Request paths longer than this are refused (bytes). */
  maxUrlLength: number;
  /** Request headers larger than this, names and values together, are refused (bytes). */
  maxHeaderBytes: number;
  /** JSON bodies nested deeper than this are refused. */
  maxJsonDepth: number;
  /** Bytes a BiDi socket may have waiting for a client that reads slowly; past this it is closed. */
  maxBidiBufferedBytes: number;
  /** A forwarded request (pass-through session) with no answer for this long is a timeout (ms). */
  forwardTimeout: number;
  access: AccessPolicy;
  /** Dashboard logins (the same object as access.logins). */
  logins: UiLogins;
  /** The dashboard's state (an observer of the command seam, made by src/app.ts). */
  dashboard: Dashboard;
  /** What the BiDi sockets count (src/ops/metrics.ts). */
  bidiCounters: BidiCounters;
}

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  403: '403 Forbidden',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  500: '500 Internal Server Error',
  503: '503 Service Unavailable',
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

  const forwarder = new Forwarder(options.forwardTimeout);
  const edge: Edge = { gateway, options, forwarder, webSocketScheme: options.tls ? 'wss' : 'ws', port: options.port };
  // BiDi sockets: an upgrade request to /session/{id}; any other request there goes on to HTTP.
  const sockets = bidiSockets(gateway, (res, req) => upgradeGate(edge, res, req), {
    maxMessageBytes: options.maxBodyBytes,
    maxBufferedBytes: options.maxBidiBufferedBytes,
    counters: options.bidiCounters,
  });
  app.ws('/session', sockets);
  app.ws('/session/*', sockets);
  // The dashboard (/ui): its page, its login and its socket.
  serveDashboard(app, gateway, {
    dashboard: options.dashboard,
    access: options.access,
    logins: options.logins,
    secure: options.tls !== undefined,
    check: (res, req) => {
      const { facts } = requestFacts(res, req);
      const verdict = checkRequest(facts, options.access);
      if (!verdict.ok) gateway.log.info({ event: 'request refused', peer: facts.peer, method: facts.method, path: '/ui', status: verdict.status, reason: verdict.message });
      return { facts, verdict };
    },
  });
  app.any('/*', (res, req) => handle(edge, res, req));

  return new Promise((resolve, reject) => {
    app.listen(options.host, options.port, (token: us_listen_socket | false) => {
      if (!token) return reject(new Error(`could not listen on ${options.host}:${options.port}`));
      edge.port = uWS.us_socket_local_port(token);
      resolve({
        port: edge.port,
        close: () => {
          uWS.us_listen_socket_close(token);
          forwarder.close();
        },
      });
    });
  });
}

/** What every request's handling needs: the gateway, the settings, where the gateway listens. */
interface Edge {
  gateway: Gateway;
  options: ServerOptions;
  forwarder: Forwarder;
  webSocketScheme: 'ws' | 'wss';
  /** The port listened on (known once listening). */
  port: number;
}

/** What the gate looks at, read from req at once (uWS: it is gone once the handler returns). */
function requestFacts(res: HttpResponse, req: HttpRequest): { facts: RequestFacts; path: string; headerBytes: number } {
  let headerBytes = 0;
  req.forEach((name, value) => void (headerBytes += name.length + value.length + 4));
  const method = req.getCaseSensitiveMethod().toUpperCase();
  const path = req.getUrl();
  const facts = {
    peer: Buffer.from(res.getRemoteAddressAsText()).toString(),
    method,
    host: req.getHeader('host'),
    origin: req.getHeader('origin'),
    contentType: req.getHeader('content-type'),
    authorization: req.getHeader('authorization'),
    cookie: req.getHeader('cookie'),
    probe: isProbe(method, path),
  };
  return { facts, path, headerBytes };
}

/** A WebSocket upgrade passes the same gate as any request, before the socket exists. */
function upgradeGate(edge: Edge, res: HttpResponse, req: HttpRequest): { principal: Principal; webSocketBase: string } | { refuse: () => void } {
  const { facts, path, headerBytes } = requestFacts(res, req);
  const gate = admit(edge.gateway, edge.options, facts, path, headerBytes);
  if ('refusal' in gate) return { refuse: () => gate.refusal(res, { aborted: false, head: false }) };
  return { principal: gate.principal, webSocketBase: webSocketBase(edge, facts.host) };
}

/** `ws://host:port` as the client reached the gateway (the Host it sent passed the gate). */
function webSocketBase(edge: Edge, host: string): string {
  const { options } = edge;
  return `${edge.webSocketScheme}://${host || `${options.host.includes(':') ? `[${options.host}]` : options.host}:${edge.port}`}`;
}

function handle(edge: Edge, res: HttpResponse, req: HttpRequest): void {
  const { gateway, options, forwarder } = edge;
  // uWS contract: read everything from req now; it is gone once this function returns.
  const { facts, path, headerBytes } = requestFacts(res, req);
  const { method } = facts;
  // A body the request carries is read to its end before any answer, even a refusal: a keep-alive
  // connection is only usable for the next request once this one is consumed.
  const hasBody = method === 'POST' || !['', '0'].includes(req.getHeader('content-length')) || req.getHeader('transfer-encoding') !== '';
  const state: ResponseState = { aborted: false, head: method === 'HEAD' };
  // The client going away is told to what waits for it (a queued New Session leaves the queue);
  // the signal is made only for a command that asks for it.
  let gone: AbortController | undefined;
  const request = {
    principal: LOCAL,
    webSocketBase: webSocketBase(edge, facts.host),
    query: req.getQuery() ?? '',
    get signal(): AbortSignal {
      gone ??= new AbortController();
      if (state.aborted && !state.answered) gone.abort();
      return gone.signal;
    },
  };
  res.onAborted(() => {
    state.aborted = true;
    gone?.abort();
    state.onGone?.();
  });

  const gate = admit(gateway, options, facts, path, headerBytes);
  if ('refusal' in gate) return afterBody(res, state, hasBody, options.maxBodyBytes, () => gate.refusal(res, state));
  request.principal = gate.principal;

  // A pass-through session's requests go to its upstream as they are (./forward.ts), with or
  // without the legacy /wd/hub prefix (the upstream gets its own path for the session).
  const target = /^\/session\/([^/]+)(\/.*)?$/.exec(withoutBasePath(path));
  const passThrough = target && gateway.sessions.passThrough(target[1]!, gate.principal.name);
  if (passThrough) {
    // A dot segment would let the upstream resolve the path to another of its sessions.
    if (/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(target![2] ?? '')) {
      const e = error('invalid argument', 'a path with . or .. segments is not forwarded');
      return afterBody(res, state, hasBody, options.maxBodyBytes, () => sendError(res, state, e));
    }
    const send = (body: Buffer) => forwardRequest({ gateway, forwarder, res, state, session: passThrough, method, rest: target![2] ?? '', body });
    if (!hasBody) return send(Buffer.alloc(0));
    return readBody(res, options.maxBodyBytes, true, (raw) => (raw === null ? bodyTooLarge(res, state, options.maxBodyBytes) : send(raw)));
  }

  const match = matchRoute(method, path);
  if (match.kind !== 'found') {
    const e =
      match.kind === 'unknown command'
        ? error('unknown command', `no command is mapped to ${method} ${path}`)
        : error('unknown method', `${method} is not supported for ${path} (allowed: ${match.allowed.join(', ')})`);
    return afterBody(res, state, hasBody, options.maxBodyBytes, () => sendError(res, state, e));
  }
  const { route, urlParams } = match;
  const run = (body: unknown) =>
    gateway.execute(route.command, urlParams, body, request).then(
      (value) =>
        value instanceof TextBody
          ? send(res, state, value.status, value.text, value.contentType, value.headers)
          : send(res, state, 200, value instanceof JsonText ? `{"value":${value.text}}` : JSON.stringify({ value: value === undefined ? null : value })),
      (e) =>
        e instanceof HttpRefusal
          ? send(res, state, e.status, JSON.stringify({ value: { error: 'unknown error', message: e.message, stacktrace: '' } }))
          : sendError(res, state, toWebDriverError(e)),
    );

  if (method !== 'POST') return afterBody(res, state, hasBody, options.maxBodyBytes, () => void run(undefined));
  readBody(res, options.maxBodyBytes, true, (raw) => {
    if (raw === null) return bodyTooLarge(res, state, options.maxBodyBytes);
    // Spec §6.3 processing model: a command's POST body is parsed as JSON and must be an Object,
    // whatever the command; an empty body is no JSON (chromedriver: "missing command
    // parameters"). The gateway's own operator requests (/wdgate/…) take none as {}.
    if (raw.length === 0) {
      if (route.path.startsWith('/wdgate/')) return void run({});
      return sendError(res, state, error('invalid argument', 'request body must be a JSON object ({} for a command without parameters), not empty'));
    }
    let body: unknown;
    const text = raw.toString('utf8');
    if (jsonDepthExceeds(text, options.maxJsonDepth)) {
      return sendError(res, state, error('invalid argument', `request body nests deeper than ${options.maxJsonDepth} levels (maxJsonDepth)`));
    }
    try {
      body = JSON.parse(text);
    } catch (e) {
      return sendError(res, state, error('invalid argument', `request body is not valid JSON: ${(e as Error).message}`));
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return sendError(res, state, error('invalid argument', 'request body must be a JSON object'));
    }
    void run(body);
  });
}

/** One request of a pass-through session, as the edge read it. */
interface Forwarded {
  gateway: Gateway;
  forwarder: Forwarder;
  res: HttpResponse;
  state: ResponseState;
  session: PassThroughSession;
  method: string;
  /** The path after `/session/{id}`. */
  rest: string;
  body: Buffer;
}

/** Forward one request of a pass-through session and stream the upstream's answer back. */
function forwardRequest(request: Forwarded): void {
  const { gateway, res, state, session, method, rest, body } = request;
  const deleting = method === 'DELETE' && rest === '';
  const route = matchRoute(method, `/session/-${rest}`);
  const name = route.kind === 'found' ? route.route.command : `${method} ${rest || '/'}`;
  const startedAt = Date.now();
  const started = performance.now();
  // A client's report of its test (se/event, a cloud grid's script) is answered here, never
  // forwarded (an upstream driver would run `sauce:job-result=…` as JavaScript).
  let reported;
  try {
    reported = forwardedReports(method, rest, body);
  } catch (e) {
    const failure = toWebDriverError(e); // a malformed report: invalid argument
    gateway.seam.answered({ kind: 'forwarded', name, session, startedAt, durationMs: performance.now() - started, error: { code: failure.code, message: failure.message } });
    return sendError(res, state, failure);
  }
  if (reported) {
    gateway.seam.reported(session, reported.reports, reported.via);
    gateway.seam.answered({ kind: 'forwarded', name, session, startedAt, durationMs: performance.now() - started }, parsed(body), reported.value);
    return send(res, state, 200, JSON.stringify({ value: reported.value }));
  }
  // The seam's turn first (what a Send Keys types is checked for a password field upstream); on
  // the hot path there is nothing to wait for.
  // (Parsed once, for the seam and its step alike, and only when its content is kept.)
  const params = gateway.seam.record(session)?.redactor ? parsed(body) : undefined;
  const urlParams = route.kind === 'found' ? route.urlParams : {};
  const before = gateway.seam.before(session, { kind: 'forwarded', name, urlParams, params });
  const forward = () => forwardNow(request, { name, urlParams }, deleting, params);
  if (!before) return forward();
  session.inFlight++;
  void before.finally(() => {
    session.inFlight--;
    forward();
  });
}

function forwardNow(request: Forwarded, command: { name: string; urlParams: Record<string, string> }, deleting: boolean, params: unknown): void {
  const { gateway, forwarder, res, state, session, method, rest, body } = request;
  let status = 0;
  const startedAt = Date.now();
  const started = performance.now();
  // An error answer is read for its W3C code (the seam counts it); a kept session's answers for their summary.
  const kept = gateway.seam.record(session)?.redactor !== undefined;
  let answer: Buffer[] | undefined;
  let answered = 0;
  session.inFlight++;
  const done = (failure?: WebDriverError) => {
    session.inFlight--;
    session.lastActivity = Date.now();
    answeredForwarded(gateway, session, command, params, status, answer, startedAt, performance.now() - started, failure);
    if (!deleting) return;
    // Delete Session ends the session here whatever the upstream said; it is sent again only
    // if the upstream did not take it.
    session.deletedUpstream = status >= 200 && status < 300;
    void gateway.sessions.end(session, 'it was deleted', 'deleted');
  };
  const forwarding = forwarder.forward({ method, path: session.upstreamPath(rest), body }, session.upstream, {
    head(code, text, contentType) {
      status = code;
      if (code >= 400 || kept) answer = [];
      if (state.aborted) return;
      res.cork(() => {
        res
          .writeStatus(`${code} ${text || STATUS_TEXT[code]?.slice(4) || 'Status'}`)
          .writeHeader('Content-Type', contentType ?? JSON_TYPE)
          .writeHeader('Cache-Control', 'no-cache');
      });
    },
    data(chunk) {
      if (answer && answered < FORWARDED_ANSWER_KEPT) {
        answer.push(chunk.subarray(0, FORWARDED_ANSWER_KEPT - answered));
        answered += chunk.length;
      }
      if (!state.aborted) res.cork(() => void res.write(chunk));
    },
    end() {
      done();
      if (state.aborted) return;
      state.aborted = state.answered = true;
      res.cork(() => void res.end());
    },
    fail(kind, message) {
      const e =
        kind === 'timeout'
          ? error('timeout', `upstream ${session.upstreamName}: ${message}`)
          : error('unknown error', `upstream ${session.upstreamName} (${session.upstream.url}) could not be reached: ${message}`);
      done(e);
      sendError(res, state, e);
    },
  });
  // The client gone: the upstream's answer is not waited for (no AbortSignal: this is the hot path).
  if (state.aborted && !state.answered) forwarding.abort();
  else state.onGone = () => forwarding.abort();
}

/** Bytes of a forwarded answer kept for the seam (an error's code and message, a result's summary). */
const FORWARDED_ANSWER_KEPT = 16 * 1024;

/** A forwarded request's body as JSON, if it is small enough to keep and is JSON. */
function parsed(body: Buffer): unknown {
  if (body.length === 0 || body.length > FORWARDED_ANSWER_KEPT) return undefined;
  try {
    return JSON.parse(body.toString());
  } catch {
    return undefined;
  }
}

/** A forwarded request answered: through the seam, its W3C error read from the answer. */
function answeredForwarded(
  gateway: Gateway,
  session: PassThroughSession,
  { name, urlParams }: { name: string; urlParams: Record<string, string> },
  params: unknown,
  status: number,
  answer: Buffer[] | undefined,
  startedAt: number,
  ms: number,
  failure: WebDriverError | undefined,
): void {
  let value: unknown;
  if (answer) {
    try {
      value = (JSON.parse(Buffer.concat(answer).toString()) as { value?: unknown }).value;
    } catch {
      value = answer.length ? '[an answer that is not JSON, or was cut]' : undefined;
    }
  }
  const upstreamError = status >= 400 && typeof value === 'object' && value !== null ? (value as { error?: unknown; message?: unknown }) : undefined;
  const e = failure ?? (status >= 400 ? { code: typeof upstreamError?.error === 'string' ? upstreamError.error : 'unknown error', message: String(upstreamError?.message ?? `HTTP ${status}`) } : undefined);
  gateway.seam.answered(
    { kind: 'forwarded', name, session, urlParams, startedAt, durationMs: ms, ...(e && { error: { code: e.code, message: e.message } }) },
    params,
    e ? undefined : value,
  );
}

/** The security gate and the size limits on what was read so far: whose request it is, or how to refuse it. */
function admit(
  gateway: Gateway,
  options: ServerOptions,
  facts: RequestFacts,
  path: string,
  headerBytes: number,
): { principal: Principal } | { refusal: (res: HttpResponse, state: ResponseState) => void } {
  const verdict = checkRequest(facts, options.access);
  if (!verdict.ok) {
    // Who was refused and why, never what they sent (a wrong token stays secret too).
    gateway.log.info({ event: 'request refused', peer: facts.peer, method: facts.method, path, status: verdict.status, reason: verdict.message });
    const body = JSON.stringify({ value: { error: 'unknown error', message: verdict.message, stacktrace: '' } });
    return { refusal: (res, state) => send(res, state, verdict.status, body, JSON_TYPE, verdict.headers) };
  }
  if (path.length > options.maxUrlLength) {
    const e = error('invalid argument', `the request path is longer than ${options.maxUrlLength} bytes (maxUrlLength)`);
    return { refusal: (res, state) => sendError(res, state, e) };
  }
  if (headerBytes > options.maxHeaderBytes) {
    const e = error('invalid argument', `the request headers are ${headerBytes} bytes, more than ${options.maxHeaderBytes} (maxHeaderBytes)`);
    return { refusal: (res, state) => sendError(res, state, e) };
  }
  return { principal: verdict.principal };
}

/** Run `answer` once the request's body (if any) has been read and dropped. */
function afterBody(res: HttpResponse, state: ResponseState, hasBody: boolean, limit: number, answer: () => void): void {
  if (!hasBody) return answer();
  readBody(res, limit, false, (raw) => (raw === null ? bodyTooLarge(res, state, limit) : answer()));
}

/** Answered before the body ends: the connection cannot serve another request, and says so. */
function bodyTooLarge(res: HttpResponse, state: ResponseState, limit: number): void {
  const { status, body } = serializeError(error('invalid argument', `request body exceeds ${limit} bytes (maxBodyBytes)`));
  send(res, state, status, body, JSON_TYPE, { Connection: 'close' });
}

/** Collect the body; `null` if it grows past the limit. Chunks are views into a reused buffer. */
function readBody(res: HttpResponse, limit: number, keep: boolean, done: (body: Buffer | null) => void): void {
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
    if (keep) chunks.push(Buffer.from(chunk.slice(0)));
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
  /** Told when the client goes away (a forwarded request gives up on its upstream). */
  onGone?: () => void;
}

function sendError(res: HttpResponse, state: ResponseState, e: WebDriverError): void {
  const { status, body } = serializeError(e);
  send(res, state, status, body);
}

function send(res: HttpResponse, state: ResponseState, status: number, body: string | Buffer, contentType = JSON_TYPE, headers?: Record<string, string>): void {
  if (state.aborted) return;
  state.aborted = true; // answered: never touch res again
  state.answered = true;
  res.cork(() => {
    res
      .writeStatus(STATUS_TEXT[status] ?? `${status} Error`)
      .writeHeader('Content-Type', contentType)
      .writeHeader('Cache-Control', 'no-cache');
    for (const [name, value] of Object.entries(headers ?? {})) res.writeHeader(name, value);
    // (endWithoutBody(length) leaves this uWS build's response unfinished: no length given.)
    if (state.head) res.endWithoutBody();
    else res.end(body);
  });
}
