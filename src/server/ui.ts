// The dashboard on the uWebSockets.js app: GET /ui (one static page, no data in it), POST
// /ui/login (a token for a login cookie, for browsers that cannot send a header), and the
// WebSocket /ui/socket, which passes the same gate as every request (loopback, token or login
// cookie; Host; Origin: the page is same-origin) and then pushes the principal's state and a
// watched session's live view. The page asks over the same socket to watch or end a session.
// Beside it, GET /ui/trace: the trace viewer's page (src/trace/viewer/), which holds no data
// either; it fetches a kept session's trace through the API, under the same gate.
import type { HttpRequest, HttpResponse, TemplatedApp, us_socket_context_t, WebSocket } from 'uWebSockets.js';
import { STATE_INTERVAL_MS, type Dashboard } from '../ops/dashboard.ts';
import { DASHBOARD_PAGE, DASHBOARD_POLICY } from '../ops/ui/page.ts';
import type { Gateway } from '../webdriver/gateway.ts';
import { PAGE_HEADERS, viewerPage } from '../trace/viewer/page.ts';
import type { Principal } from './auth.ts';
import type { AccessPolicy, RequestFacts, Verdict } from './security.ts';
import type { UiLogins } from './ui-logins.ts';

const PAGE = DASHBOARD_PAGE;
/** Frames waiting for a slow dashboard past this are dropped (the live view skips ahead). */
const MAX_BUFFERED = 4 * 1024 * 1024;

interface UiSocket {
  principal: Principal;
  closed: boolean;
  /** Stop the live view being watched, if any. */
  unwatch?: () => void;
}

export interface UiOptions {
  dashboard: Dashboard;
  access: AccessPolicy;
  logins: UiLogins;
  secure: boolean;
  /** The gate's verdict on a request (src/server/security.ts), and the request's facts as uWS gives them. */
  check(res: HttpResponse, req: HttpRequest): { facts: RequestFacts; verdict: Verdict };
}

