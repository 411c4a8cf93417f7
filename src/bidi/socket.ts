// The BiDi WebSockets on the uWebSockets.js app. `/session/{id}`: the socket of a session that
// asked for `webSocketUrl`; closing it leaves the session. `/session`: a direct BiDi connection,
// whose session.new leases a browser like HTTP New Session and whose closing ends that session.
// Every upgrade passes the same gate as HTTP (loopback or token, Host, Origin) before anything
// is read; a session must be the principal's own. One connection per session at a time.
import type { HttpRequest, HttpResponse, us_socket_context_t, WebSocket, WebSocketBehavior } from 'uWebSockets.js';
import { error, serializeError, toWebDriverError, type WebDriverError } from '../webdriver/errors.ts';
import type { Gateway } from '../webdriver/gateway.ts';
import type { Session } from '../webdriver/session.ts';
import { bidiRefusal, cdpRefusal } from '../../backends/policy/index.ts';
import type { Principal } from '../base/principal.ts';
import { BidiConnection } from './connection.ts';
import { CdpConnection } from './cdp.ts';
import { withEngineSharedIds } from '../webdriver/shared-ids.ts';

/** The gate's verdict on an upgrade request: whose it is, or the HTTP answer that refuses it. */
export type UpgradeGate = (res: HttpResponse, req: HttpRequest) => { principal: Principal; webSocketBase: string } | { refuse: () => void };

interface SocketData {
  /** The session: a webSocketUrl session's from the start; a direct connection's once created. */
  session?: Session;
  /** A CDP connection (`/session/{id}/se/cdp`), not BiDi. */
  cdp?: CdpConnection | 'requested';
  /** Forget the socket in its session (it closed first). */
  unhook?: () => void;
  /** A direct connection (`/session`): its session ends with it. */
  direct: boolean;
  principal: Principal;
  webSocketBase: string;
  connection?: BidiConnection;
  /** uWS: a closed socket must never be touched again. */
  closed: boolean;
}

/** What the sockets count (src/ops/metrics.ts, wired by src/app.ts). */
export interface BidiCounters {
  message(direction: 'in' | 'out'): void;
  /** A command answered an error: the engine's, or the gateway's refusal of a malformed message. */
  error(code: string): void;
}

export interface BidiSocketOptions {
  counters: BidiCounters;
  /** A frame larger than this closes the socket (1009, message too big). */
  maxMessageBytes: number;
  /** Bytes waiting to be written to a client that reads slowly; past this the socket is closed. */
  maxBufferedBytes: number;
}

