// Firefox's pref files (a profile's user.js and prefs.js), read as Firefox's own parser reads them
// (modules/libpref/parser: `user_pref`, `pref` or `sticky_pref`, "(", a name, ",", a string, a
// boolean or an integer, optional attributes, ")" ";"; comments `//`, `#` and `/* */`; strings in
// either quote with \" \' \\ \n \r \xHH \uHHHH escapes). A name is judged after its escapes are
// decoded, as Firefox decodes them, so that no spelling hides a pref. Where Firefox's parser
// would skip a statement it cannot read and go on, this one refuses the file: what it cannot read
// is not let through.

export type PrefValue = string | number | boolean;

export class PrefsFileError extends Error {}

const KEYWORDS = ['user_pref', 'sticky_pref', 'pref'];
const ATTRIBUTES = ['sticky', 'locked'];

/** Every pref set in a pref file, in order (a name set twice appears twice: the last wins). */
export function parsePrefsFile(text: string): [string, PrefValue][] {
  let at = 0;
  let line = 1;
  const fail = (why: string): never => {
    throw new PrefsFileError(`line ${line}: ${why}`);
  };
  const skip = () => {
    for (;;) {
      const c = text[at];
      if (c === '\n') line++;
      if (c === ' ' || c === '\t' || c === '\r' || c === '\n' || c === '\f' || c === '\v') at++;
      else if (c === '#' || (c === '/' && text[at + 1] === '/')) while (at < text.length && text[at] !== '\n') at++;
      else if (c === '/' && text[at + 1] === '*') {
        const end = text.indexOf('*/', at + 2);
        if (end === -1) fail('a comment is not closed');
        for (let i = at; i < end; i++) if (text[i] === '\n') line++;
        at = end + 2;
      } else return;
    }
  };
  const expect = (c: string) => {
    skip();
    if (text[at] !== c) fail(`expected ${JSON.stringify(c)}, found ${JSON.stringify(text.slice(at, at + 12) || 'the end')}`);
    at++;
  };
  const word = (): string => {
    skip();
    const m = /^[A-Za-z_]+/.exec(text.slice(at, at + 32));
    return m ? m[0] : '';
  };
  const string = (): string => {
    skip();
    const quote = text[at];
    if (quote !== '"' && quote !== "'") return fail('expected a string');
    at++;
    let out = '';
    for (;;) {
      if (at >= text.length) fail('a string is not closed');
      const c = text[at++]!;
      if (c === quote) return out;
      if (c === '\n') line++;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = text[at++];
      if (e === '"' || e === "'" || e === '\\') out += e;
      else if (e === 'n') out += '\n';
      else if (e === 'r') out += '\r';
      else if (e === 'x' || e === 'u') {
        const digits = e === 'x' ? 2 : 4;
        const hex = text.slice(at, at + digits);
        if (!new RegExp(`^[0-9A-Fa-f]{${digits}}$`).test(hex)) fail(`a \\${e} escape needs ${digits} hex digits`);
        at += digits;
        out += String.fromCharCode(parseInt(hex, 16));
      } else fail(`an unknown escape \\${e ?? ''}`);
    }
  };
  const value = (): PrefValue => {
    skip();
    const c = text[at];
    if (c === '"' || c === "'") return string();
    const w = word();
    if (w === 'true' || w === 'false') {
      at += w.length;
      return w === 'true';
    }
    const m = /^[+-]?\d+/.exec(text.slice(at, at + 24));
    if (!m) return fail('expected a string, true, false or an integer');
    at += m[0].length;
    const n = Number(m[0]);
    if (!Number.isSafeInteger(n) || n > 2 ** 31 - 1 || n < -(2 ** 31)) fail(`${m[0]} is out of an integer pref's range`);
    if (/^[A-Za-z_.]/.test(text[at] ?? '')) fail('expected a string, true, false or an integer');
    return n;
  };

  const prefs: [string, PrefValue][] = [];
  for (;;) {
    skip();
    if (at >= text.length) return prefs;
    const keyword = word();
    if (!KEYWORDS.includes(keyword)) fail(`expected user_pref, pref or sticky_pref, found ${JSON.stringify(text.slice(at, at + 12))}`);
    at += keyword.length;
    expect('(');
    const name = string();
    if (name.includes('\0')) fail('a pref name holds a NUL character');
    expect(',');
    const v = value();
    skip();
    while (text[at] === ',') {
      at++;
      const attribute = word();
      if (!ATTRIBUTES.includes(attribute)) fail('expected an attribute (sticky, locked)');
      at += attribute.length;
      skip();
    }
    expect(')');
    expect(';');
    prefs.push([name, v]);
  }
}
