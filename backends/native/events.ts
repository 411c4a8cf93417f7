// What a session's windows report over CDP for its trace: every request, each once it ended, as a
// NetworkEntry (the HAR), from the Network domain's events; and uncaught exceptions
// (Runtime.exceptionThrown). For chromedriver's logs too: the browser log's console messages,
// browser messages and exceptions, and the performance log's protocol events. puppeteer enables both domains on every target it attaches to
// already; their events are read here only once somebody listens. Sessions are followed from the
// moment they attach, paused before their page runs (a popup's own document request comes before
// its page object), on the browser's connection: a session's window is known by its target (a
// page of this context, or a frame or worker under one), and others' sessions are let go.
import type { BrowserContext, CDPSession, Connection, Page, Protocol } from 'puppeteer-core';
import { isTextMimeType, type BrowserLogEntry, type NetworkEntry, type PageError, type ProtocolEvent, type ResponseBodyLimits } from '../backend.ts';
import { consoleEntry, exceptionEntry, logEntry } from '../chromium-automation.ts';
import { cdp, connectionOf, frameClient, handleOf, ownSessionOf, parentSessionOf, sessionTarget } from './cdp.ts';

type Headers = Record<string, string>;

/** Entries whose headers as received are still to come, at most (the oldest is let go). */
const MAX_LATE = 256;

/** A request under way: what its events have said so far. */
interface Pending {
  window: string;
  /** Whose request it is, by which id (to ask for its body). */
  session: CDPSession;
  requestId: string;
  /** Network.requestWillBeSent: when it was issued (monotonic s, and wall clock s). */
  issued: number;
  wallTime: number;
  method: string;
  url: string;
  resourceType: string;
  requestHeaders: Headers;
  /** Network.requestWillBeSentExtraInfo: the headers as sent (cookies included). */
  rawRequestHeaders?: Headers;
  response?: Protocol.Network.Response;
  /** Network.responseReceivedExtraInfo: the headers as received (Set-Cookie included). */
  rawResponseHeaders?: Headers;
  /** Network.responseReceived said those will come (hasExtraInfo). */
  extraInfoComing?: boolean;
  /** Decoded body bytes so far (Network.dataReceived). */
  bodySize: number;
  fromMemoryCache: boolean;
}

export class ContextEvents {
  readonly #networkListeners: ((entry: NetworkEntry) => void)[] = [];
  readonly #errorListeners: ((error: PageError) => void)[] = [];
  readonly #logListeners: ((entry: BrowserLogEntry) => void)[] = [];
  readonly #protocolListeners: { domains: readonly string[]; listener: (event: ProtocolEvent) => void }[] = [];
  readonly #context: BrowserContext;
  readonly #connection: Connection;
  readonly #pages: () => Iterable<Page>;
  /** Requests under way, by session and request id. */
  readonly #pending = new Map<string, Pending>();
  /**
   * Entries reported before their response headers as received came, by session and request id.
   * Chromium sends Network.responseReceivedExtraInfo from the network service, in no fixed order
   * with loadingFinished: the entry is reported at its end (a session may end right after), and
   * its headers are completed in place when they come (a trace is written at the session's end).
   */
  readonly #late = new Map<string, NetworkEntry>();
  /** Sessions read from, and how to stop. */
  readonly #watched = new Map<CDPSession, () => void>();
  #following = false;
  #closed = false;
  /** Response bodies kept (keepResponseBodies), and how many bytes are left for them. */
  #bodies: ResponseBodyLimits | undefined;
  #bodyBytesLeft = 0;

  /** `pages`: the context's windows open now (those opened later are heard attaching). */
  constructor(context: BrowserContext, pages: () => Iterable<Page>) {
    this.#context = context;
    this.#connection = connectionOf(context.browser());
    this.#pages = pages;
  }

  onNetworkRequest(listener: (entry: NetworkEntry) => void): void {
    this.#networkListeners.push(listener);
    this.#follow();
  }

  onPageError(listener: (error: PageError) => void): void {
    this.#errorListeners.push(listener);
    this.#follow();
  }

  onBrowserLog(listener: (entry: BrowserLogEntry) => void): void {
    this.#logListeners.push(listener);
    this.#follow();
  }

  onProtocolEvent(domains: readonly string[], listener: (event: ProtocolEvent) => void): void {
    this.#protocolListeners.push({ domains, listener });
    this.#follow();
  }

