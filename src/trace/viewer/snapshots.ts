// A trace's DOM snapshots as its readers need them (docs/traces.md, "Snapshots"): a snapshot file
// is a node tree in which what did not change since an earlier snapshot of its document is a
// reference into that one (`[[version, index]]`: the index-th node, counted after its children,
// of that version of the document, in the file the snapshot's `documents` names). Here they are
// resolved: to HTML for the viewer's frame and the comparison with the last pass, and to a whole
// tree for Playwright's export. A snapshot file of an older trace is HTML, and read as it is.
// Pure: it runs in the viewer's page, in show-trace and in the gateway alike.

/** A node of a snapshot: a text, an element `[tag, attributes, ...children]`, or a reference. */
export type SnapshotNode = string | [[number, number]] | [string, Record<string, string>, ...SnapshotNode[]];
export type ElementNode = [string, Record<string, string>, ...SnapshotNode[]];

/** A snapshot file as the recorder writes it. */
export interface SnapshotFile {
  wdgateSnapshot: 1;
  /** Which document this is, and which of its snapshots. */
  document: { id: string; version: number };
  /** `id:version` → the file holding that snapshot, for each one its references name. */
  documents: Record<string, string>;
  doctype?: string;
  html: SnapshotNode;
}

/** Reads a file of the trace by its name (undefined: not there). */
export type ReadFile = (name: string) => string | undefined;

/** A snapshot's name says what it is: HTML (older traces), or a tree (issue 38 on). */
export const isTree = (name: string) => name.endsWith('.json');

/** The policy every rendered document carries first: nothing runs or is fetched but inline styles and data: pictures. */
export const CAPTURE_POLICY = "default-src 'none'; img-src data:; media-src data:; font-src data:; style-src 'unsafe-inline'";

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr', 'param', 'keygen']);
/** Elements a snapshot never renders, whatever a file says (a crafted trace). */
const NEVER = new Set(['script', 'noscript', 'object', 'embed', 'applet', 'portal', 'base']);
const SAFE_NAME = /^[^\s"'>/=\u0000-\u001f]+$/;
const SAFE_DOCTYPE = /[^a-zA-Z0-9]/g;

const escapeText = (s: string) => (/[&<>\u00a0]/.test(s) ? s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\u00a0/g, '&nbsp;') : s);
const escapeAttr = (s: string) => (/[&"\u00a0]/.test(s) ? s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/\u00a0/g, '&nbsp;') : s);
// Text inside <style> is raw: only a closing tag could end it early.
const escapeStyle = (s: string) => s.replace(/<\/style/gi, '<\\/style');

const isElement = (n: unknown): n is ElementNode => Array.isArray(n) && typeof n[0] === 'string';
const isReference = (n: unknown): n is [[number, number]] => Array.isArray(n) && Array.isArray(n[0]);

/** Where a document's version is: its file, and its root element in it. */
interface Located {
  file: Parsed;
  root: SnapshotNode;
}

interface Parsed extends SnapshotFile {
  name: string;
}

export class Snapshots {
  readonly #read: ReadFile;
  readonly #parsed = new Map<string, Parsed | null>();
  /** Post-order nodes of a document's version, by `file|id:version`. */
  readonly #nodes = new Map<string, SnapshotNode[]>();

  constructor(read: ReadFile) {
    this.#read = read;
  }

  /** The snapshot as the HTML of its document (frames' documents as srcdoc), nothing in it that runs or fetches. */
  html(name: string): string | undefined {
    if (!isTree(name)) return this.#read(name);
    const file = this.#file(name);
    if (!file) return undefined;
    return renderDocument(file.doctype, this.#resolve(file.html, file, file.document.id, new Set()) as SnapshotNode);
  }

  /** The snapshot's tree with every reference resolved (a reference that cannot be: left out), or undefined. */
  tree(name: string): { doctype?: string; html: ElementNode } | undefined {
    const file = this.#file(name);
    if (!file) return undefined;
    const html = this.#resolve(file.html, file, file.document.id, new Set());
    return isElement(html) ? { ...(file.doctype && { doctype: file.doctype }), html } : undefined;
  }

  /** A snapshot file of the tree kind, parsed (undefined: not one, or not there). */
  file(name: string): SnapshotFile | undefined {
    return isTree(name) ? this.#file(name) : undefined;
  }

  /** A reference of snapshot file `name` (its top document's) resolved: the subtree it stands for, or undefined. */
  reference(name: string, reference: [[number, number]]): SnapshotNode | undefined {
    const file = this.#file(name);
    return file && this.#resolve(reference, file, file.document.id, new Set());
  }

  #file(name: string): Parsed | undefined {
    let parsed = this.#parsed.get(name);
    if (parsed === undefined) {
      parsed = null;
      const text = this.#read(name);
      try {
        const json = text === undefined ? undefined : (JSON.parse(text) as SnapshotFile);
        if (json && json.wdgateSnapshot === 1 && json.document && typeof json.document.id === 'string') parsed = { ...json, documents: json.documents ?? {}, name };
      } catch {
        parsed = null;
      }
      this.#parsed.set(name, parsed);
    }
    return parsed ?? undefined;
  }

  /** The node with every reference in it resolved (`seen`: the references being followed, against a loop). */
  #resolve(node: SnapshotNode, file: Parsed, doc: string, seen: Set<string>): SnapshotNode | undefined {
    if (typeof node === 'string') return node;
    if (isReference(node)) {
      const [version, index] = node[0];
      const key = `${doc}:${version}#${index}`;
      if (seen.has(key)) return undefined;
      const located = this.#locate(file, doc, version);
      const target = located && this.#nodesOf(located, doc, version)[index];
      if (target === undefined) return undefined;
      seen.add(key);
      const resolved = this.#resolve(target, located!.file, doc, seen);
      seen.delete(key);
      return resolved;
    }
    if (!isElement(node)) return undefined;
    const [tag, attrs, ...children] = node;
    // A frame's document of its own: its references name its own versions.
    const inner = tag === '#document' && typeof attrs?.id === 'string' ? attrs.id : doc;
    const out: ElementNode = [tag, attrs ?? {}];
    for (const child of children) {
      const resolved = this.#resolve(child, file, inner, seen);
      if (resolved !== undefined) out.push(resolved);
    }
    return out;
  }

  /** The file holding version `version` of document `doc`, as `file` names it, and that document's root there. */
  #locate(file: Parsed, doc: string, version: number): Located | undefined {
    const own = file.document.id === doc && file.document.version === version;
    const holder = own ? file : this.#file(file.documents[`${doc}:${version}`] ?? '');
    if (!holder) return undefined;
    if (holder.document.id === doc && holder.document.version === version) return { file: holder, root: holder.html };
    const root = findDocument(holder.html, doc, version);
    return root === undefined ? undefined : { file: holder, root };
  }

  #nodesOf(located: Located, doc: string, version: number): SnapshotNode[] {
    const key = `${located.file.name}|${doc}:${version}`;
    let nodes = this.#nodes.get(key);
    if (!nodes) {
      nodes = [];
      postOrder(located.root, nodes);
      this.#nodes.set(key, nodes);
    }
    return nodes;
  }
}

