// Which backend serves a set of capabilities: `wdgate:options.backend` when the client names one,
// else the first route of the config whose `match` the capabilities satisfy, else the default
// routes. No route: every backend is asked in turn (native first).
import type { Route } from '../../backends/backend.ts';
import { error } from './errors.ts';

export interface ConfiguredRoute extends Route {
  /** Capability name → the value it must have (objects: each member, recursively). */
  match: Record<string, unknown>;
}

/**
 * Where each browser is served best when the client names no backend:
 * - Firefox: the native backend, over Firefox's own WebDriver BiDi. It sizes and states windows
 *   (Playwright's Firefox has no window bounds: Set Window Rect, Maximize, Minimize, Fullscreen
 *   would be `unsupported operation`), and it shares Firefox's one BiDi session with a client
 *   that asks for webSocketUrl (Playwright keeps its own). Playwright's Firefox stays one
 *   capability away: `wdgate:options.backend: "playwright"`.
 * - WebKit: WebKitWebDriver (a managed upstream), the only driver WebKitGTK has.
 * - Chromium (no route): every backend is asked in turn, native first.
 */
export const DEFAULT_ROUTES: readonly ConfiguredRoute[] = [
  { match: { browserName: 'firefox' }, backend: 'native' },
  { match: { browserName: 'MiniBrowser' }, backend: 'remote', upstream: 'webkit' },
  { match: { browserName: 'webkit' }, backend: 'remote', upstream: 'webkit' },
];

/** Does `value` have everything `pattern` asks (same primitives; objects member by member)? */
function satisfies(value: unknown, pattern: unknown): boolean {
  if (typeof pattern !== 'object' || pattern === null) return value === pattern;
  if (typeof value !== 'object' || value === null || Array.isArray(pattern) !== Array.isArray(value)) return false;
  if (Array.isArray(pattern)) return pattern.length === (value as unknown[]).length && pattern.every((p, i) => satisfies((value as unknown[])[i], p));
  return Object.entries(pattern).every(([k, p]) => satisfies((value as Record<string, unknown>)[k], p));
}

/** The route for merged capabilities, or undefined when any backend may serve them. */
export function selectRoute(caps: Record<string, unknown>, routes: readonly ConfiguredRoute[]): Route | undefined {
  const options = caps['wdgate:options'];
  if (typeof options === 'object' && options !== null && !Array.isArray(options)) {
    const { backend, upstream } = options as Record<string, unknown>;
    if (backend !== undefined && typeof backend !== 'string') throw error('invalid argument', 'wdgate:options.backend must be a string');
    if (upstream !== undefined && typeof upstream !== 'string') throw error('invalid argument', 'wdgate:options.upstream must be a string');
    if (upstream !== undefined && backend !== undefined && backend !== 'remote') {
      throw error('invalid argument', `wdgate:options.upstream names an upstream of the remote backend, not of ${backend}`);
    }
    if (backend !== undefined || upstream !== undefined) return { backend: backend ?? 'remote', ...(upstream === undefined ? {} : { upstream }) };
  }
  const route = [...routes, ...DEFAULT_ROUTES].find((r) => satisfies(caps, r.match));
  return route && { backend: route.backend, ...(route.upstream === undefined ? {} : { upstream: route.upstream }) };
}
