// A session's requests from Firefox's WebDriver BiDi network events (BiDi §7.4 "The network
// Module": beforeRequestSent, then responseCompleted or fetchError), each reported once it ended
// as a NetworkEntry (a trace's HAR). The channel subscribes to them only once somebody listens.
import type { NetworkEntry } from '../backend.ts';

/** The events a request's life is read from. */
export const NETWORK_EVENTS = ['network.beforeRequestSent', 'network.responseCompleted', 'network.fetchError'];

/** BiDi network.Header: a value is a string or base64 bytes. */
interface BidiHeader {
  name: string;
  value: { type: 'string' | 'base64'; value: string };
}

/**
 * BiDi network.FetchTimingInfo: the request's Fetch timing in ms. Firefox gives each mark as ms
 * since the epoch (its timeOrigin is 0), and 0 for a step that did not happen (a reused
 * connection has no dns or connect).
 */
interface FetchTimingInfo {
  timeOrigin: number;
  requestTime: number;
  fetchStart: number;
  dnsStart: number;
  dnsEnd: number;
  connectStart: number;
  connectEnd: number;
  tlsStart: number;
  requestStart: number;
  responseStart: number;
  responseEnd: number;
}

/** BiDi network.RequestData (the fields read here). */
interface RequestData {
  request: string;
  url: string;
  method: string;
  headers: BidiHeader[];
  destination?: string;
  initiatorType?: string | null;
  timings?: FetchTimingInfo;
}

/** BiDi network.ResponseData (the fields read here). */
interface ResponseData {
  protocol?: string;
  status: number;
  statusText: string;
  fromCache: boolean;
  headers: BidiHeader[];
  mimeType?: string;
  bytesReceived?: number;
  /** The body as it came (encoded). */
  bodySize?: number | null;
  /** The decoded body (Firefox 153 says 0 whatever it was). */
  content?: { size: number | null };
}

/** The parameters every network event has (BiDi network.BaseParameters). */
interface BaseParameters {
  context: string | null;
  redirectCount: number;
  request: RequestData;
  timestamp: number;
}

/** A network event's parameters: a response when completed, the error's text when failed. */
export type NetworkEvent = BaseParameters & { response?: ResponseData; errorText?: string };

/** What beforeRequestSent said of a request, until it ends. */
interface Started {
  window?: string;
  startedAt: number;
  resourceType: string;
}

export class FirefoxNetwork {
  readonly #listeners: ((entry: NetworkEntry) => void)[] = [];
  /** Requests under way, by id and redirect count (each leg of a redirect chain is an entry). */
  readonly #started = new Map<string, Started>();

  readonly #topLevel: (context: string) => string;

  /** `topLevel`: a browsing context's top-level context (the window's handle). */
  constructor(topLevel: (context: string) => string) {
    this.#topLevel = topLevel;
  }

  listen(listener: (entry: NetworkEntry) => void): void {
    this.#listeners.push(listener);
  }

  /** A network event of the session's user context (the hub scoped the subscription to it). */
  event(method: string, params: NetworkEvent): void {
    const key = `${params.request.request}/${params.redirectCount}`;
    if (method === 'network.beforeRequestSent') {
      this.#started.set(key, {
        ...(params.context && { window: this.#topLevel(params.context) }),
        startedAt: params.timestamp,
        resourceType: resourceType(params.request.destination ?? '', params.request.initiatorType ?? null),
      });
      return;
    }
    const started = this.#started.get(key);
    // One that began before the first listener came: its start is unknown, so it is left out.
    if (!started) return;
    this.#started.delete(key);
    const entry = method === 'network.responseCompleted' && params.response ? completed(started, params, params.response) : failed(started, params, params.errorText ?? 'failed');
    for (const listener of this.#listeners) listener(entry);
  }
}

function completed(started: Started, params: BaseParameters, response: ResponseData): NetworkEntry {
  const timings = params.request.timings;
  return {
    ...common(started, params),
    durationMs: duration(started, params),
    status: response.status,
    statusText: response.statusText,
    httpVersion: httpVersion(response.protocol ?? ''),
    mimeType: response.mimeType ?? '',
    responseHeaders: headers(response.headers),
    transferSize: response.bytesReceived ?? -1,
    bodySize: decodedSize(response),
    timings: harTimings(timings),
    fromCache: response.fromCache,
  };
}

function failed(started: Started, params: BaseParameters, error: string): NetworkEntry {
  return {
    ...common(started, params),
    durationMs: duration(started, params),
    status: 0,
    statusText: '',
    httpVersion: '',
    mimeType: '',
    responseHeaders: [],
    transferSize: -1,
    bodySize: -1,
    timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: -1, wait: -1, receive: -1 },
    fromCache: false,
    error,
  };
}

