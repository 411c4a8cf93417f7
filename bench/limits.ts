// What a bench's gateway runs with: the admission limits and the pool, said in the results next to
// the numbers they shaped. A setting the bench changed says so and names the default.
import { resolveConfig } from '../src/config.ts';

type Settings = { [key: string]: unknown; pool?: Record<string, unknown> };

/** The defaults as this machine resolves them (maxSessions and pool.maxBrowsers follow the machine). */
const defaults = resolveConfig() as unknown as Settings;

const ms = (v: number) => (v % 1000 === 0 ? `${v / 1000} s` : `${v} ms`);

const LIMITS: [name: string, read: (s: Settings) => unknown, show: (v: any) => string][] = [
  ['maxSessions', (s) => s.maxSessions, String],
  ['maxQueuedSessions', (s) => s.maxQueuedSessions, (v) => `${v} a principal`],
  ['sessionQueueTimeout', (s) => s.sessionQueueTimeout, ms],
  ['newSessionsPerSecond', (s) => s.newSessionsPerSecond, (v) => `${v} a principal`],
  ['pool.minWarm', (s) => s.pool?.minWarm, String],
  ['pool.maxBrowsers', (s) => s.pool?.maxBrowsers, String],
  ['pool.sessionsPerBrowser', (s) => s.pool?.sessionsPerBrowser, String],
];

/** "maxSessions 4 (default 32), maxQueuedSessions 100 a principal, …" for a gateway's config. */
export function describeLimits(config: Settings): string {
  return LIMITS.map(([name, read, show]) => {
    const fallback = read(defaults as Settings);
    const value = read(config) ?? fallback;
    return value === fallback ? `${name} ${show(value)}` : `**${name} ${show(value)}** (default ${show(fallback)})`;
  }).join(', ');
}
