// Who may talk to the gateway. Full browser control is remote code execution, so the gate runs
// before routing and denies by default: loopback peers only (token authentication arrives later),
// Host must name this machine (DNS rebinding), and no browser page may call us (Origin).

export type Verdict = { ok: true } | { ok: false; status: 403; message: string };

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

/** Host header names this machine by IP literal or "localhost" (no DNS names: rebinding). */
const ACCEPTABLE_HOST = /^(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

function isAcceptableHost(host: string): boolean {
  if (host === '') return true; // HTTP/1.0 clients may omit it
  return ACCEPTABLE_HOST.test(host); // case-insensitive: host names are (RFC 3986 §3.2.2)
}

export function checkRequest(peer: string, host: string, origin: string): Verdict {
  if (!isLoopbackAddress(peer)) {
    return {
      ok: false,
      status: 403,
      message: `connections from ${peer} are refused: wdgate accepts loopback clients only until an authentication token is configured`,
    };
  }
  if (!isAcceptableHost(host)) {
    return { ok: false, status: 403, message: `Host header ${JSON.stringify(host)} is not accepted: use an IP address or localhost` };
  }
  if (origin !== '') {
    return { ok: false, status: 403, message: `requests from web pages (Origin ${origin}) are refused` };
  }
  return { ok: true };
}