function common(started: Started, params: BaseParameters) {
  const requestTime = params.request.timings?.requestTime;
  return {
    ...(started.window !== undefined && { window: started.window }),
    method: params.request.method,
    url: params.request.url,
    resourceType: started.resourceType,
    // The Fetch timing's start (the mark its others count from), else beforeRequestSent's time.
    startedAt: requestTime && requestTime > 0 ? requestTime : started.startedAt,
    requestHeaders: headers(params.request.headers),
  };
}

/** From beforeRequestSent to the end: the Fetch timing's when it has both, else the events' times. */
function duration(started: Started, params: BaseParameters): number {
  const t = params.request.timings;
  if (t && t.requestTime > 0 && t.responseEnd >= t.requestTime) return t.responseEnd - t.requestTime;
  return Math.max(0, params.timestamp - started.startedAt);
}

/**
 * HAR 1.2 timings from the Fetch timing (each phase between two marks the engine set; -1 where a
 * mark is 0, as Firefox leaves the steps a reused connection skips). `connect` includes `ssl`,
 * as HAR asks.
 */
function harTimings(t: FetchTimingInfo | undefined): NetworkEntry['timings'] {
  const span = (from: number | undefined, to: number | undefined) => (from && to && to >= from ? to - from : -1);
  if (!t) return { blocked: -1, dns: -1, connect: -1, ssl: -1, send: -1, wait: -1, receive: -1 };
  // Blocked: from the request's start to its first network step (dns, connect or the request).
  const firstStep = [t.dnsStart, t.connectStart, t.requestStart].find((mark) => mark > 0);
  return {
    blocked: span(t.requestTime || t.fetchStart, firstStep),
    dns: span(t.dnsStart, t.dnsEnd),
    connect: span(t.connectStart, t.connectEnd),
    ssl: span(t.tlsStart, t.connectEnd),
    // Fetch's timing has no mark for the end of sending.
    send: -1,
    wait: span(t.requestStart, t.responseStart),
    receive: span(t.responseStart, t.responseEnd),
  };
}

/**
 * The decoded body's size: content.size when Firefox says one, else the body as it came when it
 * came unencoded (the same bytes); -1 when neither says.
 */
function decodedSize(response: ResponseData): number {
  if (response.content?.size) return response.content.size;
  const encoded = response.headers.some(({ name, value }) => name.toLowerCase() === 'content-encoding' && value.value.trim() !== '' && value.value.trim() !== 'identity');
  return !encoded && typeof response.bodySize === 'number' ? response.bodySize : -1;
}

function headers(list: BidiHeader[] | undefined): { name: string; value: string }[] {
  return (list ?? []).map(({ name, value }) => ({ name, value: value.type === 'base64' ? Buffer.from(value.value, 'base64').toString('latin1') : value.value }));
}

/** 'http/1.1' as HAR writes it ('HTTP/1.1'); 'h2', 'h3' as they are. */
function httpVersion(protocol: string): string {
  return /^http\/1/i.test(protocol) ? protocol.toUpperCase() : protocol;
}

/**
 * The resource type (as CDP and Playwright name them) from Fetch's request destination, or for
 * requests without one, from its initiator type.
 */
function resourceType(destination: string, initiatorType: string | null): string {
  switch (destination) {
    case 'document':
    case 'frame':
    case 'iframe':
      return 'document';
    case 'style':
      return 'stylesheet';
    case 'image':
      return 'image';
    case 'audio':
    case 'video':
      return 'media';
    case 'track':
      return 'texttrack';
    case 'font':
      return 'font';
    case 'script':
    case 'worker':
    case 'sharedworker':
    case 'serviceworker':
    case 'audioworklet':
    case 'paintworklet':
      return 'script';
    case 'manifest':
      return 'manifest';
    case '':
      if (initiatorType === 'fetch') return 'fetch';
      if (initiatorType === 'xmlhttprequest') return 'xhr';
      if (initiatorType === 'beacon' || initiatorType === 'ping') return 'ping';
      return 'other';
    default:
      return 'other';
  }
}