export function bidiSockets(gateway: Gateway, gate: UpgradeGate, options: BidiSocketOptions): WebSocketBehavior<SocketData> {
  return {
    // Past maxMessageBytes the socket is closed with 1009 and a reason naming the limit (below);
    // uWS itself drops a connection only at twice that, without a close frame.
    maxPayloadLength: Math.min(options.maxMessageBytes * 2, 2 ** 31 - 1),
    maxBackpressure: options.maxBufferedBytes,
    closeOnBackpressureLimit: true,
    idleTimeout: 0, // a BiDi client may wait long for an event
    sendPingsAutomatically: true,

    upgrade(res: HttpResponse, req: HttpRequest, context: us_socket_context_t) {
      // Everything from req now: it is gone once this returns.
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const path = req.getUrl();
      const verdict = gate(res, req);
      if ('refuse' in verdict) return verdict.refuse();
      const refuse = (status: string, e: WebDriverError): void =>
        void res.cork(() => void res.writeStatus(status).writeHeader('Content-Type', 'application/json; charset=utf-8').end(serializeError(e).body));
      const base = { direct: false, principal: verdict.principal, webSocketBase: verdict.webSocketBase, closed: false };
      if (path === '/session' || path === '/session/') return res.upgrade<SocketData>({ ...base, direct: true }, key, protocol, extensions, context);
      const [, id, cdp] = /^\/session\/([^/]+)(\/se\/cdp)?$/.exec(path) ?? [];
      const session = id ? gateway.sessions.get(id, verdict.principal.name) : undefined;
      if (!session || session.kind !== 'driven') return refuse('404 Not Found', error('invalid session id', `no active session with id ${id ?? path}`));
      if (cdp) {
        if (!session.ownBrowser || !session.browser.openCdp) return refuse('400 Bad Request', error('unsupported operation', `session ${session.id} has no CDP connection: CDP is served to sessions with a browser of their own`));
        return res.upgrade<SocketData>({ ...base, session, cdp: 'requested' }, key, protocol, extensions, context);
      }
      if (!session.bidi) return refuse('400 Bad Request', error('invalid argument', `session ${session.id} did not ask for webSocketUrl: it has no BiDi connection`));
      if (session.bidiConnection) return refuse('400 Bad Request', error('invalid argument', `session ${session.id} already has a BiDi connection open`));
      // Claimed now, so that a second upgrade in flight is refused too.
      session.bidiConnection = 'opening';
      res.upgrade<SocketData>({ ...base, session }, key, protocol, extensions, context);
    },

    open(ws: WebSocket<SocketData>) {
      const data = ws.getUserData();
      if (data.cdp) {
        const session = data.session!;
        const close = () => void (!data.closed && ws.end(1000, 'session ended'));
        session.sockets.add(close);
        data.unhook = () => session.sockets.delete(close);
        data.cdp = new CdpConnection(session.browser.openCdp!(), (text) => void (!data.closed && ws.send(text, false)), (method, params) => cdpRefusal(method, params, session.files));
        gateway.log.info({ event: 'cdp connected', sessionId: session.id });
        return;
      }
      const connection: BidiConnection = new BidiConnection({
        endpoint: () => data.session?.bidi,
        newSession: data.direct ? (params): Promise<Record<string, unknown>> => createSession(gateway, data, connection, params) : undefined,
        status: () => gateway.readiness(),
        write: (text) => !data.closed && ws.send(text, false) !== 2,
        endSession: (reason) => (data.session ? gateway.sessions.end(data.session, reason, 'deleted') : Promise.resolve()),
        close: () => void (!data.closed && ws.end(1000, 'session ended')),
        activity: (direction) => {
          if (data.session) data.session.lastActivity = Date.now();
          options.counters.message(direction);
        },
        // The seam's turn before the message reaches the engine (what it types may be secret),
        // then classic element references turned into the engine's ids; in order, either way.
        translate: (params, method) => {
          const session = data.session;
          if (!session) return undefined;
          const before = gateway.seam.before(session, { kind: 'bidi', name: method, urlParams: {}, params });
          const translated = withEngineSharedIds(session, params);
          return before ? before.then(() => translated ?? params) : translated;
        },
        // What reaches the machine (a file: URL, a path, raw CDP) is the policy's (backends/policy/).
        refusal: (method, params) => (data.session ? bidiRefusal(method, params, data.session.files) : null),
        answered: (command, error, result) =>
          data.session &&
          gateway.seam.answered(
            { kind: 'bidi', name: command.method, session: data.session, startedAt: command.startedAt, durationMs: performance.now() - command.started, ...(error && { error }) },
            command.params,
            result,
          ),
        failed: (method, code) => {
          options.counters.error(code);
          gateway.log.info({ event: 'bidi command failed', sessionId: data.session?.id, method, error: code });
        },
      });
      data.connection = connection;
      if (data.session) data.session.bidiConnection = connection;
      gateway.log.info({ event: 'bidi connected', sessionId: data.session?.id, direct: data.direct });
    },

    message(ws: WebSocket<SocketData>, message: ArrayBuffer, isBinary: boolean) {
      const { connection, cdp } = ws.getUserData();
      if (message.byteLength > options.maxMessageBytes) return ws.end(1009, `a message may be ${options.maxMessageBytes} bytes at most (maxBodyBytes)`);
      if (typeof cdp === 'object') return cdp.receive(Buffer.from(message).toString('utf8'));
      if (!connection) return;
      if (isBinary) return connection.receiveBinary();
      connection.receive(Buffer.from(message).toString('utf8'));
    },

    close(ws: WebSocket<SocketData>, code: number) {
      const data = ws.getUserData();
      data.closed = true;
      if (typeof data.cdp === 'object') {
        data.unhook?.();
        data.cdp.closed();
        gateway.log.info({ event: 'cdp disconnected', sessionId: data.session?.id, code });
        return;
      }
      data.connection?.closed();
      const { session } = data;
      if (session && (session.bidiConnection === data.connection || session.bidiConnection === 'opening')) session.bidiConnection = undefined;
      // A direct connection's session lives as long as it does (a dropped client leaks nothing).
      if (session && data.direct) void gateway.sessions.end(session, 'its BiDi connection closed', 'deleted');
      gateway.log.info({ event: 'bidi disconnected', sessionId: session?.id, code });
    },
  };
}

/**
 * session.new on a direct connection: the W3C New Session (capabilities processed and matched,
 * admission, a lease from the pool) with webSocketUrl, then the connection is the session's.
 */
async function createSession(gateway: Gateway, data: SocketData, connection: BidiConnection, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const capabilities = (params.capabilities ?? {}) as Record<string, unknown>;
  if (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities)) throw { error: 'invalid argument', message: 'session.new: capabilities must be an object' };
  const alwaysMatch = { ...((capabilities.alwaysMatch as Record<string, unknown> | undefined) ?? {}), webSocketUrl: true };
  let created: { sessionId: string; capabilities: Record<string, unknown> };
  try {
    created = (await gateway.execute('newSession', {}, { capabilities: { ...capabilities, alwaysMatch } }, { principal: data.principal, webSocketBase: data.webSocketBase })) as typeof created;
  } catch (e) {
    const w = toWebDriverError(e);
    throw { error: w.code, message: w.message };
  }
  const session = gateway.sessions.get(created.sessionId, data.principal.name);
  if (!session || session.kind !== 'driven' || !session.bidi) {
    if (session) await gateway.sessions.end(session, 'it cannot serve BiDi');
    throw { error: 'session not created', message: 'the browser these capabilities chose serves no WebDriver BiDi here' };
  }
  if (data.closed) {
    await gateway.sessions.end(session, 'its BiDi connection closed', 'deleted');
    throw { error: 'session not created', message: 'the connection closed' };
  }
  data.session = session;
  session.bidiConnection = connection;
  const { webSocketUrl: _url, ...rest } = created.capabilities;
  return { sessionId: created.sessionId, capabilities: rest };
}
