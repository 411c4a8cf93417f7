// Answering over uWebSockets.js: a response written once (corked), a body read within a limit,
// a W3C error as its status and body. The edge (./http.ts) and forwarding (./forwarding.ts) share these.
import type { HttpResponse } from 'uWebSockets.js';
import { error, serializeError, type WebDriverError } from '../webdriver/errors.ts';

export const STATUS_TEXT: Record<number, string> = {
  200: '200 OK',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  403: '403 Forbidden',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  500: '500 Internal Server Error',
  503: '503 Service Unavailable',
};

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Run `answer` once the request's body (if any) has been read and dropped. */
export function afterBody(res: HttpResponse, state: ResponseState, hasBody: boolean, limit: number, answer: () => void): void {
  if (!hasBody) return answer();
  readBody(res, limit, false, (raw) => (raw === null ? bodyTooLarge(res, state, limit) : answer()));
}

/** Answered before the body ends: the connection cannot serve another request, and says so. */
export function bodyTooLarge(res: HttpResponse, state: ResponseState, limit: number): void {
  const { status, body } = serializeError(error('invalid argument', `request body exceeds ${limit} bytes (maxBodyBytes)`));
  send(res, state, status, body, JSON_TYPE, { Connection: 'close' });
}

/** Collect the body; `null` if it grows past the limit. Chunks are views into a reused buffer. */
export function readBody(res: HttpResponse, limit: number, keep: boolean, done: (body: Buffer | null) => void): void {
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

export interface ResponseState {
  /** The client went away, or we answered already: never touch res again. */
  aborted: boolean;
  /** We answered (aborted is set too). */
  answered?: boolean;
  /** A HEAD request: headers only, or the body would be read as the next response. */
  head: boolean;
  /** Told when the client goes away (a forwarded request gives up on its upstream). */
  onGone?: () => void;
}

export function sendError(res: HttpResponse, state: ResponseState, e: WebDriverError): void {
  const { status, body } = serializeError(e);
  send(res, state, status, body);
}

export function send(res: HttpResponse, state: ResponseState, status: number, body: string | Buffer, contentType = JSON_TYPE, headers?: Record<string, string>): void {
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
