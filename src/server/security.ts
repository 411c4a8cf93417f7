// Who may talk to the gateway. Full browser control is remote code execution, so the gate runs
// before routing and denies by default: loopback peers only unless tokens are configured (then
// a token is needed from anywhere else, and on loopback too if the operator says so); Host must
// name this machine or an allowed name (DNS rebinding); no web page may call us (Origin) unless
// allowed; and no POST a page could send cross-site without a preflight (Content-Type). The
// metrics port (./metrics-listener.ts) serves GET /metrics alone, to any peer, under the same
// Host and Origin rules (checkPageRules).
import { LOCAL, LOCAL_WITH_TOKENS, type Principal, type Tokens } from './auth.ts';
import { LOCAL_WITHOUT_FILES } from '../base/principal.ts';

export type Verdict =
  | { ok: true; principal: Principal }
  | { ok: false; status: 401 | 403; message: string; headers?: Record<string, string> };

export interface AccessPolicy {
  tokens: Tokens;
  /** Loopback peers need a token too. */
  requireAuthOnLoopback: boolean;
  /** The tokenless loopback principal may reach the machine's files (false: loopback clients are not the machine's own user). */
  localFiles?: boolean;
  /** Host names accepted besides IP addresses and localhost (lower case, no port). */
  allowHosts: string[];
  /** Origins (scheme://host[:port]) whose pages may call the gateway. */
  allowOrigins: string[];
  /** The gateway's own scheme: its own pages (the dashboard at /ui) are same-origin. */
  scheme: 'http' | 'https';
  /** Dashboard logins: the principal a login cookie stands for (./ui-logins.ts). */
  logins?: { principalOf(cookieHeader: string): Principal | null };
}

export interface RequestFacts {
  peer: string;
  method: string;
  host: string;
  origin: string;
  contentType: string;
  authorization: string;
  /** The Cookie header ('' when none): a dashboard login, for browsers that cannot send a token header. */
  cookie?: string;
  /** A probe (GET /health, GET /ready): see `isProbe`. */
  probe?: boolean;
}

/**
 * The liveness and readiness probes hold no session, token or page: any peer may ask them
 * without a token (a Kubernetes kubelet, a load balancer's health check cannot present one).
 * The rest of the gate (Host, Origin) still applies.
 */
export function isProbe(method: string, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && (path === '/health' || path === '/ready');
}

/** Who asks a probe without a token from off loopback: nobody in particular, no admin. */
export const PROBE_CLIENT: Principal = Object.freeze({ name: 'probe', maxSessions: 0, admin: false, share: 1 });

/** Is a peer address (as uWS prints it) on the loopback network? */
export function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase();
  if (a.startsWith('127.') || a === '::1' || a === '0:0:0:0:0:0:0:1') return true;
  if (/^(0{1,4}:){7}0{0,3}1$/.test(a)) return true; // ::1 written out in full
  const mapped = /^(?:0{0,4}:){5}ffff:(.+)$/.exec(a) ?? /^::ffff:(.+)$/.exec(a);
  if (mapped) {
    const v4 = mapped[1]!;
    if (v4.startsWith('127.')) return true;
    // uWS may print the mapped IPv4 part in hex: 7f00:0001
    const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v4);
    if (hex && parseInt(hex[1]!, 16) >> 8 === 127) return true;
  }
  return false;
}

/** Host header names this machine by IP literal or "localhost", or an allowed name (no other DNS names: rebinding). */
const IP_OR_LOCALHOST = /^(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\])$/i;

function isAcceptableHost(host: string, allowHosts: string[]): boolean {
  if (host === '') return true; // HTTP/1.0 clients may omit it
  const name = /^(\[[^\]]*\]|[^:]*)(?::\d{1,5})?$/.exec(host)?.[1]?.toLowerCase(); // host names are case-insensitive (RFC 3986 §3.2.2)
  if (name === undefined) return false;
  return IP_OR_LOCALHOST.test(name) || allowHosts.includes(name);
}

/** POST bodies a web page may send cross-site without a CORS preflight (CVE-2020-15660 in geckodriver). */
const SIMPLE_CONTENT_TYPES = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);

const CHALLENGE = { 'WWW-Authenticate': 'Basic realm="wdgate", Bearer' };

export function checkRequest(request: RequestFacts, policy: AccessPolicy): Verdict {
  const loopback = isLoopbackAddress(request.peer);
  let principal: Principal | null = null;
  if (policy.tokens.configured) {
    principal = request.authorization === '' ? (request.cookie && policy.logins?.principalOf(request.cookie)) || null : policy.tokens.authenticate(request.authorization);
    if (!principal && request.authorization !== '') {
      return { ok: false, status: 401, message: 'the token is not valid', headers: CHALLENGE };
    }
    if (!principal && (!loopback || policy.requireAuthOnLoopback) && !request.probe) {
      return {
        ok: false,
        status: 401,
        message: 'a token is required: send Authorization: Bearer <token>, or the token as the password of HTTP Basic (http://user:token@host:port)',
        headers: CHALLENGE,
      };
    }
  } else if (!loopback && !request.probe) {
    return {
      ok: false,
      status: 403,
      message: `connections from ${request.peer} are refused: wdgate serves loopback clients only until tokens are configured (--auth-token-file or WDGATE_TOKEN)`,
    };
  }
  const refusal = checkPageRules(request, policy);
  if (refusal) return refusal;
  if (!principal && (!loopback || (policy.tokens.configured && policy.requireAuthOnLoopback))) return { ok: true, principal: PROBE_CLIENT };
  return { ok: true, principal: principal ?? (policy.tokens.configured ? LOCAL_WITH_TOKENS : policy.localFiles === false ? LOCAL_WITHOUT_FILES : LOCAL) };
}

/**
 * What keeps web pages out, whoever asks and on whichever of the gateway's ports: the Host must
 * name this machine (DNS rebinding), a page's Origin must be allowed, and no POST may carry a body
 * a page can send cross-site without a preflight. Null when the request passes.
 */
export function checkPageRules(
  request: Pick<RequestFacts, 'method' | 'host' | 'origin' | 'contentType'>,
  policy: Pick<AccessPolicy, 'allowHosts' | 'allowOrigins' | 'scheme'>,
): (Verdict & { ok: false }) | null {
  if (!isAcceptableHost(request.host, policy.allowHosts)) {
    return {
      ok: false,
      status: 403,
      message: `Host header ${JSON.stringify(request.host)} is refused (DNS rebinding): use an IP address or localhost, or allow the name with --allow-hosts`,
    };
  }
  // The gateway's own pages (the dashboard) are same-origin: their Origin is the Host they reached.
  const ownOrigin = request.host !== '' && request.origin === `${policy.scheme}://${request.host.toLowerCase()}`;
  if (request.origin !== '' && !ownOrigin && !policy.allowOrigins.includes(request.origin)) {
    return {
      ok: false,
      status: 403,
      message: `requests from web pages are refused (Origin ${request.origin}): allow that origin with --allow-origins`,
    };
  }
  const type = request.contentType.split(';')[0]!.trim().toLowerCase();
  if (request.method === 'POST' && SIMPLE_CONTENT_TYPES.has(type)) {
    return {
      ok: false,
      status: 403,
      message: `Content-Type ${type} is refused (a web page can send it cross-site without asking): send application/json`,
    };
  }
  return null;
}
