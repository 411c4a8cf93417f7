// Which URLs a session may send its browser to (Navigate To, BiDi browsingContext.navigate, a
// request's new URL, CDP's Page.navigate and Target.createTarget, a pass-through session's
// navigation). The web is a session's to reach; the machine is not: `file:` reads the machine's
// files, and a browser's own pages (chrome:, about:config, view-source: of those) change the
// browser or open its downloads and programs. Those are for principals the operator lets reach
// the machine (`files` in the token file; the tokenless loopback principal).
//
// What a page itself does (a link, window.open, a frame, a redirect to file:) is refused by the
// browsers: web content cannot load file: URLs, and a redirect to one is unsafe (Chromium's
// ERR_UNSAFE_REDIRECT, Firefox's CheckLoadURI). The gateway refuses what only a client can ask.

/** What a session may reach of the machine, from its principal. */
export interface Reach {
  /** file: URLs, the browser's own pages, and files anywhere for file inputs. */
  files: boolean;
}

/** Schemes whose documents come from the web (or from the client itself). */
const WEB_SCHEMES = new Set(['http:', 'https:', 'data:', 'javascript:']);

/**
 * Why `url` may not be navigated to by this session, or null when it may. A string that is not an
 * absolute URL is null here: the command's own rule answers it (Navigate To: invalid argument).
 */
export function navigationRefusal(url: string, reach: Reach): string | null {
  if (reach.files) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const scheme = parsed.protocol;
  if (WEB_SCHEMES.has(scheme)) return null;
  if (scheme === 'about:' && (parsed.pathname === 'blank' || parsed.pathname === 'srcdoc')) return null;
  // A blob: URL names a document its origin made; one of a web origin is the web's.
  if (scheme === 'blob:') {
    const inner = parsed.pathname;
    if (/^https?:\/\//i.test(inner) || inner.startsWith('null/')) return null;
  }
  if (scheme === 'view-source:') {
    const inner = navigationRefusal(url.slice('view-source:'.length), reach);
    return inner && `view-source of it: ${inner}`;
  }
  const what = scheme === 'file:' ? "file: URLs read the gateway machine's files" : `${scheme} URLs are not of the web (the browser's own pages, or programs of the machine)`;
  return `${what}: this session's principal may not navigate to ${scheme.slice(0, -1)} URLs (the operator allows it with "files" on the principal's token line)`;
}

/** A W3C proxy's PAC URL, or a URL some setting fetches: of the web, never a file of the machine. */
export function fetchRefusal(url: string, reach: Reach): string | null {
  if (reach.files) return null;
  let scheme: string;
  try {
    scheme = new URL(url).protocol;
  } catch {
    return null;
  }
  return scheme === 'http:' || scheme === 'https:' || scheme === 'data:' ? null : `${scheme.slice(0, -1)} URLs are not allowed here: only http, https and data (this session's principal may not reach the machine's files)`;
}
