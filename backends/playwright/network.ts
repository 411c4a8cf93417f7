// A session's requests through Playwright's network events of the context (requestfinished,
// requestfailed: every page of it, popups included), each reported once it ended as a
// NetworkEntry (a trace's HAR). Playwright sends these events to the client only while somebody
// listens: the first listener subscribes.
import type { BrowserContext, Page, Request } from 'playwright-core';
import { isTextMimeType, type NetworkEntry, type ResponseBodyLimits } from '../backend.ts';

export class PlaywrightNetwork {
  readonly #listeners: ((entry: NetworkEntry) => void)[] = [];
  readonly #context: BrowserContext;
  readonly #windowOf: (page: Page) => string | undefined;
  /** When each request was heard of: its start where Playwright has no timing (no response came). */
  readonly #seen = new WeakMap<Request, number>();
  readonly #request = (request: Request) => void this.#seen.set(request, Date.now());
  readonly #finished = (request: Request) => void this.#report(request, undefined);
  readonly #failed = (request: Request) => void this.#report(request, request.failure()?.errorText ?? 'failed');

  /** Response bodies kept (keepBodies), and how many bytes are left for them. */
  #bodies: ResponseBodyLimits | undefined;
  #bodyBytesLeft = 0;

  /** `windowOf`: a page's window handle. */
  constructor(context: BrowserContext, windowOf: (page: Page) => string | undefined) {
    this.#context = context;
    this.#windowOf = windowOf;
  }

  listen(listener: (entry: NetworkEntry) => void): void {
    if (!this.#listeners.length) {
      this.#context.on('request', this.#request);
      this.#context.on('requestfinished', this.#finished);
      this.#context.on('requestfailed', this.#failed);
    }
    this.#listeners.push(listener);
  }

  /** From now on, text responses' bodies within `limits` go with their entries. */
  keepBodies(limits: ResponseBodyLimits): void {
    this.#bodies = limits;
    this.#bodyBytesLeft = limits.total;
  }

  /** The context closes: no more entries. */
  close(): void {
    this.#listeners.length = 0;
    this.#context.off('request', this.#request);
    this.#context.off('requestfinished', this.#finished);
    this.#context.off('requestfailed', this.#failed);
  }

  async #report(request: Request, error: string | undefined): Promise<void> {
    const endedAt = Date.now();
    const entry = await entryOf(request, error, this.#seen.get(request) ?? endedAt, endedAt, this.#window(request));
    const limits = this.#bodies;
    // Its size is known only when it came unencoded; an encoded one is read (when what came is within the limit) and measured.
    const size = entry.bodySize >= 0 ? entry.bodySize : entry.transferSize;
    if (limits && !error && entry.status > 0 && size >= 0 && size <= Math.min(limits.each, this.#bodyBytesLeft) && isTextMimeType(entry.mimeType)) {
      const body = await request.response().then((r) => r?.body()).catch(() => undefined);
      if (body && body.length <= limits.each && body.length <= this.#bodyBytesLeft) {
        this.#bodyBytesLeft -= body.length;
        entry.responseBody = body.toString('utf8');
      }
    }
    for (const listener of this.#listeners) listener(entry);
  }

  #window(request: Request): string | undefined {
    try {
      return this.#windowOf(request.frame().page());
    } catch {
      return undefined; // a service worker's request has no frame
    }
  }
}

/** What Playwright knows of an ended request; what it cannot say is -1, '' or absent. */
async function entryOf(request: Request, error: string | undefined, seenAt: number, endedAt: number, window: string | undefined): Promise<NetworkEntry> {
  const response = await request.response().catch(() => null);
  const [requestHeaders, responseHeaders, sizes, server] = await Promise.all([
    request.headersArray().catch(() => []),
    response ? response.headersArray().catch(() => []) : [],
    response && !error ? request.sizes().catch(() => undefined) : undefined,
    response ? response.serverAddr().catch(() => null) : null,
  ]);
  const t = request.timing();
  const mark = (value: number) => (value >= 0 ? value : -1);
  const span = (from: number, to: number) => (from >= 0 && to >= from ? to - from : -1);
  // Playwright's marks are ms after startTime, which it knows once a response came; else the
  // request's start and end are when Playwright told of them.
  const startedAt = t.startTime > 0 ? t.startTime : seenAt;
  const durationMs = t.responseEnd >= 0 ? t.responseEnd : Math.max(0, endedAt - startedAt);
  const contentType = responseHeaders.find((h) => h.name.toLowerCase() === 'content-type')?.value ?? '';
  const encoded = responseHeaders.some((h) => h.name.toLowerCase() === 'content-encoding' && h.value !== 'identity');
  return {
    ...(window !== undefined && { window }),
    method: request.method(),
    url: request.url(),
    resourceType: request.resourceType(),
    startedAt,
    durationMs,
    status: response?.status() ?? 0,
    statusText: response?.statusText() ?? '',
    // Playwright does not say which HTTP version answered.
    httpVersion: '',
    // The Content-Type header, charset included (as HAR has it).
    mimeType: contentType.trim(),
    requestHeaders,
    responseHeaders,
    transferSize: sizes ? sizes.responseHeadersSize + sizes.responseBodySize : -1,
    // Playwright counts the body as it came (encoded): the decoded size only when it was not encoded.
    bodySize: sizes && !encoded ? sizes.responseBodySize : -1,
    timings: {
      // From the start to the first network step Playwright timed.
      blocked: mark([t.domainLookupStart, t.connectStart, t.requestStart].find((m) => m >= 0) ?? -1),
      dns: span(t.domainLookupStart, t.domainLookupEnd),
      connect: span(t.connectStart, t.connectEnd),
      ssl: span(t.secureConnectionStart, t.connectEnd),
      // Playwright has no mark for the end of sending.
      send: -1,
      wait: span(t.requestStart, t.responseStart),
      receive: span(t.responseStart, t.responseEnd),
    },
    // Playwright does not say whether a response came from the cache.
    fromCache: false,
    ...(error !== undefined && { error }),
    ...(server && { serverIPAddress: server.ipAddress.replace(/^\[(.*)\]$/, '$1') }),
  };
}
