// What a bench's gateway runs with: the admission limits and the pool, said in the results next to
// the numbers they shaped. A setting the bench changed says so and names the default.
import defaults from '../config/default.json' with { type: 'json' };

type Settings = { [key: string]: unknown; pool?: Partial<typeof defaults.pool> };

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

/** "maxSessions 4 (default 8), maxQueuedSessions 100 a principal, …" for a gateway's config. */
export function describeLimits(config: Settings): string {
  return LIMITS.map(([name, read, show]) => {
    const fallback = read(defaults as Settings);
    const value = read(config) ?? fallback;
    return value === fallback ? `${name} ${show(value)}` : `**${name} ${show(value)}** (default ${show(fallback)})`;
  }).join(', ');
}
