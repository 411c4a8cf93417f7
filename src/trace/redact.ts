// What never goes into a trace: values typed into password fields (wherever they show up again:
// a parameter, a URL, a console line), anything matching the configured secret patterns, and the
// values of credentials by their names (tokens, passwords, cookies). Also how long values are cut.
// Pure.

export const REDACTED = '[redacted]';

/** Keys whose values are credentials wherever they appear in parameters or results. */
const SECRET_KEY = /^(password|passwd|pass|secret|token|access[-_]?token|api[-_]?key|authorization|cookie|set-cookie|proxy-authorization)$/i;
/** Secrets shorter than this are masked only where they were typed, not searched for elsewhere. */
const MIN_SECRET = 3;
/** Strings in parameters and results are cut past this (a screenshot's base64, a long script). */
export const MAX_STRING = 2000;
const MAX_ITEMS = 100;
const MAX_DEPTH = 8;

export class Redactor {
  readonly #patterns: RegExp[];
  readonly #secrets = new Set<string>();
  #secretPattern: RegExp | undefined;

  /** `patterns`: regular expressions (sources) whose matches are secrets. */
  constructor(patterns: readonly string[]) {
    this.#patterns = patterns.map((p) => new RegExp(p, 'g'));
  }

  /** A value seen in a password field: scrubbed from everything written from now on. */
  addSecret(value: string): void {
    if (value.length < MIN_SECRET || this.#secrets.has(value)) return;
    this.#secrets.add(value);
    // Longest first, so that a secret containing another is replaced whole.
    const sorted = [...this.#secrets].sort((a, b) => b.length - a.length);
    this.#secretPattern = new RegExp(sorted.map(encodedAnyhow).join('|'), 'g');
  }

  get hasSecrets(): boolean {
    return this.#secrets.size > 0;
  }

  /** A text with every secret and pattern match replaced. */
  text(s: string): string {
    let out = s;
    if (this.#secretPattern) out = out.replace(this.#secretPattern, REDACTED);
    for (const pattern of this.#patterns) out = out.replace(pattern, REDACTED);
    return out;
  }

  /** A JSON value for the trace: credentials by key redacted, texts redacted and cut, large lists cut. */
  value(v: unknown, depth = 0): unknown {
    if (typeof v === 'string') return cut(this.text(v));
    if (v === null || typeof v !== 'object') return v;
    if (depth >= MAX_DEPTH) return '[…]';
    if (Array.isArray(v)) {
      const items = v.slice(0, MAX_ITEMS).map((x) => this.value(x, depth + 1));
      if (v.length > MAX_ITEMS) items.push(`[${v.length - MAX_ITEMS} more]`);
      return items;
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(v)) out[key] = SECRET_KEY.test(key) && value !== null && value !== undefined ? REDACTED : this.value(value, depth + 1);
    return out;
  }

  /** HTTP headers for the HAR: credentials' values redacted. */
  headers(list: { name: string; value: string }[]): { name: string; value: string }[] {
    return list.map(({ name, value }) => ({ name, value: SECRET_KEY.test(name) ? REDACTED : this.text(value) }));
  }
}

/** A string cut to `max` characters, saying how much was left out. */
export function cut(s: string, max = MAX_STRING): string {
  return s.length <= max ? s : `${s.slice(0, max)}…[${s.length - max} more]`;
}

/**
 * A secret as a pattern that also finds it percent-encoded, wholly or in part, and with its
 * spaces as `+` (typed text reaches URLs through forms and scripts, encoded either way).
 */
function encodedAnyhow(secret: string): string {
  return [...secret]
    .map((c) => {
      const bytes = [...Buffer.from(c)].map((b) => `%${b.toString(16).padStart(2, '0').replace(/[a-f]/g, (h) => `[${h}${h.toUpperCase()}]`)}`).join('');
      const literal = c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return `(?:${literal}|${bytes}${c === ' ' ? '|\\+' : ''})`;
    })
    .join('');
}
