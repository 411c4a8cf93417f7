// What a New Session asks of traces and history: the session's name (Selenium Grid's `se:name`,
// or `wdgate:options.name`), its build and tags, and whether to trace it
// (`wdgate:options.trace`). Pure: checked once, at New Session, as `invalid argument`.
import { error } from './errors.ts';

export const TRACE_MODES = ['on', 'retain-on-failure', 'off'] as const;
export type TraceMode = (typeof TRACE_MODES)[number];

export interface SessionLabels {
  name?: string;
  build?: string;
  tags: string[];
}

/** Names, builds and tags longer than this are cut (they go into lists and file names). */
const MAX_LABEL = 256;
const MAX_TAGS = 32;

function label(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw error('invalid argument', `${path} must be a string`);
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed.slice(0, MAX_LABEL);
}

function options(caps: Record<string, unknown>): Record<string, unknown> {
  const value = caps['wdgate:options'];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The session's name, build and tags. `wdgate:options.name` wins over `se:name`. */
export function sessionLabels(caps: Record<string, unknown>): SessionLabels {
  const wdgate = options(caps);
  const name = label(wdgate.name, 'wdgate:options.name') ?? label(caps['se:name'], 'se:name');
  const build = label(wdgate.build, 'wdgate:options.build') ?? label(caps['se:build'], 'se:build');
  const rawTags = wdgate.tags ?? caps['se:tags'];
  let tags: string[] = [];
  if (rawTags !== undefined && rawTags !== null) {
    if (!Array.isArray(rawTags) || !rawTags.every((t) => typeof t === 'string')) throw error('invalid argument', 'wdgate:options.tags must be an array of strings');
    tags = [...new Set(rawTags.map((t) => t.trim().slice(0, MAX_LABEL)).filter(Boolean))].slice(0, MAX_TAGS);
  }
  return { ...(name !== undefined && { name }), ...(build !== undefined && { build }), tags };
}

/** `wdgate:options.trace`, or the gateway's default. */
export function traceMode(caps: Record<string, unknown>, fallback: TraceMode): TraceMode {
  const value = options(caps).trace;
  if (value === undefined || value === null) return fallback;
  // A boolean is what a user of Playwright's `trace: true`-style options would try first.
  if (value === true) return 'on';
  if (value === false) return 'off';
  if (!(TRACE_MODES as readonly unknown[]).includes(value)) throw error('invalid argument', `wdgate:options.trace must be one of ${TRACE_MODES.map((m) => `"${m}"`).join(', ')}`);
  return value as TraceMode;
}

/** What a session asked of the gateway's own features, beside the W3C capabilities. */
export interface SessionOptions {
  /** Its name, build and tags (the client may report others while it runs). */
  labels: SessionLabels;
  /** `wdgate:options.trace` as asked; undefined: the gateway's default. */
  trace: TraceMode | undefined;
  /** `wdgate:options.recordVideo`. */
  recordVideo: boolean;
}

/** `wdgate:options` and Grid's `se:` labels, checked at New Session (invalid argument). */
export function sessionOptions(caps: Record<string, unknown>): SessionOptions {
  const recordVideo = options(caps).recordVideo;
  if (recordVideo !== undefined && typeof recordVideo !== 'boolean') throw error('invalid argument', 'wdgate:options.recordVideo must be a boolean');
  const asked = options(caps).trace;
  return { labels: sessionLabels(caps), trace: asked === undefined || asked === null ? undefined : traceMode(caps, 'off'), recordVideo: recordVideo === true };
}
