// What never leaves the seam (./seam.ts) for a trace, a history or a recording: values typed into
// password fields (wherever they show up again: a parameter, a URL, a console line), anything
// matching the configured secret patterns (`trace.secretPatterns`), the values of credentials by
// their names (`trace.secretNames`, ./credentials.ts: headers, query parameters, form fields, JSON
// members, in structures and in texts alike) and the values of cookies (their names are kept), in
// parameters and answers alike. Also how long values are cut. Pure.
import { CredentialNames } from './credentials.ts';
import { JsonText, TextBody } from './json.ts';

export const REDACTED = '[redacted]';

/** Keys under which cookies come (Add Cookie's `cookie`, BiDi's `cookies`): each cookie's value is hidden, its name kept. */
const COOKIE_KEY = /^cookies?$/i;
/** Secrets shorter than this are masked only where they were typed, not searched for elsewhere. */
const MIN_SECRET = 3;
/** Strings in parameters and results are cut past this (a screenshot's base64, a long script). */
export const MAX_STRING = 2000;
const MAX_ITEMS = 100;
const MAX_DEPTH = 8;

export class Redactor {
  readonly #patterns: RegExp[];
  readonly #names: CredentialNames;
  readonly #secrets = new Set<string>();
  #secretPattern: RegExp | undefined;

  /** `patterns`: regular expressions (sources) whose matches are secrets; `names`: credentials' names. */
  constructor(patterns: readonly string[], names: CredentialNames) {
    this.#patterns = patterns.map((p) => new RegExp(p, 'g'));
    this.#names = names;
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

  /** A text with every secret, every credential its name introduces and every pattern match replaced. */
  text(s: string): string {
    let out = this.#names.text(s, REDACTED);
    if (this.#secretPattern) out = out.replace(this.#secretPattern, REDACTED);
    for (const pattern of this.#patterns) out = out.replace(pattern, REDACTED);
    return out;
  }

  /**
   * A JSON value for the trace: credentials by key redacted (and a `{name, value}` pair whose name
   * is one, as in header lists, and a BiDi `[name, value]` pair of a serialized object or map),
   * cookies' values redacted, texts redacted and cut, large lists cut.
   */
  value(v: unknown, depth = 0): unknown {
    if (typeof v === 'string') {
      // A long text (a script, a page's source) is cut before it is searched: what is kept is redacted.
      if (v.length <= MAX_STRING * 2) return cut(this.text(v));
      return `${this.text(v.slice(0, MAX_STRING * 2)).slice(0, MAX_STRING)}…[${v.length - MAX_STRING} more]`;
    }
    if (v === null || typeof v !== 'object') return v;
    if (depth >= MAX_DEPTH) return '[…]';
    if (Array.isArray(v)) {
      if (v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'object' && v[1] !== null && this.#names.test(v[0])) return [v[0], REDACTED];
      const items = v.slice(0, MAX_ITEMS).map((x) => this.value(x, depth + 1));
      if (v.length > MAX_ITEMS) items.push(`[${v.length - MAX_ITEMS} more]`);
      return items;
    }
    const named = typeof (v as { name?: unknown }).name === 'string' && this.#names.test((v as { name: string }).name);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(v)) {
      // A flag is no secret (`isResidentCredential: true`, `httpOnly: false`): kept under any name.
      if (value === null || value === undefined || typeof value === 'boolean') out[key] = value;
      else if (named && key === 'value') out[key] = REDACTED;
      else if (COOKIE_KEY.test(key) && typeof value === 'object') out[key] = this.cookies(value, depth + 1);
      else out[key] = this.#names.test(key) ? REDACTED : this.value(value, depth + 1);
    }
    return out;
  }

  /** A cookie or a list of cookies (WebDriver's or BiDi's): names, domains and flags kept, values hidden. */
  cookies(v: unknown, depth = 0): unknown {
    if (Array.isArray(v)) return v.slice(0, MAX_ITEMS).map((cookie) => this.cookies(cookie, depth + 1));
    if (v === null || typeof v !== 'object' || depth >= MAX_DEPTH) return this.value(v, depth);
    const out = this.value(v, depth) as Record<string, unknown>;
    if ('value' in out) out.value = REDACTED;
    return out;
  }

  /** HTTP headers for the HAR: credentials' values redacted. */
  headers(list: { name: string; value: string }[]): { name: string; value: string }[] {
    return list.map(({ name, value }) => ({ name, value: this.#names.test(name) ? REDACTED : this.text(value) }));
  }

  /** A request's or response's body: JSON as a value (credentials by member name), anything else as a text (forms, multipart). */
  body(text: string, mimeType: string): string {
    if (/\bjson\b/i.test(mimeType)) {
      try {
        return JSON.stringify(this.value(JSON.parse(text)), null, 2);
      } catch {
        // not JSON after all: as text
      }
    }
    return this.text(text);
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

/** Answers that are cookies (by the route table's name): each one's value is hidden. */
const COOKIE_ANSWERS = new Set(['getAllCookies', 'getNamedCookie']);

/** A command's answer as a trace may keep it: large pictures and bodies by their size. */
export function redactAnswer(redactor: Redactor, command: string, value: unknown): unknown {
  if (value instanceof TextBody) return `[${value.contentType}, ${value.text.length} bytes]`;
  if (value instanceof JsonText) return value.text.length > 1000 ? `[base64, ${value.text.length - 2} characters]` : redactAnswer(redactor, command, JSON.parse(value.text));
  if (typeof value === 'string' && value.length > 1000 && /^[A-Za-z0-9+/=]+$/.test(value.slice(0, 1000))) return `[base64, ${value.length} characters]`;
  return COOKIE_ANSWERS.has(command) ? redactor.cookies(value) : redactor.value(value);
}

/**
 * A command's parameters as a trace may keep them; `typed`: what it types goes into a password
 * field (or may: the gateway could not tell), so Send Keys' text and key actions' values are hidden.
 */
export function redactParams(redactor: Redactor, command: string, params: unknown, typed: boolean): unknown {
  return redactor.value(typed ? hideTyped(command, params) : params);
}

/** Commands whose parameters carry typed text: Send Keys, and key actions (classic or BiDi). */
export function typesText(command: string): 'text' | 'actions' | undefined {
  if (command === 'elementSendKeys') return 'text';
  if (command === 'performActions' || command === 'input.performActions') return 'actions';
  return undefined;
}

/** A step's parameters with what it typed hidden (Send Keys' text, key actions' values). */
function hideTyped(command: string, params: unknown): unknown {
  if (typeof params !== 'object' || params === null) return params;
  if (typesText(command) === 'text') return { ...params, ...('text' in params && { text: REDACTED }), ...('value' in params && { value: REDACTED }) };
  const actions = (params as { actions?: unknown }).actions;
  if (!Array.isArray(actions)) return params;
  return {
    ...params,
    actions: actions.map((source: Record<string, unknown>) =>
      source?.type === 'key' && Array.isArray(source.actions)
        ? { ...source, actions: (source.actions as Record<string, unknown>[]).map((a) => (a && typeof a === 'object' && 'value' in a ? { ...a, value: REDACTED } : a)) }
        : source,
    ),
  };
}
