// A port of its own for Prometheus (`metricsPort`): GET /metrics to any peer without a token, and
// nothing else. Why a port rather than a token or a list of addresses: a Prometheus that finds its
// targets by their pods' annotations (deploy/kubernetes/) cannot present a token per target, and
// in a cluster an address says nothing about who asks (an allow-list would be the pod network,
// every pod). A port that serves only the counts can be opened to the monitoring namespace alone
// (a NetworkPolicy) while the gateway's own port keeps refusing every peer but loopback and the
// probes. What it shows: the metrics of src/ops/metrics.ts (principals' names, pool keys).
// The rules that keep web pages out (Host, Origin) apply here too.
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import type { Metrics } from '../ops/metrics.ts';
import { error, serializeError } from '../webdriver/errors.ts';
import type { Logger } from '../base/log.ts';
import { checkPageRules, type AccessPolicy } from './security.ts';
import type { Uws } from './uws.ts';

export interface MetricsListenerOptions {
  /** uWebSockets.js as src/server/uws.ts loaded it at start. */
  uWS: Uws;
  host: string;
  port: number;
  tls?: { certFile: string; keyFile: string };
  /** The gateway's policy, read at each request (SIGHUP changes its Host and Origin lists). */
  access: AccessPolicy;
  log: Logger;
}

export interface RunningMetricsListener {
  port: number;
  close(): void;
}

export function startMetricsListener(metrics: Metrics, options: MetricsListenerOptions): Promise<RunningMetricsListener> {
  const { uWS } = options;
  const app: TemplatedApp = options.tls ? uWS.SSLApp({ cert_file_name: options.tls.certFile, key_file_name: options.tls.keyFile }) : uWS.App();
  app.any('/*', (res, req) => answer(metrics, options, res, req));
  return new Promise((resolve, reject) => {
    app.listen(options.host, options.port, (token: us_listen_socket | false) => {
      if (!token) return reject(new Error(`could not listen on ${options.host}:${options.port} (metricsPort)`));
      resolve({ port: uWS.us_socket_local_port(token), close: () => uWS.us_listen_socket_close(token) });
    });
  });
}

function answer(metrics: Metrics, options: MetricsListenerOptions, res: HttpResponse, req: HttpRequest): void {
  // uWS: read req now, it is gone once this handler returns.
  const method = req.getCaseSensitiveMethod().toUpperCase();
  const path = req.getUrl();
  const refusal = checkPageRules({ method, host: req.getHeader('host'), origin: req.getHeader('origin'), contentType: req.getHeader('content-type') }, options.access);
  const read = method === 'GET' || method === 'HEAD';
  if (refusal) {
    options.log.info({ event: 'request refused', peer: Buffer.from(res.getRemoteAddressAsText()).toString(), method, path, status: refusal.status, reason: refusal.message, port: 'metrics' });
    return void res.writeStatus(`${refusal.status} ${refusal.status === 401 ? 'Unauthorized' : 'Forbidden'}`).writeHeader('Content-Type', JSON_TYPE).end(JSON.stringify({ value: { error: 'unknown error', message: refusal.message, stacktrace: '' } }), !read);
  }
  if (path !== '/metrics' || !read) {
    const e =
      path === '/metrics'
        ? error('unknown method', `${method} is not supported for /metrics (allowed: GET, HEAD)`)
        : error('unknown command', `the metrics port serves GET /metrics only; WebDriver and everything else are on the gateway's port`);
    const { status, body } = serializeError(e);
    // A body the request may carry is not read: the connection closes after the answer.
    return void res.writeStatus(`${status} ${status === 404 ? 'Not Found' : 'Method Not Allowed'}`).writeHeader('Content-Type', JSON_TYPE).end(body, !read);
  }
  let aborted = false;
  res.onAborted(() => void (aborted = true));
  void metrics.scrape().then(
    ({ contentType, text }) => {
      if (aborted) return;
      res.cork(() => {
        res.writeStatus('200 OK').writeHeader('Content-Type', contentType).writeHeader('Cache-Control', 'no-cache');
        if (method === 'HEAD') res.endWithoutBody();
        else res.end(text);
      });
    },
    (e: Error) => {
      options.log.error({ event: 'metrics failed', reason: e.message });
      if (!aborted) res.cork(() => void res.writeStatus('500 Internal Server Error').end());
    },
  );
}

const JSON_TYPE = 'application/json; charset=utf-8';
