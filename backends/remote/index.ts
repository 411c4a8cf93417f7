// The remote backend: sessions on upstream W3C servers. It creates the session upstream and says
// where its commands go; the HTTP edge forwards them (src/server/forward.ts). Upstreams: the
// configured URLs, `chromedriver` (managed, the default) and `webkit` (managed WebKitWebDriver).
import { LaunchError, UpstreamError, type BackendEnvironment, type PassThroughBackend, type UpstreamSession, type UpstreamSpec } from '../backend.ts';
import { DRIVER_DIR_PREFIX, killOwnedNow } from '../owned-process.ts';
import { DISPLAY_DIR_PREFIX } from './processes.ts';
import { removeDeadGatewayDirs, sweepOwnedProcesses } from '../shared.ts';
import { ChromedriverUpstream, UrlUpstream, WebKitUpstream, type ChromedriverOptions, type Upstream, type WebKitOptions } from './upstreams.ts';

export interface RemoteOptions {
  /** Named upstream W3C servers: name → URL (`http://user:secret@host:port` sends Basic credentials). */
  upstreams: Record<string, string>;
  chromedriver: ChromedriverOptions;
  webkit: WebKitOptions;
  /** How long New Session may take upstream, a managed driver's start included (ms). */
  newSessionTimeout: number;
}

const JSON_TYPE = 'application/json; charset=utf-8';
/** Delete Session upstream when the gateway ends a session: bounded, never blocking the end. */
const DELETE_TIMEOUT_MS = 10_000;

/** Why a request upstream failed, in a few words (the cause's code, a timeout). */
function cause(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  if (err.name === 'AbortError') return 'the client went away';
  return err.cause?.code ?? err.cause?.message ?? err.message;
}

export function createRemoteBackend(options: RemoteOptions): PassThroughBackend {
  const upstreams = new Map<string, Upstream>([
    ['chromedriver', new ChromedriverUpstream(options.chromedriver)],
    ['webkit', new WebKitUpstream(options.webkit)],
  ]);
  // A configured name may replace a managed one (say, "chromedriver" on another machine).
  for (const [name, url] of Object.entries(options.upstreams)) upstreams.set(name, new UrlUpstream(name, url));

  return {
    kind: 'pass-through',
    name: 'remote',

    match(caps, env, route) {
      if (route?.backend !== 'remote') return { ok: false, reason: 'it serves only sessions routed to it (wdgate:options.backend "remote")' };
      const name = route.upstream ?? 'chromedriver';
      const upstream = upstreams.get(name);
      if (!upstream) return { ok: false, reason: `there is no upstream named ${JSON.stringify(name)} (known: ${[...upstreams.keys()].join(', ')})` };
      return { ok: true, value: { backend: 'remote', upstream: name, capabilities: upstream.capabilities(caps, env) } };
    },

    async createSession(spec: UpstreamSpec, env: BackendEnvironment, signal?: AbortSignal): Promise<UpstreamSession> {
      const upstream = upstreams.get(spec.upstream)!;
      const timeout = AbortSignal.timeout(options.newSessionTimeout);
      const place = await upstream.acquire(env);
      let answer: { value?: { sessionId?: unknown; capabilities?: unknown; error?: unknown; message?: unknown } } | undefined;
      let status: number;
      try {
        const response = await fetch(`${place.url}/session`, {
          method: 'POST',
          headers: { 'Content-Type': JSON_TYPE, ...place.headers },
          body: JSON.stringify({ capabilities: { alwaysMatch: spec.capabilities } }),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
        status = response.status;
        answer = await response.json().catch(() => undefined);
      } catch (e) {
        await place.release();
        throw new LaunchError(`upstream ${spec.upstream} (${place.url}) could not create a session: ${cause(e, options.newSessionTimeout)}`);
      }
      const value = answer?.value;
      if (status >= 300 || typeof value?.sessionId !== 'string') {
        await place.release();
        const message = typeof value?.message === 'string' ? value.message : `HTTP ${status} without a W3C answer`;
        throw new UpstreamError(typeof value?.error === 'string' ? value.error : 'session not created', `upstream ${spec.upstream}: ${message}`);
      }
      const id = value.sessionId;
      let gone = false;
      place.onGone(() => void (gone = true));
      return {
        url: place.url,
        headers: place.headers,
        id,
        capabilities: typeof value.capabilities === 'object' && value.capabilities !== null ? (value.capabilities as Record<string, unknown>) : {},
        onThisMachine: upstream.managed,
        onGone: (listener) => place.onGone(listener),
        async end(alreadyDeleted) {
          if (!alreadyDeleted && !gone) {
            await fetch(`${place.url}/session/${encodeURIComponent(id)}`, { method: 'DELETE', headers: place.headers, signal: AbortSignal.timeout(DELETE_TIMEOUT_MS) })
              .then((r) => r.arrayBuffer())
              .catch(() => {});
          }
          await place.release();
        },
      };
    },

    async sweep(tempDir) {
      await sweepOwnedProcesses();
      await removeDeadGatewayDirs(tempDir, DRIVER_DIR_PREFIX);
      await removeDeadGatewayDirs(tempDir, DISPLAY_DIR_PREFIX);
    },

    async close() {
      await Promise.all([...upstreams.values()].map((u) => u.close()));
    },

    killAllNow: killOwnedNow,
  };
}
