// The BiDi WebSockets on the uWebSockets.js app: `/session/{id}` of a session that asked for
// `webSocketUrl`. The upgrade passes the same gate as HTTP (loopback or token, Host, Origin)
// before anything is read; the session must be the principal's own and have a BiDi end. One
// connection per session at a time. Closing the socket leaves the HTTP session as it is.
import type { HttpRequest, HttpResponse, us_socket_context_t, WebSocket, WebSocketBehavior } from 'uWebSockets.js';
import { error, serializeError } from '../webdriver/errors.ts';
import type { Gateway } from '../webdriver/gateway.ts';
import type { Session } from '../webdriver/session.ts';
import { BidiConnection } from './connection.ts';

/** The gate's verdict on an upgrade request: whose it is, or the HTTP answer that refuses it. */
export type UpgradeGate = (res: HttpResponse, req: HttpRequest) => { principal: string } | { refuse: () => void };

interface SocketData {
  session: Session;
  connection?: BidiConnection;
  /** uWS: a closed socket must never be touched again. */
  closed: boolean;
}

export interface BidiSocketOptions {
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
    closeOnBackpressureLimit: 1,
    idleTimeout: 0, // a BiDi client may wait long for an event
    sendPingsAutomatically: true,

    upgrade(res: HttpResponse, req: HttpRequest, context: us_socket_context_t) {
      // Everything from req now: it is gone once this returns.
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const id = /^\/session\/([^/]+)$/.exec(req.getUrl())?.[1];
      const verdict = gate(res, req);
      if ('refuse' in verdict) return verdict.refuse();
      const session = id ? gateway.sessions.get(id, verdict.principal) : undefined;
      const refuse = (status: string, e: ReturnType<typeof error>): void =>
        void res.cork(() => void res.writeStatus(status).writeHeader('Content-Type', 'application/json; charset=utf-8').end(serializeError(e).body));
      if (!session || session.kind !== 'driven') return refuse('404 Not Found', error('invalid session id', `no active session with id ${id ?? ''}`));
      if (!session.bidi) return refuse('400 Bad Request', error('invalid argument', `session ${session.id} did not ask for webSocketUrl: it has no BiDi connection`));
      if (session.bidiConnection) return refuse('400 Bad Request', error('invalid argument', `session ${session.id} already has a BiDi connection open`));
      // Claimed now, so that a second upgrade in flight is refused too.
      session.bidiConnection = 'opening';
      res.upgrade<SocketData>({ session, closed: false }, key, protocol, extensions, context);
    },

    open(ws: WebSocket<SocketData>) {
      const data = ws.getUserData();
      const { session } = data;
      const connection = new BidiConnection({
        endpoint: session.bidi!,
        write: (text) => !data.closed && ws.send(text, false) !== 2,
        endSession: (reason) => gateway.sessions.end(session, reason),
        close: () => void (!data.closed && ws.end(1000, 'session ended')),
        activity: (direction) => {
          session.lastActivity = Date.now();
          gateway.metrics.bidiMessages.inc({ direction });
        },
        failed: (method, code) => {
          gateway.metrics.bidiErrors.inc({ error: code });
          gateway.log.info({ event: 'bidi command failed', sessionId: session.id, method, error: code });
        },
      });
      data.connection = connection;
      session.bidiConnection = connection;
      gateway.log.info({ event: 'bidi connected', sessionId: session.id });
    },

    message(ws: WebSocket<SocketData>, message: ArrayBuffer, isBinary: boolean) {
      const { connection } = ws.getUserData();
      if (!connection) return;
      if (message.byteLength > options.maxMessageBytes) return ws.end(1009, `a message may be ${options.maxMessageBytes} bytes at most (maxBodyBytes)`);
      if (isBinary) return connection.receiveBinary();
      connection.receive(Buffer.from(message).toString('utf8'));
    },

    close(ws: WebSocket<SocketData>, code: number) {
      const data = ws.getUserData();
      data.closed = true;
      data.connection?.closed();
      if (data.session.bidiConnection === data.connection || data.session.bidiConnection === 'opening') data.session.bidiConnection = undefined;
      gateway.log.info({ event: 'bidi disconnected', sessionId: data.session.id, code });
    },
  };
}
