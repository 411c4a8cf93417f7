// A DOM snapshot's HTML (what src/trace/page/snapshot.js or a browser's outerHTML writes) as the
// node tree Playwright's trace format keeps (packages/trace/src/snapshot.ts: NodeSnapshot = a text,
// or [name, attributes, ...children]). Not a general HTML parser: it reads serialized HTML, in
// which every element but the void ones is closed, attributes are quoted, and texts are escaped
// (raw only inside <style> and the like). Pure.

export type NodeSnapshot = string | [[number, number]] | [string, Record<string, string>, ...NodeSnapshot[]];
export type ElementSnapshot = [string, Record<string, string>, ...NodeSnapshot[]];

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr', 'param', 'keygen']);
/** Elements whose content is raw text up to their end tag (RAWTEXT), or text with character references (RCDATA). */
const RAW = new Set(['style', 'script', 'xmp', 'noembed', 'noframes', 'noscript']);
const RCDATA = new Set(['textarea', 'title']);

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Character references as serializers write them (named: the few they use; numeric: all). */
export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

/** The document's doctype name and its root element (an <html> made when the HTML has none). */
export function htmlToNodes(html: string): { doctype?: string; root: ElementSnapshot } {
  let doctype: string | undefined;
  const top: ElementSnapshot = ['#root', {}];
  const stack: ElementSnapshot[] = [top];
  const names: string[] = ['#root'];
  const append = (node: NodeSnapshot) => {
    const parent = stack[stack.length - 1]!;
    const last = parent[parent.length - 1];
    // Adjacent texts as one (a reference, a comment left out between them).
    if (typeof node === 'string' && typeof last === 'string' && parent.length > 2) parent[parent.length - 1] = last + node;
    else parent.push(node);
  };
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      append(decodeEntities(html.slice(i)));
      break;
    }
    if (lt > i) append(decodeEntities(html.slice(i, lt)));
    i = lt;
    if (html.startsWith('<!--', i)) {
      const end = html.indexOf('-->', i + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    if (html[i + 1] === '!' || html[i + 1] === '?') {
      const end = html.indexOf('>', i);
      const m = /^<!doctype\s+([^\s>]+)/i.exec(html.slice(i, end + 1));
      if (m) doctype = m[1];
      i = end < 0 ? html.length : end + 1;
      continue;
    }
    if (html[i + 1] === '/') {
      const m = /^<\/([^\s/>]+)[^>]*>/.exec(html.slice(i));
      if (!m) {
        append('<');
        i++;
        continue;
      }
      const name = m[1]!.toLowerCase();
      const at = names.lastIndexOf(name);
      if (at > 0) {
        stack.length = at;
        names.length = at;
      }
      i += m[0].length;
      continue;
    }
    const tag = readStartTag(html, i);
    if (!tag) {
      append('<');
      i++;
      continue;
    }
    i = tag.end;
    const element: ElementSnapshot = [tag.name, tag.attributes];
    append(element);
    const lower = tag.name.toLowerCase();
    if (VOID.has(lower) || tag.selfClosing) continue;
    if (RAW.has(lower) || RCDATA.has(lower)) {
      const close = indexOfCaseless(html, `</${lower}`, i);
      const text = html.slice(i, close < 0 ? html.length : close);
      if (text) element.push(RCDATA.has(lower) ? decodeEntities(text) : text);
      const end = close < 0 ? html.length : html.indexOf('>', close);
      i = end < 0 ? html.length : end + 1;
      continue;
    }
    stack.push(element);
    names.push(lower);
  }
  const children = top.slice(2) as NodeSnapshot[];
  const html0 = children.find((c): c is ElementSnapshot => Array.isArray(c) && typeof c[0] === 'string' && c[0].toLowerCase() === 'html');
  const root: ElementSnapshot = html0 ?? ['html', {}, ...children.filter((c) => typeof c !== 'string' || c.trim() !== '')];
  return { ...(doctype && { doctype }), root };
}

/** Where `needle` (lower case) is in `html` from `from` on, whatever the case there. */
function indexOfCaseless(html: string, needle: string, from: number): number {
  const re = new RegExp(needle.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), 'ig');
  re.lastIndex = from;
  return re.exec(html)?.index ?? -1;
}

function readStartTag(html: string, at: number): { name: string; attributes: Record<string, string>; selfClosing: boolean; end: number } | undefined {
  const m = /^<([a-zA-Z][^\s/>]*)/.exec(html.slice(at, at + 200));
  if (!m) return undefined;
  const attributes: Record<string, string> = {};
  const seen = new Set<string>();
  let i = at + m[0].length;
  const space = () => {
    while (i < html.length && /\s/.test(html[i]!)) i++;
  };
  for (;;) {
    space();
    if (i >= html.length) return { name: m[1]!, attributes, selfClosing: false, end: i };
    if (html[i] === '>') return { name: m[1]!, attributes, selfClosing: false, end: i + 1 };
    if (html.startsWith('/>', i)) return { name: m[1]!, attributes, selfClosing: true, end: i + 2 };
    if (html[i] === '/') {
      i++;
      continue;
    }
    const n = /[^\s"'>/=]+/y;
    n.lastIndex = i;
    const name = n.exec(html)?.[0] ?? html[i]!;
    i += name.length;
    space();
    let value = '';
    if (html[i] === '=') {
      i++;
      space();
      const quote = html[i];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, i + 1);
        const end = close < 0 ? html.length : close;
        value = html.slice(i + 1, end);
        i = end + 1;
      } else {
        const v = /[^\s>]*/y;
        v.lastIndex = i;
        value = v.exec(html)![0];
        i += value.length;
      }
    }
    // The first of a repeated attribute counts, as the HTML parser has it.
    if (!seen.has(name.toLowerCase())) {
      seen.add(name.toLowerCase());
      attributes[name] = decodeEntities(value);
    }
  }
}