export function serveDashboard(app: TemplatedApp, gateway: Gateway, options: UiOptions): void {
  const { dashboard } = options;
  const sockets = new Set<WebSocket<UiSocket>>();
  // One timer for every open dashboard; none while nobody watches.
  let ticker: NodeJS.Timeout | undefined;
  const tick = async () => {
    await dashboard.readPages();
    for (const ws of sockets) push(ws, dashboard.snapshot(ws.getUserData().principal));
  };

  app.get('/ui', (res, req) => {
    const { verdict } = options.check(res, req);
    // The page itself holds nothing: served to whoever may log in (a 401 is a token to come).
    if (!verdict.ok && verdict.status !== 401) return refuse(res, verdict.status, verdict.message);
    res.cork(() => {
      res.writeStatus('200 OK').writeHeader('Content-Type', 'text/html; charset=utf-8');
      // The page runs only its own script (by its hash) and connects only to its own origin.
      res.writeHeader('Content-Security-Policy', DASHBOARD_POLICY);
      res.writeHeader('X-Content-Type-Options', 'nosniff').writeHeader('Cache-Control', 'no-store').end(PAGE);
    });
  });

  app.get('/ui/trace', (res, req) => {
    const { verdict } = options.check(res, req);
    if (!verdict.ok && verdict.status !== 401) return refuse(res, verdict.status, verdict.message);
    let aborted = false;
    res.onAborted(() => void (aborted = true));
    viewerPage().then(
      (page) => {
        if (aborted) return;
        res.cork(() => {
          res.writeStatus('200 OK').writeHeader('Content-Security-Policy', page.policy);
          for (const [name, value] of Object.entries(PAGE_HEADERS)) res.writeHeader(name, value);
          res.end(page.html);
        });
      },
      (e: unknown) => {
        gateway.log.error({ event: 'trace viewer build failed', err: e });
        if (!aborted) res.cork(() => res.writeStatus('500 Internal Server Error').writeHeader('Content-Type', 'text/plain; charset=utf-8').end('the trace viewer could not be built'));
      },
    );
  });

  app.post('/ui/login', (res, req) => {
    const { verdict } = options.check(res, req);
    let body = Buffer.alloc(0);
    let aborted = false;
    res.onAborted(() => void (aborted = true));
    res.onData((chunk, last) => {
      body = Buffer.concat([body, Buffer.from(chunk)]);
      if (body.length > 4096) return void (aborted || ((aborted = true), refuse(res, 400, 'the login body is too large')));
      if (!last || aborted) return;
      if (!verdict.ok && verdict.status !== 401) return refuse(res, verdict.status, verdict.message);
      let token: unknown;
      try {
        token = (JSON.parse(body.toString()) as { token?: unknown }).token;
      } catch {
        return refuse(res, 400, 'send {"token": "..."} as JSON');
      }
      const principal = typeof token === 'string' ? options.access.tokens.authenticate(`Bearer ${token}`) : null;
      if (!principal) {
        gateway.log.info({ event: 'dashboard login refused' });
        return refuse(res, 401, 'the token is not valid');
      }
      gateway.log.info({ event: 'dashboard login', principal: principal.name });
      res.cork(() =>
        res
          .writeStatus('200 OK')
          .writeHeader('Set-Cookie', options.logins.login(principal, options.secure))
          .writeHeader('Content-Type', 'application/json; charset=utf-8')
          .end(JSON.stringify({ value: { principal: principal.name } })),
      );
    });
  });

  app.ws<UiSocket>('/ui/socket', {
    maxPayloadLength: 4096,
    idleTimeout: 120,
    sendPingsAutomatically: true,
    maxBackpressure: MAX_BUFFERED * 2,
    upgrade(res: HttpResponse, req: HttpRequest, context: us_socket_context_t) {
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const { verdict } = options.check(res, req);
      if (!verdict.ok) return refuse(res, verdict.status, verdict.message);
      res.upgrade<UiSocket>({ principal: verdict.principal, closed: false }, key, protocol, extensions, context);
    },
    open(ws) {
      sockets.add(ws);
      push(ws, dashboard.snapshot(ws.getUserData().principal));
      ticker ??= setInterval(() => void tick(), STATE_INTERVAL_MS);
      void tick();
    },
    message(ws, message) {
      const data = ws.getUserData();
      let request: { type?: unknown; session?: unknown };
      try {
        request = JSON.parse(Buffer.from(message).toString()) as typeof request;
      } catch {
        return;
      }
      // Only sessions this principal may see are named at all.
      const session = dashboard.visible(data.principal).find((s) => s.id === request.session);
      if (request.type === 'unwatch' || request.type === 'watch') {
        data.unwatch?.();
        data.unwatch = undefined;
      }
      if (request.type === 'watch' && session) {
        void dashboard
          .watch(session, (frame) => {
            if (!data.closed && ws.getBufferedAmount() < MAX_BUFFERED) ws.send(JSON.stringify(frame), false);
          })
          .then((stop) => (data.closed ? stop() : (data.unwatch = stop)));
      }
      if (request.type === 'end' && session) {
        gateway.log.info({ event: 'dashboard ended a session', sessionId: session.id, principal: data.principal.name });
        void gateway.sessions.end(session, `${data.principal.name} ended it from the dashboard`).then(() => void tick());
      }
    },
    close(ws) {
      const data = ws.getUserData();
      data.closed = true;
      data.unwatch?.();
      sockets.delete(ws);
      if (sockets.size === 0) {
        clearInterval(ticker);
        ticker = undefined;
      }
    },
  });

  function push(ws: WebSocket<UiSocket>, state: Record<string, unknown>): void {
    if (!ws.getUserData().closed) ws.send(JSON.stringify(state), false);
  }
}

function refuse(res: HttpResponse, status: number, message: string): void {
  const line = status === 401 ? '401 Unauthorized' : status === 403 ? '403 Forbidden' : '400 Bad Request';
  res.cork(() => res.writeStatus(line).writeHeader('Content-Type', 'application/json; charset=utf-8').end(JSON.stringify({ value: { error: 'unknown error', message, stacktrace: '' } })));
}
