// A wdgate trace as a Playwright trace (GET /wdgate/sessions/{id}/trace?format=playwright), for
// Playwright's own trace viewer (`npx playwright-core show-trace`, trace.playwright.dev): written from
// Playwright's format as packages/trace/src/trace.ts and snapshot.ts define it, in its version 8
// (snapshots named by the actions, files by their SHA-1 under resources/): an older version its
// viewers since read, the playwright-core 1.64.1 this project ships included (its trace modernizer
// brings it to its own version 10 as it loads it). One context; a page per
// window; each step an action with its before, input (action) and after DOM snapshots, its error
// and its parameters; the screenshots as the page's screencast frames; console lines, page errors
// and the HAR's requests (with the bodies the trace kept). Made
// when asked, on the gateway's thread: it yields to other sessions between steps.
import { createHash } from 'node:crypto';
import { setImmediate as yieldToOthers } from 'node:timers/promises';
import { strToU8, Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import { actionOf, afterOf, beforeOf, filmstrip, type PhaseView } from '../viewer/captures.ts';
import { locators, readTrace, type Har, type Trace, type TraceStep } from '../viewer/model.ts';
import { htmlToNodes, type ElementSnapshot, type NodeSnapshot } from './html-nodes.ts';
import { isTree, Snapshots, type SnapshotNode } from '../viewer/snapshots.ts';

/** Playwright's trace format version written (packages/trace/src/trace.ts VERSION). */
export const PLAYWRIGHT_TRACE_VERSION = 8;
/** A snapshot's viewport when the trace does not say (Playwright's default context size). */
const DEFAULT_VIEWPORT = { width: 1280, height: 720 };

type Event = Record<string, unknown>;

/** The Playwright trace zip of a wdgate trace zip. Throws TraceError for a file that is not a trace. */
export async function toPlaywrightTrace(zip: Uint8Array): Promise<Uint8Array> {
  const trace = readTrace(zip);
  const writer = new Writer(trace);
  await writer.run();
  const chunks: Uint8Array[] = [];
  const out = new Zip((error, chunk) => {
    if (error) throw error;
    chunks.push(chunk);
  });
  await addLines(out, 'trace.trace', writer.events);
  await addLines(out, 'trace.network', writer.network);
  for (const [path, bytes] of writer.files) {
    // Pictures are compressed already: stored as they are.
    const file = imageSize(bytes) ? new ZipPassThrough(path) : new ZipDeflate(path, { level: 6 });
    out.add(file);
    file.push(bytes, true);
    await yieldToOthers();
  }
  out.end();
  return Buffer.concat(chunks);
}

/** Events as NDJSON, deflated a part at a time with other sessions' work between parts (a trace's snapshots run to megabytes). */
async function addLines(zip: Zip, name: string, events: readonly Event[]): Promise<void> {
  const file = new ZipDeflate(name, { level: 6 });
  zip.add(file);
  let part = '';
  for (const [i, event] of events.entries()) {
    part += (i ? '\n' : '') + JSON.stringify(event);
    if (part.length < PART) continue;
    file.push(strToU8(part));
    part = '';
    await yieldToOthers();
  }
  file.push(strToU8(part), true);
}

/** How much text is deflated at once. */
const PART = 256 * 1024;

class Writer {
  readonly events: Event[] = [];
  readonly network: Event[] = [];
  /** The zip's entries besides the trace: screenshots and bodies under resources/. */
  readonly files = new Map<string, Uint8Array>();
  readonly #trace: Trace;
  readonly #start: number;
  /** Frame snapshots written per frame id: where each snapshot file's tree first went, for references. */
  readonly #frames = new Map<string, { count: number; first: Map<string, { index: number; nodes: number }> }>();
  /** Snapshot files parsed, by page, file and marked element: the main frame's tree and its frames'. */
  readonly #parsed = new Map<string, Array<{ frameId: string; root: ElementSnapshot; doctype?: string }>>();
  /** wdgate's snapshot trees, their references resolved where need be (../viewer/snapshots.ts). */
  readonly #snapshots: Snapshots;
  /** By `page|document id:version`: the index among the page's frame snapshots where that version was written unmarked, its counting kept. */
  readonly #written = new Map<string, number>();
  #page = 'page@main';
  /** What found each element (the steps addressing one are titled with it). */
  readonly #found: ReturnType<typeof locators>;

  constructor(trace: Trace) {
    this.#trace = trace;
    const decoder = new TextDecoder();
    this.#snapshots = new Snapshots((name) => (trace.files[name] ? decoder.decode(trace.files[name]) : undefined));
    this.#found = locators(trace.steps);
    const started = Date.parse(trace.session.startedAt ?? '');
    this.#start = Math.min(Number.isFinite(started) ? started : Infinity, trace.steps[0]?.startedAt ?? Infinity);
    if (!Number.isFinite(this.#start)) this.#start = 0;
  }

  async run(): Promise<void> {
    const { session, steps } = this.#trace;
    const viewport = steps.map((s) => s.viewport ?? s.before?.viewport ?? s.action?.viewport).find(Boolean);
    this.events.push({
      type: 'context-options',
      version: PLAYWRIGHT_TRACE_VERSION,
      origin: 'library',
      browserName: playwrightBrowser(session.engine, session.browserName),
      platform: String(session.answeredCapabilities?.platformName ?? ''),
      wallTime: this.#start,
      monotonicTime: this.#start,
      title: session.name ?? `wdgate session ${session.id}`,
      options: { viewport: viewport ? { width: viewport.width, height: viewport.height } : DEFAULT_VIEWPORT },
    });
    for (const step of steps) {
      this.#step(step);
      await yieldToOthers();
    }
    this.#screencast();
    this.#console();
    this.#requests();
    if (session.endCause === 'crashed') this.events.push({ type: 'error', message: session.endReason ?? 'the browser went away' });
  }

  #pageOf(window: string | undefined): string {
    if (window) this.#page = `page@${window.replace(/[^\w-]/g, '_')}`;
    return this.#page;
  }

  #step(step: TraceStep): void {
    const steps = this.#trace.steps;
    const callId = `call@${step.n}`;
    const pageId = this.#pageOf(step.window);
    const end = step.startedAt + (step.durationMs ?? 0);
    const aside = step.kind === 'marker' || step.kind === 'event';
    const before = aside ? {} : beforeOf(steps, step.n);
    const after = aside ? {} : afterOf(steps, step.n);
    const action = actionOf(steps, step.n);
    // Each action event names its snapshot before the snapshot comes (a reader learns its phase from the name).
    const names = { before: before.snapshot && `before@${callId}`, input: step.action && action.snapshot && `input@${callId}`, after: after.snapshot && `after@${callId}` };
    this.events.push({
      type: 'before',
      callId,
      startTime: step.startedAt,
      title: titleOf(step, this.#found),
      class: aside ? 'Test' : 'WebDriver',
      method: step.name,
      params: paramsOf(step),
      pageId,
      ...(names.before && { beforeSnapshot: names.before }),
    });
    if (names.before) this.#snapshot(before, names.before, callId, pageId, step.startedAt, step, undefined);
    if (step.action) {
      this.events.push({ type: 'input', callId, ...(names.input && { inputSnapshot: names.input }), ...(action.point && { point: action.point }), ...(action.element?.box && { box: action.element.box }) });
      if (names.input) this.#snapshot(action, names.input, callId, pageId, step.startedAt, step, action.element);
    }
    this.events.push({
      type: 'after',
      callId,
      endTime: end,
      ...(names.after && { afterSnapshot: names.after }),
      ...(step.error && { error: { name: 'WebDriverError', message: `${step.error.code}: ${step.error.message}` } }),
      ...(step.result !== undefined && { result: { value: step.result } }),
      ...(step.captureError && { annotations: [{ type: 'capture', description: step.captureError }] }),
    });
    if (names.after) this.#snapshot(after, names.after, callId, pageId, end, step, undefined);
  }

  /** A frame snapshot (and its frames') of the view's DOM under `name`; undefined when the view has none. */
  #snapshot(view: PhaseView, name: string, callId: string, pageId: string, time: number, step: TraceStep, element: PhaseView['element']): void {
    const path = view.snapshot?.path;
    const bytes = path && this.#trace.files[path];
    if (!bytes) return;
    const url = this.#trace.steps.find((s) => s.n === view.snapshot!.from)?.url ?? step.url ?? '';
    const viewport = view.viewport ?? DEFAULT_VIEWPORT;
    // The same file with the same element marked is the same trees: parsed and written once,
    // referred to after ("n snapshots of this frame ago, its root").
    const target: Target = { marker: element?.marker, path: element?.marker === undefined ? selectorPath(element?.selector) : undefined };
    const marked = target.marker !== undefined || target.path !== undefined;
    const key = `${pageId}|${path}#${target.marker ?? ''}#${element?.marker === undefined ? (element?.selector ?? '') : ''}`;
    let trees = this.#parsed.get(key);
    // The main frame's snapshot index this one will have (for the references it keeps).
    const index = this.#frames.get(pageId)?.count ?? 0;
    let incremental: { document: string } | undefined;
    if (!trees) {
      const frames: Array<{ frameId: string; root: ElementSnapshot; doctype?: string }> = [];
      let doctype: string | undefined;
      let main: ElementSnapshot | undefined;
      if (isTree(path)) {
        // Unmarked, and without frames: its references kept, as Playwright's (./snapshots: the same counting).
        const kept = marked ? undefined : this.#keepingReferences(path, pageId, index);
        if (kept) {
          ({ doctype, root: main } = kept);
          if (kept.document) incremental = { document: kept.document };
        } else {
          const tree = this.#snapshots.tree(path);
          if (!tree) return;
          doctype = tree.doctype;
          main = adapt(tree.html as ElementSnapshot, `${pageId}-frame`, frames, target);
        }
      } else {
        const parsed = htmlToNodes(new TextDecoder().decode(bytes));
        doctype = parsed.doctype;
        main = adapt(parsed.root, `${pageId}-frame`, frames, target);
      }
      trees = [{ frameId: pageId, root: main, ...(doctype && { doctype }) }, ...frames];
      this.#parsed.set(key, trees);
    }
    // Where its document's version first went, for later snapshots' references.
    if (incremental && !this.#written.has(`${pageId}|${incremental.document}`)) this.#written.set(`${pageId}|${incremental.document}`, index);
    trees.forEach((tree, i) => {
      this.events.push({
        type: 'frame-snapshot',
        snapshot: {
          snapshotName: name,
          callId,
          pageId,
          frameId: tree.frameId,
          frameUrl: i === 0 ? url : 'about:srcdoc',
          timestamp: time,
          wallTime: time,
          collectionTime: 0,
          ...(tree.doctype && { doctype: tree.doctype }),
          html: this.#reference(tree.frameId, key, tree.root),
          resourceOverrides: [],
          viewport: { width: viewport.width, height: viewport.height },
          isMainFrame: i === 0,
        },
      });
    });
  }

  /**
   * A snapshot file (wdgate's tree) as Playwright's tree with its references kept as Playwright's
   * own — "n snapshots of this frame ago, node k" — where the version each names was written for
   * this page before, unmarked (the two formats count nodes alike: texts and elements, after their
   * children, references not counted). Undefined when the snapshot has frames (Playwright keeps
   * those as frame snapshots of their own: counted apart). `document` is given when the tree
   * counts as the file's own does (no reference had to be resolved), so later ones may refer to it.
   */
  #keepingReferences(path: string, pageId: string, index: number): { doctype?: string; root: ElementSnapshot; document?: string } | undefined {
    const file = this.#snapshots.file(path);
    if (!file || hasFrames(file.html)) return undefined;
    let whole = true;
    const convert = (node: SnapshotNode): NodeSnapshot | undefined => {
      if (typeof node === 'string') return node;
      if (Array.isArray(node) && Array.isArray(node[0])) {
        const [version, at] = node[0] as [number, number];
        const first = this.#written.get(`${pageId}|${file.document.id}:${version}`);
        if (first !== undefined) return [[index - first, at]];
        // Not written for this page: the subtree itself (so this tree no longer counts as the file's does).
        whole = false;
        const resolved = this.#snapshots.reference(path, node as [[number, number]]);
        return resolved && Array.isArray(resolved) && typeof resolved[0] === 'string' ? adapt(resolved as ElementSnapshot, `${pageId}-frame`, [], {}) : (resolved as string | undefined);
      }
      if (!Array.isArray(node) || typeof node[0] !== 'string') return undefined;
      const [tag, attributes, ...children] = node as ElementSnapshot;
      const out: ElementSnapshot = [tag, adaptAttributes(attributes, {})];
      for (const child of children) {
        const converted = convert(child as SnapshotNode);
        if (converted !== undefined) out.push(converted);
      }
      return out;
    };
    const root = convert(file.html);
    // Its root a reference (the document as an earlier snapshot wrote it): written whole instead.
    if (!Array.isArray(root) || typeof root[0] !== 'string') return undefined;
    return { ...(file.doctype && { doctype: file.doctype }), root: root as ElementSnapshot, ...(whole && { document: `${file.document.id}:${file.document.version}` }) };
  }

  /** The tree, or (when written for this frame before) a reference to it: "n snapshots ago, its root". */
  #reference(frameId: string, key: string, tree: ElementSnapshot): NodeSnapshot {
    let frame = this.#frames.get(frameId);
    if (!frame) this.#frames.set(frameId, (frame = { count: 0, first: new Map() }));
    const index = frame.count++;
    const first = frame.first.get(key);
    if (first) return [[index - first.index, first.nodes - 1]];
    frame.first.set(key, { index, nodes: countNodes(tree) });
    return tree;
  }

  #screencast(): void {
    for (const frame of filmstrip(this.#trace.steps)) {
      const bytes = this.#trace.files[frame.path];
      const size = bytes && imageSize(bytes);
      if (!size) continue;
      const sha1 = this.#resource(bytes);
      const step = this.#trace.steps.find((s) => s.n === frame.n);
      this.events.push({ type: 'screencast-frame', pageId: this.#pageIdOf(step?.window), sha1, width: size.width, height: size.height, timestamp: frame.at });
    }
  }

  /** A file under resources/, named by its SHA-1 (as version 8 names them). */
  #resource(bytes: Uint8Array): string {
    const sha1 = createHash('sha1').update(bytes).digest('hex');
    this.files.set(`resources/${sha1}`, bytes);
    return sha1;
  }

  #pageIdOf(window: string | undefined): string {
    return window ? `page@${window.replace(/[^\w-]/g, '_')}` : this.#page;
  }

  #console(): void {
    for (const c of this.#trace.console) {
      const pageId = this.#pageIdOf(c.window);
      if (c.type === 'pageerror') {
        this.events.push({ type: 'event', time: c.timestamp, class: 'Page', method: 'pageError', pageId, params: { error: { error: { message: c.text, name: 'Error', ...(c.stack && { stack: c.stack }) } } } });
      } else {
        this.events.push({ type: 'console', time: c.timestamp, pageId, messageType: c.level, text: c.text, location: { url: '', lineNumber: 0, columnNumber: 0 } });
      }
    }
  }

  /** The HAR's entries as Playwright's resource snapshots; a kept body as a file under resources/. */
  #requests(): void {
    const bytes = this.#trace.files['network.har'];
    if (!bytes) return;
    let har: Har;
    try {
      har = JSON.parse(new TextDecoder().decode(bytes)) as Har;
    } catch {
      return;
    }
    for (const entry of har.log?.entries ?? []) {
      const started = Date.parse(entry.startedDateTime ?? '');
      if (!Number.isFinite(started)) continue;
      const { _window: window, ...rest } = entry as typeof entry & Record<string, unknown>;
      const response = { ...(rest.response ?? {}) } as Record<string, unknown> & { content?: Record<string, unknown> };
      const content = { ...(response.content ?? {}) };
      if (typeof content.text === 'string') {
        content._sha1 = this.#resource(strToU8(content.text));
        delete content.text;
      }
      response.content = content;
      this.network.push({ type: 'resource-snapshot', snapshot: { ...rest, response, pageref: this.#pageIdOf(window), _monotonicTime: started } });
    }
  }
}

/**
 * The snapshot tree as Playwright's renderer reads it: scroll positions as its attributes, the
 * addressed element marked as its target, frames inlined by wdgate (srcdoc) as frames of their own.
 */
/**
 * The element Playwright's viewer highlights (`__playwright_target__`): the one carrying the
 * marker, or the one at the selector's path (the recorder's `:nth-child(k)` steps from <html>, or
 * an older trace's `tag:nth-of-type(k)`: an element of the top-level document; tag `*` counts
 * every element), `path` being what is left of it below `node`.
 */
interface Target {
  marker?: string;
  path?: Array<{ tag: string; nth: number }>;
}

/** The recorder's selector as steps from <html>, or undefined for any other selector. */
function selectorPath(selector: string | undefined): Target['path'] {
  const parts = selector?.split(' > ');
  if (!parts || parts[0] !== 'html') return undefined;
  const path: Array<{ tag: string; nth: number }> = [];
  for (const part of parts.slice(1)) {
    const m = /^([a-z][a-z0-9-]*):nth-of-type\((\d+)\)$/.exec(part) ?? /^()(?:\*)?:nth-child\((\d+)\)$/.exec(part);
    if (!m) return undefined;
    path.push({ tag: m[1] || '*', nth: Number(m[2]) });
  }
  return path;
}

/** An element's attributes as Playwright's renderer reads them (scroll positions, the target). */
function adaptAttributes(attributes: Record<string, string>, target: Target): Record<string, string> {
  const attrs: Record<string, string> = {};
  if (target.path?.length === 0) attrs.__playwright_target__ = '';
  for (const [key, value] of Object.entries(attributes ?? {})) {
    if (key === 'data-wdgate-scroll') {
      const [left, top] = value.split(',').map(Number);
      if (left) attrs.__playwright_scroll_left_ = String(left);
      if (top) attrs.__playwright_scroll_top_ = String(top);
    } else if (key === 'data-wdgate-target') {
      if (target.marker !== undefined && value === target.marker) attrs.__playwright_target__ = '';
    } else attrs[key] = value;
  }
  return attrs;
}

/** Whether a snapshot tree holds a frame's document (or its placeholder). */
function hasFrames(node: SnapshotNode): boolean {
  if (!Array.isArray(node) || typeof node[0] !== 'string') return false;
  if (node[0] === '#document' || node[0] === '#frame') return true;
  return (node.slice(2) as SnapshotNode[]).some(hasFrames);
}

function adapt(node: ElementSnapshot, framePrefix: string, frames: Array<{ frameId: string; root: ElementSnapshot; doctype?: string }>, target: Target): ElementSnapshot {
  const [name, attributes, ...children] = node;
  const attrs = adaptAttributes(attributes, target);
  const frame = (root: ElementSnapshot, doctype: string | undefined) => {
    const frameId = `${framePrefix}-${frames.length}`;
    const slot = { frameId, root, ...(doctype && { doctype }) };
    frames.push(slot);
    slot.root = adapt(root, frameId, frames, { marker: target.marker });
    attrs.__playwright_src__ = `/snapshot/${frameId}`;
  };
  if (/^i?frame$/i.test(name)) {
    // An older trace's frame: its document as srcdoc; a snapshot tree's: its #document child.
    const { srcdoc, ...rest } = attrs;
    delete attrs.srcdoc;
    if (srcdoc !== undefined) {
      const inner = htmlToNodes(srcdoc);
      frame(inner.root, inner.doctype);
    }
    const document = children.find((c): c is ElementSnapshot => Array.isArray(c) && c[0] === '#document');
    if (document && Array.isArray(document[2]) && typeof document[2][0] === 'string') frame(document[2] as ElementSnapshot, document[1].doctype);
    return [name, { ...rest, ...(attrs.__playwright_src__ && { __playwright_src__: attrs.__playwright_src__ }) }];
  }
  // Along the selector's path: the child element at its next step (nth-of-type counts by tag, nth-child every element).
  const seen = new Map<string, number>();
  let elements = 0;
  return [
    name,
    attrs,
    ...children.map((c) => {
      if (!(Array.isArray(c) && typeof c[0] === 'string')) return c;
      const child = c as ElementSnapshot;
      const tag = child[0].toLowerCase();
      const nth = (seen.get(tag) ?? 0) + 1;
      seen.set(tag, nth);
      elements++;
      const step = target.path?.[0];
      const at = step && (step.tag === '*' ? step.nth === elements : step.tag === tag && step.nth === nth);
      const below = at ? { marker: target.marker, path: target.path!.slice(1) } : { marker: target.marker };
      return adapt(child, framePrefix, frames, below);
    }),
  ];
}

/** The nodes Playwright counts in a tree (texts and elements, post-order): the root is the last. */
function countNodes(node: NodeSnapshot): number {
  if (typeof node === 'string') return 1;
  if (!Array.isArray(node) || typeof node[0] !== 'string') return 0;
  let n = 1;
  for (const child of (node as ElementSnapshot).slice(2) as NodeSnapshot[]) n += countNodes(child);
  return n;
}

function playwrightBrowser(engine: string | undefined, browserName: string | undefined): string {
  if (engine === 'gecko' || /firefox/i.test(browserName ?? '')) return 'firefox';
  if (engine === 'webkit' || /webkit|safari/i.test(browserName ?? '')) return 'webkit';
  return 'chromium';
}

/** An action's title in Playwright's list: the command and what it aimed at. */
function titleOf(step: TraceStep, found: ReturnType<typeof locators>): string {
  if (step.kind === 'marker') return `⚑ ${step.name}${step.text ? `: ${step.text}` : ''}`;
  if (step.kind === 'event') return `${step.name}${step.text ? `: ${step.text}` : ''}`;
  const p = (step.params ?? {}) as Record<string, unknown>;
  const locator = step.element && found.get(step.element)?.locator;
  const detail = [typeof p.url === 'string' ? p.url : typeof p.using === 'string' && typeof p.value === 'string' ? `${p.using} ${p.value}` : (locator ?? ''), typeof p.text === 'string' ? `"${p.text}"` : ''].filter(Boolean).join(' ');
  // Playwright's title fills in {param}: braces of a page's text are kept as they are.
  return `${step.name}${detail ? ` ${detail.slice(0, 200)}` : ''}`.replace(/[{}]/g, (c) => (c === '{' ? '\u2774' : '\u2775'));
}

function paramsOf(step: TraceStep): Record<string, unknown> {
  const { params } = step;
  if (params !== null && typeof params === 'object' && !Array.isArray(params)) return params as Record<string, unknown>;
  return params === undefined ? {} : { value: params };
}

/** Width and height of a JPEG or PNG (its header), or undefined. */
export function imageSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  if (bytes.length > 24 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined;
  let i = 2;
  while (i + 9 < bytes.length) {
    if (bytes[i] !== 0xff) return undefined;
    const marker = bytes[i + 1]!;
    const length = (bytes[i + 2]! << 8) | bytes[i + 3]!;
    // Start of frame (baseline, progressive, …; not DHT 0xc4, JPG 0xc8, DAC 0xcc).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: (bytes[i + 5]! << 8) | bytes[i + 6]!, width: (bytes[i + 7]! << 8) | bytes[i + 8]! };
    }
    i += 2 + length;
  }
  return undefined;
}
