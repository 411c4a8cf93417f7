// Which names are credentials' (`trace.secretNames`), and where a name hands its value to a text.
// A name — a header, a query parameter, a form field, a JSON member, a cookie — is split into
// words at every character that is not a letter or a digit (`-`, `_`, `.`, `[`, `:` …) and where
// the case goes from lower to upper (`refreshToken`: refresh, token; `XApiKey`: x, api, key); it
// names a credential when a listed entry's words appear in it, in order and next to each other,
// the last one also in its plural (`tokens`). So `X-Api-Key`, `x-auth-token`, `client_secret`,
// `refresh_token`, `X-Amz-Signature` are credentials by the words `key`, `auth`/`token`,
// `secret`, `token`, `signature`; `sessionid` and `PHPSESSID` because one-word compounds are
// listed whole; and `keyboard`, `monkey`, `author`, `tokenizer` are not (no listed word is one of
// theirs). Hiding too much is the safe side: `partitionKey` or `sessionId` are hidden too. Pure.

/** A text's credentials, found by the names that introduce them (see CredentialNames.text). */
export class CredentialNames {
  readonly #entries: string[][];
  readonly #known = new Map<string, boolean>();
  /** Any listed word, anywhere: where a credential's name may be (the name around it is then read). */
  readonly #anyWord: RegExp | undefined;

  /** `entries`: words or phrases (`api-key`, split as names are); case does not matter. */
  constructor(entries: readonly string[]) {
    this.#entries = entries.map(words).filter((w) => w.length > 0);
    const all = [...new Set(this.#entries.flat())].sort((a, b) => b.length - a.length);
    this.#anyWord = all.length > 0 ? new RegExp(all.join('|'), 'gi') : undefined;
  }

  /** Whether a header, parameter, field or member of this name holds a credential. */
  test(name: string): boolean {
    let known = this.#known.get(name);
    if (known === undefined) {
      known = this.#matches(words(name));
      // Names repeat (headers, members): remembered, within bounds.
      if (this.#known.size >= 10_000) this.#known.clear();
      this.#known.set(name, known);
    }
    return known;
  }

  #matches(name: string[]): boolean {
    return this.#entries.some((entry) => {
      for (let at = 0; at + entry.length <= name.length; at++) {
        if (entry.every((word, i) => name[at + i] === word || (i === entry.length - 1 && name[at + i] === `${word}s`))) return true;
      }
      return false;
    });
  }

  /**
   * A text with every credential's value replaced where a credential's name introduces it, in the
   * shapes a trace meets: `name=value` (a URL's query or fragment, a form body, a cookie line,
   * `name = "value"` in a script), `"name": value` and `name: "value"` (JSON, scripts), `"name",
   * "value"` (a script's call, `setRequestHeader('X-Api-Key', …)`, `append`, `setItem`; a
   * `[name, value]` pair), a header
   * line (`Name: value` at a line's start), a multipart field (`Content-Disposition: form-data;
   * name="…"`, its value after the blank line), a form field in HTML (`<input name=… value=…>`,
   * `<meta name=… content=…>`), and a URL's password (`scheme://user:password@`). Quotes around
   * a value are kept, so that JSON and scripts stay readable.
   */
  text(s: string, hidden: string): string {
    let out = this.#named(s, hidden);
    if (out.includes('form-data')) out = out.replace(MULTIPART_FIELD, (all, head: string, name: string, value: string) => (value !== '' && this.test(name) ? head + hidden : all));
    if (out.includes('://')) out = out.replace(URL_PASSWORD, (_all, before: string) => `${before}${hidden}@`);
    if (FORM_TAG_START.test(out)) out = out.replace(FORM_TAG, (tag) => this.#formTag(tag, hidden));
    return out;
  }

  /**
   * Values their names introduce. A text is searched for the listed words only (a page's snapshot
   * is mostly other words): around each, the name it is part of, and after the name a value.
   */
  #named(s: string, hidden: string): string {
    const anyWord = this.#anyWord;
    if (!anyWord) return s;
    let out = '';
    let copied = 0;
    anyWord.lastIndex = 0;
    for (let m = anyWord.exec(s); m; m = anyWord.exec(s)) {
      let start = m.index;
      let end = start + m[0].length;
      while (start > 0 && isNameChar(s.charCodeAt(start - 1))) start--;
      while (end < s.length && isNameChar(s.charCodeAt(end))) end++;
      const value = start >= copied ? this.#valueAfter(s, start, end) : undefined;
      if (value) {
        out += s.slice(copied, value.from) + hidden;
        copied = value.to;
      }
      anyWord.lastIndex = Math.max(end, copied);
    }
    return copied === 0 ? s : out + s.slice(copied);
  }

