// A session's requests as a HAR 1.2 log (http://www.softwareishard.com/blog/har-12-spec/), from
// the backends' network entries (backends/backend.ts NetworkEntry). Pure. A response's body is
// kept when the backend read it (text, up to a size): redacted as the rest of the trace, a JSON
// body as parameters are (credentials by member name), a form's by field name. Credentials in
// headers and query parameters are redacted by name (src/webdriver/redact.ts).
import type { NetworkEntry } from '../../backends/backend.ts';
import type { Redactor } from '../webdriver/redact.ts';

export interface HarPage {
  id: string;
  startedAt: number;
  title: string;
}

export function toHar(
  entries: readonly NetworkEntry[],
  pages: readonly HarPage[],
  browser: { name: string; version: string },
  creatorVersion: string,
  redactor: Redactor,
): Record<string, unknown> {
  const sorted = [...entries].sort((a, b) => a.startedAt - b.startedAt);
  return {
    log: {
      version: '1.2',
      creator: { name: 'wdgate', version: creatorVersion },
      browser,
      pages: pages.map((p) => ({ startedDateTime: new Date(p.startedAt).toISOString(), id: p.id, title: redactor.text(p.title), pageTimings: {} })),
      entries: sorted.map((e) => harEntry(e, pageOf(e, pages), redactor)),
    },
  };
}

/** The page a request belongs to: the last page started at or before it. */
function pageOf(entry: NetworkEntry, pages: readonly HarPage[]): string | undefined {
  let id: string | undefined;
  for (const page of pages) if (page.startedAt <= entry.startedAt) id = page.id;
  return id;
}

function harEntry(e: NetworkEntry, pageref: string | undefined, redactor: Redactor): Record<string, unknown> {
  const url = redactor.text(e.url);
  const responseHeaders = redactor.headers(e.responseHeaders);
  const location = responseHeaders.find((h) => h.name.toLowerCase() === 'location')?.value ?? '';
  return {
    ...(pageref && { pageref }),
    startedDateTime: new Date(e.startedAt).toISOString(),
    time: round(Math.max(0, e.durationMs)),
    request: {
      method: e.method,
      url,
      httpVersion: e.httpVersion || 'unknown',
      cookies: [],
      headers: redactor.headers(e.requestHeaders),
      queryString: queryString(url),
      headersSize: -1,
      bodySize: -1,
    },
    response: {
      status: e.status,
      statusText: e.statusText,
      httpVersion: e.httpVersion || 'unknown',
      cookies: [],
      headers: responseHeaders,
      content: { size: e.bodySize >= 0 ? e.bodySize : 0, mimeType: e.mimeType || 'x-unknown', ...(e.responseBody !== undefined && { text: redactor.body(e.responseBody, e.mimeType) }) },
      redirectURL: location,
      headersSize: -1,
      bodySize: e.transferSize >= 0 ? e.transferSize : -1,
      ...(e.error && { _error: e.error }),
    },
    cache: {},
    timings: timings(e),
    ...(e.serverIPAddress && { serverIPAddress: e.serverIPAddress }),
    _resourceType: e.resourceType,
    _fromCache: e.fromCache,
    _transferSize: e.transferSize,
    ...(e.window !== undefined && { _window: e.window }),
  };
}

/** HAR timings: send, wait and receive must not be negative; the phases sum to `time` where known. */
function timings(e: NetworkEntry): Record<string, number> {
  const t = e.timings;
  const known = (n: number) => (n >= 0 ? n : 0);
  const send = known(t.send);
  const receive = known(t.receive);
  let wait = t.wait;
  if (wait < 0) {
    const before = [t.blocked, t.dns, t.connect].reduce((sum, n) => sum + known(n), 0);
    wait = Math.max(0, e.durationMs - before - send - receive);
  }
  return { blocked: round(t.blocked), dns: round(t.dns), connect: round(t.connect), ssl: round(t.ssl), send: round(send), wait: round(wait), receive: round(receive) };
}

function queryString(url: string): { name: string; value: string }[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

const round = (n: number) => (n < 0 ? -1 : Math.round(n * 1000) / 1000);
