// Forwarding a pass-through session's requests to its upstream with http-proxy.
//
// http-proxy speaks node:http (an IncomingMessage in, a ServerResponse out); the edge is
// uWebSockets.js. The hand-off: the edge reads the request (after the security gate, with its
// limits) and gives its method, mapped path, content type and body; here that becomes a minimal
// readable "request" http-proxy sends upstream over a keep-alive agent. The answer is taken with
// `selfHandleResponse` from the proxy's `proxyRes` event and streamed back, status, content type
// and body unchanged, through the callbacks the edge gives (which write to uWS). Nothing else of
// the client's request goes upstream: not its Authorization (the gateway's token), not its
// cookies, Origin or Host.
import { Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { EventEmitter } from 'node:events';
import type { Writable } from 'node:stream';
import httpProxy from 'http-proxy';

export interface ForwardedRequest {
  method: string;
  /** The path on the upstream (session id already mapped). */
  path: string;
  body: Buffer;
}

export interface ForwardTarget {
  /** The upstream's base URL, no trailing slash. */
  url: string;
  headers: Record<string, string>;
}

/** Where the answer goes (the edge writes it to the client). */
export interface ForwardAnswer {
  head(status: number, statusText: string, contentType: string | undefined): void;
  data(chunk: Buffer): void;
  end(): void;
  /** No answer came: the upstream could not be reached, or did not answer in time. */
  fail(kind: 'unreachable' | 'timeout', message: string): void;
}

/** What http-proxy is given as the response: it only checks these, the answer is ours to write. */
interface Sink {
  headersSent: boolean;
  finished: boolean;
  onResponse(upstream: IncomingMessage): void;
}

export class Forwarder {
  readonly #proxy = httpProxy.createProxyServer({ selfHandleResponse: true, ignorePath: true, changeOrigin: true, xfwd: false });
  readonly #agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  readonly #timeoutMs: number;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#proxy.on('proxyRes', (upstream, _req, res) => (res as unknown as Sink).onResponse(upstream));
  }

  /** Send `request` to `target`; returns how to give up on it (the client went away). */
  forward(request: ForwardedRequest, target: ForwardTarget, answer: ForwardAnswer): { abort(): void } {
    const headers: Record<string, string> = { ...target.headers, accept: 'application/json', 'content-length': String(request.body.length) };
    // Selenium Grid takes POST bodies only with exactly this type.
    if (request.method === 'POST') headers['content-type'] = 'application/json; charset=utf-8';
    // The body is whole already: "piped" in one write with the end, not streamed chunk by chunk.
    const req = Object.assign(new EventEmitter(), {
      pipe: (outgoing: Writable) => outgoing.end(request.body),
      method: request.method,
      url: request.path,
      headers,
      httpVersion: '1.1',
      socket: { destroyed: false },
    });
    let settled = false;
    let answered = false;
    const settle = () => {
      settled = true;
      clearTimeout(timer);
    };
    // Bounded: a stalled upstream is a timeout error, never a hang.
    const timer = setTimeout(() => {
      if (settled) return;
      settle();
      req.emit('aborted');
      if (answered) answer.end();
      else answer.fail('timeout', `the upstream did not answer within ${this.#timeoutMs} ms (remote.commandTimeout)`);
    }, this.#timeoutMs);
    const sink: Sink = {
      headersSent: false,
      finished: false,
      onResponse: (upstream) => {
        if (settled) return void upstream.resume();
        answered = true;
        answer.head(upstream.statusCode ?? 502, upstream.statusMessage ?? '', upstream.headers['content-type']);
        upstream.on('data', (chunk: Buffer) => !settled && answer.data(chunk));
        upstream.on('end', () => {
          if (settled) return;
          settle();
          answer.end();
        });
        upstream.on('error', () => {
          if (settled) return;
          settle();
          answer.end();
        });
      },
    };
    const secure = target.url.startsWith('https:');
    this.#proxy.web(
      req as unknown as IncomingMessage,
      sink as never,
      { target: `${target.url}${request.path}`, agent: secure ? this.#agents.https : this.#agents.http },
      (e: Error & { code?: string }) => {
        if (settled) return;
        settle();
        if (answered) answer.end();
        else answer.fail('unreachable', e.code ?? e.message);
      },
    );
    return {
      abort: () => {
        if (settled) return;
        settle();
        req.emit('aborted');
      },
    };
  }

  close(): void {
    this.#agents.http.destroy();
    this.#agents.https.destroy();
    this.#proxy.close();
  }
}