  /** The value a credential's name (the name characters at start…end, maybe quoted) introduces, if it is one. */
  #valueAfter(s: string, start: number, end: number): Span | undefined {
    // A quoted name ("name", 'name', \"name\" in escaped JSON): a member, `"name": value`.
    const quote = s.startsWith('\\"', end) ? '\\"' : s[end] === '"' || s[end] === "'" ? s[end]! : undefined;
    if (quote) {
      const open = openingQuote(s, quote, start);
      if (open < 0) return undefined;
      const next = skipSpace(s, end + quote.length, true);
      // `"name": value` (a member), or `("name", "value"` / `["name", "value"` (a call's first
      // arguments, a pair; not a member's value followed by the next member: `"a": "token", "b"`).
      const from = skipSpace(s, next + 1, true);
      const value = s[next] === ':' ? (quoted(s, from) ?? bare(s, from, JSON_END)) : s[next] === ',' && /[([]/.test(s[skipBack(s, open)] ?? '') ? quoted(s, from) : undefined;
      return value && this.test(unescape(s.slice(open + quote.length, end))) ? value : undefined;
    }
    const name = s.slice(start, end);
    const after = skipSpace(s, end, false);
    // `name=value`, `name = "value"` (not `==`).
    if (s[after] === '=' && s[after + 1] !== '=') {
      const value = after === end ? (quoted(s, after + 1) ?? bracketed(s, after + 1) ?? bare(s, after + 1, ASSIGNED_END)) : quoted(s, skipSpace(s, after + 1, false));
      return value && this.test(decoded(name)) ? value : undefined;
    }
    if (s[after] !== ':' || s[after + 1] === '/') return undefined;
    const from = skipSpace(s, after + 1, false);
    // A header line, `Name: value` at a line's start: the rest of the line (inside its quotes, if quoted).
    const lineStart = start === 0 || s[start - 1] === '\n';
    const value = quoted(s, from) ?? (lineStart && HEADER_NAME.test(name) ? bare(s, from, LINE_END) : undefined);
    return value && this.test(name) ? value : undefined;
  }

  /** An `<input>` or `<meta>` tag whose name is a credential's: its value (or content) hidden. */
  #formTag(tag: string, hidden: string): string {
    const name = /\sname\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i.exec(tag);
    if (!name || !this.test(name[1] ?? name[2] ?? name[3] ?? '')) return tag;
    return tag.replace(/(\s(?:value|content)\s*=\s*)(?:"[^"]*"|'[^']*'|[^\s"'>]+)/gi, (_all, before: string) => `${before}"${hidden}"`);
  }
}

/** A name's words, lower case: split at what is not a letter or a digit, and at lower→upper case. */
export function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Where a value is in a text: from…to (its quotes outside). */
interface Span {
  from: number;
  to: number;
}

/** What a name is made of in a query, a form, a script or JSON: letters, digits, `_ . - [ ] % $`. */
function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45 || c === 91 || c === 93 || c === 37 || c === 36;
}

/** Where a bare value ends: after `=` (a query, a form, a cookie), after a JSON member's colon, at a line's end. */
const ASSIGNED_END = /[\s&;,"'<>#()\\\]]/;
const JSON_END = /[\s,;{}[\]"'<>]/;
const LINE_END = /[\r\n]/;
/** A header's name, as a header line starts. */
const HEADER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** The quote before a quoted name: right before it, or further back on its line (a name with spaces, `"Api Key"`). */
function openingQuote(s: string, quote: string, start: number): number {
  if (s.startsWith(quote, start - quote.length)) return start - quote.length;
  const open = s.lastIndexOf(quote, start - 1);
  return open >= 0 && start - open <= 200 && !/[\n"']/.test(s.slice(open + quote.length, start)) ? open : -1;
}

/** Where the last character before `at` that is not a space is (-1: none). */
function skipBack(s: string, at: number): number {
  let i = at - 1;
  while (i >= 0 && /\s/.test(s[i]!)) i--;
  return i;
}

function skipSpace(s: string, at: number, newlines: boolean): number {
  let i = at;
  while (i < s.length && (s[i] === ' ' || s[i] === '\t' || (newlines && (s[i] === '\n' || s[i] === '\r')))) i++;
  return i;
}

/** A quoted value at `at` ("…", '…', `…`, \"…\"): inside its quotes, up to the closing one (or the line's end, or the text's, when it was cut). */
function quoted(s: string, at: number): Span | undefined {
  const escaped = s.startsWith('\\"', at);
  const quote = escaped ? '"' : s[at];
  if (!escaped && quote !== '"' && quote !== "'" && quote !== '`') return undefined;
  const from = at + (escaped ? 2 : 1);
  let i = from;
  while (i < s.length) {
    const c = s[i];
    if (escaped ? s.startsWith('\\"', i) : c === quote) break;
    if (c === '\n' && quote !== '`') break;
    i += c === '\\' && !escaped ? 2 : 1;
  }
  const to = Math.min(i, s.length);
  return to > from ? { from, to } : undefined;
}

/** A bracketed value (`[redacted]`, a value already hidden): whole. */
function bracketed(s: string, at: number): Span | undefined {
  if (s[at] !== '[') return undefined;
  const close = s.indexOf(']', at);
  return close > at && !/\s/.test(s.slice(at, close)) ? { from: at, to: close + 1 } : undefined;
}

/** A bare value at `at`, up to what ends it. */
function bare(s: string, at: number, ends: RegExp): Span | undefined {
  let i = at;
  while (i < s.length && !ends.test(s[i]!)) i++;
  return i > at ? { from: at, to: i } : undefined;
}

/** A multipart field: its part's headers (the name in Content-Disposition), a blank line, its value up to the boundary. */
const MULTIPART_FIELD = /(Content-Disposition:[ \t]*form-data;[^\r\n]*?\bname="([^"\r\n]*)"[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*?\r?\n)([\s\S]*?)(?=\r?\n--|$)/gi;
/** A URL's password: `scheme://user:password@host`. */
const URL_PASSWORD = /(:\/\/[^/\s:@"'<>?#]*:)[^/\s@"'<>?#]+@/g;
/** Tags that carry a form's field or a page's token by name. */
const FORM_TAG = /<(?:input|meta)\b[^>]*>/gi;
const FORM_TAG_START = /<(?:input|meta)\b/i;

/** A name as written in a query or a form (`user%5Bpassword%5D`), decoded if it can be. */
function decoded(name: string): string {
  if (!name.includes('%')) return name;
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** A quoted name's escapes undone enough to split it into words. */
function unescape(name: string): string {
  return name.includes('\\') ? name.replace(/\\(.)/g, '$1') : name;
}