/**
 * A document's nodes in the order the page counted them: each text and element after its
 * children; references are not counted, and a frame's document of its own counts as one node
 * (its nodes are its own document's).
 */
function postOrder(node: SnapshotNode, into: SnapshotNode[]): void {
  if (typeof node === 'string') {
    into.push(node);
    return;
  }
  if (!isElement(node)) return;
  const [tag, attrs, ...children] = node;
  if (!(tag === '#document' && typeof attrs?.id === 'string')) for (const child of children) postOrder(child, into);
  into.push(node);
}

/** The root of a frame's document `id` at `version` inside a tree. */
function findDocument(node: SnapshotNode, id: string, version: number): SnapshotNode | undefined {
  if (!isElement(node)) return undefined;
  const [tag, attrs, ...children] = node;
  if (tag === '#document' && attrs?.id === id && attrs.version === String(version)) return children[0];
  for (const child of children) {
    const found = findDocument(child, id, version);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A document (the top one, or a frame's) as HTML: its policy and charset first in its head. */
function renderDocument(doctype: string | undefined, html: SnapshotNode | undefined): string {
  const safe = doctype?.replace(SAFE_DOCTYPE, '');
  const out: string[] = [safe ? `<!DOCTYPE ${safe}>` : ''];
  const head = `<meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${CAPTURE_POLICY}">`;
  if (!isElement(html)) {
    out.push(`<html><head>${head}</head></html>`);
    return out.join('');
  }
  const [tag, attrs, ...children] = html;
  out.push('<html', attributes(attrs), '>');
  const first = children.find(isElement);
  if (first?.[0] !== 'head') out.push(`<head>${head}</head>`);
  for (const child of children) {
    if (child === first && first[0] === 'head') {
      out.push('<head', attributes(first[1]), '>', head);
      for (const c of first.slice(2) as SnapshotNode[]) render(c, 'head', out);
      out.push('</head>');
    } else render(child, tag, out);
  }
  out.push('</html>');
  return out.join('');
}

function attributes(attrs: Record<string, string> | undefined): string {
  let out = '';
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (!SAFE_NAME.test(name) || /^on/i.test(name) || typeof value !== 'string') continue;
    out += ` ${name}="${escapeAttr(value)}"`;
  }
  return out;
}

function render(node: SnapshotNode, parent: string, out: string[]): void {
  if (typeof node === 'string') {
    out.push(parent === 'style' ? escapeStyle(node) : escapeText(node));
    return;
  }
  if (!isElement(node)) return;
  const [tag, attrs, ...children] = node;
  if (!SAFE_NAME.test(tag) || tag.startsWith('#') || NEVER.has(tag.toLowerCase())) return;
  if (tag === 'iframe' || tag === 'frame') {
    const { srcdoc: _srcdoc, src: _src, ...rest } = attrs;
    const inner = children.find((c): c is ElementNode => isElement(c) && c[0] === '#document');
    const document = inner && renderDocument(inner[1].doctype, inner[2]);
    out.push('<iframe', attributes(rest), document !== undefined ? ` srcdoc="${escapeAttr(document)}"` : '', '></iframe>');
    return;
  }
  out.push('<', tag, attributes(attrs), '>');
  if (VOID.has(tag)) return;
  for (const child of children) render(child, tag, out);
  out.push('</', tag, '>');
}
