// A pass-through session's requests: each goes through the command seam (its report of a test
// answered here, never forwarded), then to the upstream, whose answer streams back as it comes.
import type { HttpResponse } from 'uWebSockets.js';
import { error, toWebDriverError, type WebDriverError } from '../webdriver/errors.ts';
import type { Gateway } from '../webdriver/gateway.ts';
import type { PassThroughSession } from '../webdriver/pass-through.ts';
import { forwardedReports } from '../webdriver/reports.ts';
import { matchRoute } from '../webdriver/routes.ts';
import { passThroughVerdict, rememberUpload, UPLOADS, type PassThroughVerdict } from '../webdriver/pass-through-policy.ts';
import type { Forwarder } from './forward.ts';
import { JSON_TYPE, send, sendError, STATUS_TEXT, type ResponseState } from './respond.ts';

/** One request of a pass-through session, as the edge read it. */
export interface Forwarded {
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
export function forwardRequest(request: Forwarded): void {
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
  // (Parsed once, for the policy, the seam and its step alike, and only when one of them reads it.)
  const params = gateway.seam.record(session)?.redactor || POLICY_READS.has(name) ? parsed(body) : undefined;
  const urlParams = route.kind === 'found' ? route.urlParams : {};
  // The policy's turn (a file: URL, a file input on this machine), then the seam's (what a Send
  // Keys types is checked for a password field upstream); on the hot path neither waits.
  const verdict = passThroughVerdict(session, name, urlParams, params);
  const refuse = (message: string) => {
    const e = error('invalid argument', message);
    gateway.seam.answered({ kind: 'forwarded', name, session, urlParams, startedAt, durationMs: performance.now() - started, error: { code: e.code, message: e.message } }, params);
    sendError(res, state, e);
  };
  // The seam sees what the client sent (its paths), the upstream what the policy handed over.
  const proceed = (decided: PassThroughVerdict) => {
    if (typeof decided === 'string') return refuse(decided);
    if (decided) request.body = decided.body;
    const before = gateway.seam.before(session, { kind: 'forwarded', name, urlParams, params });
    const forward = () => forwardNow(request, { name, urlParams }, deleting, params);
    if (!before) return forward();
    session.inFlight++;
    void before.finally(() => {
      session.inFlight--;
      forward();
    });
  };
  if (!(verdict instanceof Promise)) return proceed(verdict);
  session.inFlight++;
  void verdict.then(
    (decided) => {
      session.inFlight--;
      proceed(decided);
    },
    (e: Error) => {
      session.inFlight--;
      refuse(e.message);
    },
  );
}

/** Commands whose body the pass-through policy reads (src/webdriver/pass-through-policy.ts). */
const POLICY_READS = new Set(['navigateTo', 'elementSendKeys']);

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
      // An upload's answer too: the path it names is the session's own file (pass-through-policy.ts).
      if (code >= 400 || kept || UPLOADS.has(command.name)) answer = [];
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
  if (status >= 200 && status < 300) rememberUpload(session, name, value);
  const upstreamError = status >= 400 && typeof value === 'object' && value !== null ? (value as { error?: unknown; message?: unknown }) : undefined;
  const e = failure ?? (status >= 400 ? { code: typeof upstreamError?.error === 'string' ? upstreamError.error : 'unknown error', message: String(upstreamError?.message ?? `HTTP ${status}`) } : undefined);
  gateway.seam.answered(
    { kind: 'forwarded', name, session, urlParams, startedAt, durationMs: ms, ...(e && { error: { code: e.code, message: e.message } }) },
    params,
    e ? undefined : value,
  );
}

