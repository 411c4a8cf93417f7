// The uWebSockets.js edge: listen, read bodies, write responses. Every request passes the
// security gate, then the route table; a body is parsed once here. Nothing below sees HTTP.
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import { error, HttpRefusal, toWebDriverError } from '../webdriver/errors.ts';
import type { Gateway, RequestContext } from '../webdriver/gateway.ts';
import { JsonText, TextBody } from '../webdriver/json.ts';
import { matchRoute, withoutBasePath } from '../webdriver/routes.ts';
import { LOCAL } from './auth.ts';
import type { Principal } from './auth.ts';
import { checkRequest, isProbe, type AccessPolicy, type RequestFacts } from './security.ts';
import { jsonDepthExceeds } from './limits.ts';
import { Forwarder } from './forward.ts';
import { forwardRequest } from './forwarding.ts';
import { afterBody, bodyTooLarge, JSON_TYPE, readBody, send, sendError, type ResponseState } from './respond.ts';
import { bidiSockets, type BidiCounters } from '../bidi/socket.ts';
import type { Dashboard } from '../ops/dashboard.ts';
import { serveDashboard } from './ui.ts';
import type { UiLogins } from './ui-logins.ts';
import type { Uws } from './uws.ts';
import { actingPrincipal, RelayedPrincipals } from './relay.ts';

export interface ServerOptions {
  /** uWebSockets.js as src/server/uws.ts loaded it at start. */
  uWS: Uws;
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
  /** How long a client's `wdgate:principal` proof is taken after it was issued (ms; ./relay.ts). */
  principalProofMaxAge: number;
}

export interface RunningServer {
  port: number;
  close(): void;
}

export function startServer(gateway: Gateway, options: ServerOptions): Promise<RunningServer> {
  const { uWS } = options;
  const app: TemplatedApp = options.tls
    ? uWS.SSLApp({ cert_file_name: options.tls.certFile, key_file_name: options.tls.keyFile })
    : uWS.App();

  const forwarder = new Forwarder(options.forwardTimeout);
  const edge: Edge = { gateway, options, forwarder, webSocketScheme: options.tls ? 'wss' : 'ws', port: options.port, relay: new RelayedPrincipals(options.principalProofMaxAge) };
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
  /** Principals through a Grid relay: the proofs its clients present. */
  relay: RelayedPrincipals;
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
  return { principal: acting(edge, gate.principal, path), webSocketBase: webSocketBase(edge, facts.host) };
}

/** A Grid relay's request about a session it opened for its client is that client's principal's (./relay.ts). */
function acting(edge: Edge, principal: Principal, path: string): Principal {
  if (!principal.relay) return principal;
  const sessionId = /^\/session\/([^/]+)/.exec(withoutBasePath(path))?.[1];
  return actingPrincipal(principal, sessionId, edge.gateway.sessions, edge.options.access.tokens);
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
  const request: RequestContext & { principal: Principal } = {
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
  request.principal = acting(edge, gate.principal, path);
  // New Session: a relay's client's proof of its principal, checked against the tokens.
  request.vouch = (claim) => edge.relay.verify(options.access.tokens, gate.principal, claim);

  // A pass-through session's requests go to its upstream as they are (./forward.ts), with or
  // without the legacy /wd/hub prefix (the upstream gets its own path for the session).
  const target = /^\/session\/([^/]+)(\/.*)?$/.exec(withoutBasePath(path));
  const passThrough = target && gateway.sessions.passThrough(target[1]!, request.principal.name);
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