  keepResponseBodies(limits: ResponseBodyLimits): void {
    this.#bodies = limits;
    this.#bodyBytesLeft = limits.total;
  }

  /** Stop reading every session (the context closes); requests under way are dropped. */
  close(): void {
    this.#closed = true;
    this.#networkListeners.length = 0;
    this.#errorListeners.length = 0;
    this.#logListeners.length = 0;
    this.#protocolListeners.length = 0;
    this.#connection.off('sessionattached', this.#attached);
    this.#connection.off('sessiondetached', this.#forget);
    for (const session of [...this.#watched.keys()]) this.#forget(session);
    this.#pending.clear();
    this.#late.clear();
  }

  /** From the first listener on: every session that attaches, and those of the windows open now. */
  #follow(): void {
    if (this.#following || this.#closed) return;
    this.#following = true;
    this.#connection.on('sessionattached', this.#attached);
    this.#connection.on('sessiondetached', this.#forget);
    for (const page of this.#pages()) {
      if (page.isClosed()) continue;
      this.#attached(cdp(page));
      for (const frame of page.frames()) this.#attached(frameClient(frame));
    }
  }

  /**
   * The window a CDP session reports for: its target's, a page of this context, or for a frame's
   * or worker's session the page's it is attached under. Null: not this context's; undefined:
   * its target is not known yet.
   */
  #windowOf(session: CDPSession): string | null | undefined {
    for (let current: CDPSession | undefined = session; current; current = parentSessionOf(current)) {
      const target = sessionTarget(current);
      if (!target) return undefined;
      if (target.browserContext() !== this.#context) return null;
      // Another client's session of the same target (the BiDi mapper's, a client's se:cdp): its
      // events are the same page's again.
      if (current === session && ownSessionOf(target) !== session) return null;
      if (target.type() === 'page') return handleOf(target);
    }
    return null;
  }

  readonly #attached = (session: CDPSession): void => {
    if (this.#watched.has(session) || session.detached) return;
    // puppeteer lets a new target run before it enables the Network domain there: a popup's own
    // document request would go unseen. Enabled now, before the target runs (a second enable is
    // no change; a target without the domain, a tab, refuses it).
    if (this.#networkListeners.length) void session.send('Network.enable').catch(() => {});
    // Whose it is is known once puppeteer has made its target (before the session runs): asked
    // at its first event. Not this context's: let go.
    let window: string | null | undefined;
    const windowOf = (): string | undefined => {
      window ??= this.#windowOf(session);
      if (window === null) this.#forget(session);
      return window ?? undefined;
    };
    const id = session.id();
    const key = (requestId: string) => `${id}/${requestId}`;
    const log = (entry: BrowserLogEntry | undefined) => {
      if (!entry || windowOf() === undefined) return;
      for (const listener of this.#logListeners) listener(entry);
    };
    const handlers: Record<string, (event: never) => void> = {
      'Runtime.exceptionThrown': (e: Protocol.Runtime.ExceptionThrownEvent) => {
        if (this.#logListeners.length) log(exceptionEntry(e as never));
        const handle = this.#errorListeners.length ? windowOf() : undefined;
        if (handle === undefined) return;
        const error = pageError(e, handle);
        for (const listener of this.#errorListeners) listener(error);
      },
      'Runtime.consoleAPICalled': (e: Protocol.Runtime.ConsoleAPICalledEvent) => this.#logListeners.length && log(consoleEntry(e as never)),
      'Log.entryAdded': (e: Protocol.Log.EntryAddedEvent) => this.#logListeners.length && log(logEntry(e)),
      'Network.requestWillBeSent': (e: Protocol.Network.RequestWillBeSentEvent) => {
        const handle = this.#networkListeners.length ? windowOf() : undefined;
        if (handle === undefined) return;
        const pending = this.#pending.get(key(e.requestId));
        // A redirect goes on under the same id: the leg that ended with it is an entry of its own.
        if (pending && e.redirectResponse) {
          pending.response = e.redirectResponse;
          this.#end(key(e.requestId), e.timestamp, e.redirectResponse.encodedDataLength);
        }
        this.#pending.set(key(e.requestId), {
          window: handle,
          session,
          requestId: e.requestId,
          issued: e.timestamp,
          wallTime: e.wallTime,
          method: e.request.method,
          url: e.request.url + (e.request.urlFragment ?? ''),
          resourceType: (e.type ?? 'Other').toLowerCase(),
          requestHeaders: e.request.headers,
          bodySize: 0,
          fromMemoryCache: false,
        });
      },
      'Network.requestWillBeSentExtraInfo': (e: Protocol.Network.RequestWillBeSentExtraInfoEvent) => {
        const pending = this.#pending.get(key(e.requestId));
        if (pending) pending.rawRequestHeaders = e.headers;
      },
      'Network.requestServedFromCache': (e: Protocol.Network.RequestServedFromCacheEvent) => {
        const pending = this.#pending.get(key(e.requestId));
        if (pending) pending.fromMemoryCache = true;
      },
      'Network.responseReceived': (e: Protocol.Network.ResponseReceivedEvent) => {
        const pending = this.#pending.get(key(e.requestId));
        if (!pending) return;
        pending.response = e.response;
        pending.extraInfoComing = e.hasExtraInfo;
      },
      'Network.responseReceivedExtraInfo': (e: Protocol.Network.ResponseReceivedExtraInfoEvent) => {
        const pending = this.#pending.get(key(e.requestId));
        if (pending) pending.rawResponseHeaders = e.headers;
        const reported = this.#late.get(key(e.requestId));
        if (reported) reported.responseHeaders = headerList(e.headers);
        this.#late.delete(key(e.requestId));
      },
      'Network.dataReceived': (e: Protocol.Network.DataReceivedEvent) => {
        const pending = this.#pending.get(key(e.requestId));
        if (pending) pending.bodySize += e.dataLength;
      },
      'Network.loadingFinished': (e: Protocol.Network.LoadingFinishedEvent) => this.#end(key(e.requestId), e.timestamp, e.encodedDataLength),
      'Network.loadingFailed': (e: Protocol.Network.LoadingFailedEvent) => this.#end(key(e.requestId), e.timestamp, -1, e.errorText),
    };
    // The performance log: every event of its domains, by the target it came from.
    const any = (method: unknown, params: unknown) => {
      if (!this.#protocolListeners.length || typeof method !== 'string' || windowOf() === undefined) return;
      const webview = sessionTarget(session);
      const event: ProtocolEvent = { webview: webview ? handleOf(webview) : id, method, params, timestamp: Date.now() };
      for (const { domains, listener } of this.#protocolListeners) if (domains.some((domain) => method.startsWith(domain))) listener(event);
    };
    for (const [event, handler] of Object.entries(handlers)) session.on(event as never, handler as never);
    session.on('*' as never, any as never);
    this.#watched.set(session, () => {
      for (const [event, handler] of Object.entries(handlers)) session.off(event as never, handler as never);
      session.off('*' as never, any as never);
      const prefix = `${id}/`;
      for (const pending of this.#pending.keys()) if (pending.startsWith(prefix)) this.#pending.delete(pending);
      for (const late of this.#late.keys()) if (late.startsWith(prefix)) this.#late.delete(late);
    });
  };

  /** Stop reading a session (it detached, or is not this context's), its requests under way dropped. */
  readonly #forget = (session: CDPSession): void => {
    this.#watched.get(session)?.();
    this.#watched.delete(session);
  };

  /** A request ended at `timestamp` (monotonic s): completed, or failed with `error`. */
  #end(key: string, timestamp: number, encodedDataLength: number, error?: string): void {
    const pending = this.#pending.get(key);
    // One that began before the first listener came: its start is unknown, so it is left out.
    if (!pending) return;
    this.#pending.delete(key);
    const response = pending.response;
    const entry: NetworkEntry = {
      window: pending.window,
      method: pending.method,
      url: pending.url,
      resourceType: pending.resourceType,
      startedAt: pending.wallTime * 1000,
      durationMs: Math.max(0, (timestamp - pending.issued) * 1000),
      status: response?.status ?? 0,
      statusText: response?.statusText ?? '',
      httpVersion: httpVersion(response?.protocol ?? ''),
      mimeType: response?.mimeType ?? '',
      requestHeaders: headerList(response?.requestHeaders ?? pending.rawRequestHeaders ?? pending.requestHeaders),
      responseHeaders: headerList(pending.rawResponseHeaders ?? response?.headers ?? {}),
      transferSize: encodedDataLength >= 0 ? encodedDataLength : -1,
      bodySize: response && !error ? pending.bodySize : -1,
      timings: harTimings(pending.issued, timestamp, response?.timing),
      fromCache: pending.fromMemoryCache || response?.fromDiskCache === true || response?.fromPrefetchCache === true,
      ...(error !== undefined && { error }),
      ...(response?.remoteIPAddress && { serverIPAddress: response.remoteIPAddress.replace(/^\[(.*)\]$/, '$1') }),
    };
    if (pending.extraInfoComing && !pending.rawResponseHeaders && !error) {
      this.#late.set(key, entry);
      // Those that never come (a response cut short) are not waited for without end.
      if (this.#late.size > MAX_LATE) this.#late.delete(this.#late.keys().next().value!);
    }
    if (this.#wantsBody(entry)) void this.#withBody(pending, entry);
    else for (const listener of this.#networkListeners) listener(entry);
  }

  /** A text response within the limits, while bytes are left for bodies. */
  #wantsBody(entry: NetworkEntry): boolean {
    const limits = this.#bodies;
    return limits !== undefined && entry.error === undefined && entry.status > 0 && entry.bodySize >= 0 && entry.bodySize <= limits.each && entry.bodySize <= this.#bodyBytesLeft && isTextMimeType(entry.mimeType);
  }

  /** The entry, reported once its body is read (CDP keeps a response's body until its page navigates on). */
  async #withBody(pending: Pending, entry: NetworkEntry): Promise<void> {
    const body = await pending.session.send('Network.getResponseBody', { requestId: pending.requestId }).catch(() => undefined);
    const size = body && !body.base64Encoded ? Buffer.byteLength(body.body) : Infinity;
    if (body && size <= this.#bodies!.each && size <= this.#bodyBytesLeft) {
      this.#bodyBytesLeft -= size;
      entry.responseBody = body.body;
    }
    if (this.#closed) return;
    for (const listener of this.#networkListeners) listener(entry);
  }
}

/**
 * HAR 1.2 timings from CDP's ResourceTiming (ms after its requestTime, -1 for a step not taken),
 * as Chrome DevTools writes its HAR: blocked is the time queued before the request was started
 * plus the time until its first network step; wait runs from the end of sending to the last
 * header; receive from there to the end. `connect` includes `ssl`, as HAR asks.
 */
function harTimings(issued: number, ended: number, t: Protocol.Network.ResourceTiming | undefined): NetworkEntry['timings'] {
  if (!t) return { blocked: -1, dns: -1, connect: -1, ssl: -1, send: -1, wait: -1, receive: -1 };
  const span = (from: number, to: number) => (from >= 0 && to >= from ? to - from : -1);
  const queued = Math.max(0, (t.requestTime - issued) * 1000);
  const firstStep = [t.dnsStart, t.connectStart, t.sendStart].find((mark) => mark >= 0) ?? 0;
  const end = (ended - t.requestTime) * 1000;
  return {
    blocked: queued + firstStep,
    dns: span(t.dnsStart, t.dnsEnd),
    connect: span(t.connectStart, t.connectEnd),
    ssl: span(t.sslStart, t.sslEnd),
    send: span(t.sendStart, t.sendEnd),
    wait: span(t.sendEnd, t.receiveHeadersEnd),
    receive: span(t.receiveHeadersEnd, end),
  };
}

/** CDP's header object (repeated headers joined by newlines) as a HAR list. */
function headerList(headers: Headers): { name: string; value: string }[] {
  return Object.entries(headers).flatMap(([name, value]) => String(value).split('\n').map((v) => ({ name, value: v })));
}

/** 'http/1.1' as HAR writes it ('HTTP/1.1'); 'h2', 'h3' as they are. */
function httpVersion(protocol: string): string {
  return /^http\/1/i.test(protocol) ? protocol.toUpperCase() : protocol;
}

/**
 * An uncaught exception or unhandled rejection (CDP Runtime.exceptionThrown) as a page error: the
 * thrown error's first line ("Error: boom"), its stack as V8 writes it.
 */
export function pageError({ exceptionDetails: details, timestamp }: Protocol.Runtime.ExceptionThrownEvent, window: string): PageError {
  const description = details.exception?.description;
  const thrown = details.exception?.value;
  const message = description?.split('\n')[0] ?? (thrown !== undefined ? String(thrown) : details.text);
  return { message, ...(description?.includes('\n') && { stack: description }), window, timestamp: timestamp || Date.now() };
}
